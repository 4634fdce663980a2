"""Review of the engine against the seeds: scoring, frame ends and the break (defects found in review).

Each case names the clause it checks. Table-driven: one row per game or per situation.
"""

from __future__ import annotations

from typing import Any

import pytest

from calibration.table import Table
from rules.engine import judge_log
from rules.inputs import parse_log
from rules.logbuild import LogBuilder
from rules.state import DecisionKind
from rules.verdict import Result, Verdict

TABLE = Table.load()
POT5 = [("contact", "C", "5"), ("pot", "5", "rear_left")]
NOM5 = {"ball": "5", "pocket": "rear_left"}


def verdicts(rows: list[dict[str, Any]]) -> list[Verdict]:
    return judge_log(parse_log(rows), table=TABLE).verdicts


def kinds(v: Verdict) -> list[DecisionKind]:
    return [d.kind for d in v.decisions_owed]


# --- 1.22.3 note: a violation after the shot that ended the frame is not penalised ---------------------
@pytest.mark.parametrize("game,before,target", [
    ("free", 7, 8), ("combined", 7, 8), ("dynamic", 7, 8), ("russian71", 66, 71), ("classic71", 66, 71),
])
def test_foul_after_the_frame_winning_shot_is_not_penalised(game: str, before: int, target: int) -> None:
    lb = LogBuilder(game)
    lb.state(phase="play", to_play="A", hand="none", score={"A": before, "B": 20 if target == 71 else 3})
    if target == 71:
        lb.add("nominate", **NOM5)
    lb.shot(POT5)
    lb.add("foul", clause="1.17", reason="touched a ball after the shot")
    v = verdicts(lb.rows)[-1]
    assert v.result in (Result.FRAME_WON, Result.MATCH_WON) and v.winner == "A", v.explanation
    assert v.score["A"] >= target and v.legal and not v.fouls
    assert "1.22" in " ".join(v.readings) and "not penalised" in v.explanation


@pytest.mark.parametrize("game,score_a,score_b", [("free", 3, 3), ("russian71", 30, 20)])
def test_foul_after_a_shot_that_does_not_end_the_frame_is_penalised(game: str, score_a: int, score_b: int) -> None:
    lb = LogBuilder(game)
    lb.state(phase="play", to_play="A", hand="none", score={"A": score_a, "B": score_b})
    if game == "russian71":
        lb.add("nominate", **NOM5)
    lb.shot(POT5)
    lb.add("foul", clause="1.17", reason="touched a ball after the shot")
    v = verdicts(lb.rows)[-1]
    assert not v.legal and [f.clause for f in v.fouls] == ["1.17"] and v.fouls[0].after_shot
    assert v.result is Result.CONTINUE and v.next_player == "B"
    assert v.score["B"] > score_b  # the penalty is paid, the pot stands (1.22.3)


# --- 1.12.1(1): a ball potted on a break with a violation is not "legally potted" (1.22.3) -------------
@pytest.mark.parametrize("game,steps,foul", [
    ("free", [("contact", "C", "4"), ("cushion", "5", "left_rear"), ("pot", "6", "rear_left"), ("off", "3")],
     "1.24.3"),
    ("combined", [("contact", "C", "4"), ("pot", "6", "rear_left"), ("disturbed", "11")], "1.17"),
    ("russian71", [("contact", "C", "4"), ("cushion", "5", "left_rear"), ("pot", "6", "rear_left"),
                   ("pot", "C", "front_left")], "5.5.5"),
])
def test_break_legal_only_by_an_illegal_pot_is_an_illegal_break(game: str, steps: list, foul: str) -> None:
    v = verdicts(LogBuilder(game).shot(steps).rows)[-1]
    clauses = [f.clause for f in v.fouls]
    assert "1.12.1" in clauses and foul in clauses, v.explanation
    assert DecisionKind.BREAK_CHOICE in kinds(v) and DecisionKind.CHOICE_AFTER_FOUL not in kinds(v)
    assert "6" in [s["ball"] for s in v.spotted]


def test_break_legal_by_three_cushions_with_a_jumped_ball_is_an_ordinary_foul() -> None:
    steps = [("contact", "C", "4"), ("cushion", "5", "left_rear"), ("cushion", "6", "right_rear"),
             ("cushion", "3", "rear"), ("off", "3")]
    v = verdicts(LogBuilder("free").shot(steps).rows)[-1]
    assert [f.clause for f in v.fouls] == ["1.24.3"]
    assert DecisionKind.CHOICE_AFTER_FOUL in kinds(v) and DecisionKind.BREAK_CHOICE not in kinds(v)


