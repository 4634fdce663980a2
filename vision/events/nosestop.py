"""A ball that rolled into a cushion nose and came to rest within millimetres of it, no touch seen: for review.

A creep into a cushion at 40 mm/s leaves it at ~25 mm/s and stops 2 mm off the nose (seed-101 frame_free: C,
1.9 mm off right_rear), a bounce no kink test sees within the rest noise; a ball that stopped short of the nose
looks the same. The detector asks this when a ball comes to rest in a shot (`EventDetector._stopped`).
"""

from __future__ import annotations

import numpy as np

from vision.events.cushions import Boundary, Touch
from vision.events.fit import fit_line
from vision.events.kink import Pieces
from vision.events.settings import EventSettings, noise_model

CONF = 0.4  # below the writer's assertion level: a review flag, weighed by the rules only where it decides
_GRID_S = 0.001  # the arrival is searched on this grid, far below a frame


def stopped_at_nose(
    bound: Boundary, s: EventSettings, ball: int, anchor: np.ndarray, t: np.ndarray, xy: np.ndarray, radius: float
) -> Touch | None:
    """A ball that rolled at a nose and came to rest within `review_band_mm` of touching it: reached the nose
    and came back a millimetre or two, or stopped short? Reported for review (`CONF`, its rest gap as the
    margin), timed where its run-in reaches the nearest it came. `t`, `xy`: its approach since its last kink,
    the rest samples with it; it must be seen heading into the nose by two sigmas of the difference of two rest
    samples (2 sqrt(2) `noise_rest_mm`), so a ball rolling along a nose or away from it is none."""
    if len(t) < 2:
        return None
    dists, pts, par = bound.closest(anchor)
    i = int(np.argmin(dists))
    gap = float(dists[i]) - radius
    if gap > s.review_band_mm or dists[i] <= 1e-9:
        return None
    n = (anchor - pts[i]) / float(dists[i])  # into the bed
    if float(np.dot(xy[0] - xy[-1], n)) < 2.0 * np.sqrt(2.0) * s.noise_rest_mm:
        return None  # not seen heading into the nose (rolling along it, or away)
    u = (xy - pts[i]) @ n - radius  # normal distance beyond touching, per sample
    t_c = _arrival(t, u, gap)
    noise = noise_model(s)
    pre = fit_line(t, xy, noise)
    post = fit_line(t[-2:], xy[-2:], noise)  # its last samples, at rest
    if pre is None or post is None:
        return None
    name = bound.names[i]
    where = f"{gap:.1f} mm off it" if gap >= 0.0 else f"on it ({-gap:.1f} mm inside touching)"
    why = f"rolled into the {name} nose and stopped {where}: touched it, or stopped short"
    pieces = Pieces(pre, post, 0.0, False)
    return Touch(ball, t_c, name, bound.jaw_at(i, float(par[i])), 0.0, gap, CONF, True, pieces, True, why)


def _arrival(t: np.ndarray, u: np.ndarray, gap: float) -> float:
    """When the ball reached the nose: a hinge (a straight run-in at speed v onto its rest distance `gap`, then
    flat) fitted by least squares over the hinge time t_a (v in closed form for each), then run on at v over
    the gap still to go. The rest distance is the averaged rest centre's, so the flat part needs no fit; the
    bounce back, a millimetre or two, is in the flat part's noise."""
    grid = np.arange(float(t[0]), float(t[-1]) + 1e-12, _GRID_S)
    x = np.maximum(grid[:, None] - t[None, :], 0.0)  # (G, N): run-in still to go at each sample
    y = u - gap
    sxx = (x * x).sum(axis=1)
    v = np.where(sxx > 0.0, (x * y).sum(axis=1) / np.maximum(sxx, 1e-12), 0.0)
    chi2 = ((y[None, :] - v[:, None] * x) ** 2).sum(axis=1)
    g = int(np.argmin(np.where(v > 0.0, chi2, np.inf))) if (v > 0.0).any() else len(grid) - 1
    return float(grid[g] + (max(gap, 0.0) / v[g] if v[g] > 0.0 else 0.0))
