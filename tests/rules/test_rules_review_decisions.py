"""Review of the engine against the seeds: decisions owed, the lag, the verdict contract (review findings)."""

from __future__ import annotations

from typing import Any

import pytest

from calibration.table import Table
from rules.engine import judge_log
from rules.inputs import parse_log
from rules.logbuild import NO_CHAIN, SAFE_2B, LogBuilder, play_rows
from rules.state import DecisionKind
from rules.verdict import LagVerdict, Verdict

TABLE = Table.load()
POT7 = [("contact", "C", "7"), ("pot", "7", "rear_left")]


def verdicts(rows: list[dict[str, Any]]) -> list[Verdict]:
    return judge_log(parse_log(rows), table=TABLE).verdicts


def owed(v: Verdict) -> dict[DecisionKind, tuple[str, str]]:
    return {d.kind: (d.by, d.clause) for d in v.decisions_owed}


# --- 2.5.1: in Free the next player chooses the cue ball before every shot but the break ---------------
@pytest.mark.parametrize("game,steps,by", [
    ("free", POT7, "A"),  # a pot keeps the turn with a fresh choice (2.5.2)
    ("free", SAFE_2B, "B"),  # the turn passes with the choice (2.5.3)
    ("free", NO_CHAIN, "B"),  # a foul: the non-offender (unless he hands the shot back)
    ("combined", SAFE_2B, None),
    ("dynamic", SAFE_2B, None),
    ("russian71", SAFE_2B, None),
])
def test_free_cue_ball_choice_is_owed(game: str, steps: list, by: str | None) -> None:
    v = verdicts(play_rows(game, steps))[-1]
    got = owed(v).get(DecisionKind.CUE_BALL_CHOICE)
    assert got == (None if by is None else (by, "2.5.1"))


def test_free_cue_ball_choice_not_owed_when_the_frame_ends() -> None:
    v = verdicts(play_rows("free", POT7, state={"score": {"A": 7, "B": 0}}))[-1]
    assert v.winner == "A" and DecisionKind.CUE_BALL_CHOICE not in owed(v)


def test_free_cue_ball_choice_is_settled_by_the_stroke() -> None:
    lb = LogBuilder("free")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot(SAFE_2B)
    lb.shot([("contact", "9", "7"), ("cushion", "7", "left_rear"), ("cushion", "7", "rear")], struck="9")
    v = verdicts(lb.rows)[-1]
    assert v.legal and v.player == "B" and not any("cue_ball_choice" in r for r in v.review.reasons)


# --- 1.7.2(1): a lag ball reported crossing the long axis (shot_end extra) loses -------------------------
def _lag(crossed: list[str] | None) -> list[dict[str, Any]]:
    lb = LogBuilder("russian71", breaker=None)
    lb.add("lag", balls={"C": "A", "1": "B"})
    lb.rows.append({"type": "shot_start", "t": lb._tick(), "frame": 1, "ball": "C",
                    "positions": {"C": [-1200.0, 300.0], "1": [-1200.0, -300.0]}})
    for s in [("cushion", "C", "rear"), ("cushion", "1", "rear")]:
        lb.rows.append(lb.step(s))
    end: dict[str, Any] = {"type": "shot_end", "t": lb._tick(), "frame": 2,
                           "positions": {"C": [-1500.0, 300.0], "1": [-1700.0, -300.0]}}
    if crossed is not None:
        end["crossed_long_axis"] = crossed
    lb.rows.append(end)
    return lb.rows


@pytest.mark.parametrize("crossed,winner,clause", [
    (None, "B", "1.7.1"),  # ball 1 stopped nearer the front cushion
    ([], "B", "1.7.1"),
    (["1"], "A", "1.7.2(1)"),  # ... but it went into A's half and came back: lost
    (["C", "1"], None, "1.7.3"),  # both lost: replay
])
def test_lag_long_axis_crossing_reported_by_vision(crossed: list[str] | None, winner: str | None,
                                                   clause: str) -> None:
    lag = judge_log(parse_log(_lag(crossed)), table=TABLE).outputs[0]
    assert isinstance(lag, LagVerdict) and lag.winner == winner
    assert clause in lag.reasons["B"]


def test_lag_long_axis_crossing_of_an_unknown_ball_is_reviewed() -> None:
    lag = judge_log(parse_log(_lag(["7"])), table=TABLE).outputs[0]
    assert isinstance(lag, LagVerdict) and lag.winner == "B" and lag.review.flag


# --- 1.13: breaks alternate by frame; a re-break after 1.12.2(3) does not change whose frame it was -----
@pytest.mark.parametrize("option,frame2_breaker", [("rerack_break", "B"), ("rerack_offender_breaks", "B"),
                                                    ("play", "B")])
