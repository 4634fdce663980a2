"""Physical constants of the ball/cloth/cushion model (units: mm, s, kg)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Motion(IntEnum):
    """Motion state of one ball in the simulation (not the tracker's BallState)."""

    STATIONARY = 0
    SPINNING = 1  # on the spot, only z spin left: still "moving" for 1.14.1
    ROLLING = 2
    SLIDING = 3
    AIRBORNE = 4
    POTTED = 5
    OFF_TABLE = 6
    ABSENT = 7  # not on the table in this scenario (a ball on a shelf)


MOVING = (Motion.SPINNING, Motion.ROLLING, Motion.SLIDING, Motion.AIRBORNE)
OUT_OF_PLAY = (Motion.POTTED, Motion.OFF_TABLE, Motion.ABSENT)


@dataclass(frozen=True)
class PhysicsParams:
    """Coefficients of the model; defaults are typical published values for cloth, ivory-like balls."""

    g: float = 9810.0  # mm/s^2
    mu_slide: float = 0.2  # ball-cloth sliding friction
    mu_roll: float = 0.012  # rolling resistance
    mu_spin: float = 0.015  # spinning (z axis) resistance, pooltool-style u_sp = 0.444 R[m]
    e_ball: float = 0.95  # ball-ball restitution
    mu_ball: float = 0.06  # ball-ball friction: cut-induced and spin-induced throw
    e_cushion: float = 0.80
    mu_cushion: float = 0.2
    e_jaw: float = 0.6  # pocket facings are angled and soft: jaw touches lose more pace
    e_bed: float = 0.5  # a ball landing from the air
    settle_vz: float = 150.0  # mm/s: slower landings settle on the bed
    dt_max: float = 0.001  # s: longest integration step (collisions are found within a step)
    min_event_speed: float = 0.5  # mm/s: slower contacts exchange impulse but are not reported
