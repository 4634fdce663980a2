"""The `identify` referee input: some balls' places (for vision's identities), checked, never judged."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from calibration.table import Table
from rules.engine import judge_log
from rules.inputs import InputType, RefereeInput, parse_log
from rules.logbuild import BREAK_THREE_CUSHIONS, LogBuilder

TABLE = Table.load()


def test_identify_parses_with_its_balls_and_time() -> None:
    inp = RefereeInput.from_dict({"type": "identify", "t": 12.5, "balls": {"7": [700, 100], "C": [-900, 0]},
                                  "reason": "re-spotted by hand"})
    assert inp.type is InputType.IDENTIFY and inp.t == 12.5
    assert inp.get("balls") == {"7": [700, 100], "C": [-900, 0]}
    assert inp.to_dict()["type"] == "identify"


@pytest.mark.parametrize(
    ("balls", "needle"),
    [
        (None, "needs field(s) ['balls']"),
        ({}, "non-empty"),
        (["3", "9"], "non-empty {id: [x, y]}"),
        ({"16": [0, 0]}, "unknown ball id '16'"),
        ({"3": [0]}, "ball '3' needs [x, y] in mm"),
        ({"3": "spot"}, "ball '3' needs [x, y] in mm"),
        ({"3": [float("nan"), 0]}, "needs finite [x, y]"),
    ],
)
def test_bad_identify_names_the_line_and_the_problem(balls: Any, needle: str) -> None:
    d: dict[str, Any] = {"type": "identify", "t": 3.0}
    if balls is not None:
        d["balls"] = balls
    with pytest.raises(ValueError, match="line 4") as info:
        RefereeInput.from_dict(d, 4)
    assert needle in str(info.value)


def test_identify_changes_no_verdict_and_no_state() -> None:
    lb = LogBuilder("russian71")
    lb.shot(BREAK_THREE_CUSHIONS)
    lb.shot([("contact", "C", "7"), ("pot", "7", "rear_left")])
    plain = copy.deepcopy(lb.rows)
    with_identify = [*lb.rows[:3], {"type": "identify", "t": 0.05, "balls": {"7": [700.0, 100.0]}},
                     *lb.rows[3:], {"type": "identify", "balls": {"3": [0.0, 0.0], "9": [10.0, 400.0]}}]
    assert sum(1 for item in parse_log(with_identify)) == len(plain)  # left out of the fold
    a, b = judge_log(parse_log(plain), table=TABLE), judge_log(parse_log(with_identify), table=TABLE)
    assert [v.to_dict() for v in a.verdicts] == [v.to_dict() for v in b.verdicts]
    assert a.state == b.state
    assert not any("identify" in str(v.to_dict()) for v in b.verdicts)  # no "input not expected" review


def test_a_bad_identify_line_in_a_log_is_refused_with_its_line_number() -> None:
    with pytest.raises(ValueError, match="line 2: identify: unknown ball id '0'"):
        list(parse_log([{"type": "match", "game": "free", "players": ["A", "B"]},
                        {"type": "identify", "balls": {"0": [0, 0]}}]))