def test_breaks_alternate_after_a_rerack(option: str, frame2_breaker: str) -> None:
    from rules.logbuild import BREAK_THREE_CUSHIONS, BREAK_TWO_CUSHIONS

    lb = LogBuilder("russian71", frames_to_win=2)
    lb.shot(BREAK_TWO_CUSHIONS)  # A breaks illegally
    lb.add("choose", option=option)
    if option != "play":
        lb.shot(BREAK_THREE_CUSHIONS)  # the re-break
    lb.state(phase="play", to_play="A", hand="none", score={"A": 66, "B": 0})
    lb.add("nominate", ball="7", pocket="rear_left")
    lb.shot(POT7)  # A wins frame 1
    lb.shot(BREAK_THREE_CUSHIONS)
    vs = verdicts(lb.rows)
    assert vs[-2].winner == "A" and vs[-1].frame == 2 and vs[-1].is_break
    assert vs[-1].player == frame2_breaker


# --- the cue ball in hand cites the rule that put it there ---------------------------------------------
CUEPOT = [("contact", "C", "7"), ("cushion", "7", "rear"), ("cushion", "7", "front"), ("pot", "C", "front_left")]
CUEOFF = [("contact", "C", "7"), ("cushion", "7", "rear"), ("cushion", "7", "front"), ("off", "C")]


@pytest.mark.parametrize("game,steps,where,clause", [
    ("combined", CUEPOT, "house", "3.5.2"),  # premium
    ("combined", CUEOFF, "house", "3.7"),  # penalty shot from the house
    ("dynamic", CUEPOT, "anywhere", "4.5.2"),
    ("dynamic", CUEOFF, "anywhere", "4.7(2)"),
    ("russian71", CUEPOT, "house", "5.5.5"),
    ("russian71", CUEOFF, "house", "5.5.5"),
    ("classic71", CUEPOT, "house", "1.21"),
])
def test_cue_ball_in_hand_cites_its_rule(game: str, steps: list, where: str, clause: str) -> None:
    v = verdicts(play_rows(game, steps))[-1]
    d = next(d for d in v.decisions_owed if d.kind is DecisionKind.CUE_BALL_IN_HAND)
    assert d.options == (where,) and d.clause == clause


# --- 1.28: interference is the foul of the player who is NOT at the table --------------------------------
def _interference(game: str, where: str, steps: list) -> Verdict:
    lb = LogBuilder(game)
    lb.state(phase="play", to_play="A", hand="none", score={"A": 20, "B": 20} if "71" in game else {})
    foul = {"clause": "1.28", "reason": "B moved ball 12 while A was playing"}
    if "71" in game:
        lb.add("nominate", ball="7", pocket="rear_left")
    if where == "before":
        lb.add("foul", **foul)
    lb.shot(steps, during=[{"type": "foul", **foul}] if where == "during" else ())
    if where == "after":
        lb.add("foul", **foul)
    return verdicts(lb.rows)[-1]


@pytest.mark.parametrize("where", ["before", "during", "after"])
@pytest.mark.parametrize("game,steps,a_after,b_after", [
    ("russian71", POT7, 32, 15),  # A's pot stands (+7), B pays 5 to A
    ("russian71", SAFE_2B, 25, 15),
    ("free", POT7, 2, 0),  # A's pot (+1) and B's penalty (+1 to A)
])
def test_interference_is_charged_to_the_opponent(where: str, game: str, steps: list, a_after: int,
                                                  b_after: int) -> None:
    v = _interference(game, where, steps)
    assert v.player == "A" and v.score == {"A": a_after, "B": b_after}, v.explanation
    f = next(f for f in v.fouls if f.clause == "1.28")
    assert f.to_dict()["offender"] == "B"
    assert v.next_player == "A"  # A, the non-offender, plays on or hands the shot back (1.6)
    assert owed(v)[DecisionKind.CHOICE_AFTER_FOUL][0] == "A"
    assert "1.28" in v.explanation


# --- 5.5.7: at 70-70 the lag decides who plays; the decisions owed name no player before it --------------
def test_seventy_all_owes_only_the_lag_then_the_winner_plays_from_the_house() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none", score={"A": 55, "B": 70},
             balls={"C": [-900.0, 0.0], "5": [900.0, 0.0]})
    lb.add("nominate", ball="5", pocket="rear_left")
    lb.shot([("contact", "C", "5"), ("pot", "5", "rear_left")])
    lb.rows.extend(r for r in _lag(None)[1:])  # B's ball stops nearer the front cushion
    j = judge_log(parse_log(lb.rows), table=TABLE)
    v, lag = j.outputs
    assert isinstance(v, Verdict) and [d.kind for d in v.decisions_owed] == [DecisionKind.LAG]
    assert isinstance(lag, LagVerdict) and lag.winner == "B" and lag.purpose == "seventy"
    got = {d.kind: (d.by, d.options) for d in lag.decisions_owed}
    assert got[DecisionKind.CUE_BALL_IN_HAND] == ("B", ("house",)) and got[DecisionKind.NOMINATION][0] == "B"


