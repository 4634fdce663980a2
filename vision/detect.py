"""Ball detection in table space: rectify the bed, score against the cloth model, split blobs into discs of
the known radius, refine, classify, and map to table mm at ball-centre height.

cv2 stays in this module and its helpers (rectify, background, blobs); the output is a `Detections`.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.table import Table
from vision.background import ClothModel, blob_mask
from vision.blobs import mean_shift, response_peaks, ring_support
from vision.classify import ColourRule, classify, disc_stats
from vision.rectify import Rectifier, frame_layout
from vision.types import Detections

PATCH = 12  # side of the texture patch kept per ball for spin detection (pixels of the camera frame)


@dataclass
class DetectorConfig:
    mm_per_px: float = 4.0
    threshold: int = 45  # foreground score threshold (see ScoreWeights)
    score_clip: int = 110  # score at which a pixel counts fully in the refinement
    weight_floor: int = 30  # score below which a pixel does not count (shadows, cloth texture)
    min_fill: float = 0.45  # below this mean clipped score inside the disc: not a ball
    max_ring: float = 0.55  # unexplained foreground around a disc above this: part of an occluder
    bg_rate: float = 0.02


class BallDetector:
    """Finds balls in frames of one fixed camera. Keeps a slowly adapting cloth model between frames."""

    def __init__(
        self,
        camera: CameraModel,
        table: Table,
        config: DetectorConfig | None = None,
        colour_rule: ColourRule | None = None,
    ) -> None:
        self.config = config or DetectorConfig()
        self.camera = camera
        self.table = table
        self.rect = Rectifier(camera, table, mm_per_px=self.config.mm_per_px)
        self.cloth = ClothModel(block_px=int(500 / self.config.mm_per_px), rate=self.config.bg_rate)
        self.colour_rule = colour_rule or ColourRule()
        self.r_px = self.rect.radius_px
        self.occluder_mask = np.zeros((self.rect.h, self.rect.w), np.uint8)  # rectified, 255 = occluder
        self.last_rect: np.ndarray | None = None
        self._open = max(3, round(self.r_px * 0.6) | 1)

    # --- main entry ------------------------------------------------------------------------------
    def detect(self, frame: np.ndarray, hints_mm: np.ndarray | None = None) -> Detections:
        """Balls in one BGR or I420 frame. `hints_mm` (S, 2): predicted centres, used to split blobs."""
        rect = self.rect.rectify(frame)
        self.last_rect = rect
        if not self.cloth.ready:
            self.cloth.initialise(rect)
        score = self.cloth.score(rect)
        mask = blob_mask(score, self.config.threshold, self._open)
        cv2.bitwise_and(mask, self.rect.bed_mask, dst=mask)
        lo, hi = self.config.weight_floor, self.config.score_clip
        weights = np.clip((score.astype(np.float32) - lo) / (hi - lo), 0.0, 1.0)
        hints_px = self.rect.to_px(hints_mm) if hints_mm is not None and len(hints_mm) else np.zeros((0, 2))
        centres, conf = self._centres(rect, mask, weights, hints_px)
        self._update_cloth(rect, mask, centres)
        return self._build(frame, rect, centres, conf)

    # --- stages --------------------------------------------------------------------------------
    def _centres(
        self, rect: np.ndarray, mask: np.ndarray, weights: np.ndarray, hints_px: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        r = self.r_px
        disc_area = np.pi * r * r
        n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        all_c: list[np.ndarray] = []
        all_conf: list[np.ndarray] = []
        self.occluder_mask[:] = 0
        pad = int(np.ceil(r)) + 2
        for i in range(1, n):
            x, y, w, h, area = stats[i]
            if area < 0.3 * disc_area:
                continue
            x0, y0 = max(x - pad, 0), max(y - pad, 0)
            x1, y1 = min(x + w + pad, mask.shape[1]), min(y + h + pad, mask.shape[0])
            sub = (labels[y0:y1, x0:x1] == i).astype(np.uint8) * 255
            wsub = weights[y0:y1, x0:x1] * (sub > 0)
            if area < 1.5 * disc_area:
                seeds = np.asarray([cents[i] - (x0, y0)])
            else:
                inside = hints_px[
                    (hints_px[:, 0] >= x0) & (hints_px[:, 0] < x1) & (hints_px[:, 1] >= y0) & (hints_px[:, 1] < y1)
                ]
                inside = inside - (x0, y0)
                if len(inside):
                    ok = sub[np.clip(inside[:, 1].round().astype(int), 0, y1 - y0 - 1),
                             np.clip(inside[:, 0].round().astype(int), 0, x1 - x0 - 1)] > 0
                    inside = inside[ok]
                seeds = _merge_seeds(inside, response_peaks(wsub, r), r)
            if len(seeds) == 0:
                self._mark_occluder(sub, x0, y0)
                continue
            c, fill = mean_shift(wsub, seeds, r)
            # re-centre on the lit-surface mask, flat whatever the shading (score weights follow the
            # lamp's highlight); keep the score result where that mask is empty (a black ball)
            lit = self.cloth.ballness(rect, (x0, y0, x1, y1)).astype(np.float32) / 255.0
            c2, fill2 = mean_shift(lit, c, r)
            use = fill2 >= self.config.min_fill
            c[use] = c2[use]
            c, fill = _dedupe(c, fill, r)
            ring = ring_support(sub, c, r) if area >= 1.5 * disc_area else np.zeros(len(c))
            keep = (fill >= self.config.min_fill) & (ring <= self.config.max_ring)
            covered = np.pi * r * r * keep.sum()
            if area > covered + 1.2 * disc_area:
                self._mark_occluder(sub, x0, y0)
            conf = np.clip(fill, 0, 1) * (1.0 - 0.6 * ring)
            all_c.append(c[keep] + (x0, y0))
            all_conf.append(conf[keep])
        if not all_c:
            return np.zeros((0, 2)), np.zeros(0)
        return np.concatenate(all_c), np.concatenate(all_conf)

    def _mark_occluder(self, sub: np.ndarray, x0: int, y0: int) -> None:
        h, w = sub.shape
        region = self.occluder_mask[y0 : y0 + h, x0 : x0 + w]
        cv2.bitwise_or(region, sub, dst=region)

    def _update_cloth(self, rect: np.ndarray, mask: np.ndarray, centres_px: np.ndarray) -> None:
        freeze = cv2.dilate(mask, np.ones((7, 7), np.uint8))
        for cx, cy in centres_px:
            cv2.circle(freeze, (round(cx), round(cy)), int(np.ceil(self.r_px * 1.6)), 255, -1)
        self.cloth.update(rect, freeze)

    def _build(self, frame: np.ndarray, rect: np.ndarray, centres_px: np.ndarray, conf: np.ndarray) -> Detections:
        if len(centres_px) == 0:
            d = Detections.empty()
            d.data["patch"] = np.zeros((0, PATCH, PATCH), np.uint8)
            return d
        xy_mm = self.rect.to_mm(centres_px)
        stats = disc_stats(rect, centres_px, self.r_px)
        cls = classify(stats, self.colour_rule)
        xy_px = self.rect.image_px(xy_mm)
        dist = np.linalg.norm(
            np.hstack([xy_mm, np.full((len(xy_mm), 1), self.rect.z_mm)]) - self.camera.centre_mm, axis=1
        )
        radius_px = self.camera.K[0, 0] * self.table.ball_radius / dist
        patches = self._patches(frame, xy_px, radius_px)
        return Detections(
            xy_mm, np.clip(conf, 0, 1), cls, xy_px, radius_px, {"patch": patches, "colour": stats}
        )

    def _patches(self, frame: np.ndarray, xy_px: np.ndarray, radius_px: np.ndarray) -> np.ndarray:
        """Grey texture inside each ball (its number, its marks) from the full-resolution frame."""
        layout = frame_layout(frame, self.camera.width, self.camera.height)
        grey = frame[: self.camera.height] if layout == "i420" else frame
        out = np.zeros((len(xy_px), PATCH, PATCH), np.uint8)
        H, W = self.camera.height, self.camera.width
        for k, ((u, v), r) in enumerate(zip(xy_px, radius_px, strict=True)):
            half = max(2, int(r * 0.6))
            x0, y0 = round(u) - half, round(v) - half
            if x0 < 0 or y0 < 0 or x0 + 2 * half >= W or y0 + 2 * half >= H:
                continue
            crop = grey[y0 : y0 + 2 * half, x0 : x0 + 2 * half]
            if crop.ndim == 3:
                crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
            out[k] = cv2.resize(crop, (PATCH, PATCH), interpolation=cv2.INTER_AREA)
        return out


def _merge_seeds(first: np.ndarray, more: np.ndarray, r: float) -> np.ndarray:
    """`first` plus those of `more` not within one radius of any of `first`."""
    if len(first) == 0:
        return more
    far = [p for p in more if np.min(np.hypot(*(first - p).T)) >= r]
    return np.vstack([first, np.asarray(far).reshape(-1, 2)])


def _dedupe(c: np.ndarray, fill: np.ndarray, r: float) -> tuple[np.ndarray, np.ndarray]:
    """Drop centres that converged onto the same ball (closer than one radius), keeping the fuller one."""
    order = np.argsort(-fill)
    kept: list[int] = []
    for i in order:
        if all(np.hypot(*(c[i] - c[j])) >= r for j in kept):
            kept.append(int(i))
    kept.sort()
    return c[kept], fill[kept]
