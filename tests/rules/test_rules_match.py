
"""The match: lag (1.7), frames, overrides, defaults for decisions not entered, the fold, the judge CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.table import Table
from rules.engine import judge_log
from rules.inputs import parse_log
from rules.logbuild import BREAK_THREE_CUSHIONS, NO_CHAIN, SAFE_2B, LogBuilder
from rules.state import DecisionKind, Hand, Phase
from rules.verdict import LagVerdict, Result

TABLE = Table.load()


def lag_rows(lb: LogBuilder, a_rest: tuple[float, float], b_rest: tuple[float, float],
             b_steps: list | None = None) -> LogBuilder:
    lb.add("lag", balls={"C": "A", "1": "B"})
    lb.rows.append({"type": "shot_start", "t": lb._tick(), "frame": 1, "ball": "C",
                    "positions": {"C": [-1200.0, 300.0], "1": [-1200.0, -300.0]}})
    for s in [("cushion", "C", "rear"), ("cushion", "1", "rear"), *(b_steps or [])]:
        lb.rows.append(lb.step(s))
    lb.rows.append({"type": "shot_end", "t": lb._tick(), "frame": 2,
                    "positions": {"C": list(a_rest), "1": list(b_rest)}})
    return lb


@pytest.mark.parametrize("a_rest,b_rest,b_steps,winner", [
    ((-1700.0, 300.0), (-1500.0, -300.0), None, "A"),
    ((-1500.0, 300.0), (-1700.0, -300.0), None, "B"),
    ((-1500.0, 300.0), (-1700.0, -300.0), [("cushion", "1", "right_rear")], "A"),  # long cushion: lost (1.7.2(5))
])
def test_lag_decides_the_break(a_rest: tuple, b_rest: tuple, b_steps: list | None, winner: str) -> None:
    lb = LogBuilder("russian71", breaker=None)
    lag_rows(lb, a_rest, b_rest, b_steps)
    lb.shot(BREAK_THREE_CUSHIONS)
    j = judge_log(parse_log(lb.rows), table=TABLE)
    lag, brk = j.outputs
    assert isinstance(lag, LagVerdict) and lag.winner == winner
    assert lag.decisions_owed[0].kind is DecisionKind.LAG_CHOICE
    assert brk.to_dict()["player"] == winner and brk.to_dict()["break"]


def test_lag_winner_hands_the_break_over() -> None:
    lb = LogBuilder("russian71", breaker=None)
    lag_rows(lb, (-1700.0, 300.0), (-1500.0, -300.0))
    lb.add("choose", option="hand_over")
    lb.shot(BREAK_THREE_CUSHIONS)
    assert judge_log(parse_log(lb.rows), table=TABLE).verdicts[0].player == "B"


def test_seventy_seventy_lag_then_play_from_the_house() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none", score={"A": 63, "B": 70},
             balls={"7": [600, 300], "3": [500, -300], "5": [-200, 100]})
    lb.add("nominate", ball="7", pocket="rear_left")
    lb.shot([("contact", "C", "7"), ("pot", "7", "rear_left")])
    lag_rows(lb, (-1500.0, 300.0), (-1700.0, -300.0))
    lb.add("nominate", ball="3", pocket="rear_right")
    lb.shot([("contact", "C", "3"), ("pot", "3", "rear_right")], positions={"C": (-1500.0, 0.0), "3": (500.0, -300.0),
                                                                            "7": (887.5, 0.0), "5": (-200.0, 100.0)})
    j = judge_log(parse_log(lb.rows), table=TABLE)
    _v1, lag, v2 = j.outputs
    assert isinstance(lag, LagVerdict) and lag.purpose == "seventy" and lag.winner == "B"
    assert v2.to_dict()["player"] == "B" and v2.to_dict()["winner"] == "B"


def test_frames_and_match() -> None:
    lb = LogBuilder("free", frames_to_win=2)
    for frame in range(3):
        lb.shot(BREAK_THREE_CUSHIONS)
        lb.state(phase="play", to_play="A", hand="none", score={"A": 7, "B": 0})
        lb.shot([("contact", "C", "7"), ("pot", "7", "rear_left")])
        _ = frame
    j = judge_log(parse_log(lb.rows), table=TABLE)
    results = [v.result for v in j.verdicts]
    assert results[:4] == [Result.CONTINUE, Result.FRAME_WON, Result.CONTINUE, Result.MATCH_WON]
    assert [v.player for v in j.verdicts if v.is_break] == ["A", "B", "A"]
    assert j.verdicts[3].frames_won == {"A": 2, "B": 0}
    assert j.verdicts[4].review.flag and not j.verdicts[3].review.flag  # a shot after the end of the match


def test_override_clears_a_foul_and_keeps_the_original() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot([*SAFE_2B, ("disturbed", "9")])
    lb.add("override", shot=1, verdict={"legal": True}, reason="1.27: a spectator moved ball 9")
    v = judge_log(parse_log(lb.rows), table=TABLE).verdicts[0]
    assert v.legal and v.score == {"A": 0, "B": 0}
    assert v.override is not None and v.override["original"]["legal"] is False
    assert v.override["original"]["fouls"][0]["clause"] == "1.17"


def test_override_adds_a_foul() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot(SAFE_2B)
    lb.add("override", shot=1, verdict={"fouls": ["1.15"]}, reason="struck with the ferrule")
    v = judge_log(parse_log(lb.rows), table=TABLE).verdicts[0]
    assert not v.legal and [f.clause for f in v.fouls] == ["1.15"] and v.fouls[0].source == "override"


def test_override_replay_restores_every_ball() -> None:
    """1.23.2 by the referee: the hanging ball that fell changed the shot: replay."""
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot([*SAFE_2B, ("pot", "11", "rear_right")])
    lb.add("override", shot=1, verdict={"replay": True}, reason="ball 11 would have been hit (1.23.2)")
    lb.shot(SAFE_2B)
    vs = judge_log(parse_log(lb.rows), table=TABLE).verdicts
    assert vs[0].result is Result.REPLAY and vs[1].player == "A"


def test_override_of_an_unknown_shot_names_it() -> None:
    lb = LogBuilder("russian71")
    lb.add("override", shot=3, verdict={"legal": True}, reason="x")
    with pytest.raises(ValueError, match="override names shot 3"):
        judge_log(parse_log(lb.rows), table=TABLE)


def test_choice_not_entered_is_assumed_and_reviewed() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot(NO_CHAIN)
    lb.shot(SAFE_2B)
    v = judge_log(parse_log(lb.rows), table=TABLE).verdicts[1]
    assert v.player == "B" and v.review.flag and any("assumed 'play'" in r for r in v.review.reasons)


def test_penalty_ball_inferred_from_the_positions() -> None:
    lb = LogBuilder("free")
    lb.state(phase="play", to_play="A", hand="none", balls={"C": [0, 0], "3": [500, 300], "7": [600, -200]})
    lb.shot(NO_CHAIN)
    lb.shot([("contact", "C", "7"), ("cushion", "7", "rear"), ("cushion", "7", "left_rear")],
            positions={"C": (0.0, 0.0), "7": (600.0, -200.0)})
    j = judge_log(parse_log(lb.rows), table=TABLE)
    assert j.state is not None and j.state.shelves["B"] == ("3",)
    assert any("ball 3 is missing" in r for r in j.verdicts[1].review.reasons)


def test_state_line_starts_from_a_position() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="B", hand="house", score={"A": 40, "B": 12}, balls={"7": [600, 300]})
    lb.add("nominate", ball="7", pocket="rear_left")
    lb.shot([("contact", "C", "7"), ("pot", "7", "rear_left")], positions={"C": (-1500.0, 0.0), "7": (600.0, 300.0)})
    v = judge_log(parse_log(lb.rows), table=TABLE).verdicts[0]
    assert v.player == "B" and not v.is_break and v.score == {"A": 40, "B": 29}


def test_no_header_needs_a_game() -> None:
    lb = LogBuilder(None)
    lb.shot(BREAK_THREE_CUSHIONS)
    with pytest.raises(ValueError, match="no game"):
        judge_log(parse_log(lb.rows), table=TABLE)
    from rules.state import Game

    assert judge_log(parse_log(lb.rows), game=Game.FREE, table=TABLE).verdicts[0].legal


def test_bad_input_names_the_line() -> None:
    rows: list[dict[str, object]] = [{"type": "match", "game": "free", "players": ["A", "B"]},
                                     {"type": "choose", "option": "maybe"}]
    with pytest.raises(ValueError, match="line 2"):
        list(parse_log(rows))


def test_replaying_the_log_gives_the_same_state() -> None:
    from rules.loggen import random_match
    from rules.state import Game

    rows = random_match(3, Game.COMBINED, 80, table=TABLE)
    a = judge_log(parse_log(rows), table=TABLE)
    b = judge_log(parse_log(json.loads(json.dumps(rows))), table=TABLE)
    assert [o.to_dict() for o in a.outputs] == [o.to_dict() for o in b.outputs]
    assert a.state == b.state


def test_judge_cli_json_and_explain(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from service.cli.main import main

    lb = LogBuilder("russian71")
    lb.shot(BREAK_THREE_CUSHIONS)
    lb.add("nominate", ball="7", pocket="rear_left")
    lb.shot([("contact", "C", "7"), ("pot", "7", "rear_left")])
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in lb.rows) + "\n")
    assert main(["judge", str(path)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["shot"] for x in lines] == [1, 2] and lines[1]["score"] == {"A": 0, "B": 7}
    for key in ("shot", "player", "legal", "fouls", "potted_counted", "spotted", "score", "next_player",
                "decisions_owed", "result", "winner", "review", "explanation"):
        assert key in lines[0]
    assert main(["judge", str(path), "--explain", "--game", "free"]) == 0
    text = capsys.readouterr().out
    assert "Shot 2" in text and "LEGAL" in text
    assert main(["judge", str(tmp_path / "missing.jsonl")]) == 2


def test_cue_ball_from_hand_after_a_foul_state() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot([("cushion", "C", "rear"), ("pot", "C", "rear_left")])
    st = judge_log(parse_log(lb.rows), table=TABLE).state
    assert st is not None and st.hand is Hand.HOUSE and "C" not in st.balls and st.phase is Phase.PLAY


def test_override_corrects_an_event() -> None:
    """A missed cushion added by the referee makes the chain; the original verdict is kept."""
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot(NO_CHAIN)
    t = lb.rows[-1]["t"] - 0.05
    lb.add("override", shot=1, reason="vision missed ball 7 on the left_rear cushion",
           events={"add": [{"type": "cushion", "t": t, "ball": "7", "cushion": "left_rear"}]})
    v = judge_log(parse_log(lb.rows), table=TABLE).verdicts[0]
    assert v.legal and v.chain is not None and "1.20(2a)" in v.chain
    assert v.override is not None and v.override["original"]["legal"] is False and v.override["corrections"]


def test_override_removes_an_event_and_names_a_missing_one() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot([*SAFE_2B, ("off", "3")])
    off_t = next(r["t"] for r in lb.rows if r["type"] == "off_table")
    lb.add("override", shot=1, reason="ball 3 came back by itself (1.24.2)",
           events={"remove": [{"type": "off_table", "t": off_t, "ball": "3"}]})
    assert judge_log(parse_log(lb.rows), table=TABLE).verdicts[0].legal
    bad = LogBuilder("russian71")
    bad.shot(BREAK_THREE_CUSHIONS)
    bad.add("override", shot=1, reason="x", events={"remove": [{"type": "pot", "ball": "9"}]})
    with pytest.raises(ValueError, match="does not have"):
        judge_log(parse_log(bad.rows), table=TABLE)


def test_override_corrects_the_struck_ball() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot([("contact", "C", "7"), ("cushion", "7", "left_rear"), ("cushion", "7", "rear")], struck="5")
    lb.add("override", shot=1, reason="vision took the wrong ball for the struck one", start={"ball": "C"})
    assert judge_log(parse_log(lb.rows), table=TABLE).verdicts[0].legal


def test_interference_between_shots_charged_to_the_opponent() -> None:
    """1.28: A moves a ball while B prepares; the referee moves the foul from B's shot to A's."""
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot(SAFE_2B)
    lb.events_after([("disturbed", "9")])
    lb.shot(SAFE_2B)
    lb.add("override", shot=2, verdict={"legal": True}, reason="A touched ball 9 during B's visit (1.28)")
    lb.add("foul", clause="1.28", shot=1, reason="moved ball 9 during the opponent's visit")
    v1, v2 = judge_log(parse_log(lb.rows), table=TABLE).verdicts
    assert [f.clause for f in v1.fouls] == ["1.28"] and v1.fouls[0].after_shot and v1.score == {"A": -5, "B": 5}
    assert v2.player == "B" and v2.legal and v2.score == {"A": -5, "B": 5}
