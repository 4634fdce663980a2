"""A doubtful event flags the verdict only when the shot judged without it is decided otherwise (rules.doubts)."""

from __future__ import annotations

from typing import Any

import pytest

from calibration.table import Table
from rules.engine import judge_log
from rules.inputs import parse_log
from rules.logbuild import LogBuilder, play_rows
from rules.verdict import Verdict

TABLE = Table.load()
GAMES = ["free", "combined", "dynamic", "russian71"]


def judge_one(rows: list[dict[str, Any]]) -> Verdict:
    return judge_log(parse_log(rows), table=TABLE).verdicts[-1]


def _mark(rows: list[dict[str, Any]], i: int, **extra: Any) -> list[dict[str, Any]]:
    """The i-th ball_contact of the log, with vision's review mark and the given fields."""
    contacts = [r for r in rows if r.get("type") == "ball_contact"]
    contacts[i].update({"review": True, **extra})
    return rows


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("conf", [0.2, 0.9])  # below review_confidence, or marked by vision
def test_a_doubtful_first_contact_that_decides_nothing_is_set_aside(game: str, conf: float) -> None:
    """C may or may not have grazed 7 before it hit 3, which it potted: legal either way."""
    rows = _mark(play_rows(game, [("contact", "C", "7", conf), ("contact", "C", "3"), ("pot", "3", "rear_left")]),
                 0, margin_mm=1.2)
    v = judge_one(rows)
    assert v.legal and not v.review.flag, v.review.reasons
    text = v.explanation.lower()
    assert "vision's doubt about ball_contact c-7" in text and "does not change this verdict" in text


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("conf", [0.2, 0.9])
def test_a_doubtful_contact_the_verdict_turns_on_is_flagged(game: str, conf: float) -> None:
    """Without the near-miss C-7 the cue ball touched nothing (1.5.3): the referee decides."""
    rows = _mark(play_rows(game, [("contact", "C", "7", conf), ("cushion", "7", "left_rear"),
                                  ("cushion", "7", "rear")]), 0, margin_mm=0.8)
    v = judge_one(rows)
    assert v.review.flag and any("C-7" in r for r in v.review.reasons), v.review.reasons
    assert "does not change this verdict" not in v.explanation


@pytest.mark.parametrize("extra", [{"rival": True, "why": "another moving ball was as near"}, {"id_confidence": 0.4},
                                   {"unnamed": ["C"]}, {"repaired": True}])
def test_a_contact_doubted_for_which_ball_or_when_stays_flagged(extra: dict[str, Any]) -> None:
    """Taking the event out tests whether it happened, not which ball it was or when: such a doubt is kept."""
    rows = _mark(play_rows("russian71", [("contact", "C", "7", 0.9), ("contact", "C", "3"),
                                         ("pot", "3", "rear_left")]), 0, **extra)
    v = judge_one(rows)
    assert v.legal and v.review.flag, v.explanation


def test_a_doubtful_pot_that_scores_is_flagged() -> None:
    """A pot at low confidence changes the points: flagged, whatever else the shot did."""
    rows = play_rows("russian71", [("contact", "C", "3"), ("cushion", "3", "rear"), ("cushion", "3", "left_rear"),
                                   ("pot", "3", "rear_left", 0.3)])
    v = judge_one(rows)
    assert v.review.flag and any("pot 3" in r for r in v.review.reasons), v.review.reasons


@pytest.mark.parametrize("conf", [0.3, 0.55])
def test_doubts_standing_behind_each_other_are_weighed_together(conf: float) -> None:
    """Without the doubtful C-7 the doubtful C-3 is the first contact, and the shot stays legal; without both, C
    touched nothing (1.5.3): the verdict turns on them, so it is flagged (an independent review's case)."""
    v = judge_one(play_rows("free", [("contact", "C", "7", conf), ("contact", "C", "3", conf),
                                     ("cushion", "3", "rear"), ("cushion", "3", "left_rear")]))
    assert v.legal and v.review.flag, v.explanation
    assert "does not change this verdict" not in v.explanation


def test_a_doubt_that_decides_a_forced_draw_is_flagged() -> None:
    """Classic 71 after the warning: the sixth penalty stroke in a row that moves no object ball forces a draw
    (001). A doubtful C-7 makes it a foul either way (1.20 or 1.5.3), but whether 7 moved decides the draw."""
    lb = LogBuilder("classic71")
    lb.state(phase="play", to_play="A", hand="none", score={"A": 30, "B": 30})
    lb.add("warning", about="penalty_draw")
    for i in range(6):
        lb.shot([("contact", "C", "7", 0.55), ("cushion", "C", "rear")] if i == 5 else [("cushion", "C", "rear")])
        lb.add("choose", option="play")
    v = judge_log(parse_log(lb.rows), table=TABLE).verdicts[-1]
    assert not v.legal and v.review.flag and any("C-7" in r for r in v.review.reasons), v.review.reasons


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("conf", [0.3, 0.9])
def test_a_doubtful_contact_that_passed_the_token_on_is_flagged(game: str, conf: float) -> None:
    """7 off the rear cushion drove 3 to the front one (1.20(2b)) only through the doubtful 7-3: without it 3's
    touch completes no chain (a foul of 1.20). The chain rests on the contact that passed the token on, not only on
    the rebound and the touch at its ends (seed-227 frame_dynamic 140.45 s: 14 off its cushion back into 1, 1 into C,
    C to the front cushion; the doubt on the contacts in between was never weighed)."""
    rows = _mark(play_rows(game, [("contact", "C", "7"), ("cushion", "7", "rear"), ("contact", "7", "3", conf),
                                  ("cushion", "3", "front")]), 1, margin_mm=1.1)
    v = judge_one(rows)
    assert v.legal and v.chain is not None and v.chain.endswith("(1.20(2b))"), v.explanation
    assert v.review.flag and any("7-3" in r for r in v.review.reasons), v.review.reasons
