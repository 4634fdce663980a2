"""Scenarios show what their names say, in the exact events they produce."""

from __future__ import annotations

import numpy as np
import pytest

from rules.events import EventType
from synthetic.scenarios import SCENARIOS, build
from vision.types import BallState


def kinds(name: str, seed: int = 1) -> tuple[list, list]:
    tl, log = build(name, seed, 30.0)
    return tl.events, log


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("legal_straight_pot", {(EventType.POT, "7")}),
        ("foul_cue_ball_potted", {(EventType.POT, "C"), (EventType.POT, "10")}),
        ("foul_jumped_ball", {(EventType.OFF_TABLE, "C")}),
        ("foul_ball_touched_by_hand", {(EventType.BALL_DISTURBED, "5")}),
        ("foul_wrong_ball_struck", {(EventType.SHOT_START, "7")}),
    ],
)
def test_scenario_shows_its_event(name: str, want: set) -> None:
    events, log = kinds(name)
    got = {(e.type, e.ball) for e in events}
    assert want <= got
    assert log[0]["type"] == "match"


def test_no_contact_has_no_ball_contact() -> None:
    events, _ = kinds("foul_no_contact")
    assert [e for e in events if e.type is EventType.BALL_CONTACT] == []
    assert events[0].type is EventType.SHOT_START and events[-1].type is EventType.SHOT_END


def test_early_strike_is_marked_and_hanging_ball_drops_outside_a_shot() -> None:
    events, _ = kinds("foul_strike_before_balls_stopped")
    starts = [e for e in events if e.type is EventType.SHOT_START]
    assert len(starts) == 2 and not starts[0].extra.get("early") and starts[1].extra.get("early") is True
    events, _ = kinds("hanging_ball_drops_later")
    drop = [e for e in events if e.type is EventType.POT and e.ball == "12"]
    end = next(e for e in events if e.type is EventType.SHOT_END)
    assert drop and drop[0].t > end.t and drop[0].extra.get("hanging") is True


def test_timeline_frames_states_and_occluders() -> None:
    tl, _ = build("legal_straight_pot", 2, 30.0)
    i7 = tl.ids.index("7")
    pot = next(e for e in tl.events if e.type is EventType.POT)
    after = tl.t > pot.t + 1e-9
    assert (tl.state[after, i7] == BallState.POTTED).all() and np.isnan(tl.pos_mm[after, i7]).all()
    start = next(e for e in tl.events if e.type is EventType.SHOT_START)
    assert tl.state[tl.t < start.t, i7].tolist() == [BallState.STATIONARY] * int((tl.t < start.t).sum())
    near = np.abs(tl.t - start.t) < 0.3
    assert all(tl.occluders[k] for k in np.flatnonzero(near))  # cue and arm over the table at the stroke
    ic = tl.ids.index("C")
    moving = tl.state[:, ic] == BallState.MOVING
    assert moving.any() and np.allclose(np.linalg.norm(tl.rot[0, ic] @ tl.rot[0, ic].T - np.eye(3)), 0, atol=1e-9)


def test_build_is_deterministic_and_names_are_registered() -> None:
    a, la = build("foul_push_touching_balls", 4, 30.0)
    b, lb = build("foul_push_touching_balls", 4, 30.0)
    assert [e.to_dict() for e in a.events] == [e.to_dict() for e in b.events] and la == lb
    assert np.array_equal(a.pos_mm, b.pos_mm, equal_nan=True)
    start = a.events[0]  # the push measurement of 1.19, as docs/event-schema.md defines it
    assert start.type is EventType.SHOT_START and start.extra["cue_follow"] is True
    assert start.extra["stroke_angle_deg"] < 45 and start.extra["push_geometry"]["object"] == "2"
    assert any(t["balls"] == ["2", "C"] for t in start.touching or ())
    with pytest.raises(ValueError, match="unknown scenario"):
        build("no_such_scenario", 0, 30.0)
    assert {"break", "legal_bank_shot", "lag_for_break", "frame_russian71"} <= set(SCENARIOS)
