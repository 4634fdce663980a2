"""Review of 1.20 (token model) and 1.12 edge cases beyond test_rules_chain.py."""

from __future__ import annotations

from typing import Any

import pytest

from calibration.table import Table
from rules.engine import judge_log
from rules.inputs import parse_log
from rules.logbuild import LogBuilder, play_rows
from rules.verdict import Verdict

TABLE = Table.load()
FROZEN_7_REAR = [{"ball": "7", "cushion": "rear", "gap_mm": 0.1}]


def judge_one(rows: list[dict[str, Any]]) -> Verdict:
    return judge_log(parse_log(rows), table=TABLE).verdicts[-1]


CASES: list[tuple[str, list, dict[str, Any], str | None]] = [
    # 2(b) needs ANOTHER cushion for the driven ball too
    ("2b_driven_to_the_same_cushion", [("contact", "C", "7"), ("cushion", "7", "rear"), ("contact", "7", "3"),
                                       ("cushion", "3", "rear")], {}, None),
    # the cue ball's own crossing after the first contact counts (3a) and drives (3b)
    ("3a_cue_ball", [("contact", "C", "7"), ("cross", "C"), ("cushion", "C", "rear")], {}, "1.20(3a)"),
    ("3b_by_the_cue_ball", [("contact", "C", "7"), ("cross", "C"), ("contact", "C", "3"), ("cushion", "3", "rear")],
     {}, "1.20(3b)"),
    # a chain through a third ball: 7 off a cushion, 7 -> 3 -> 9, 9 to another cushion
    ("2b_through_a_chain", [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("contact", "7", "3"),
                            ("contact", "3", "9"), ("cushion", "9", "rear")], {}, "1.20(2b)"),
    # a ball that received the line token, then crosses back: 3 holds `line`, its own cushion completes 3(b)
    ("3b_received_then_cushion", [("contact", "C", "7"), ("cross", "7"), ("contact", "7", "3"),
                                  ("cross", "3", "front"), ("cushion", "3", "front")], {}, "1.20(3b)"),
    # crossing twice without a cushion is not 4(a): it needs a rebound first
    ("two_crossings_no_cushion", [("contact", "C", "7"), ("cross", "7"), ("cross", "7", "front")], {}, None),
    # a cushion before the contact by the object ball itself cannot happen; by the cue ball it does not count
    ("cue_cushion_then_contact_then_cross", [("cushion", "C", "rear"), ("contact", "C", "7"), ("cross", "C")],
     {}, None),
]


@pytest.mark.parametrize("steps,shot,clause", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.parametrize("game", ["combined", "dynamic", "russian71"])
def test_chain_edges(game: str, steps: list, shot: dict[str, Any], clause: str | None) -> None:
    v = judge_one(play_rows(game, steps, **shot))
    if clause is None:
        assert [f.clause for f in v.fouls] == ["1.20"], v.explanation
    else:
        assert v.legal and v.chain is not None and v.chain.endswith(f"({clause})"), v.explanation


@pytest.mark.parametrize("cushion_first", [False, True])
def test_frozen_ball_driven_into_its_cushion_at_the_contact_time(cushion_first: bool) -> None:
    """Vision reports a frozen ball driven into its cushion as a cushion touch AT the contact time
    (docs/event-schema.md). Whichever of the two is written first, the touch comes after the contact."""
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot([("contact", "C", "7"), ("cushion", "7", "left_rear")], frozen=FROZEN_7_REAR)
    start = next(i for i, r in enumerate(lb.rows) if r["type"] == "shot_start")
    contact, cushion = start + 1, start + 2
    touch = {"type": "cushion", "t": lb.rows[contact]["t"], "frame": lb.rows[contact]["frame"], "confidence": 1.0,
             "ball": "7", "cushion": "rear", "frozen": True, "gap_mm": 0.1}
    lb.rows.insert(contact if cushion_first else cushion, touch)
    v = judge_one(lb.rows)
    assert v.legal and v.chain is not None and v.chain.endswith("(1.20(2a))"), v.explanation


def test_cushion_event_with_frozen_flag_reads_back() -> None:
    """vision/events writes `frozen: true` on a cushion event; the reader must keep it (it crashed)."""
    from rules.events import Event, EventType

    e = Event(EventType.CUSHION, 1.0, 3, ball="7", cushion="rear", extra={"frozen": True, "gap_mm": 0.1})
    back = Event.from_dict(e.to_dict())
    assert back == e and back.frozen is None and back.extra["frozen"] is True


@pytest.mark.parametrize("bad", [
    {"type": "cushion", "t": 1.0, "frame": 1, "ball": "7", "cushion": "rear", "positions": [1, 2]},
    {"type": "shot_start", "t": 1.0, "frame": 1, "touching": [3]},
])
def test_malformed_event_names_its_line(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="line 2"):
        list(parse_log([{"type": "match", "game": "free", "players": ["A", "B"]}, bad]))


@pytest.mark.parametrize("dx,outside", [(-100.0, False), (0.0, True), (50.0, True)])
def test_break_from_outside_the_house_stands_with_a_note(dx: float, outside: bool) -> None:
    """1.11.3: the break is from the house, not on the house line; unwarned, a cue ball outside it stands."""
    from rules.logbuild import BREAK_THREE_CUSHIONS
    from rules.rack import full_rack

    positions = {**full_rack(TABLE), "C": (TABLE.house_line_x + dx, 0.0)}
    v = judge_one(LogBuilder("russian71").shot(BREAK_THREE_CUSHIONS, positions=positions).rows)
    assert v.legal and v.is_break
    assert any("1.11.3" in r for r in v.readings) is outside


@pytest.mark.parametrize("how,legal", [("potted", True), ("returned", False), ("back_on_the_bed", False),
                                       ("hanging", False)])
def test_a_pot_that_is_no_pot_does_not_meet_1_20_1(how: str, legal: bool) -> None:
    """1.22.5 (jumped back out) and 1.23.1 (fell by itself) are no pots, so they cannot make a shot legal."""
    from rules.rack import full_rack

    balls = {b: list(xy) for b, xy in full_rack(TABLE).items()}
    balls["C"] = [-1200.0, 0.0]
    steps = [("contact", "C", "7"), ("pot", "7", "rear_left")]
    if how == "hanging":
        balls["11"] = list(TABLE.pockets["rear_right"].mouth_centre)
        steps = [("contact", "C", "7"), ("cushion", "7", "rear"), ("pot", "11", "rear_right")]
    end = None
    if how == "back_on_the_bed":
        end = {b: tuple(xy) for b, xy in balls.items()}
    rows = play_rows("russian71", steps, state={"balls": balls}, end_positions=end,
                     before=[{"type": "nominate", "ball": "7", "pocket": "rear_left"}])
    if how == "returned":
        next(r for r in rows if r["type"] == "pot")["returned"] = True
    v = judge_one(rows)
    assert v.legal is legal, v.explanation
    if not legal:
        assert [f.clause for f in v.fouls] == ["1.20"] and not v.potted
