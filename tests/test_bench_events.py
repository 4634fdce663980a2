"""The event benchmark's pack diagnostics: the kinematic truth's rack contacts are flagged like the physics
truth's, and the rack's impulse map has the rank the docs quote."""

from __future__ import annotations

import numpy as np

from bench.events_bench import at_mouth
from bench.events_cases import flag_packs, rack_rank
from calibration.table import Table
from rules.events import Direction, Event, EventType, Line


def test_flag_packs_marks_only_pairs_touching_at_the_start() -> None:
    r = 30.0
    ids = ("1", "2", "C")
    pos0 = np.array([[0.0, 0.0], [2 * r + 0.05, 0.0], [400.0, 0.0]])
    events = [
        Event(EventType.BALL_CONTACT, 1.0, 60, balls=("C", "1")),
        Event(EventType.BALL_CONTACT, 1.001, 60, balls=("1", "2")),
        Event(EventType.CUSHION, 1.2, 72, ball="2", cushion="rear"),
    ]
    out = flag_packs(events, pos0, ids, r)
    assert [e.extra.get("cluster", False) for e in out] == [False, True, False]
    assert not events[1].extra  # the input is not changed


def test_the_full_rack_hides_three_impulse_patterns() -> None:
    pairs, rank = rack_rank(Table.load())
    assert (pairs, rank) == (30, 27)  # 15 balls, 30 touching pairs, 2*15 - 3 rigid motions


def test_a_miss_reported_by_a_review_flag_is_counted_apart_and_only_with_its_key_and_time() -> None:
    from bench.events_bench import reported_for_review

    fps = 60.0
    truth = [Event(EventType.LINE_CROSS, 2.0, 120, ball="6", line="centre", to="front"),
             Event(EventType.LINE_CROSS, 3.0, 180, ball="7", line="centre", to="front")]
    found = [
        Event(EventType.LINE_CROSS, 2.01, 120, confidence=0.38, ball="6", line="centre", to="front"),
        Event(EventType.LINE_CROSS, 3.0, 180, confidence=0.38, ball="7", line="centre", to="rear"),  # other way
        Event(EventType.LINE_CROSS, 3.01, 180, confidence=0.9, ball="7", line="centre", to="front"),  # asserted
    ]
    pairs = reported_for_review(truth, found, fps)
    assert [(te.ball, fe.t) for te, fe in pairs] == [("6", 2.01)]
    late = [Event(EventType.LINE_CROSS, 2.0 + 3 / fps, 123, confidence=0.38, ball="6", line="centre", to="front")]
    assert reported_for_review(truth[:1], late, fps) == []  # three frames off: not this event


def test_the_f1_by_frame_rate_of_a_single_rate_set_is_the_headline() -> None:
    from bench.events_bench import run

    res = run(n_per_kind=1, verbose=False)
    by_rate = res["f1_by_frame_rate"]
    assert list(by_rate) == ["60 fps"]
    for name, f1 in by_rate["60 fps"].items():
        assert f1 == round(res["per_type"][name]["f1"], 3), name


def test_at_mouth_picks_centre_crossings_at_a_middle_pocket_pot_only() -> None:
    """A crossing within 1 ms before the same ball's middle-pocket pot is left out of the figure; one earlier,
    one before a corner pot, another ball's, or a house-line crossing stay."""
    def cross(t: float, ball: str, line: Line = Line.CENTRE) -> Event:
        return Event(EventType.LINE_CROSS, t, 0, ball=ball, line=line, to=Direction.FRONT)

    def pot(t: float, ball: str, pocket: str) -> Event:
        return Event(EventType.POT, t, 0, ball=ball, pocket=pocket)

    at, early, corner, other = cross(4.4716, "6"), cross(2.0, "7"), cross(3.0, "8"), cross(4.4712, "9")
    house, after = cross(4.4716, "6", Line.HOUSE), cross(5.0004, "10")  # after: a crossing just after a pot
    truth = [early, at, house, other, corner, after, pot(2.05, "7", "middle_left"),
             pot(3.0004, "8", "corner_front_left"), pot(4.4716, "6", "middle_right"), pot(4.4730, "9", "middle_right"),
             pot(5.0, "10", "middle_left")]
    assert at_mouth(truth) == [at]


def test_noisy_states_hide_a_ball_out_of_view_at_its_last_position() -> None:
    # as the tracker reports a ball it cannot see (HIDDEN, last position kept); it kept its truth state (MOVING) and
    # its last position before, so a detector read a ball held still while it moved
    from bench.events_tracks import NoiseModel, noisy_states
    from vision.types import BallState

    t = np.arange(6) / 60.0
    pos = np.zeros((6, 1, 2))
    pos[:, 0, 0] = 1000.0 * t
    state = np.full((6, 1), BallState.MOVING, dtype=np.int8)
    vis = np.ones((6, 1), bool)
    vis[2:4] = False
    out = noisy_states(t, pos, state, ("C",), NoiseModel(0.0, 0.0, 0.0, 1), visible=vis)
    assert [int(s.state[0]) for s in out] == [BallState.MOVING] * 2 + [BallState.HIDDEN] * 2 + [BallState.MOVING] * 2
    assert out[3].xy_mm[0, 0] == out[1].xy_mm[0, 0] and out[4].xy_mm[0, 0] > out[1].xy_mm[0, 0]
