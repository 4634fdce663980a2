"""The service's glue around the rules engine: opening decision, log header and merge, verdict reading."""

from __future__ import annotations

import pytest

from calibration.table import Table
from service import judging
from service.pipeline.opening import Opening, decide_opening

TABLE = Table.load()
RACK = dict(TABLE.rack_positions())


@pytest.mark.parametrize(
    ("cue", "moved", "expect"),
    [
        ((-1000.0, 0.0), {}, Opening.BREAK),  # full rack, cue ball in the house
        ((-500.0, 0.0), {}, Opening.POSITION),  # cue ball outside the house
        ((TABLE.house_line_x, 0.0), {}, Opening.POSITION),  # on the house line is outside (1.10)
        ((-1000.0, 0.0), {"7": (0.0, 300.0)}, Opening.POSITION),  # a ball away from the rack
        ((-1000.0, 0.0), {"7": None}, Opening.BREAK),  # one ball missing still reads as a rack
        (None, {}, Opening.POSITION),  # no cue ball seen
    ],
)
def test_opening_from_positions(cue, moved, expect) -> None:  # type: ignore[no-untyped-def]
    pos = {b: p for b, p in RACK.items()}
    for b, p in moved.items():
        if p is None:
            del pos[b]
        else:
            pos[b] = p
    if cue is not None:
        pos["C"] = cue
    assert decide_opening(pos, TABLE).opening is expect


def test_opening_without_positions_is_a_position() -> None:
    assert decide_opening(None, TABLE).opening is Opening.POSITION


def test_header_for_a_position_carries_the_balls_and_the_users_state() -> None:
    head = judging.header_for([], "russian71", "pyramid-12ft", "position", {"score": {"A": 12, "B": 5},
                                                                           "to_play": "B"}, {"C": (1.0, 2.0)})
    assert [h["type"] for h in head] == ["match", "state"]
    assert head[1]["balls"] == {"C": [1.0, 2.0]} and head[1]["to_play"] == "B" and head[1]["phase"] == "play"
    assert judging.header_for([], "russian71", "pyramid-12ft", "break", None, None)[1:] == []
    # inputs with their own header and state: nothing added
    inputs = [{"type": "match", "players": ["X", "Y"]}, {"type": "state", "to_play": "Y"}]
    assert judging.header_for(inputs, "free", "pyramid-12ft", "position", None, {"C": (0.0, 0.0)}) == []


def test_merge_log_puts_the_header_first_and_orders_by_time() -> None:
    inputs = [{"type": "state", "phase": "play"}, {"type": "match", "t": 0.0, "players": ["A", "B"]},
              {"type": "nominate", "t": 2.0, "ball": "3"}]
    events = [{"type": "shot_start", "t": 2.0, "frame": 120}, {"type": "shot_end", "t": 1.0, "frame": 60}]
    assert [d["type"] for d in judging.merge_log(inputs, events)] == [
        "match", "state", "shot_end", "nominate", "shot_start"]


def test_engine_verdicts_read_into_verdict_views() -> None:
    d = {"shot": 3, "legal": False, "fouls": [{"clause": "1.5.3", "reason": "x"}, {"clause": "1.5.3"}],
         "explanation": "Foul (1.5.3).", "review": {"flag": True, "reasons": ["close call"]},
         "points": {"A": -5, "B": 5}, "score": {"A": 0, "B": 5}, "player": "A"}
    v = judging.verdict_from_dict(d, 0)
    assert (v.shot, v.outcome, v.clauses, v.review, v.review_reasons) == (3, "foul", ("1.5.3",), True,
                                                                          ("close call",))
    again = judging.verdict_from_dict(v.to_dict(), 0)  # a stored row reads back the same
    assert (again.outcome, again.clauses, again.points, again.review) == (v.outcome, v.clauses, v.points, v.review)
    legal = judging.verdict_from_dict({"legal": True, "explanation": "Legal break (1.12.1(2)). Next: B."}, 0)
    assert legal.clauses == ("1.12.1(2)",) and not legal.is_foul


def test_a_lag_is_folded_and_shown_in_the_report(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A lag is no shot (no verdict number) but the referee must see who won it and what is owed (1.7)."""
    import json
    from pathlib import Path

    from service.report.build import write_outputs

    truth = json.loads((Path(__file__).parents[2] / "sample_videos" / "lag_for_break" / "truth.json").read_text())
    fold = judging.fold(judging.merge_log(truth["log"], truth["events"]), "russian71")
    assert fold.verdicts == () and len(fold.lags) == 1
    lag = fold.lags[0]
    assert lag["kind"] == "lag" and lag["winner"] in ("A", "B") and lag["text"].startswith("Lag (break): won by")
    assert any("lag_choice" in o for o in fold.owed)
    (tmp_path / "summary.json").write_text(json.dumps({"fold": fold.to_dict()}))
    write_outputs(tmp_path)
    html = (tmp_path / "report.html").read_text()
    assert f"Lag (break): won by {lag['winner']}" in html and "decisions owed" in html and "lag_choice" in html


def test_the_opening_reason_counts_the_balls_in_good_english() -> None:
    table = Table.load("pyramid-12ft")
    assert decide_opening({"C": (-1000.0, 0.0), "1": (500.0, 0.0)}, table).reason == "only 1 object ball on the table"
    two = decide_opening({"C": (-1000.0, 0.0), "1": (500.0, 0.0), "2": (600.0, 100.0)}, table)
    assert two.reason == "only 2 object balls on the table"
