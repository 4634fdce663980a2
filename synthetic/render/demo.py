"""Hand-made timelines for the renderer's tests, contact sheet and speed figure (no physics needed):
a rack at rest with randomly turned balls and a cue ball rolling on straight lines off the cushions."""

from __future__ import annotations

import math

import numpy as np

from calibration.table import Table
from rules.events import BALL_IDS
from synthetic.world import Capsule, Timeline
from vision.types import BallState

SKIN = (140, 170, 215)
SLEEVE = (60, 52, 48)
SHAFT = (150, 190, 215)


def random_rotations(n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, 3, 3) uniformly random rotation matrices (from random unit quaternions)."""
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    w, x, y, z = q.T
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
            np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
            np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
        ],
        axis=1,
    )


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    a = axis / max(float(np.linalg.norm(axis)), 1e-12)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    out: np.ndarray = np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)
    return out


def arm_and_cue(ball_xy: tuple[float, float], angle: float, r: float, gap: float) -> list[Capsule]:
    """A cue aimed along `angle` with its tip `gap` mm behind the ball, and the forearm over its butt."""
    d = np.array([math.cos(angle), math.sin(angle), 0.0])
    tip = np.array([ball_xy[0], ball_xy[1], r + 4.0]) - d * (r + gap)
    back = -d * math.cos(0.1) + np.array([0.0, 0.0, math.sin(0.1)])
    butt = tip + back * 1450.0
    grip = tip + back * 1230.0
    elbow = grip + np.array([0.0, 0.0, 300.0]) - d * 40.0
    bridge = tip + back * 200.0
    bridge[2] = 20.0
    return [
        Capsule(tuple(tip), tuple(tip + back * 700.0), 6.5, SHAFT),
        Capsule(tuple(tip + back * 700.0), tuple(butt), 12.0, (40, 55, 95)),
        Capsule(tuple(bridge + np.array([0.0, 0.0, 0.0])), tuple(bridge - d * 20 + np.array([0.0, 60.0, 0.0])), 28.0,
                SKIN),
        Capsule(tuple(grip), tuple(elbow), 45.0, SLEEVE),
    ]


def line_timeline(
    table: Table,
    fps: float = 60.0,
    seconds: float = 2.0,
    speed_mm_s: float = 3000.0,
    angle: float = 0.35,
    start: tuple[float, float] | None = None,
    seed: int = 0,
    arm_s: float = 0.4,
) -> Timeline:
    """The full rack at rest and the coloured ball rolling from `start` at a steadily falling speed,
    bouncing off the cushion lines (no collisions with the rack: a renderer test, not physics)."""
    rng = np.random.default_rng(seed)
    ids = BALL_IDS
    r = table.ball_radius
    f = max(1, round(seconds * fps))
    t = np.arange(f) / fps
    pos = np.zeros((f, len(ids), 3))
    vel = np.zeros_like(pos)
    rot = np.broadcast_to(random_rotations(len(ids), rng), (f, len(ids), 3, 3)).copy()
    rack = table.rack_positions()
    for k, bid in enumerate(ids[:-1]):
        pos[:, k] = (*rack[bid], r)
    ci = len(ids) - 1
    p = np.array(start if start is not None else (table.house_line_x - 200.0, 150.0), float)
    v = speed_mm_s * np.array([math.cos(angle), math.sin(angle)])
    decel = speed_mm_s / max(seconds * 1.2, 1e-6)
    state = np.full((f, len(ids)), BallState.STATIONARY, np.int8)
    occ: list[list[Capsule]] = []
    n_arm = round(arm_s * fps)
    hl, hw = table.half_length - r, table.half_width - r
    cur = rot[0, ci].copy()
    for i in range(f):
        if i < n_arm:
            pos[i, ci] = (*p, r)
            occ.append(arm_and_cue((p[0], p[1]), angle, r, 60.0 * (n_arm - i) / n_arm + 2.0))
            rot[i, ci] = cur
            continue
        occ.append([])
        pos[i, ci] = (*p, r)
        vel[i, ci] = (*v, 0.0)
        rot[i, ci] = cur
        spd = float(np.linalg.norm(v))
        state[i, ci] = BallState.MOVING if spd > 0 else BallState.STATIONARY
        dt = 1.0 / fps
        p = p + v * dt
        for ax, lim in ((0, hl), (1, hw)):
            if abs(p[ax]) > lim:
                p[ax] = math.copysign(2 * lim - abs(p[ax]), p[ax])
                v[ax] = -v[ax]
        axis = np.array([-v[1], v[0], 0.0])
        if spd > 0:
            cur = _axis_angle(axis, spd * dt / r) @ cur
        new = max(spd - decel * dt, 0.0)
        v = v * (new / spd) if spd > 0 else v
    occluders = occ if any(occ) else []
    return Timeline(fps, t, pos, vel, rot, state, [], ids, occluders)
