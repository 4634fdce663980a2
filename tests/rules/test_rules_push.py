"""How the engine reads vision's push geometry (1.19.2) and its doubt about the struck ball (1.4.1)."""

from __future__ import annotations

from typing import Any

import pytest

from calibration.table import Table
from rules.engine import judge_log
from rules.inputs import parse_log
from rules.logbuild import SAFE_2B, play_rows
from rules.verdict import Verdict

TABLE = Table.load()
TOUCH = [{"balls": ["C", "7"], "gap_mm": 0.0}]
NEAR_45 = "the stroke angle (44 deg) is within 3 deg of 45"


def one(rows: list[dict[str, Any]]) -> Verdict:
    return judge_log(parse_log(rows), table=TABLE).verdicts[-1]


def _geo(angle: float, follow: bool, why: str | None) -> dict[str, Any]:
    geo = {"object": "7", "gap_mm": 0.0, "angle_deg": angle, "object_moved": True, "cue_forward": follow}
    return {**geo, "review": True, "why": why} if why else geo


@pytest.mark.parametrize(
    ("angle", "follow", "why", "foul", "review"),
    [
        (30.0, True, None, True, False),
        (44.0, True, NEAR_45, True, True),  # decided as measured, and marked
        (50.0, True, "the stroke angle (50 deg) is within 6 deg of 45", False, True),
        (10.0, False, None, False, False),
    ],
)
def test_push_geometry_within_tolerance_is_decided_and_marked(
    angle: float, follow: bool, why: str | None, foul: bool, review: bool
) -> None:
    extra: dict[str, Any] = {"stroke_angle_deg": angle, "cue_follow": follow, "push_geometry": _geo(angle, follow, why)}
    v = one(play_rows("russian71", SAFE_2B, touching=TOUCH, **extra))
    assert ("1.19" in [f.clause for f in v.fouls]) is foul
    assert v.review.flag is review
    if why:
        assert any(why in r and "1.19.2" in r for r in v.review.reasons), v.review.reasons
    text = v.explanation if foul else " ".join(v.review.reasons) + v.explanation
    assert "1.19" in text


def test_doubt_about_the_struck_ball_is_marked_for_the_referee() -> None:
    doubt = "the pair's momentum along the line of centres (1.0 mm) is within the tolerance (8.0 mm)"
    extra: dict[str, Any] = {"stroke_angle_deg": 5.0, "cue_follow": True, "push_geometry": _geo(5.0, True, None),
             "striker_review": doubt, "review": True}
    v = one(play_rows("russian71", SAFE_2B, touching=TOUCH, **extra))
    assert [f.clause for f in v.fouls] == ["1.19"]
    assert v.review.flag
    assert any(doubt in r and "1.4.1" in r for r in v.review.reasons), v.review.reasons
