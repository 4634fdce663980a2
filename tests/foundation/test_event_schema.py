"""The vision -> rules contract: round trips, validation, filters."""

from __future__ import annotations

import json

import pytest

from rules.events import (
    BALL_IDS,
    Direction,
    Event,
    EventType,
    Line,
    by_ball,
    by_type,
    filter_events,
    read_jsonl,
)

EXAMPLES = [
    {"type": "shot_start", "t": 1.5, "frame": 90, "confidence": 1.0, "ball": "C",
     "positions": {"C": [-1000.0, 10.0], "3": [900.0, 0.0]},
     "frozen": [{"ball": "3", "cushion": "rear", "gap_mm": 0.4}],
     "touching": [{"balls": ["3", "4"], "gap_mm": 0.2}]},
    {"type": "ball_contact", "t": 1.9, "frame": 114, "confidence": 0.97, "balls": ["C", "3"]},
    {"type": "cushion", "t": 2.2, "frame": 132, "confidence": 0.9, "ball": "3", "cushion": "left_rear"},
    {"type": "line_cross", "t": 2.4, "frame": 144, "confidence": 1.0, "ball": "C", "line": "centre",
     "to": "rear"},
    {"type": "pot", "t": 2.8, "frame": 168, "confidence": 1.0, "ball": "3", "pocket": "rear_left",
     "late": True},
    {"type": "off_table", "t": 2.9, "frame": 174, "confidence": 0.8, "ball": "7"},
    {"type": "ball_disturbed", "t": 3.0, "frame": 180, "confidence": 0.7, "ball": "9"},
    {"type": "shot_end", "t": 5.0, "frame": 300, "confidence": 1.0, "positions": {"C": [0.0, 0.0]}},
]


@pytest.mark.parametrize("raw", EXAMPLES, ids=[e["type"] for e in EXAMPLES])
def test_round_trip_keeps_every_field(raw: dict) -> None:
    event = Event.from_dict(raw)
    assert json.loads(event.to_json()) == raw


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"type": "cushion", "t": 1, "frame": 1, "ball": "3"}, "cushion"),
        ({"type": "pot", "t": 1, "frame": 1, "pocket": "rear_left"}, "ball"),
        ({"type": "teleport", "t": 1, "frame": 1}, "unknown event type"),
        ({"type": "pot", "frame": 1, "ball": "3", "pocket": "x"}, "missing"),
        ({"type": "ball_contact", "t": 1, "frame": 1, "balls": ["1", "2", "3"]}, "exactly two"),
        ({"type": "off_table", "t": 1, "frame": 1, "ball": "3", "confidence": 1.5}, "confidence"),
        ({"type": "shot_start", "t": 1, "frame": 1, "ball": "C",
          "touching": [{"balls": ["C", "3"], "gap_mm": 0.2, "gap_sigma_mm": float("inf")}]}, "finite number"),
        ({"type": "shot_start", "t": 1, "frame": 1, "ball": "C",
          "frozen": [{"ball": "C", "cushion": "rear", "gap_mm": 0.2, "gap_sigma_mm": -1.0}]}, ">= 0"),
        ({"type": "shot_start", "t": 1, "frame": 1, "ball": "C", "frozen": ["rear"]}, "must be an object"),
    ],
)
def test_malformed_events_are_rejected_with_a_clear_message(raw: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Event.from_dict(raw)


def test_read_jsonl_names_the_bad_line() -> None:
    lines = [json.dumps(EXAMPLES[1]), "", '{"type": "pot"}']
    with pytest.raises(ValueError, match="line 3"):
        list(read_jsonl(lines))


def test_filters_chain() -> None:
    events = [Event.from_dict(e) for e in EXAMPLES]
    got = filter_events(events, by_type(EventType.CUSHION, EventType.POT), by_ball("3"))
    assert [e.type for e in got] == [EventType.CUSHION, EventType.POT]
    assert events[3].line is Line.CENTRE and events[3].to is Direction.REAR
    assert events[1].agents == ("C", "3")


def test_ball_ids_are_fifteen_ivory_and_the_coloured_ball() -> None:
    assert len(BALL_IDS) == 16 and BALL_IDS[-1] == "C" and len(set(BALL_IDS)) == 16
