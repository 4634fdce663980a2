"""A slow ball into a cushion nose and back out, from recorded tracker output: a rebound, not a disturbance.

The fixture is 130 frames (99.7-104.0 s) of the tracker's output on a rendered whole frame at 30 fps
(seed-37 frame_combined): 3, hit by 7 at 101.35 s, rolls into the rear cushion at about 100 mm/s at 102.46 s
and comes back at 40-60 mm/s. The samples around the touch looked still for the rest window, and the
centre of that in-and-out lay 7.4 mm off the nose, so its departure was read as a start from rest with no
cause: a ball_disturbed (1.17) the truth does not have.
"""

from __future__ import annotations

from pathlib import Path

from track_fakes import recorded_states

from calibration.table import Table
from rules.events import EventType
from vision.events import detect_events

DATA = Path(__file__).parent / "data" / "slow_bounce_off_rear_30fps.npz"


def test_a_slow_rebound_off_a_cushion_nose_is_no_disturbance() -> None:
    events = detect_events(Table.load("pyramid-12ft"), 30.0, recorded_states(DATA))
    assert [e.ball for e in events if e.type is EventType.SHOT_START] == ["C"]
    assert not [e for e in events if e.type is EventType.BALL_DISTURBED]