# --- 1.26: the shot clock runs from the end of the previous shot, not across a re-rack ------------------
def _clocked(*shots: tuple[str, float, str | None]) -> list[Verdict]:
    from rules.logbuild import BREAK_THREE_CUSHIONS, BREAK_TWO_CUSHIONS

    named = {"break3": BREAK_THREE_CUSHIONS, "break2": BREAK_TWO_CUSHIONS, "pot7": POT7, "safe": SAFE_2B}
    lb = LogBuilder("free", frames_to_win=3)
    lb.add("clock", action="start")
    lb.state(phase="play", to_play="A", hand="none", score={"A": 7, "B": 0})
    for steps, wait, choice in shots:
        if choice:
            lb.add("choose", option=choice)
        lb.shot(named[steps], wait_s=wait)
    return verdicts(lb.rows)


@pytest.mark.parametrize("shots,slow", [
    ([("pot7", 5.0, None), ("break3", 120.0, None)], False),  # the next frame's break after racking
    ([("pot7", 5.0, None), ("break2", 5.0, None), ("break3", 100.0, "rerack_break")], False),  # 1.12.2(3)
    ([("safe", 5.0, None), ("safe", 50.0, None)], True),  # an ordinary shot 50 s after the last one
])
def test_clock_does_not_run_across_a_rerack(shots: list, slow: bool) -> None:
    v = _clocked(*shots)[-1]
    assert ("1.26" in [f.clause for f in v.fouls]) is slow, v.explanation


# --- 1.27: balls that cannot be restored: re-rack, lag, a break; the score is kept -----------------------
@pytest.mark.parametrize("restored", [True, False])
def test_interference_not_restorable_reracks_and_a_lag_decides(restored: bool) -> None:
    from rules.rack import incomplete_rack

    lb = LogBuilder("russian71", frames_to_win=2)
    balls = {"C": [-1200.0, 0.0], "7": [600.0, 300.0], "3": [500.0, -300.0], "5": [-200.0, 100.0]}
    lb.state(phase="play", to_play="A", hand="none", score={"A": 30, "B": 40}, balls=balls)
    lb.add("interference", restored=restored, reason="a spectator's bag fell on the table")
    if restored:
        lb.shot(SAFE_2B)
    else:
        lb.rows.extend(_lag(None)[1:])  # B wins the lag
        lb.shot([("contact", "C", "7"), ("cushion", "3", "rear"), ("cushion", "5", "left_rear"),
                 ("cushion", "7", "right_rear")])
    j = judge_log(parse_log(lb.rows), table=TABLE)
    v = j.verdicts[-1]
    if restored:
        assert v.player == "A" and not v.is_break
        return
    lag = j.outputs[0]
    assert isinstance(lag, LagVerdict) and lag.purpose == "interference" and lag.winner == "B"
    assert v.player == "B" and v.is_break and v.legal and v.score == {"A": 30, "B": 40}
    assert dict(j.states[0].balls) == dict(incomplete_rack(TABLE, ["5", "7", "3"]))  # 1.8 note, cue ball in hand


@pytest.mark.parametrize("player,payer", [(None, "A"), ("B", "B"), ("A", "A")])
def test_foul_between_shots_is_paid_by_the_named_player(player: str | None, payer: str) -> None:
    """A foul entered after A's shot is A's (after the shot) unless it names the offender."""
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none", score={"A": 20, "B": 20})
    lb.shot(SAFE_2B)
    foul: dict[str, Any] = {"clause": "1.17", "reason": "touched ball 9 while preparing"}
    if player:
        foul["player"] = player
    lb.add("foul", **foul)
    v = verdicts(lb.rows)[-1]
    other = "B" if payer == "A" else "A"
    assert v.score == {payer: 15, other: 25} and v.next_player == other, v.explanation


@pytest.mark.parametrize("option,counted,next_player", [("take_ball", True, "B"), ("ball_in_hand", False, "A")])
def test_dynamic_choice_decides_whether_the_cue_ball_may_be_potted(option: str, counted: bool,
                                                                   next_player: str) -> None:
    """4.7: (1) take a ball and play on: a cue-ball pot off an object ball is 4.5.2's premium; (2) a penalty
    shot from hand anywhere: only object balls may be potted (the potted cue ball does not count)."""
    lb = LogBuilder("dynamic")
    lb.state(phase="play", to_play="A", hand="none", score={"A": 3, "B": 3})
    lb.shot([("contact", "C", "7"), ("cushion", "7", "left_rear"), ("cushion", "7", "rear"), ("off", "C")])
    lb.add("choose", option=option)
    if option == "take_ball":
        lb.add("penalty_ball", ball="12")
    lb.add("choose", option="play")
    lb.shot([("contact", "C", "7"), ("cushion", "7", "left_rear"), ("cushion", "7", "rear"),
             ("pot", "C", "front_left")])
    v = verdicts(lb.rows)[-1]
    assert v.player == "B" and v.legal and v.next_player == next_player, v.explanation
    assert any(c["ball"] == "C" for c in v.potted_counted) is counted