def test_legal_break_by_a_pot_still_legal() -> None:
    v = verdicts(LogBuilder("free").shot([("contact", "C", "4"), ("pot", "6", "rear_left")]).rows)[-1]
    assert v.legal and v.score["A"] == 1 and v.next_player == "A"


# --- Classic 71: pot values "as 5.x" (RULES.md), so the last ball is +10 and 70-70 can happen -----------
@pytest.mark.parametrize("game,a_before,result,a_after", [
    ("classic71", 55, Result.DRAW, 70),  # 5 + 10 makes 70-70: a draw (001)
    ("classic71", 60, Result.MATCH_WON, 75),
    ("russian71", 60, Result.MATCH_WON, 75),
])
def test_last_ball_bonus_and_seventy_all(game: str, a_before: int, result: Result, a_after: int) -> None:
    lb = LogBuilder(game)
    lb.state(phase="play", to_play="A", hand="none", score={"A": a_before, "B": 70},
             balls={"C": [-900.0, 0.0], "5": [900.0, 0.0]})
    lb.add("nominate", **NOM5)
    lb.shot(POT5)
    v = verdicts(lb.rows)[-1]
    assert v.result is result and v.score["A"] == a_after, v.explanation
    assert v.potted_counted[0]["points"] == 15
    if result is Result.DRAW:
        assert v.winner is None


def test_classic_total_makes_seventy_all_reachable() -> None:
    """001 knows a 70-70 draw; the scores can only reach 140 in all if the pot values total 140."""
    from rules.games import RULE_SETS, ball_value

    for game in ("russian71", "classic71"):
        rs = RULE_SETS[game]  # type: ignore[index]
        total = sum(ball_value(rs, str(b)) for b in range(1, 16)) + rs.last_ball_bonus
        assert total == 140 and rs.target == 71


# --- 001 forced draw: three penalty strokes each IN A ROW, balls unchanged ---------------------------
MISS = [("cushion", "C", "rear"), ("cushion", "C", "front")]
M5 = ("play", "m")


def _classic_after_warning(seq: list[tuple[str, str]]) -> Verdict:
    """`seq`: (choice before the stroke, "m" a miss that moves nothing else | "p" a nominated pot of 5)."""
    lb = LogBuilder("classic71")
    lb.state(phase="play", to_play="A", hand="none", score={"A": 30, "B": 30})
    lb.add("warning", about="penalty_draw")
    for i, (choice, kind) in enumerate(seq):
        if i:
            lb.add("choose", option=choice)
        if kind == "p":
            lb.add("nominate", **NOM5)
        lb.shot(MISS if kind == "m" else POT5)
    return verdicts(lb.rows)[-1]


@pytest.mark.parametrize("seq,draw", [
    ([M5] * 6, True),  # A, B, A, B, A, B: three penalty strokes each in a row
    ([M5] * 5, False),
    # A has three misses, then B pots (the position changes) and misses three times, A handing over:
    # A's misses were before the change, so they are not "in a row" with B's.
    ([M5] * 5 + [("play", "p"), M5, ("hand_over", "m"), ("hand_over", "m")], False),
    ([M5] * 5 + [("play", "p")] + [M5] * 6, True),
])
def test_classic_forced_draw_needs_three_penalties_each_in_a_row(seq: list, draw: bool) -> None:
    v = _classic_after_warning(seq)
    assert (v.result is Result.DRAW) is draw, v.explanation


@pytest.mark.parametrize("before,pot,counted,reading", [
    (True, "5", True, False),  # the standing nomination was met: the one made during the stroke is moot
    (True, "3", False, True),  # ball 3, named only during the stroke: that does not count, 3 is spotted
    (False, "5", False, True),  # only a nomination during the stroke: it does not count, the ball is spotted
])
def test_classic_nomination_during_the_stroke(before: bool, pot: str, counted: bool, reading: bool) -> None:
    lb = LogBuilder("classic71")
    lb.state(phase="play", to_play="A", hand="none", score={"A": 20, "B": 20})
    if before:
        lb.add("nominate", **NOM5)
    lb.shot([("contact", "C", pot), ("pot", pot, "rear_left")], during=[{"type": "nominate", "ball": "3",
                                                                        "pocket": "rear_left"}])
    v = verdicts(lb.rows)[-1]
    assert bool(v.potted_counted) is counted and (not counted) is bool(v.spotted), v.explanation
    assert any("during or after the stroke" in r for r in v.readings) is reading
