"""The cloth model: a per-pixel background of the rectified bed that adapts slowly, and the foreground score.

Balls are found as what differs from this table's own cloth, never by one fixed colour, so other ball sets
on other cloth work too. The model starts from a robust block-median estimate of the cloth (the rack and
the balls cover far less than half of each block), takes the static details of the first frame (markings,
cushion faces, pocket holes) wherever nothing ball-like sits, and then follows slow light changes by a
running average applied only to pixels that are background and away from balls.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class ScoreWeights:
    """How a pixel's difference from the cloth is scored (uint8, saturating). Brighter and chroma count
    fully; darker counts a quarter so that ball shadows on the cloth stay mostly background."""

    brighter: float = 1.0
    darker: float = 0.25
    chroma: float = 1.5


class ClothModel:
    """Per-pixel (Y, Cr, Cb) background of the rectified bed."""

    def __init__(self, weights: ScoreWeights | None = None, block_px: int = 48, rate: float = 0.02) -> None:
        self.weights = weights or ScoreWeights()
        self.block_px = block_px
        self.rate = rate
        self.bg: np.ndarray | None = None  # (h, w, 3) float32
        self._bg_u8: np.ndarray | None = None

    @property
    def ready(self) -> bool:
        return self.bg is not None

    def smooth_cloth(self, rect: np.ndarray) -> np.ndarray:
        """Block medians of the image, upsampled: a ball-free estimate of the cloth's slow variation."""
        h, w = rect.shape[:2]
        b = self.block_px
        nby, nbx = max(1, h // b), max(1, w // b)
        med = np.empty((nby, nbx, 3), np.float32)
        ys = np.linspace(0, h, nby + 1).astype(int)
        xs = np.linspace(0, w, nbx + 1).astype(int)
        for i in range(nby):
            for j in range(nbx):
                blk = rect[ys[i] : ys[i + 1], xs[j] : xs[j + 1]].reshape(-1, 3)
                med[i, j] = np.median(blk, axis=0)
        return cv2.resize(med, (w, h), interpolation=cv2.INTER_LINEAR)

    def initialise(self, rect: np.ndarray, balls_mask: np.ndarray | None = None) -> None:
        """Start from the first rectified frame; `balls_mask` (uint8, 255 = ball) marks pixels to take from
        the smooth cloth estimate instead. Without it, blobs brighter or more colourful than the smooth
        estimate are taken as balls (dark blobs are pockets and gaps, which belong to the background)."""
        smooth = self.smooth_cloth(rect)
        if balls_mask is None:
            smooth_u8 = smooth.astype(np.uint8)
            score = self._score(rect, smooth_u8, darker=0.0)
            darkening = cv2.subtract(np.ascontiguousarray(smooth_u8[..., 0]), np.ascontiguousarray(rect[..., 0]))
            not_dark = ((darkening < 20) * 255).astype(np.uint8)
            balls_mask = blob_mask(cv2.bitwise_and(score, not_dark), threshold=40, min_width=5)
        keep = cv2.dilate(balls_mask, np.ones((5, 5), np.uint8)) == 0
        bg = smooth.copy()
        bg[keep] = rect[keep]
        self.bg = bg
        self._bg_u8 = bg.astype(np.uint8)

    def score(self, rect: np.ndarray) -> np.ndarray:
        """(h, w) uint8 difference from the cloth: high where something other than cloth is."""
        if self._bg_u8 is None:
            raise RuntimeError("ClothModel.score called before initialise")
        return self._score(rect, self._bg_u8)

    def _score(self, rect: np.ndarray, bg: np.ndarray, darker: float | None = None) -> np.ndarray:
        wts = self.weights
        y, cr, cb = cv2.split(rect)
        by, bcr, bcb = cv2.split(bg)
        up = cv2.subtract(y, by)
        down = cv2.subtract(by, y)
        chroma = cv2.add(cv2.absdiff(cr, bcr), cv2.absdiff(cb, bcb))
        s = cv2.addWeighted(up, wts.brighter, down, wts.darker if darker is None else darker, 0.0)
        return cv2.addWeighted(s, 1.0, chroma, wts.chroma, 0.0)

    def ballness(
        self,
        rect: np.ndarray,
        box: tuple[int, int, int, int] | None = None,
        max_darker: int = 12,
        min_chroma: int = 20,
        min_brighter: int = 25,
    ) -> np.ndarray:
        """(h, w) uint8 255 where a pixel looks like a lit ball surface: not darker than the cloth by more than
        max_darker (that is shadow, whose chroma also fades to grey) and either more colourful or brighter.

        Flat over the whole visible disc whatever the shading, so its centroid is the silhouette's centre.
        `box` (x0, y0, x1, y1) restricts the work to a window of the full rectified image."""
        if self._bg_u8 is None:
            raise RuntimeError("ClothModel.ballness called before initialise")
        bg = self._bg_u8
        if box is not None:
            x0, y0, x1, y1 = box
            rect, bg = rect[y0:y1, x0:x1], bg[y0:y1, x0:x1]
        y, cr, cb = cv2.split(rect)
        by, bcr, bcb = cv2.split(bg)
        _, not_dark = cv2.threshold(cv2.subtract(by, y), max_darker, 255, cv2.THRESH_BINARY_INV)
        chroma = cv2.add(cv2.absdiff(cr, bcr), cv2.absdiff(cb, bcb))
        _, colourful = cv2.threshold(chroma, min_chroma - 1, 255, cv2.THRESH_BINARY)
        _, bright = cv2.threshold(cv2.subtract(y, by), min_brighter - 1, 255, cv2.THRESH_BINARY)
        return cv2.bitwise_and(not_dark, cv2.bitwise_or(colourful, bright))

    def update(self, rect: np.ndarray, freeze_mask: np.ndarray) -> None:
        """Running average towards the frame where freeze_mask == 0 (no ball, no occluder)."""
        if self.bg is None:
            self.initialise(rect)
            return
        cv2.accumulateWeighted(rect, self.bg, self.rate, mask=cv2.bitwise_not(freeze_mask))
        self._bg_u8 = self.bg.astype(np.uint8)


def blob_mask(score: np.ndarray, threshold: int, min_width: int) -> np.ndarray:
    """Threshold the score and open with a disc so that lines, spots and noise drop out."""
    _, mask = cv2.threshold(score, threshold, 255, cv2.THRESH_BINARY)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (min_width, min_width))
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, k)
