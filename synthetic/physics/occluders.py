"""The player's cue, forearm and hands over the table around each stroke, as capsules in table mm.

Around a stroke at time ts (window ts - 0.7 s .. ts + 0.3 s): two waggles, a backswing, the forward
stroke that meets the ball at ts, a follow-through and the cue lifted away. The bridge hand rests on the
bed behind the cue ball (it may cover other balls); the forearm hangs above the grip at the butt end.
"""

from __future__ import annotations

import math

import numpy as np

from synthetic.physics.sim import Action
from synthetic.world import Capsule

BEFORE_S = 0.7
AFTER_S = 0.3
HAND_BEFORE_S = 0.6
HAND_AFTER_S = 0.5
CUE_LENGTH = 1450.0
CUE_ELEVATION = math.radians(6.0)
SHAFT = (150, 190, 215)
BUTT = (40, 55, 95)
SKIN = (140, 170, 215)
SLEEVE = (55, 50, 60)


def _smooth(a: float) -> float:
    a = min(max(a, 0.0), 1.0)
    return a * a * (3 - 2 * a)


def tip_gap(tau: float, speed: float) -> tuple[float, float]:
    """Gap (mm) from the ball surface to the tip, and tip lift (mm), tau seconds after the stroke."""
    follow = min(160.0, 0.03 * speed)
    if tau < -0.35:
        return 70.0 + 45.0 * math.sin(2 * math.pi * (tau + 0.7) / 0.175), 0.0
    if tau < -0.12:
        return 70.0 + 110.0 * _smooth((tau + 0.35) / 0.23), 0.0
    if tau < 0.0:
        return 180.0 * (1.0 - ((tau + 0.12) / 0.12) ** 2), 0.0  # accelerating into the ball
    if tau < 0.1:
        return -follow * _smooth(tau / 0.1), 0.0
    a = _smooth((tau - 0.1) / (AFTER_S - 0.1))
    return -follow + (follow + 150.0) * a, 160.0 * a


def stroke_capsules(act: Action, t: float, R: float) -> list[Capsule]:
    tau = t - act.t
    gap, lift = tip_gap(tau, act.speed)
    d = np.array([math.cos(act.angle), math.sin(act.angle), 0.0])
    perp = np.array([-d[1], d[0], 0.0])
    ball = np.array([act.xy[0], act.xy[1], R])
    tip = ball - d * (R + gap) + np.array([0.0, 0.0, 4.0 + lift])
    back = -d * math.cos(CUE_ELEVATION) + np.array([0.0, 0.0, math.sin(CUE_ELEVATION)])
    mid = tip + back * CUE_LENGTH * 0.55
    butt = tip + back * CUE_LENGTH
    grip = tip + back * CUE_LENGTH * 0.85
    elbow = grip + np.array([0.0, 0.0, 300.0]) - d * 40.0
    bridge = ball - d * (R + 190.0)
    bridge[2] = 22.0
    bridge_wrist = bridge - d * 110.0 + perp * 40.0 + np.array([0.0, 0.0, 20.0])
    bridge_elbow = bridge_wrist - d * 250.0 + perp * 120.0 + np.array([0.0, 0.0, 220.0])
    out = [
        Capsule(_t(tip), _t(mid), 6.5, SHAFT),
        Capsule(_t(mid), _t(butt), 13.0, BUTT),
        Capsule(_t(grip), _t(elbow), 42.0, SLEEVE),
    ]
    if tau < 0.1:  # the bridge hand leaves the bed after the follow-through
        out.append(Capsule(_t(bridge), _t(bridge_wrist), 34.0, SKIN))
        out.append(Capsule(_t(bridge_wrist), _t(bridge_elbow), 40.0, SLEEVE))
    return out


def hand_capsules(act: Action, t: float, R: float, half_width: float) -> list[Capsule]:
    """A hand reaching in from the nearer long side, over the point `act.xy`."""
    tau = t - act.t
    reach = _smooth((tau + HAND_BEFORE_S) / 0.4) * (1.0 - _smooth((tau - 0.1) / (HAND_AFTER_S - 0.1)))
    side = 1.0 if act.xy[1] >= 0 else -1.0
    far = np.array([act.xy[0] - 80.0, side * (half_width + 350.0), 300.0])
    near = np.array([act.xy[0], act.xy[1] + side * 20.0, R + 40.0])
    hand = far + (near - far) * reach
    wrist = hand + np.array([-30.0, side * 110.0, 40.0])
    elbow = wrist + np.array([-60.0, side * 260.0, 200.0])
    return [Capsule(_t(hand), _t(wrist), 36.0, SKIN), Capsule(_t(wrist), _t(elbow), 42.0, SLEEVE)]


def occluders_at(actions: list[Action], t: float, R: float, half_width: float) -> list[Capsule]:
    out: list[Capsule] = []
    for act in actions:
        if act.kind == "stroke" and -BEFORE_S <= t - act.t <= AFTER_S:
            out += stroke_capsules(act, t, R)
        elif act.kind == "hand" and -HAND_BEFORE_S <= t - act.t <= HAND_AFTER_S:
            out += hand_capsules(act, t, R, half_width)
    return out


def _t(v: np.ndarray) -> tuple[float, float, float]:
    return (float(v[0]), float(v[1]), float(v[2]))
