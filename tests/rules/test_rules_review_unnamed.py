"""A ball whose number vision could not read (`unnamed`, schema 1.7) or whose track may have swapped (`id_confidence`,
schema 1.8) is flagged only where numbers count."""

from __future__ import annotations

from typing import Any

import pytest

from calibration.table import Table
from rules.engine import judge_log
from rules.inputs import parse_log
from rules.logbuild import LogBuilder
from rules.verdict import Verdict

TABLE = Table.load()
NOM5 = {"ball": "5", "pocket": "rear_left"}


def _unnamed(rows: list[dict[str, Any]], balls: set[str]) -> list[dict[str, Any]]:
    """Mark the given balls unnamed on every event of theirs, as the event layer does."""
    out = []
    for r in rows:
        agents = set(r.get("balls") or []) | ({r["ball"]} if "ball" in r and r["type"] != "shot_start" else set())
        if r["type"] == "shot_start":
            agents = set(r.get("positions") or {})
        hit = sorted(agents & balls)
        out.append({**r, "unnamed": hit} if hit and "frame" in r else r)
    return out


def _verdict(game: str, nominate: bool, unnamed: set[str]) -> Verdict:
    lb = LogBuilder(game)
    lb.state(phase="play", to_play="A", hand="none", score={"A": 10, "B": 10})
    if nominate:
        lb.add("nominate", **NOM5)
    lb.shot([("contact", "C", "5"), ("pot", "5", "rear_left")],
            positions={"C": (-800.0, 0.0), "5": (600.0, 300.0), "7": (200.0, -200.0)})
    return judge_log(parse_log(_unnamed(lb.rows, unnamed)), table=TABLE).verdicts[-1]


@pytest.mark.parametrize("game", ["russian71", "classic71"])
def test_a_pot_of_an_unnamed_ball_leaves_its_points_to_the_referee_where_numbers_count(game: str) -> None:
    v = _verdict(game, True, {"5"})
    assert v.review.flag
    assert any("ball 5 potted" in r and "number" in r for r in v.review.reasons), v.review.reasons
    assert any("nominated ball 5" in r for r in v.review.reasons), v.review.reasons
    named = _verdict(game, True, set())
    assert not any("number" in r for r in named.review.reasons), named.review.reasons
    assert v.score == named.score  # the flag asks; it does not change the reading


@pytest.mark.parametrize("game", ["free", "combined", "dynamic"])
def test_an_unnamed_ivory_ball_is_any_ivory_ball_where_each_counts_one(game: str) -> None:
    v = _verdict(game, False, {"5", "7"})
    assert not any("number" in r for r in v.review.reasons), v.review.reasons
    assert v.score == _verdict(game, False, set()).score


def test_an_unnamed_ball_away_from_the_points_is_not_flagged() -> None:
    v = _verdict("russian71", True, {"7"})  # ball 7 is on the table, neither potted nor nominated
    assert not any("number" in r for r in v.review.reasons), v.review.reasons


def _swap_risk(game: str, id_conf: float) -> Verdict:
    """The shot of `_verdict` (no nomination) with the pot of 5 carrying `id_confidence` (schema 1.8)."""
    lb = LogBuilder(game)
    lb.state(phase="play", to_play="A", hand="none", score={"A": 10, "B": 10})
    lb.shot([("contact", "C", "5"), ("pot", "5", "rear_left")],
            positions={"C": (-800.0, 0.0), "5": (600.0, 300.0), "7": (200.0, -200.0)})
    rows = [{**r, "id_confidence": id_conf} if r["type"] == "pot" else r for r in lb.rows]
    return judge_log(parse_log(rows), table=TABLE).verdicts[-1]


def test_a_pot_of_a_ball_whose_track_may_have_swapped_leaves_its_points_to_the_referee_in_71() -> None:
    v = _swap_risk("russian71", 0.3)
    assert any("ball 5 potted" in r and "swapped" in r for r in v.review.reasons), v.review.reasons
    sure = _swap_risk("russian71", 0.95)
    assert not any("swapped" in r for r in sure.review.reasons), sure.review.reasons
    assert v.score == sure.score  # the flag asks; it does not change the reading


@pytest.mark.parametrize("game", ["free", "combined", "dynamic"])
def test_a_swap_risk_is_no_flag_where_every_ivory_ball_counts_one(game: str) -> None:
    v = _swap_risk(game, 0.3)
    assert not any("swapped" in r for r in v.review.reasons), v.review.reasons
