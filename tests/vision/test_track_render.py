"""BallTracker end to end on rendered frames: a ball under an arm is HIDDEN and comes back with its id."""

from __future__ import annotations

import numpy as np

from calibration.table import Table
from synthetic.render import default_camera, get_style, render_frame
from synthetic.world import Capsule
from vision.tracker import BallTracker
from vision.types import BallState

TABLE = Table.load("pyramid-12ft")
R = TABLE.ball_radius


def test_ball_under_an_arm_is_hidden_then_found_with_its_identity() -> None:
    cam = default_camera(TABLE, seed=7)
    style = get_style("default")
    pos = {"5": (300.0, 200.0, R), "6": (-500.0, -300.0, R), "C": (-900.0, 100.0, R)}
    arm = [Capsule((-100.0, 500.0, 220.0), (300.0, 200.0, 130.0), 55.0, (60, 50, 50))]
    tracker = BallTracker(cam, TABLE, ids=("5", "6", "C"), initial_positions={b: p[:2] for b, p in pos.items()})
    states = []
    for f in range(10):
        img = render_frame(TABLE, cam, pos, style=style, seed=7, occluders=arm if 3 <= f < 7 else [])
        states.append(tracker.update(img, f / 60.0))
    assert all(s.state_of("5") == BallState.HIDDEN for s in states[3:7])
    assert all(s.state_of("6") == BallState.STATIONARY for s in states)
    last = states[-1]
    assert last.state_of("5") == BallState.STATIONARY
    assert np.hypot(*(last.xy_mm[0] - pos["5"][:2])) < R / 8
    assert last.id_confidence[0] > 0.8
