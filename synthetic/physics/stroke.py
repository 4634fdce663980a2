"""A cue stroke: where the tip meets the cue ball, and the velocity and spin that gives the ball."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Stroke:
    """One stroke. Speeds in mm/s, angle in radians in the table plane (0 = towards the rear cushion).

    `height` and `side` are the tip offset from the ball centre as fractions of R: height 0 is a stun
    (the ball slides, then rolls at 5/7 of its speed), 0.4 a natural roll, negative draws; side > 0 hits
    right of centre (clockwise spin seen from above). `lift` is an upward velocity (a jump stroke).
    """

    ball: str
    speed: float
    angle: float
    height: float = 0.0
    side: float = 0.0
    lift: float = 0.0

    def __post_init__(self) -> None:
        if not (self.speed > 0 and math.isfinite(self.speed)):
            raise ValueError(f"stroke speed must be a positive number of mm/s, got {self.speed!r}")
        if abs(self.height) > 0.7 or abs(self.side) > 0.7:
            raise ValueError(f"tip offset beyond 0.7 R is a miscue: height={self.height}, side={self.side}")

    @property
    def direction(self) -> np.ndarray:
        return np.array([math.cos(self.angle), math.sin(self.angle)])

    def initial_state(self, R: float) -> tuple[np.ndarray, np.ndarray]:
        """Velocity (3,) and angular velocity (3,) right after the tip leaves the ball.

        A force through a point offset b from the centre gives v = J/m and w = J b / I = 5 v b / (2 R^2).
        """
        d = self.direction
        v = np.array([d[0] * self.speed, d[1] * self.speed, self.lift])
        k = 2.5 * self.speed / R
        w = np.array([-d[1] * k * self.height, d[0] * k * self.height, -k * self.side])
        return v, w
