"""Properties of the fold over random plausible logs (hypothesis): conservation, scores, replay, spotting."""

from __future__ import annotations

import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.table import Table
from rules.engine import judge_log
from rules.inputs import parse_log
from rules.loggen import random_match
from rules.state import Game
from rules.verdict import Result, Verdict

TABLE = Table.load()
IVORY = {str(i) for i in range(1, 16)}
EIGHT = [Game.FREE, Game.COMBINED, Game.DYNAMIC]
SETTINGS = settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(seed=st.integers(0, 10**6), game=st.sampled_from(EIGHT), n=st.integers(5, 60))
def test_ball_conservation_in_the_eight_point_games(seed: int, game: Game, n: int) -> None:
    """Ivory balls on the table (spotted ones included) + on the shelves = 15, each ball in one place."""
    j = judge_log(parse_log(random_match(seed, game, n, table=TABLE)), table=TABLE)
    for s in j.states:
        on_table = [b for b in s.balls if b in IVORY]
        shelved = [b for shelf in s.shelves.values() for b in shelf if b in IVORY]
        assert len(on_table) + len(shelved) == 15, (on_table, shelved)
        assert set(on_table).isdisjoint(shelved)
        assert len(set(shelved)) == len(shelved)


@SETTINGS
@given(seed=st.integers(0, 10**6), game=st.sampled_from(list(Game)), n=st.integers(5, 60))
def test_scores_change_only_by_verdicts(seed: int, game: Game, n: int) -> None:
    rows = random_match(seed, game, n, table=TABLE)
    j = judge_log(parse_log(rows), table=TABLE)
    prev = None
    for out, s in zip(j.outputs, j.states, strict=True):
        if prev is not None:
            if isinstance(out, Verdict):
                if out.result is Result.CONTINUE or out.result is Result.REPLAY:
                    assert dict(s.score) == {p: prev.score[p] + out.points[p] for p in s.players}
                    assert dict(s.score) == out.score
                else:
                    assert out.score == {p: prev.score[p] + out.points[p] for p in s.players}
                    assert set(s.score.values()) == {0}  # the next frame starts at zero
            else:
                assert s.score == prev.score
        prev = s


@SETTINGS
@given(seed=st.integers(0, 10**6), game=st.sampled_from(list(Game)), n=st.integers(5, 60))
def test_same_log_same_state(seed: int, game: Game, n: int) -> None:
    rows = random_match(seed, game, n, table=TABLE)
    a = judge_log(parse_log(rows), table=TABLE)
    b = judge_log(parse_log(json.loads(json.dumps(rows))), table=TABLE)
    assert a.state == b.state
    assert [o.to_dict() for o in a.outputs] == [o.to_dict() for o in b.outputs]


@SETTINGS
@given(seed=st.integers(0, 10**6), game=st.sampled_from(list(Game)), n=st.integers(5, 60))
def test_spotted_balls_never_overlap(seed: int, game: Game, n: int) -> None:
    d = TABLE.spec.ball_diameter_mm
    j = judge_log(parse_log(random_match(seed, game, n, table=TABLE)), table=TABLE)
    for out, s in zip(j.outputs, j.states, strict=True):
        if not isinstance(out, Verdict) or out.result is not Result.CONTINUE:
            continue
        for sp in out.spotted:
            if sp["x"] is None:
                continue
            xy = (float(sp["x"]), float(sp["y"]))
            assert TABLE.on_bed(xy, margin_mm=TABLE.ball_radius - 0.1)
            for b, p in s.balls.items():
                if b != sp["ball"] and p is not None:
                    assert math.hypot(p[0] - xy[0], p[1] - xy[1]) >= d - 0.15, (sp, b, p)


@SETTINGS
@given(seed=st.integers(0, 10**6), game=st.sampled_from(list(Game)), n=st.integers(5, 40),
       drop=st.lists(st.integers(0, 10**6), max_size=25))
def test_lost_lines_never_break_the_fold(seed: int, game: Game, n: int, drop: list[int]) -> None:
    """Vision misses events, the referee forgets inputs: the fold still runs and conserves the balls."""
    rows = random_match(seed, game, n, table=TABLE)
    gone = {1 + d % (len(rows) - 1) for d in drop}  # never the header
    kept = [r for i, r in enumerate(rows) if i not in gone]
    j = judge_log(parse_log(kept), table=TABLE)
    for s in j.states:
        on_table = [b for b in s.balls if b in IVORY]
        shelved = [b for shelf in s.shelves.values() for b in shelf if b in IVORY]
        if game in EIGHT:
            assert len(on_table) + len(shelved) == 15
        assert set(on_table).isdisjoint(shelved)


@SETTINGS
@given(seed=st.integers(0, 10**6), game=st.sampled_from(list(Game)), n=st.integers(5, 60))
def test_one_penalty_per_shot(seed: int, game: Game, n: int) -> None:
    """1.29.2: however many violations a shot has, one penalty is paid."""
    from rules.games import RULE_SETS

    pts = RULE_SETS[game].foul_points
    j = judge_log(parse_log(random_match(seed, game, n, table=TABLE)), table=TABLE)
    prev = None
    for out, s in zip(j.outputs, j.states, strict=True):
        if isinstance(out, Verdict) and out.fouls and not any(f.after_shot for f in out.fouls) and prev is not None:
            opp = next(p for p in s.players if p != out.player)
            if game is Game.CLASSIC71:
                dropped = prev.targets[opp] - out.targets[opp]
                assert out.points[opp] + dropped == pts and out.points[out.player] == -out.points[opp]
            else:
                assert out.points[opp] == pts
                assert out.points[out.player] == (-pts if game is Game.RUSSIAN71 else 0)
        prev = s
