"""What a shot's start and end carry: rest positions, frozen and touching balls, push geometry (1.19),
and which of several balls that start together from rest the cue struck.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from calibration.table import Table
from vision.events.fit import fit_line
from vision.events.history import History
from vision.events.motion import MotionTracker, Onset
from vision.events.settings import MAX_SPEED_MM_S, EventSettings, noise_model


class ShotPhase(StrEnum):
    IDLE = "idle"
    RUNNING = "running"


def rest_layout(
    table: Table, ids: tuple[str, ...], anchors: dict[int, np.ndarray], s: EventSettings
) -> tuple[dict[str, tuple[float, float]], tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    """Positions (mm) of the balls at rest, the frozen-to-cushion list and the touching pairs.

    Gaps come from the averaged rest positions, so noise averages out but the detector's systematic error
    stays; each gap carries that error's sigma (`gap_sigma_mm`, the settings': measured by bench.gaps).
    """
    positions = {ids[b]: (float(p[0]), float(p[1])) for b, p in sorted(anchors.items())}
    frozen = tuple(
        {"ball": ids[b], "cushion": name, "gap_mm": round(gap, 2), "gap_sigma_mm": s.cushion_gap_sigma_mm}
        for b, p in sorted(anchors.items())
        for name, gap in table.frozen_cushions(p, s.frozen_tol_mm)
    )
    keys = sorted(anchors)
    touching = []
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            gap = table.ball_gap(anchors[a], anchors[b])
            if gap <= s.touch_tol_mm:
                touching.append({"balls": [ids[a], ids[b]], "gap_mm": round(gap, 2), "gap_sigma_mm": s.gap_sigma_mm})
    return positions, frozen, tuple(touching)


def choose_striker(group: list[Onset]) -> Onset:
    """Of balls that started together from rest with no outside cause, the one the cue struck.

    An object ball set moving by a touching cue ball leaves along the line of centres, away from the cue
    ball; the cue ball leaves at an angle to it (a stroke 45 degrees or more off that line is the legal case
    of 1.19), or on into the object ball. So the struck ball is the one whose start direction is farthest from
    the way straight away from the others; when all are close to it (a straight push) it is the rearmost along
    the common direction. Moving towards a ball is no object ball's way off it: seed-79 frame_russian71, C
    struck into 15 with 12 touching 15; 15, turned 36 degrees by 12 in the same frame, was called struck while C
    followed on into it.
    """
    if len(group) == 1:
        return group[0]

    def off_line(o: Onset) -> float:
        worst = 0.0
        for other in group:
            if other is o:
                continue
            worst = max(worst, 180.0 - _angle_deg(o.fit.v, other.anchor - o.anchor))  # off the way away
        return worst

    angles = {id(o): off_line(o) for o in group}
    ranked = sorted(group, key=lambda o: angles[id(o)], reverse=True)
    if angles[id(ranked[0])] - angles[id(ranked[1])] > 10.0:
        return ranked[0]
    direction = sum((o.fit.v for o in group), np.zeros(2))
    return min(group, key=lambda o: float(np.dot(o.anchor, direction)))


@dataclass(frozen=True)
class StrikerCall:
    """Which of two touching balls the cue struck, and the evidence (see `call_striker`)."""

    striker: int
    other: int
    momentum_mm: float  # both balls' travel summed, along the line of centres striker -> other (mm)
    tol_mm: float  # its tolerance (push_z standard errors)
    review: str | None  # why the call rests on evidence within tolerance; None when it is clear
    both_moved: bool = True  # False: the other ball stayed at rest (the call is then the ball that moved)


def call_striker(
    a: int,
    b: int,
    anchor_a: np.ndarray,
    anchor_b: np.ndarray,
    end_a: np.ndarray,
    end_b: np.ndarray,
    se_a: float,
    se_b: float,
    b_moved: bool,
    s: EventSettings,
) -> StrikerCall:
    """Of ball `a` (seen to start) and ball `b` touching it at the stroke, the one the cue struck.

    The impulse between the balls lies along their line of centres and is internal: the momentum of the
    pair (equal masses: the sum of their travels over the push window, from rest) is the cue's, so it
    points from the struck ball towards the other. Which ball was *seen* to move first does not tell: the
    pushed ball leaves at once with nearly all the speed, while the struck one keeps little and may creep
    after it (its follow taking hold later), as the bundled push shows. `end_*` are positions at the end
    of the window with standard errors `se_*`. When `b` did not move, `a` is the striker; but if `a` left
    straight away from `b` (within `throw_deg` and the noise), `b` struck dead into `a` looks the same from
    above: flagged for review.
    """
    n = anchor_b - anchor_a
    n = n / max(float(np.hypot(*n)), 1e-9)
    da, db = end_a - anchor_a, end_b - anchor_b
    if not b_moved:
        along = float(np.dot(da, n))
        cross = abs(float(da[0] * n[1] - da[1] * n[0]))
        tol = s.push_z * se_a
        reach = tol + abs(along) * math.sin(math.radians(s.throw_deg))
        review = None
        if along < -tol and cross <= reach:
            review = (
                "the struck ball left straight away from a touching ball that stayed: that ball struck dead "
                "into it would look the same"
            )
        return StrikerCall(a, b, along, tol, review, both_moved=False)
    p = float(np.dot(da + db, n))
    tol = s.push_z * math.hypot(se_a, se_b)
    if p >= -tol and p <= tol:
        why = f"the pair's momentum along the line of centres ({p:.1f} mm) is within the tolerance ({tol:.1f} mm)"
        return StrikerCall(a, b, p, tol, why)
    return StrikerCall(a, b, p, tol, None) if p > 0 else StrikerCall(b, a, -p, tol, None)


def until_jump(t: np.ndarray, xy: np.ndarray, anchor: np.ndarray, t_anchor: float,
               reach_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """A ball's samples from rest up to its track's first jump: a step faster than any ball runs, or longer by
    `reach_mm` (a ball's diameter) than the ball's speed on either side of it carries it. The samples after it
    are another thing's (seed-163 frame_dynamic: 10, pushed into the corner pocket, dropped; its track went on
    310 mm back onto the cue tip, which turned the pair's momentum round and made 10 the struck ball). Timestamp
    jitter and a speed picked up from a hit stay well inside that reach."""
    pts = np.vstack([np.asarray(anchor, dtype=float)[None], xy])
    dts = np.maximum(np.diff(np.concatenate([[t_anchor], t])), 1e-9)
    steps = np.hypot(*np.diff(pts, axis=0).T)
    v = steps / dts
    for k in range(len(v)):
        near = [v[j] for j in (k - 1, k + 1) if 0 <= j < len(v)]  # k > 0: the step before is one
        if v[k] > MAX_SPEED_MM_S or (k > 0 and steps[k] - max(near) * dts[k] > reach_mm):
            return t[:k], xy[:k]
    return t, xy


def end_point(
    t: np.ndarray, xy: np.ndarray, anchor: np.ndarray, t_at: float, s: EventSettings
) -> tuple[np.ndarray, float]:
    """Where a ball was at time `t_at` (the end of the push window), and the standard error (mm) of that.

    A straight line through its four samples nearest `t_at` (a ball with follow or draw still changes
    speed, so a short piece), read at `t_at`; its one sample if that is all; its rest anchor if unseen.
    """
    if len(xy) == 0:
        return np.asarray(anchor, dtype=float), s.noise_rest_mm
    near = np.argsort(np.abs(t - t_at), kind="stable")[:4]
    near.sort()
    fit = fit_line(t[near], xy[near], noise_model(s)) if len(near) >= 3 else None
    if fit is None:
        k = int(near[-1])
        return xy[k].astype(float), noise_model(s)(0.0)
    sigma = fit.sigma_v * math.sqrt(float(np.sum((t[near] - fit.t0) ** 2)))  # the noise the fit assumed
    se = math.hypot(sigma / math.sqrt(fit.n), fit.sigma_v * (t_at - fit.t0))
    return fit.at(t_at), se


def push_geometry(
    cue: Onset,
    obj: int,
    obj_anchor: np.ndarray,
    gap_mm: float,
    obj_onset: Onset | None,
    cue_end: np.ndarray | None,
    s: EventSettings,
    cue_se_mm: float = 0.0,
) -> dict[str, Any]:
    """1.19 geometry for a cue ball touching or nearly touching an object ball at the stroke.

    The stroke direction is rebuilt from momentum (equal masses): the cue ball's start velocity plus the
    object ball's if it started at once, since a touching object takes part of the stroke immediately.
    When the object moved, a reading within `push_z` standard errors of its limit (the cue ball's forward
    travel against `push_forward_mm`, the angle against 45 degrees) is flagged: `review` and `why`.
    """
    u = obj_anchor - cue.anchor
    u = u / max(float(np.hypot(*u)), 1e-9)
    stroke = cue.fit.v + (obj_onset.fit.v if obj_onset is not None else 0.0)
    forward_mm = None
    if cue_end is not None:
        forward_mm = float(np.dot(cue_end - cue.anchor, u)) - gap_mm
    moved = obj_onset is not None
    angle = _angle_deg(stroke, u)
    geo: dict[str, Any] = {
        "object": obj,
        "gap_mm": round(gap_mm, 2),
        "gap_sigma_mm": s.gap_sigma_mm,
        "angle_deg": round(angle, 1),
        "object_moved": moved,
        "cue_forward": bool(moved and forward_mm is not None and forward_mm > s.push_forward_mm),
        "cue_forward_mm": None if forward_mm is None else round(forward_mm, 1),
    }
    why = []
    near_forward = forward_mm is not None and abs(forward_mm - s.push_forward_mm) <= s.push_z * cue_se_mm
    if moved and forward_mm is not None and angle < 45.0 and near_forward:
        why.append(f"the cue ball's forward travel ({forward_mm:.1f} mm) is within "
                   f"{s.push_z * cue_se_mm:.1f} mm of {s.push_forward_mm:g} mm")
    if moved and geo["cue_forward"] and obj_onset is not None:
        # the stroke's direction error: the momentum's sideways standard error over its size
        sv = math.hypot(cue.fit.sigma_v, obj_onset.fit.sigma_v)
        d_angle = math.degrees(math.atan2(s.push_z * sv, max(float(np.hypot(*stroke)), 1e-9)))
        if abs(angle - 45.0) <= d_angle:
            why.append(f"the stroke angle ({angle:.0f} deg) is within {d_angle:.0f} deg of 45")
    if why:
        geo["review"] = True
        geo["why"] = "; ".join(why)
    return geo


def _angle_deg(v: np.ndarray, u: np.ndarray) -> float:
    nv, nu = float(np.hypot(*v)), float(np.hypot(*u))
    if nv <= 1e-9 or nu <= 1e-9:
        return 0.0
    c = float(np.dot(v, u)) / (nv * nu)
    return math.degrees(math.acos(max(-1.0, min(1.0, c))))


def start_record(
    cue: Onset, obj: int, anchor: np.ndarray, t: np.ndarray, xy: np.ndarray, s: EventSettings
) -> Onset | None:
    """The object ball's start as an Onset-like record (its first moving samples), for the push geometry."""
    fit = fit_line(t, xy, noise_model(s))
    if fit is None:
        return None
    return Onset(obj, cue.t, cue.n_first, np.asarray(anchor, dtype=float), fit)


# starts dated this close are one tie (the same samples, told apart by float noise only): far below a frame
_TIE_S = 1e-5


def start_order(hist: History, motion: MotionTracker, o: Onset, rest_radius_mm: float) -> tuple[int, float, float]:
    """The order starts are judged in: time; of starts dated to one time (to the microsecond: starts read off the
    same samples, told apart only by float noise), the ball already farther off its rest (beyond its noise) at that
    time first, then the one nearer a ball moving just before the tie (not the other start of the tie: at rest
    then). Which is judged first decides which may explain the other, and the dates' last bits are float noise:
    seed-79 frame_free, C struck in the frame that 15 hit 6 in; on another CPU's BLAS 6 came first, explained by
    nothing: a second shot."""
    c = hist.counter_at(o.t)
    _, xy = hist.track(o.ball, c, c)
    ran = float(np.hypot(*(xy[0] - o.anchor))) if len(xy) else 0.0
    ran = ran if ran > rest_radius_mm else 0.0  # within the rest noise: not off it
    near = np.inf
    for x in range(len(hist.ids)):
        _, p = hist.track(x, c, c)
        if x != o.ball and len(p) and motion.anchor_at(x, o.t - _TIE_S) is None:
            near = min(near, float(np.hypot(*(p[0] - o.anchor))))
    return round(o.t * 1e6), -ran, near
