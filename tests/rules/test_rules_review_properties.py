"""Review properties (hypothesis, derandomized): the verdict contract, zero-sum penalties, turn order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.table import Table
from rules.engine import judge_log
from rules.games import RULE_SETS
from rules.inputs import parse_log
from rules.loggen import random_match
from rules.state import DecisionKind, Game
from rules.verdict import Result, Verdict

TABLE = Table.load()
SETTINGS = settings(max_examples=10, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.jsonl"))
CONTRACT = ("shot", "player", "legal", "fouls", "potted_counted", "spotted", "score", "next_player",
            "decisions_owed", "result", "winner", "review", "explanation")


def check_contract(d: dict[str, Any], players: set[str]) -> None:
    """The verdict contract of issue 4, on the JSON form of one shot verdict."""
    missing = [k for k in CONTRACT if k not in d]
    assert not missing, missing
    assert isinstance(d["legal"], bool) and d["player"] in players
    assert all(isinstance(f.get("clause"), str) and f["clause"] for f in d["fouls"])
    assert d["legal"] is (not d["fouls"]) or all(f.get("offender") for f in d["fouls"])
    assert all({"ball", "points"} <= set(c) for c in d["potted_counted"])
    assert all({"ball", "x", "y"} <= set(s) for s in d["spotted"])
    assert set(d["score"]) == players
    assert all({"decision", "by", "clause"} <= set(x) and x["by"] in players for x in d["decisions_owed"])
    assert d["result"] in {r.value for r in Result}
    assert (d["winner"] is not None) is (d["result"] in ("frame_won", "match_won"))
    assert d["next_player"] is None or d["result"] == "continue"
    assert {"flag", "reasons", "events"} <= set(d["review"]) and d["review"]["flag"] is bool(d["review"]["reasons"])
    assert isinstance(d["explanation"], str) and d["explanation"].strip()
    json.dumps(d)  # JSON Lines: serialisable as is


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_verdicts_keep_the_contract(path: Path) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    j = judge_log(parse_log(rows), table=TABLE)
    for v in j.verdicts:
        check_contract(v.to_dict(), set(j.state.players if j.state else ()))


def _judged(seed: int, game: Game, n: int) -> tuple[list[Verdict], set[str]]:
    j = judge_log(parse_log(random_match(seed, game, n, table=TABLE)), table=TABLE)
    return j.verdicts, {"A", "B"}


@SETTINGS
@given(seed=st.integers(0, 10**6), game=st.sampled_from(list(Game)), n=st.integers(5, 50))
def test_random_verdicts_keep_the_contract(seed: int, game: Game, n: int) -> None:
    vs, players = _judged(seed, game, n)
    for v in vs:
        check_contract(v.to_dict(), players)


@SETTINGS
@given(seed=st.integers(0, 10**6), game=st.sampled_from([Game.RUSSIAN71, Game.CLASSIC71]), n=st.integers(5, 60))
def test_penalties_move_points_and_never_make_them(seed: int, game: Game, n: int) -> None:
    """5.5.6 and 001: a penalty moves points from one player to the other (or lowers a target); the points on
    the board are always exactly the points potted in the frame. One penalty of 5 per shot (1.29.2)."""
    vs, _ = _judged(seed, game, n)
    frame, potted = 0, 0
    for v in vs:
        if v.frame != frame:
            frame, potted = v.frame, 0
        potted += sum(int(c["points"]) for c in v.potted_counted)
        assert sum(v.score.values()) == potted, v.explanation
        opp = next(p for p in v.score if p != v.player)
        if v.fouls:
            assert 0 <= v.points[opp] <= RULE_SETS[game].foul_points  # one penalty (1.29.2)
            assert v.points[opp] + v.points[v.player] == sum(int(c["points"]) for c in v.potted_counted)
            assert RULE_SETS[game].target - v.targets[opp] >= 0  # a lowered target, never a raised one


@SETTINGS
@given(seed=st.integers(0, 10**6), game=st.sampled_from(list(Game)), n=st.integers(5, 60))
def test_turn_order(seed: int, game: Game, n: int) -> None:
    """A counted pot keeps the turn (2.5.2 and the like), a legal shot with none passes it, a foul gives the
    opponent the choice (1.6) or, after an illegal break, the four choices (1.12.2)."""
    vs, _ = _judged(seed, game, n)
    for v in vs:
        if v.result is not Result.CONTINUE or v.next_player is None:
            continue
        opp = next(p for p in v.score if p != v.player)
        owed = {d.kind: d.by for d in v.decisions_owed}
        if v.fouls:
            assert v.next_player == opp
            assert owed.get(DecisionKind.CHOICE_AFTER_FOUL, owed.get(DecisionKind.BREAK_CHOICE)) == opp
        elif not v.potted_counted:
            assert v.next_player == opp, v.explanation
        elif not (game is Game.DYNAMIC and any(p["ball"] == "C" for p in v.potted)):
            assert v.next_player == v.player, v.explanation


@SETTINGS
@given(seed=st.integers(0, 10**6), game=st.sampled_from(list(Game)), n=st.integers(5, 60))
def test_a_frame_is_won_at_the_target_or_on_an_empty_table(seed: int, game: Game, n: int) -> None:
    vs, _ = _judged(seed, game, n)
    for v in vs:
        if v.result in (Result.FRAME_WON, Result.MATCH_WON):
            assert v.winner is not None
            loser = next(p for p in v.score if p != v.winner)
            assert v.score[v.winner] >= v.targets[v.winner] or v.score[v.winner] > v.score[loser], v.explanation


@SETTINGS
@given(seed=st.integers(0, 10**6), game=st.sampled_from(list(Game)), n=st.integers(5, 60), pick=st.integers(0, 10**6))
def test_a_violation_after_the_shot(seed: int, game: Game, n: int, pick: int) -> None:
    """1.22.3: a violation after a shot is penalised and the pots stand; after the shot that ended the frame,
    nothing is penalised and the result stands."""
    rows = random_match(seed, game, n, table=TABLE)
    base = judge_log(parse_log(rows), table=TABLE).verdicts
    ended = [i for i, v in enumerate(base) if v.result is not Result.CONTINUE]
    k = ended[pick % len(ended)] if ended and pick % 2 else pick % len(base)  # half the time a frame's last shot
    ends = [i for i, r in enumerate(rows) if r["type"] == "shot_end"]
    touched = [*rows[:ends[k] + 1], {"type": "foul", "t": rows[ends[k]]["t"], "clause": "1.17",
                                     "reason": "touched a ball after the shot"}, *rows[ends[k] + 1:]]
    v0, v1 = base[k], judge_log(parse_log(touched), table=TABLE).verdicts[k]
    assert v1.potted_counted == v0.potted_counted  # the pots stand either way
    if v0.result in (Result.FRAME_WON, Result.MATCH_WON, Result.DRAW):
        assert (v1.result, v1.winner, v1.score) == (v0.result, v0.winner, v0.score), v1.explanation
    elif not v0.fouls:
        opp = next(p for p in v0.score if p != v0.player)
        assert "1.17" in [f.clause for f in v1.fouls] and v1.next_player in (opp, None)
        assert v1.points[opp] > v0.points[opp] or v1.targets[opp] < v0.targets[opp]
