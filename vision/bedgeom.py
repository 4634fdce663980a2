"""Where a ball's centre can be while the ball lies on the bed, and what it means when it is seen elsewhere.

A ball on the bed never reaches into a cushion: its centre stays at least R from every nose segment (the jaw
tips are the segments' ends), or it is inside a pocket's mouth region on its way down. Seen from above, a
ball whose centre reaches into the cushion by much more than the rubber gives and the measurement errs is
not on the bed: it is in the air (a jump: its image on the plane z = R slides outward from the camera, away
from the nadir) or it is not a ball at all (a hand, a cue tip on the rail).
"""

from __future__ import annotations

import math

import numpy as np

from calibration.table import Table

# How far a ball on the bed can seem to reach into a cushion: the nose gives a few mm under a hard hit
# (~5 mm), plus 3 sigma of the centre measurement near a cushion (~4.5 mm), plus a margin. A jumping ball
# seen over the cushion reaches a ball radius or more; the hand or cue on the rail reaches further still.
AIRBORNE_OVERLAP_MM = 12.0
# The most a ball on the bed seems to reach into a cushion: the nose's give plus one sigma of the centre. The
# recorded tracker output of three synthetic seeds (~300 shots) reaches 4.6 mm at most on the bed. Between this
# and AIRBORNE_OVERLAP_MM a ball is in doubt: it may be in the air, or a hard hit into the rubber misread.
BED_REACH_MM = 6.5


def cushion_overlap_mm(table: Table, xy: np.ndarray | tuple[float, float]) -> float:
    """How far (mm) a ball centred at xy would reach into the cushions: R minus its distance to the nearest
    nose segment, R plus the depth when the centre is past a nose line; negative when clear. A centre outside
    the noses' rectangle that no pocket mouth holds counts as past the nose."""
    p = np.asarray(xy, dtype=float)[:2]
    if not np.all(np.isfinite(p)):
        return -math.inf
    r = table.ball_radius
    out_x = abs(float(p[0])) - table.half_length
    out_y = abs(float(p[1])) - table.half_width
    worst = -math.inf
    if (out_x > 0.0 or out_y > 0.0) and table.pocket_at(p) is None:
        worst = r + max(out_x, out_y)
    for c in table.cushions.values():
        a, b = np.asarray(c.a, dtype=float), np.asarray(c.b, dtype=float)
        ab = b - a
        s = float(np.dot(p - a, ab) / np.dot(ab, ab))
        inside = float(np.dot(p - a, np.asarray(c.normal)))  # > 0 on the bed side
        if 0.0 <= s <= 1.0 and inside < 0.0:
            worst = max(worst, r - inside)
            continue
        q = a + min(max(s, 0.0), 1.0) * ab
        worst = max(worst, r - float(np.hypot(*(p - q))))
    return worst


def seen_off_bed(table: Table, xy: np.ndarray | tuple[float, float], tol_mm: float = AIRBORNE_OVERLAP_MM) -> bool:
    """Is a ball seen at xy somewhere a ball on the bed cannot be (reaching into a cushion beyond tol_mm)?"""
    return cushion_overlap_mm(table, xy) > tol_mm


def off_bed_mask(table: Table, xy: np.ndarray, tol_mm: float = AIRBORNE_OVERLAP_MM) -> np.ndarray:
    """`seen_off_bed` for many points; only the few near the cushions are measured (per frame, cheap)."""
    p = np.asarray(xy, dtype=float).reshape(-1, 2)
    lim = table.ball_radius - tol_mm  # nearer a nose line than this: maybe reaching into the cushion
    near = (np.abs(p[:, 0]) > table.half_length - lim) | (np.abs(p[:, 1]) > table.half_width - lim)
    out = np.zeros(len(p), dtype=bool)
    for k in np.nonzero(near)[0]:
        out[k] = seen_off_bed(table, p[k], tol_mm)
    return out


def cannot_rest_mask(table: Table, xy: np.ndarray, tol_mm: float = AIRBORNE_OVERLAP_MM) -> np.ndarray:
    """Points where no ball can lie at rest: reaching into a cushion (`off_bed_mask`), or with the centre
    more than R/2 past a pocket's mouth line (over the hole, past where the slate holds a hanging ball)."""
    p = np.asarray(xy, dtype=float).reshape(-1, 2)
    out = off_bed_mask(table, p, tol_mm)
    r = table.ball_radius
    near = (np.abs(p[:, 0]) > table.half_length - r) | (np.abs(p[:, 1]) > table.half_width - r)
    for k in np.nonzero(near & ~out)[0]:
        name = table.pocket_at(p[k])
        if name is not None:
            pk = table.pockets[name]
            depth = float(np.dot(p[k] - np.asarray(pk.mouth_centre), np.asarray(pk.outward)))
            out[k] = depth > 0.5 * r
    return out
