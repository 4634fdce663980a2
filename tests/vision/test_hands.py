"""A hand the detector reads as balls, told by shape: its discs overlap (no two balls' centres are closer than
2R), and what lies within its reach is not yet a ball put down. The colour model is not learnt here (a short
clip, one shot): the hand reads as ivory, as under the dim look of the looks set."""

from __future__ import annotations

import numpy as np
from track_fakes import dets

from calibration.table import Table
from vision.hands import in_hand, overlapping
from vision.track import TrackSet
from vision.types import BallState

FPS = 30.0
TABLE = Table.load("pyramid-12ft")
R = TABLE.ball_radius


def test_overlapping_discs_are_a_hand_and_balls_touching_are_not() -> None:
    pair = np.array([[0.0, 0.0], [2 * R, 0.0]])  # two balls frozen together
    assert not overlapping(pair, R).any()
    hand = np.array([[0.0, 0.0], [1.6 * R, 0.0], [500.0, 0.0]])  # a capsule split into two discs; a ball far off
    assert overlapping(hand, R).tolist() == [True, True, False]
    wrist = np.array([[0.0, 0.0], [1.6 * R, 0.0], [1.6 * R + 2.8 * R, 0.0], [500.0, 0.0]])
    assert in_hand(wrist, R).tolist() == [True, True, True, False]


def test_a_hand_resting_on_the_bed_revives_no_ball_and_the_ball_it_puts_down_comes_back() -> None:
    start = {"4": (-800.0, -300.0), "10": (888.0, 0.0)}
    ts = TrackSet(TABLE, ("1", "3", "4", "10", "C"), start)
    for g in range(5):
        ts.step(dets(list(start.values()), seed=g), g / FPS, lambda _p: False)
    # the hand placing the cue ball: its palm split into two discs 55 mm apart, its wrist 94 mm further,
    # all read as ivory, still for two seconds, no sleeve over the rail (no occluder)
    hand = [(-1627.0, -148.0), (-1650.0, -198.0), (-1673.0, -289.0)]
    st = None
    for g in range(5, 5 + int(2 * FPS)):
        st = ts.step(dets([*start.values(), *hand], seed=g), g / FPS, lambda _p: False)
    assert st is not None
    assert st.state_of("1") == BallState.UNKNOWN and st.state_of("3") == BallState.UNKNOWN
    # the hand leaves; the ball it put down stays
    ball = (-1607.0, -125.0)
    for g in range(5 + int(2 * FPS), 5 + int(3 * FPS)):
        st = ts.step(dets([*start.values(), ball], seed=g), g / FPS, lambda _p: False)
    back = [b for b in ("1", "3", "C") if st.state_of(b) == BallState.STATIONARY]
    assert len(back) == 1 and np.hypot(*(st.xy_mm[st.index(back[0])] - ball)) < 3
