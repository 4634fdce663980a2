"""The cloth model: a per-pixel background of the rectified bed that adapts slowly, and the foreground score.

Balls are found as what differs from this table's own cloth, never by one fixed colour, so other ball sets
on other cloth work too. The model starts from a robust block-median estimate of the cloth (the rack and
the balls cover far less than half of each block), takes the static details of the first frame (markings,
cushion faces, pocket holes) wherever nothing ball-like sits, and then follows slow light changes by a
running average applied only to pixels that are background and away from balls.

Images are planes (Y, Cr, Cb) of uint8, each (h, w): all per-frame work is saturating integer OpenCV ops.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

Planes = tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass
class ScoreWeights:
    """How a pixel's difference from the cloth is scored (uint8, saturating). Brighter and chroma count
    fully; darker counts a quarter so that ball shadows on the cloth stay mostly background."""

    brighter: float = 1.0
    darker: float = 0.25
    chroma: float = 1.5


def _crop(planes: Planes, box: tuple[int, int, int, int] | None) -> Planes:
    if box is None:
        return planes
    x0, y0, x1, y1 = box
    return (planes[0][y0:y1, x0:x1], planes[1][y0:y1, x0:x1], planes[2][y0:y1, x0:x1])


class ClothModel:
    """Per-pixel (Y, Cr, Cb) background of the rectified bed."""

    def __init__(self, weights: ScoreWeights | None = None, block_px: int = 48, rate: float = 0.02) -> None:
        self.weights = weights or ScoreWeights()
        self.block_px = block_px
        self.rate = rate
        self.bg: list[np.ndarray] = []  # float32 planes
        self.bg_u8: Planes | None = None

    @property
    def ready(self) -> bool:
        return self.bg_u8 is not None

    def smooth_cloth(self, planes: Planes) -> list[np.ndarray]:
        """Block medians of each plane, upsampled: a ball-free estimate of the cloth's slow variation."""
        h, w = planes[0].shape
        b = self.block_px
        nby, nbx = max(1, h // b), max(1, w // b)
        ys = np.linspace(0, h, nby + 1).astype(int)
        xs = np.linspace(0, w, nbx + 1).astype(int)
        out = []
        for p in planes:
            med = np.empty((nby, nbx), np.float32)
            for i in range(nby):
                for j in range(nbx):
                    med[i, j] = np.median(p[ys[i] : ys[i + 1], xs[j] : xs[j + 1]])
            out.append(cv2.resize(med, (w, h), interpolation=cv2.INTER_LINEAR))
        return out

    def initialise(self, planes: Planes, balls_mask: np.ndarray | None = None) -> None:
        """Start from the first rectified frame; `balls_mask` (uint8, 255 = ball) marks pixels to take from
        the smooth cloth estimate instead. Without it, blobs brighter or more colourful than the smooth
        estimate are taken as balls (dark blobs are pockets and gaps, which belong to the background)."""
        smooth = self.smooth_cloth(planes)
        if balls_mask is None:
            s8 = (smooth[0].astype(np.uint8), smooth[1].astype(np.uint8), smooth[2].astype(np.uint8))
            score = self._score(planes, s8, darker=0.0)
            _, not_dark = cv2.threshold(cv2.subtract(s8[0], planes[0]), 19, 255, cv2.THRESH_BINARY_INV)
            balls_mask = blob_mask(cv2.bitwise_and(score, not_dark), threshold=40, min_width=5)
        keep = cv2.dilate(balls_mask, np.ones((5, 5), np.uint8)) == 0
        self.bg = []
        for p, s in zip(planes, smooth, strict=True):
            b = s.copy()
            b[keep] = p[keep]
            self.bg.append(b)
        self.bg_u8 = (self.bg[0].astype(np.uint8), self.bg[1].astype(np.uint8), self.bg[2].astype(np.uint8))

    def score(self, planes: Planes, box: tuple[int, int, int, int] | None = None) -> np.ndarray:
        """(h, w) uint8 difference from the cloth: high where something other than cloth is."""
        if self.bg_u8 is None:
            raise RuntimeError("ClothModel.score called before initialise")
        return self._score(_crop(planes, box), _crop(self.bg_u8, box))

    def _score(self, planes: Planes, bg: Planes, darker: float | None = None) -> np.ndarray:
        wts = self.weights
        y, cr, cb = planes
        by, bcr, bcb = bg
        up = cv2.subtract(y, by)
        down = cv2.subtract(by, y)
        chroma = cv2.add(cv2.absdiff(cr, bcr), cv2.absdiff(cb, bcb))
        s = cv2.addWeighted(up, wts.brighter, down, wts.darker if darker is None else darker, 0.0)
        return cv2.addWeighted(s, 1.0, chroma, wts.chroma, 0.0)

    def ballness(
        self,
        planes: Planes,
        box: tuple[int, int, int, int] | None = None,
        max_darker: int = 12,
        min_chroma: int = 20,
        min_brighter: int = 25,
    ) -> np.ndarray:
        """(h, w) uint8 255 where a pixel looks like a lit ball surface: not darker than the cloth by more than
        max_darker (that is shadow, whose chroma also fades to grey) and either more colourful or brighter.

        Flat over the lit part of the disc whatever the shading, so its centroid does not follow the lamp's
        highlight. `box` (x0, y0, x1, y1) restricts the work to a window."""
        if self.bg_u8 is None:
            raise RuntimeError("ClothModel.ballness called before initialise")
        y, cr, cb = _crop(planes, box)
        by, bcr, bcb = _crop(self.bg_u8, box)
        _, not_dark = cv2.threshold(cv2.subtract(by, y), max_darker, 255, cv2.THRESH_BINARY_INV)
        chroma = cv2.add(cv2.absdiff(cr, bcr), cv2.absdiff(cb, bcb))
        _, colourful = cv2.threshold(chroma, min_chroma - 1, 255, cv2.THRESH_BINARY)
        _, bright = cv2.threshold(cv2.subtract(y, by), min_brighter - 1, 255, cv2.THRESH_BINARY)
        return cv2.bitwise_and(not_dark, cv2.bitwise_or(colourful, bright))

    def update(self, planes: Planes, freeze_mask: np.ndarray) -> None:
        """Running average towards the frame where freeze_mask == 0 (no ball, no occluder)."""
        if self.bg_u8 is None:
            self.initialise(planes)
            return
        free = cv2.bitwise_not(freeze_mask)
        for p, b in zip(planes, self.bg, strict=True):
            cv2.accumulateWeighted(p, b, self.rate, mask=free)
        self.bg_u8 = (self.bg[0].astype(np.uint8), self.bg[1].astype(np.uint8), self.bg[2].astype(np.uint8))


def blob_mask(score: np.ndarray, threshold: int, min_width: int) -> np.ndarray:
    """Threshold the score and open with a disc so that lines, spots and noise drop out."""
    _, mask = cv2.threshold(score, threshold, 255, cv2.THRESH_BINARY)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (min_width, min_width))
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, k)
