"""A hit read from where the striker went: it ran from its rest straight at a ball and came straight back.

Seed-233 frame_russian71: C struck at 3.1 m/s into 11, 6 mm off the rear cushion; 11 hit the cushion and came
back into C within 6 ms, so C's first sample after the stroke was already on its way back and 11 left sideways.
Neither ball's line proves the hit (C has no incoming piece, 11 left off the line of centres), yet nothing but
11 lay on C's way: a ball cannot turn back on the open cloth.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from calibration.table import Table
from vision.events.cushions import Boundary
from vision.events.fit import fit_line, point_segment_distance
from vision.events.history import History
from vision.events.kink import RestLookup
from vision.events.motion import Onset
from vision.events.settings import EventSettings, noise_model

_MIN_BACK = 0.5  # the way back is turned from the way out by more than 120 degrees (cosine below -0.5)
# the cloth's sliding friction (mu ~0.2): the most a ball's own spin can speed it back up after a hit stopped it
_SLIDE_DECEL_MM_S2 = 2000.0


class Rebound(NamedTuple):
    gap: float  # between the two rest positions, mm
    u: np.ndarray  # unit line of centres where they touched (a's meeting point to o's rest)
    meet: np.ndarray  # a's centre where it touched o's ball at rest
    way: np.ndarray  # a's unit way out


def ran_into_and_back(
    hist: History, rest: RestLookup, table: Table, bound: Boundary, s: EventSettings, a: int, o: Onset, radius: float,
    fps: float, a_started: float,
) -> Rebound | None:
    """Ball a, at rest until it set off about when o's ball did, ran from its rest centre at o's rest (its way
    out, from the rest centre to its first moving sample, passes within touching of o's rest centre, and no
    cushion nose or other ball at rest lies on that way before it) and its next step is turned back from that
    way by more than 120 degrees, by more than the samples' noise: it hit o's ball and came back. Returns the
    gap between their rest positions and the unit line of centres where they touched, or None. `a_started`:
    when a's own start was seen (it may come a frame before o's: seed-269 frame_russian71, C struck at 3.3 m/s
    from 106 mm into 14, 14 mm off the rear cushion, seen once 5 mm short of it and then on its way back)."""
    own = o.t - s.cause_window_s - 1e-9 <= a_started < o.t  # its own start came first: its rest is before it
    t_rest = a_started if own else o.t
    anchor = rest.anchor_at(a, t_rest - 1.0 / fps)
    if anchor is None:
        return None
    c = hist.counter_at(o.t)
    tk, xy = hist.track(a, min(c - 1, hist.counter_at(t_rest)), c + 3)
    off = np.nonzero(np.hypot(*(xy - anchor).T) > s.onset_mm)[0]
    if len(off) == 0 or off[0] + 1 >= len(xy):
        return None  # no way out seen, or no sample after it
    tk, xy = tk[off[0] :], xy[off[0] :]
    out = xy[0] - anchor
    run = float(np.hypot(*out))
    noise = noise_model(s)
    way = out / run
    to_o = o.anchor - anchor
    along = float(np.dot(to_o, way))
    miss = abs(_cross(way, to_o))
    gap = table.ball_gap(anchor, o.anchor)
    if along <= 0.0 or miss >= 2 * radius or gap <= s.touch_tol_mm:
        return None  # not run at it, or touching (the pack's business)
    if run >= along:
        return None  # its sample is past o's rest: it ran through, not back
    to_meet = along - float(np.sqrt(max(4 * radius * radius - miss * miss, 0.0)))
    if gap > 2 * radius:
        # farther off, its one sample out must be short of touching (one overlapping it is the overlap reading's)
        # by no more than it ran in a frame since its own start: else the frames would show its way in
        per_frame = run / max(float(tk[0]) - a_started, 1.0 / fps) / fps if own else 0.0
        if not 0.0 <= to_meet - run <= per_frame:
            return None
    meet = anchor + to_meet * way  # touching o's
    if float(np.min(bound.distance(np.linspace(anchor, meet, 40)))) <= radius:
        return None  # a nose or jaw on the way: it may have turned it
    for y in range(len(hist.ids)):
        p = rest.anchor_at(y, t_rest - 1.0 / fps) if y not in (a, o.ball) else None
        if p is not None and point_segment_distance(p, anchor, meet) < 2 * radius:
            return None  # another ball on the way: it may have turned it
    back = xy[1] - xy[0]
    step = float(np.hypot(*back))
    sigma = float(np.sqrt(2.0)) * noise(step * fps)
    if step <= 3.0 * sigma or float(np.dot(back, way)) > -_MIN_BACK * step:
        return None  # no clear step back along its way
    centres = o.anchor - meet  # the line of centres where they touched
    return Rebound(gap, centres / max(float(np.hypot(*centres)), 1e-9), meet, way)


def came_back_into(hist: History, s: EventSettings, a: int, t_hit: float, r: Rebound) -> float | None:
    """After its rebound off a ball (`ran_into_and_back`, the hit at t_hit), did ball a run back faster than its
    spin can turn it round since the hit (the cloth's sliding friction, beyond three standard errors of its line
    after the turn)? A full hit stops it: the ball it hit came back into it (off the cushion it lay near: seed-269
    frame_russian71, C into 14 at 3.3 m/s and back at 2.3 m/s within a frame). The time its line back passes the
    meeting point (the second contact), or None."""
    c = hist.counter_at(t_hit)
    t, xy = hist.track(a, c + 1, c + 3)
    keep = t > t_hit
    fit = fit_line(t[keep], xy[keep], noise_model(s)) if int(keep.sum()) >= 2 else None
    if fit is None:
        return None
    back = -float(np.dot(fit.v, r.way))
    if back <= _SLIDE_DECEL_MM_S2 * float(t[keep][-1] - t_hit) + 3.0 * fit.sigma_v:
        return None
    t2 = fit.t0 - float(np.dot(r.meet - fit.p0, r.way)) / back
    return float(np.clip(t2, t_hit, t[keep][0]))


def _cross(u: np.ndarray, v: np.ndarray) -> float:
    """The z of the cross product of two plane vectors: v's offset across the unit u."""
    return float(u[0] * v[1] - u[1] * v[0])
