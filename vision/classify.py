"""Ivory vs coloured: colour statistics inside each ball's disc on the rectified (Y, Cr, Cb) image.

Ivory balls are bright and nearly neutral; the pyramid's coloured ball is yellow to orange (low Cb, Cr at or
above neutral). Anything else with clear colour (a red or blue pool ball, a black ball) is UNKNOWN, so that
footage of other ball sets yields positions without pretending to know the set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.types import BallClass


@dataclass(frozen=True)
class ColourRule:
    neutral_chroma: float = 24.0  # |(Cr, Cb) - 128| below this: neutral
    ivory_min_y: float = 120.0
    yellow_min_chroma: float = 30.0
    yellow_hue_deg: tuple[float, float] = (120.0, 200.0)  # angle of (Cb - 128, Cr - 128) measured from +Cb


def disc_stats(rect: np.ndarray, centres: np.ndarray, radius: float) -> np.ndarray:
    """(K, 3) median (Y, Cr, Cb) inside 0.65 r of each centre, without specular highlights (Y > 240)."""
    h, w = rect.shape[:2]
    n = int(np.ceil(radius))
    out = np.full((len(centres), 3), np.nan)
    for k, (cx, cy) in enumerate(np.asarray(centres, dtype=float).reshape(-1, 2)):
        ix, iy = round(cx), round(cy)
        x0, y0, x1, y1 = max(ix - n, 0), max(iy - n, 0), min(ix + n + 1, w), min(iy + n + 1, h)
        if x1 <= x0 or y1 <= y0:
            continue
        patch = rect[y0:y1, x0:x1].reshape(-1, 3).astype(np.float32)
        py, px = np.mgrid[y0:y1, x0:x1]
        inside = ((px - cx) ** 2 + (py - cy) ** 2 <= (0.65 * radius) ** 2).ravel()
        sel = patch[inside & (patch[:, 0] <= 240)]
        if len(sel) == 0:
            sel = patch[inside]
        if len(sel):
            out[k] = np.median(sel, axis=0)
    return out


def classify(stats: np.ndarray, rule: ColourRule | None = None) -> np.ndarray:
    """(K, 3) (Y, Cr, Cb) -> (K,) object array of BallClass."""
    rule = rule or ColourRule()
    out = np.empty(len(stats), dtype=object)
    for k, (y, cr, cb) in enumerate(np.asarray(stats, dtype=float).reshape(-1, 3)):
        if not np.isfinite(y):
            out[k] = BallClass.UNKNOWN
            continue
        dcb, dcr = cb - 128.0, cr - 128.0
        chroma = float(np.hypot(dcb, dcr))
        hue = float(np.degrees(np.arctan2(dcr, dcb))) % 360.0
        if chroma < rule.neutral_chroma and y >= rule.ivory_min_y:
            out[k] = BallClass.IVORY
        elif chroma >= rule.yellow_min_chroma and rule.yellow_hue_deg[0] <= hue <= rule.yellow_hue_deg[1]:
            out[k] = BallClass.COLOURED
        else:
            out[k] = BallClass.UNKNOWN
    return out
