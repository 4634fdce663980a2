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


def disc_stats(planes: tuple[np.ndarray, np.ndarray, np.ndarray], centres: np.ndarray, radius: float) -> np.ndarray:
    """(K, 3) median (Y, Cr, Cb) inside 0.65 r of each centre (the median ignores the small highlight)."""
    h, w = planes[0].shape
    n = int(np.ceil(0.65 * radius))
    yy, xx = np.mgrid[-n : n + 1, -n : n + 1]
    keep = yy * yy + xx * xx <= (0.65 * radius) ** 2
    dy, dx = yy[keep], xx[keep]
    c = np.rint(np.asarray(centres, dtype=float).reshape(-1, 2)).astype(int)
    if len(c) == 0:
        return np.zeros((0, 3))
    iy = np.clip(c[:, 1:2] + dy[None, :], 0, h - 1)
    ix = np.clip(c[:, 0:1] + dx[None, :], 0, w - 1)
    idx = iy * w + ix
    samples = np.stack([np.asarray(p).reshape(-1)[idx] for p in planes])  # (3, K, n): one median call
    return np.median(samples, axis=2).T.astype(float)


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
