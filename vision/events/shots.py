"""What a shot's start and end carry: rest positions, frozen and touching balls, push geometry (1.19),
and which of several balls that start together from rest the cue struck.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from calibration.table import Table
from vision.events.fit import fit_line
from vision.events.motion import Onset
from vision.events.settings import EventSettings, noise_model


def rest_layout(
    table: Table, ids: tuple[str, ...], anchors: dict[int, np.ndarray], s: EventSettings
) -> tuple[dict[str, tuple[float, float]], tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    """Positions (mm) of the balls at rest, the frozen-to-cushion list and the touching pairs.

    Gaps come from the averaged rest positions, so they are good to a fraction of a millimetre.
    """
    positions = {ids[b]: (float(p[0]), float(p[1])) for b, p in sorted(anchors.items())}
    frozen = tuple(
        {"ball": ids[b], "cushion": name, "gap_mm": round(gap, 2)}
        for b, p in sorted(anchors.items())
        for name, gap in table.frozen_cushions(p, s.frozen_tol_mm)
    )
    keys = sorted(anchors)
    touching = []
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            gap = table.ball_gap(anchors[a], anchors[b])
            if gap <= s.touch_tol_mm:
                touching.append({"balls": [ids[a], ids[b]], "gap_mm": round(gap, 2)})
    return positions, frozen, tuple(touching)


def choose_striker(group: list[Onset]) -> Onset:
    """Of balls that started together from rest with no outside cause, the one the cue struck.

    An object ball set moving by a touching cue ball leaves along the line of centres; the cue ball
    leaves at an angle to it (a stroke 45 degrees or more off that line is the legal case of 1.19).
    So the struck ball is the one whose start direction is farthest from its line of centres to the
    others; when all are close to it (a straight push) it is the rearmost along the common direction.
    """
    if len(group) == 1:
        return group[0]

    def off_line(o: Onset) -> float:
        worst = 0.0
        for other in group:
            if other is o:
                continue
            a = _angle_deg(o.fit.v, other.anchor - o.anchor)
            worst = max(worst, min(a, 180.0 - a))  # off the line of centres, either way along it
        return worst

    angles = {id(o): off_line(o) for o in group}
    ranked = sorted(group, key=lambda o: angles[id(o)], reverse=True)
    if angles[id(ranked[0])] - angles[id(ranked[1])] > 10.0:
        return ranked[0]
    direction = sum((o.fit.v for o in group), np.zeros(2))
    return min(group, key=lambda o: float(np.dot(o.anchor, direction)))


def push_geometry(
    cue: Onset,
    obj: int,
    obj_anchor: np.ndarray,
    gap_mm: float,
    obj_onset: Onset | None,
    cue_end: np.ndarray | None,
    s: EventSettings,
) -> dict[str, Any]:
    """1.19 geometry for a cue ball touching or nearly touching an object ball at the stroke.

    The stroke direction is rebuilt from momentum (equal masses): the cue ball's start velocity plus the
    object ball's if it started at once, since a touching object takes part of the stroke immediately.
    """
    u = obj_anchor - cue.anchor
    u = u / max(float(np.hypot(*u)), 1e-9)
    stroke = cue.fit.v + (obj_onset.fit.v if obj_onset is not None else 0.0)
    forward_mm = None
    if cue_end is not None:
        forward_mm = float(np.dot(cue_end - cue.anchor, u)) - gap_mm
    moved = obj_onset is not None
    return {
        "object": obj,
        "gap_mm": round(gap_mm, 2),
        "angle_deg": round(_angle_deg(stroke, u), 1),
        "object_moved": moved,
        "cue_forward": bool(moved and forward_mm is not None and forward_mm > s.push_forward_mm),
        "cue_forward_mm": None if forward_mm is None else round(forward_mm, 1),
    }


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
