"""The extra fields of the ground-truth events, by the definitions of docs/event-schema.md.

shot_start lists frozen balls and touching pairs (3 mm tolerances) and, when the struck ball was within
5 mm of an object ball, the push measurement of 1.19: the stroke's angle to the line of centres and
whether the cue ball followed the object ball (more than 4 mm along the line beyond the gap within 0.1 s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from calibration.table import Table

FROZEN_TOL_MM = 3.0
TOUCH_TOL_MM = 3.0
PUSH_GAP_MM = 5.0
PUSH_WINDOW_S = 0.1
PUSH_FORWARD_MM = 4.0
MOVED_MM = 0.5


def frozen_items(table: Table, pos: dict[str, tuple[float, float]]) -> tuple[dict[str, Any], ...]:
    out = []
    for b, xy in pos.items():
        for cushion, gap in table.frozen_cushions(xy, FROZEN_TOL_MM):
            out.append({"ball": b, "cushion": cushion, "gap_mm": round(gap, 3)})
    return tuple(out)


def touching_items(table: Table, pos: dict[str, tuple[float, float]]) -> tuple[dict[str, Any], ...]:
    out = []
    items = list(pos.items())
    for k, (a, pa) in enumerate(items):
        for b, pb in items[k + 1 :]:
            gap = table.ball_gap(pa, pb)
            if gap <= TOUCH_TOL_MM:
                out.append({"balls": [a, b], "gap_mm": round(gap, 3)})
    return tuple(out)


@dataclass
class PushWatch:
    """A stroke on a ball touching (within 5 mm) an object ball: measured PUSH_WINDOW_S after the stroke."""

    cue: int
    obj: int
    obj_id: str
    n: np.ndarray  # unit line of centres cue -> object
    gap: float
    angle_deg: float
    cue0: np.ndarray
    obj0: np.ndarray
    t0: float
    extra: dict[str, Any]  # the shot_start's extra, filled in when the window closes

    def finish(self, pos: np.ndarray) -> None:
        moved = (
            bool(np.all(np.isfinite(pos[self.obj, :2]))) is False
            or float(np.linalg.norm(pos[self.obj, :2] - self.obj0)) > MOVED_MM
        )
        cue_now = pos[self.cue, :2]
        forward = float((cue_now - self.cue0) @ self.n) - self.gap if np.all(np.isfinite(cue_now)) else 0.0
        follow = moved and forward > PUSH_FORWARD_MM
        self.extra["stroke_angle_deg"] = round(self.angle_deg, 2)
        self.extra["cue_follow"] = follow
        self.extra["push_geometry"] = {
            "object": self.obj_id,
            "gap_mm": round(self.gap, 3),
            "angle_deg": round(self.angle_deg, 2),
            "object_moved": moved,
            "cue_forward": follow,
            "cue_forward_mm": round(forward, 2),
        }


def push_watch(
    table: Table,
    ids: tuple[str, ...],
    pos: np.ndarray,
    live: np.ndarray,
    struck: int,
    angle: float,
    t: float,
    extra: dict[str, Any],
) -> PushWatch | None:
    """The nearest object ball within PUSH_GAP_MM of the struck ball, if any, to measure the push on."""
    d = np.linalg.norm(pos[:, :2] - pos[struck, :2], axis=1) - table.spec.ball_diameter_mm
    d[struck] = np.inf
    d[~live] = np.inf
    k = int(np.argmin(d))
    if not d[k] <= PUSH_GAP_MM:
        return None
    n = pos[k, :2] - pos[struck, :2]
    n = n / np.linalg.norm(n)
    u = np.array([math.cos(angle), math.sin(angle)])
    ang = math.degrees(math.acos(float(np.clip(u @ n, -1.0, 1.0))))
    return PushWatch(struck, k, ids[k], n, float(d[k]), ang, pos[struck, :2].copy(), pos[k, :2].copy(), t, extra)
