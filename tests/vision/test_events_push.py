"""Push shots (1.19) and which of two touching balls the cue struck: the momentum reading of the pair, the
detector on tracks where the struck ball is seen to move after the ball it pushed, and the chain from the
events through the rules engine to a verdict citing 1.19."""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np
import pytest

from bench.events_sim import Sim
from bench.events_tracks import NoiseModel, noisy_states
from calibration.table import Table
from rules.engine import judge_log
from rules.events import Event, EventType
from rules.inputs import parse_log
from vision.events import EventSettings, detect_events
from vision.events.shots import StrikerCall, call_striker, until_jump

TABLE = Table.load()
R = TABLE.ball_radius
S = EventSettings()


Vec = tuple[float, float]


def _call(disp_a: Vec, disp_b: Vec, b_moved: bool = True) -> StrikerCall:
    """Ball 0 at the origin touching ball 1 on +x; each moved by disp over the push window."""
    pa, pb = np.zeros(2), np.array([2 * R, 0.0])
    da, db = np.asarray(disp_a, dtype=float), np.asarray(disp_b, dtype=float)
    return call_striker(0, 1, pa, pb, pa + da, pb + db, 3.0, 3.0, b_moved, S)


@pytest.mark.parametrize(
    ("name", "disp_a", "disp_b", "striker"),
    [
        # the object ball leaves at once along the line of centres; the cue ball creeps after it
        ("straight push, cue ball follows slowly", (8.0, 0.0), (90.0, 0.0), 0),
        ("straight stroke with draw: the cue ball comes back", (-12.0, 1.0), (95.0, 0.0), 0),
        ("stroke 60 degrees off the line", (30.0, 60.0), (40.0, 0.0), 0),
        # the same motions seen from the other ball: the call must not depend on which came first
        ("onset picked the object ball", (-90.0, 0.0), (-8.0, 0.0), 1),
        ("object ball pushed the other way, angled stroke", (-40.0, 0.0), (-30.0, 60.0), 1),
    ],
)
def test_striker_of_a_touching_pair_from_momentum(name: str, disp_a: Vec, disp_b: Vec, striker: int) -> None:
    call = _call(disp_a, disp_b)
    assert call.striker == striker, name
    assert call.other == 1 - striker
    assert call.review is None, (name, call.review)
    assert call.momentum_mm > call.tol_mm  # stroke from the striker's side, beyond the tolerance


def test_momentum_within_tolerance_is_flagged_for_review() -> None:
    call = _call((-4.0, 0.0), (5.0, 0.0))
    assert call.review is not None and "tolerance" in call.review
    assert call.striker == 0, "undecided: the onset's choice stands"


@pytest.mark.parametrize(
    ("name", "disp_a", "review"),
    [
        # a ball struck dead into a touching one stays put while the other leaves straight away from it: from
        # above that is the same as the leaver struck alone
        ("mover leaves straight away from the still ball", (-80.0, 1.5), True),
        ("mover leaves 50 degrees off that line", (-80.0 * math.cos(0.87), 80.0 * math.sin(0.87)), False),
    ],
)
def test_a_still_touching_ball_leaves_the_striker_in_doubt_on_the_line(name: str, disp_a: Vec, review: bool) -> None:
    call = _call(disp_a, (0.5, 0.0), b_moved=False)
    assert call.striker == 0, name
    assert (call.review is not None) is review, (name, call.review)


@cache  # one physics run per case, shared by the tests below
def _push_events(
    striker: str, obj: str, heading_deg: float, seed: int, spin_mm_s: float = 250.0, spin_at: float = 0.06
) -> tuple[list[Event], dict[str, list[float]]]:
    """`striker` touching `obj`, struck along the line of centres at 1400 mm/s: `obj` leaves at once, the
    struck ball keeps 2.5 % (restitution 0.95) until its spin takes hold `spin_at` s later at `spin_mm_s`
    along the line (follow; negative: draw); so the struck ball is seen to move well after the ball it
    pushed."""
    a = math.radians(heading_deg)
    u = np.array([math.cos(a), math.sin(a)])
    p_s = np.array([-400.0, 150.0])
    p_o = p_s + u * (2 * R + 0.2)
    sim = Sim(TABLE).place(striker, tuple(p_s)).place(obj, tuple(p_o)).place("9", (900.0, -500.0))
    sim.stroke(0.5, striker, tuple(1400.0 * u)).stroke(0.5 + spin_at, striker, tuple(spin_mm_s * u))
    res = sim.run(4.0)
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=seed))
    balls = {striker: [float(v) for v in p_s], obj: [float(v) for v in p_o], "9": [900.0, -500.0]}
    return detect_events(TABLE, 60.0, states), balls


