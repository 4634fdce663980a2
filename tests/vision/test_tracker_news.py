"""Identity news reaches the tracker through the perception stage: a ball the referee takes off leaves play."""

from __future__ import annotations

from calibration.table import Table
from synthetic.render import default_camera, get_style, render_frame
from vision.tracker import BallTracker
from vision.types import BallState

TABLE = Table.load("pyramid-12ft")
R = TABLE.ball_radius


def test_a_ball_taken_off_through_the_tracker_is_gone_once_lifted() -> None:
    cam = default_camera(TABLE, seed=3)
    style = get_style("default")
    pos = {"5": (300.0, 200.0, R), "6": (-500.0, -300.0, R)}
    tracker = BallTracker(cam, TABLE, ids=("5", "6"), initial_positions={b: p[:2] for b, p in pos.items()})
    for f in range(5):
        tracker.update(render_frame(TABLE, cam, pos, style=style, seed=3), f / 60.0)
    tracker.take_off(["5"])  # within 1 s: without the news the tracker would still hold 5 hidden
    lifted = {"6": pos["6"]}
    states = [tracker.update(render_frame(TABLE, cam, lifted, style=style, seed=3), f / 60.0) for f in range(5, 25)]
    assert states[-1].state_of("5") == BallState.UNKNOWN
    assert states[-1].state_of("6") == BallState.STATIONARY
