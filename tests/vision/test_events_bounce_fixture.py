"""A slow ball into a cushion nose and back out, from recorded tracker output: a rebound, not a disturbance.

The fixture is 130 frames (99.7-104.0 s) of the tracker's output on a rendered whole frame at 30 fps
(seed-37 frame_combined): 3, hit by 7 at 101.35 s, rolls into the rear cushion at about 100 mm/s at 102.46 s
and comes back at 40-60 mm/s. The samples around the touch looked still for the rest window, and the
centre of that in-and-out lay 7.4 mm off the nose, so its departure was read as a start from rest with no
cause: a ball_disturbed (1.17) the truth does not have.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from calibration.table import Table
from rules.events import EventType
from vision.events import detect_events
from vision.types import BallStates

DATA = Path(__file__).parent / "data" / "slow_bounce_off_rear_30fps.npz"


def _states() -> list[BallStates]:
    d = np.load(DATA)
    ids = tuple(str(x) for x in d["ids"])
    return [
        BallStates(int(d["frame"][k]), float(d["t"][k]), ids, d["xy"][k].astype(float), d["vel"][k].astype(float),
                   d["state"][k], d["conf"][k].astype(float), d["idc"][k].astype(float))
        for k in range(len(d["t"]))
    ]


def test_a_slow_rebound_off_a_cushion_nose_is_no_disturbance() -> None:
    events = detect_events(Table.load("pyramid-12ft"), 30.0, _states())
    assert [e.ball for e in events if e.type is EventType.SHOT_START] == ["C"]
    assert not [e for e in events if e.type is EventType.BALL_DISTURBED]
