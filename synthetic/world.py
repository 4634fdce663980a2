"""What the physics produces and the renderer draws: a timeline of ball states sampled at frame times.

This module is the interface between `synthetic.physics` / `synthetic.scenarios` (writers) and
`synthetic.render` (reader). Positions are table mm (see calibration.table), ball centres, z up: a ball
resting on the bed has z = R. NaN rows are balls no longer in view (potted, fallen to the floor).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rules.events import BALL_IDS, Event


@dataclass(frozen=True)
class Capsule:
    """An occluder above the table (forearm, cue): a segment p0-p1 in table mm with a radius."""

    p0: tuple[float, float, float]
    p1: tuple[float, float, float]
    radius_mm: float
    colour_bgr: tuple[int, int, int]


@dataclass
class Timeline:
    """Ball states at each frame time, the exact events, and the occluders in view."""

    fps: float
    t: np.ndarray  # (F,) seconds
    pos_mm: np.ndarray  # (F, B, 3) ball centres
    vel_mm_s: np.ndarray  # (F, B, 3)
    rot: np.ndarray  # (F, B, 3, 3) ball orientation (body -> table), for numbers and spin
    state: np.ndarray  # (F, B) int8 codes of vision.types.BallState
    events: list[Event]
    ids: tuple[str, ...] = BALL_IDS
    occluders: list[list[Capsule]] = field(default_factory=list)  # per frame; empty list = none

    def __post_init__(self) -> None:
        f, b = len(self.t), len(self.ids)
        for name, shape in (
            ("pos_mm", (f, b, 3)),
            ("vel_mm_s", (f, b, 3)),
            ("rot", (f, b, 3, 3)),
            ("state", (f, b)),
        ):
            arr = getattr(self, name)
            if arr.shape != shape:
                raise ValueError(f"Timeline.{name} must have shape {shape} (F={f}, B={b}), got {arr.shape}")
        if self.occluders and len(self.occluders) != f:
            raise ValueError(f"Timeline.occluders must have one list per frame ({f}), got {len(self.occluders)}")

    @property
    def n_frames(self) -> int:
        return len(self.t)