def _one_start(events: list[Event]) -> Event:
    starts = [e for e in events if e.type is EventType.SHOT_START]
    assert len(starts) == 1, [e.to_json() for e in starts]
    assert not [e for e in events if e.type is EventType.BALL_DISTURBED]
    return starts[0]


CASES = [("C", "3", 0.0, 1), ("C", "3", 137.0, 2), ("3", "C", -70.0, 3)]


@pytest.mark.parametrize(("striker", "obj", "heading", "seed"), CASES)
def test_detector_names_the_ball_that_pushed(striker: str, obj: str, heading: float, seed: int) -> None:
    events, _ = _push_events(striker, obj, heading, seed)
    start = _one_start(events)
    assert start.ball == striker and start.confidence >= 0.5
    geo = start.extra["push_geometry"]
    assert geo["object"] == obj and geo["object_moved"] is True
    assert geo["angle_deg"] < 45.0 and geo["cue_forward"] is True and start.extra["cue_follow"] is True
    assert not geo.get("review"), geo
    contacts = [e for e in events if e.type is EventType.BALL_CONTACT and e.confidence >= 0.5]
    assert contacts and contacts[0].balls == (striker, obj), [e.to_json() for e in contacts]
    assert abs(contacts[0].t - start.t) < 2 / 60.0


@pytest.mark.parametrize(("striker", "obj", "heading", "seed"), [("C", "3", 20.0, 4), ("3", "C", 200.0, 5)])
def test_a_struck_ball_drawn_back_late_is_the_struck_one(striker: str, obj: str, heading: float, seed: int) -> None:
    # stunned dead at first, the draw takes hold 0.15 s later: past the push window the struck ball looks
    # like a still ball the other one left straight away from, until it comes back
    events, _ = _push_events(striker, obj, heading, seed, spin_mm_s=-300.0, spin_at=0.15)
    start = _one_start(events)
    assert start.ball == striker and "striker_review" not in start.extra
    geo = start.extra["push_geometry"]
    assert geo["object"] == obj and geo["object_moved"] is True and geo["cue_forward"] is False
    contacts = [e for e in events if e.type is EventType.BALL_CONTACT and e.confidence >= 0.5]
    assert contacts and contacts[0].balls == (striker, obj)


def test_a_ball_played_straight_away_from_a_still_touching_one_is_flagged() -> None:
    # only the struck ball moves, straight off the line of centres: the other struck dead into it (the
    # cue ball stopping at once) would look the same from above
    sim = Sim(TABLE).place("C", (-400.0, 150.0)).place("3", (-400.0 + 2 * R + 0.3, 150.0))
    res = sim.place("9", (900.0, -500.0)).stroke(0.5, "C", (-1400.0, 0.0)).run(3.0)
    start = _one_start(detect_events(TABLE, 60.0, noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=6))))
    assert start.ball == "C", "the ball that moved"
    assert start.extra.get("striker_review") and start.extra.get("review") is True
    assert 0.5 <= start.confidence <= 0.7
    assert start.extra["push_geometry"]["object_moved"] is False


@pytest.mark.parametrize(("game", "striker", "obj", "heading", "seed"), [("russian71", *CASES[0]), ("free", *CASES[2])])
def test_push_reaches_a_verdict_citing_1_19(game: str, striker: str, obj: str, heading: float, seed: int) -> None:
    events, balls = _push_events(striker, obj, heading, seed)
    rows: list[dict[str, Any]] = [
        {"type": "match", "game": game, "players": ["A", "B"], "breaker": "A"},
        {"type": "state", "balls": balls, "to_play": "A", "phase": "play", "t": 0.0},
        *[e.to_dict() for e in events],
    ]
    verdicts = judge_log(parse_log(rows), table=TABLE).verdicts
    assert len(verdicts) == 1
    v = verdicts[0]
    assert [f.clause for f in v.fouls] == ["1.19"], v.explanation
    assert "1.19" in v.explanation


def test_a_track_is_read_up_to_its_first_jump() -> None:
    # a ball pushed into a pocket at 0.4 m/s whose track then jumps 310 mm back onto the cue tip: its travel ends
    # where it was last itself; a ball struck hard from rest (its first step as fast as its run) is no jump
    t = np.array([1.0, 1.033, 1.067, 1.1])
    xy = np.array([[12.7, 9.1], [-245.0, -170.0], [-246.4, -170.4], [-247.8, -170.7]])
    kept_t, kept = until_jump(t, xy, np.zeros(2), 0.967, 68.0)
    assert len(kept_t) == 1 and np.allclose(kept[0], [12.7, 9.1])
    run = np.array([[100.0, 0.0], [198.0, 0.0], [294.0, 0.0], [388.0, 0.0]])
    assert len(until_jump(t, run, np.zeros(2), 0.967, 68.0)[0]) == 4
