"""The `state` referee input's shapes are checked where the log is read (the judge command, the API, analyze's
--state), so a bad position or score is refused by name instead of stored and then failing every later fold."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from calibration.table import Table, load_spec
from rules.events import Event
from rules.inputs import RefereeInput, check_on_bed

TABLE = Table.load()


def test_a_full_state_line_parses() -> None:
    d = {"type": "state", "balls": {"C": [-900, 0], "3": [500, 100]}, "score": {"A": 12, "B": 8.0},
         "targets": {"A": 71, "B": 71}, "shelves": {"A": ["5"], "B": []}, "to_play": "B", "frame": 2}
    inp = RefereeInput.from_dict(d)
    assert inp.get("score") == {"A": 12, "B": 8.0}
    check_on_bed(d, TABLE)
    RefereeInput.from_dict({"type": "state", "balls": ["C", "3", 7]})  # a list of ids: balls on, places unknown


@pytest.mark.parametrize(
    ("fields", "needle"),
    [
        ({"balls": {"3": [math.inf, 0]}}, "finite"),
        ({"balls": {"3": [math.nan, 0]}}, "finite"),
        ({"balls": {"Q": [0, 0]}}, "unknown ball id"),
        ({"balls": ["C", "99"]}, "unknown ball id"),
        ({"balls": 5}, "balls must be"),
        ({"score": 5}, "'score' must be {player: whole number}"),
        ({"score": {"A": math.inf}}, "whole number"),
        ({"score": {"A": "x"}}, "whole number"),
        ({"score": {"A": 2.5}}, "whole number"),
        ({"targets": {"A": True}}, "whole number"),
        ({"shelves": {"A": "5"}}, "'shelves'"),
        ({"frame": 0}, "'frame'"),
    ],
)
def test_malformed_state_is_refused_by_name(fields: dict[str, Any], needle: str) -> None:
    with pytest.raises(ValueError, match="state") as err:
        RefereeInput.from_dict({"type": "state", **fields}, line=4)
    assert needle in str(err.value) and "line 4" in str(err.value)


def test_state_places_must_be_on_the_bed() -> None:
    with pytest.raises(ValueError, match="off the bed"):
        check_on_bed({"type": "state", "balls": {"3": [99999, 0]}}, TABLE, 2)


def test_event_positions_must_be_finite() -> None:
    with pytest.raises(ValueError, match="finite"):
        Event.from_dict({"type": "shot_end", "t": 1.0, "frame": 30, "positions": {"C": [math.inf, 0]}})


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('{"name": "x"', "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"name": "x", "bed_length_mm": "abc"}', "malformed"),
    ],
)
def test_a_malformed_table_spec_is_a_clear_error(tmp_path: Any, text: str, needle: str) -> None:
    path = tmp_path / "spec.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=needle):
        load_spec(path)


def test_a_table_spec_with_impossible_dimensions_is_refused(tmp_path: Any) -> None:
    base = load_spec().to_dict()
    for name, value in (("bed_length_mm", "abc"), ("bed_width_mm", 0), ("ball_diameter_mm", -68),
                        ("corner_mouth_mm", 50.0)):
        with pytest.raises(ValueError, match="table spec"):
            load_spec(_write(tmp_path, {**base, name: value}))


def _write(folder: Any, data: dict[str, Any]) -> Any:
    path = folder / "spec.json"
    path.write_text(json.dumps(data))
    return path
