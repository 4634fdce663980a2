"""What a shot_start asserts (schema 1.1): that a stroke happened, and which ball the cue struck."""

from __future__ import annotations

from typing import Any

import pytest

from calibration.table import Table
from rules.engine import hold_doubtful_starts, judge_log
from rules.events import Event, EventType, ball_confidence, opens_shot, start_confidence
from rules.inputs import parse_log
from rules.logbuild import LogBuilder
from rules.records import ShotRecord, group_log
from rules.verdict import Verdict

TABLE = Table.load()
POT7 = [("contact", "C", "7"), ("pot", "7", "rear_left")]


def _verdicts(rows: list[dict[str, Any]]) -> list[Verdict]:
    return judge_log(parse_log(rows), table=TABLE).verdicts


def _with_start_inside(start: dict[str, Any], steps_after: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """A Russian 71 shot from a position: C hits 7; then `start` (a second shot_start) while the balls
    still run; then `steps_after` and the one shot_end."""
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot([("contact", "C", "7")], end=False)
    lb.rows.append({"type": "shot_start", "t": lb._tick(), "frame": 0, "ball": "3", **start})
    for s in steps_after:
        lb.rows.append(lb.step(s))
    lb.rows.append(lb._event("shot_end"))
    return lb.rows


def test_a_doubtful_start_inside_a_shot_does_not_split_it() -> None:
    rows = _with_start_inside({"confidence": 0.09, "start_confidence": 0.3, "ball_confidence": 0.3, "early": True},
                              [("pot", "7", "rear_left")])
    vs = _verdicts(rows)
    assert len(vs) == 1
    v = vs[0]
    assert v.potted and v.potted[0]["ball"] == "7"  # the pot after the doubtful start is this shot's
    assert v.legal and v.review.flag
    assert any("not counted as a new shot" in r for r in v.review.reasons)
    assert any(e["type"] == "shot_start" and e["balls"] == ["3"] for e in v.review.events)


def test_an_asserted_early_stroke_still_opens_a_shot() -> None:
    rows = _with_start_inside({"confidence": 0.9, "start_confidence": 0.95, "ball_confidence": 0.95, "early": True},
                              [("contact", "3", "9")])
    vs = _verdicts(rows)
    assert len(vs) == 2
    assert not any("not counted" in r for v in vs for r in v.review.reasons)


@pytest.mark.parametrize("fields", [{"confidence": 0.3}, {"confidence": 0.3, "start_confidence": 0.3}])
def test_a_1_0_start_with_low_confidence_is_doubtful_too(fields: dict[str, Any]) -> None:
    # a 1.0 writer folded identity into `confidence`: below 0.5 it did not assert the event
    rows = _with_start_inside(fields, [("pot", "7", "rear_left")])
    assert len(_verdicts(rows)) == 1


def test_a_certain_stroke_of_an_uncertain_ball_counts_and_is_flagged() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot(POT7, confidence=0.38, start_confidence=0.95, ball_confidence=0.4)
    v = _verdicts(lb.rows)[0]
    assert v.legal and v.potted  # judged as reported
    assert v.review.flag and any("struck ball C?" in r and "0.40" in r for r in v.review.reasons)
    assert any(e["type"] == "shot_start" for e in v.review.events)


def test_a_referee_named_ball_clears_the_identity_flag() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot(POT7, confidence=0.38, start_confidence=0.95, ball_confidence=0.4)
    lb.add("override", shot=1, start={"ball": "C"}, reason="the referee saw C struck")
    v = _verdicts(lb.rows)[0]
    assert not any("struck ball" in r for r in v.review.reasons)


def test_a_doubtful_stroke_with_no_shot_open_is_judged_and_flagged() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot(POT7, confidence=0.3, start_confidence=0.3, ball_confidence=1.0)
    vs = _verdicts(lb.rows)
    assert len(vs) == 1 and vs[0].review.flag
    assert any("is doubtful" in r for r in vs[0].review.reasons)


def test_overrides_name_shots_as_the_engine_counts_them() -> None:
    rows = _with_start_inside({"confidence": 0.09, "start_confidence": 0.3, "ball_confidence": 0.3}, [])
    lb = LogBuilder()
    lb.rows, lb.t = rows, rows[-1]["t"]
    lb.shot(POT7)
    # shot 2 is the potting shot: the doubtful start inside shot 1 takes no number
    lb.add("override", shot=2, events={"remove": [{"type": "pot", "ball": "7"}]}, reason="no pot")
    vs = _verdicts(lb.rows)
    assert [v.shot for v in vs] == [1, 2]
    assert not vs[1].potted


def test_held_starts_are_numbered_by_the_shot_they_fall_in() -> None:
    rows = _with_start_inside({"confidence": 0.09, "start_confidence": 0.3}, [])
    kept, held = hold_doubtful_starts(parse_log(rows))
    assert list(held) == [1] and held[1][0].ball == "3"
    assert sum(1 for x in kept if isinstance(x, Event) and x.type is EventType.SHOT_START) == 1


def test_confidence_readers() -> None:
    new = Event(EventType.SHOT_START, 1.0, 60, 0.3, ball="C", extra={"start_confidence": 0.95, "ball_confidence": 0.32})
    old = Event(EventType.SHOT_START, 1.0, 60, 0.3, ball="C")
    assert (start_confidence(new), ball_confidence(new), opens_shot(new)) == (0.95, 0.32, True)
    assert (start_confidence(old), ball_confidence(old), opens_shot(old)) == (0.3, 0.3, False)
    odd = Event(EventType.SHOT_START, 1.0, 60, 0.8, ball="C", extra={"start_confidence": "x"})
    assert start_confidence(odd) == 0.8


def test_an_early_stroke_after_a_doubtful_shot_says_its_1_14_2_rests_on_that_doubt() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    # a doubtful start while no shot runs opens a shot (flagged); the real stroke then comes marked early
    lb.rows.append({"type": "shot_start", "t": lb._tick(), "frame": 0, "ball": "3", "confidence": 0.3,
                    "start_confidence": 0.3, "ball_confidence": 1.0})
    lb.add("choose", option="play")
    lb.rows.append({"type": "shot_start", "t": lb._tick(), "frame": 0, "ball": "C", "confidence": 0.95,
                    "start_confidence": 0.95, "ball_confidence": 1.0, "early": True})
    for s in POT7:
        lb.rows.append(lb.step(s))
    lb.rows.append(lb._event("shot_end"))
    vs = _verdicts(lb.rows)
    assert len(vs) == 2
    assert any(f.clause == "1.14.2" for f in vs[1].fouls)
    assert vs[1].review.flag
    assert any("1.14.2 rests on it" in r for r in vs[1].review.reasons)
    doubtful_t = next(r["t"] for r in lb.rows if r.get("type") == "shot_start" and r.get("ball") == "3")
    assert any(e.get("t") == round(doubtful_t, 6) for e in vs[1].review.events)


def test_an_early_stroke_after_a_sure_shot_is_not_flagged_for_that() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot([("contact", "C", "7")], end=False)
    lb.rows.append({"type": "shot_start", "t": lb._tick(), "frame": 0, "ball": "C", "confidence": 0.95,
                    "start_confidence": 0.95, "ball_confidence": 1.0, "early": True})
    lb.rows.append(lb._event("shot_end"))
    for v in _verdicts(lb.rows):
        assert not any("1.14.2 rests on it" in r for r in v.review.reasons)


def test_a_doubtful_start_inside_a_replayed_shot_is_named_for_review() -> None:
    # the referee orders the shot replayed (1.23.2): the possible stroke inside it is not dropped silently
    rows = _with_start_inside({"confidence": 0.09, "start_confidence": 0.3, "ball_confidence": 0.3},
                              [("pot", "7", "rear_left")])
    lb = LogBuilder()
    lb.rows, lb.t = rows, rows[-1]["t"]
    lb.add("override", shot=1, verdict={"replay": True}, reason="balls disturbed by a spectator")
    vs = _verdicts(lb.rows)
    assert len(vs) == 1 and vs[0].result.value == "replay"
    assert vs[0].review.flag
    assert any("not counted as a new shot" in r for r in vs[0].review.reasons)
    assert any(e["type"] == "shot_start" and e["balls"] == ["3"] for e in vs[0].review.events)


def _lag_with_a_state_line() -> list[dict[str, Any]]:
    """A lag whose second ball's start comes after a state line the referee entered during it, then a shot
    with a doubtful start inside it."""
    lb = LogBuilder("russian71", breaker=None)
    lb.add("lag", balls={"C": "A", "1": "B"})
    lb.rows.append({"type": "shot_start", "t": lb._tick(), "frame": 1, "ball": "C",
                    "positions": {"C": [-1200.0, 300.0], "1": [-1200.0, -300.0]}})
    lb.state(score={"A": 0, "B": 0})
    lb.rows.append({"type": "shot_start", "t": lb._tick(), "frame": 2, "ball": "1"})
    for s in [("cushion", "C", "rear"), ("cushion", "1", "rear")]:
        lb.rows.append(lb.step(s))
    lb.rows.append({"type": "shot_end", "t": lb._tick(), "frame": 3,
                    "positions": {"C": [-1700.0, 300.0], "1": [-1500.0, -300.0]}})
    rest = lb.rows
    lb2 = LogBuilder()
    lb2.rows, lb2.t = rest, rest[-1]["t"]
    lb2.shot([("contact", "C", "7")], end=False)
    lb2.rows.append({"type": "shot_start", "t": lb2._tick(), "frame": 0, "ball": "3", "confidence": 0.09,
                     "start_confidence": 0.3, "ball_confidence": 0.3})
    lb2.rows.append(lb2._event("shot_end"))
    return lb2.rows


def test_held_starts_are_numbered_as_group_log_numbers_shots_across_a_state_line_in_a_lag() -> None:
    items = parse_log(_lag_with_a_state_line())
    kept, held = hold_doubtful_starts(items)
    numbers = [s.number for s in group_log(kept) if isinstance(s, ShotRecord)]
    assert numbers == [1]
    assert list(held) == [1] and held[1][0].ball == "3"
    vs = _verdicts(_lag_with_a_state_line())
    assert [v.shot for v in vs] == [1]
    assert any("not counted as a new shot" in r for r in vs[0].review.reasons)
