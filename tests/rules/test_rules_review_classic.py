"""Review: Classic 71 (001) forced result after a draw, when the competition wants a decisive frame."""

from __future__ import annotations

from typing import Any

import pytest

from calibration.table import Table
from rules.engine import judge_log
from rules.inputs import parse_log
from rules.logbuild import BREAK_THREE_CUSHIONS, LogBuilder
from rules.state import DecisionKind, Phase
from rules.verdict import Result, Verdict

TABLE = Table.load()
POT5 = [("contact", "C", "5"), ("pot", "5", "rear_left")]
MISS = [("cushion", "C", "rear"), ("cushion", "C", "front")]
SAFE = [("contact", "C", "5"), ("cushion", "5", "left_rear"), ("cushion", "5", "rear")]


def _drawn(decisive: bool) -> LogBuilder:
    """A Classic 71 frame broken by A that ends 70-70 when A pots the last ball (5 + 10)."""
    header: dict[str, Any] = {"decisive": True} if decisive else {}
    lb = LogBuilder("classic71", **header)
    lb.state(phase="play", to_play="A", hand="none", score={"A": 55, "B": 70},
             balls={"C": [-900.0, 0.0], "5": [900.0, 0.0]})
    lb.add("nominate", ball="5", pocket="rear_left")
    lb.shot(POT5)
    return lb


def _judge(lb: LogBuilder) -> tuple[list[Verdict], Any]:
    j = judge_log(parse_log(lb.rows), table=TABLE)
    return j.verdicts, j.state


def test_draw_without_a_decisive_condition_stands() -> None:
    vs, st = _judge(_drawn(False))
    assert vs[-1].result is Result.DRAW and DecisionKind.FORCED_RESULT not in [d.kind for d in vs[-1].decisions_owed]
    assert st.phase is Phase.BREAK and st.frame == 2


def test_decisive_draw_owes_the_forced_result_choice() -> None:
    vs, st = _judge(_drawn(True))
    v = vs[-1]
    assert v.result is Result.DRAW
    d = next(d for d in v.decisions_owed if d.kind is DecisionKind.FORCED_RESULT)
    assert d.options == ("replay_frame", "last_ball") and d.clause == "001"
    assert st.frame == 1 and st.to_play == "B"  # the frame is replayed; B is due to break the next frame


def test_replay_frame_is_a_new_break_by_the_player_due() -> None:
    lb = _drawn(True)
    lb.add("choose", option="replay_frame")
    lb.shot(BREAK_THREE_CUSHIONS)
    v = _judge(lb)[0][-1]
    assert v.is_break and v.player == "B" and v.frame == 1 and not v.review.flag


def _last_ball(*shots: tuple[list, dict | None]) -> list[Verdict]:
    lb = _drawn(True)
    lb.add("choose", option="last_ball")
    for steps, nomination in shots:
        if nomination:
            lb.add("nominate", **nomination)
        lb.shot(steps, positions={"C": (-1500.0, 0.0), "5": (TABLE.rear_line_x, 0.0)})
    return _judge(lb)[0]


def test_last_ball_replay_first_shot_without_nomination_wins() -> None:
    v = _last_ball(([("contact", "C", "5"), ("pot", "5", "rear_right")], None))[-1]
    assert v.player == "B" and v.result in (Result.FRAME_WON, Result.MATCH_WON) and v.winner == "B"


def test_last_ball_replay_second_shot_each_also_without_nomination() -> None:
    v = _last_ball((SAFE, None), ([("contact", "C", "5"), ("pot", "5", "front_left")], None))[-1]
    assert v.player == "A" and v.winner == "A"


def test_last_ball_replay_later_shots_need_the_pocket() -> None:
    vs = _last_ball((SAFE, None), (SAFE, None), ([("contact", "C", "5"), ("pot", "5", "front_left")], None))
    assert vs[-1].player == "B" and vs[-1].result is Result.CONTINUE and vs[-1].spotted


@pytest.mark.parametrize("shots,loser", [
    ([(MISS, None)], "B"),  # the first striker fouls: he loses the frame
    ([(SAFE, None), (MISS, None)], "A"),
])
def test_last_ball_replay_a_foul_loses(shots: list, loser: str) -> None:
    v = _last_ball(*shots)[-1]
    assert v.player == loser and v.winner != loser and v.winner is not None
    assert v.result in (Result.FRAME_WON, Result.MATCH_WON)


def test_last_ball_replay_starts_from_the_house_with_the_ball_on_the_third_spot() -> None:
    lb = _drawn(True)
    lb.add("choose", option="last_ball")
    j = judge_log(parse_log(lb.rows), table=TABLE)
    st = j.state
    assert st is not None
    # The choice is settled at the next stroke: judge a first shot to see the position it was played from.
    lb.shot(SAFE)
    v = judge_log(parse_log(lb.rows), table=TABLE).verdicts[-1]
    assert v.player == "B" and v.legal
    st2 = judge_log(parse_log(lb.rows), table=TABLE).state
    assert st2 is not None and set(st2.balls) == {"C", "5"}


def test_judge_cli_decisive_flag(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import argparse
    import json

    from service.cli import judge

    log = tmp_path / "drawn.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in _drawn(False).rows))
    parser = argparse.ArgumentParser()
    judge.add_arguments(parser)
    for flag, owed in (([], False), (["--decisive"], True)):
        assert judge.run(parser.parse_args([str(log), *flag])) == 0
        last = json.loads(capsys.readouterr().out.splitlines()[-1])
        assert last["result"] == "draw"
        assert any(d["decision"] == "forced_result" for d in last["decisions_owed"]) is owed
