
"""1.20 by the token model: every chain, the notes, and the failures (RULES.md committed readings)."""

from __future__ import annotations

import pytest

from calibration.table import Table
from rules.engine import judge_log
from rules.inputs import parse_log
from rules.logbuild import play_rows
from rules.settings import CushionIdentity, RulesSettings
from rules.verdict import Verdict

TABLE = Table.load()


def judge_one(rows: list[dict], settings: RulesSettings | None = None) -> Verdict:
    return judge_log(parse_log(rows), settings=settings, table=TABLE).verdicts[-1]


FROZEN_3_REAR = [{"ball": "3", "cushion": "rear", "gap_mm": 0.2}]
FROZEN_3_LEFT_REAR = [{"ball": "3", "cushion": "left_rear", "gap_mm": 0.2}]
FROZEN_7_REAR = [{"ball": "7", "cushion": "rear", "gap_mm": 0.1}]

CASES = [
    # (id, steps, shot kwargs, expected clause or None for a 1.20 foul)
    ("pot", [("contact", "C", "7"), ("pot", "7", "rear_left")], {}, "1.20(1)"),
    ("2a", [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("cushion", "7", "rear")], {}, "1.20(2a)"),
    ("2b", [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("contact", "7", "3"), ("cushion", "3", "rear")],
     {}, "1.20(2b)"),
    ("2c", [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("contact", "7", "3")],
     {"frozen": FROZEN_3_REAR}, "1.20(2c)"),
    ("2c_same_cushion_fails", [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("contact", "7", "3")],
     {"frozen": FROZEN_3_LEFT_REAR}, None),
    ("3a", [("contact", "C", "7"), ("cross", "7"), ("cushion", "7", "rear")], {}, "1.20(3a)"),
    ("3b", [("contact", "C", "7"), ("cross", "7"), ("contact", "7", "3"), ("cushion", "3", "rear")], {}, "1.20(3b)"),
    ("3c", [("contact", "C", "7"), ("cross", "7"), ("contact", "7", "3")], {"frozen": FROZEN_3_REAR}, "1.20(3c)"),
    ("4a", [("contact", "C", "7"), ("cushion", "7", "rear"), ("cross", "7", "front")], {}, "1.20(4a)"),
    ("4b", [("contact", "C", "7"), ("cushion", "7", "rear"), ("contact", "7", "3"), ("cross", "3", "front")],
     {}, "1.20(4b)"),
    ("one_cushion_only", [("contact", "C", "7"), ("cushion", "7", "rear")], {}, None),
    ("same_cushion_twice", [("contact", "C", "7"), ("cushion", "7", "rear"), ("cushion", "7", "rear")], {}, None),
    # note 1: events before the first contact do not count
    ("note1_cushion_before_contact", [("cushion", "C", "left_front"), ("contact", "C", "7"), ("cushion", "7", "rear")],
     {}, None),
    ("note1_cross_before_contact", [("cross", "C"), ("contact", "C", "7"), ("cushion", "7", "rear")], {}, None),
    # note 1: order matters: a cushion then a crossing of another ball that was not driven by it
    ("note1_unrelated_balls", [("contact", "C", "7"), ("cushion", "7", "rear"), ("cross", "3")], {}, None),
    # note 2: two separate collisions with a frozen ball: unconditionally legal
    ("note2_two_collisions", [("contact", "C", "7"), ("cushion", "7", "rear"), ("contact", "7", "C"),
                              ("cushion", "C", "left_rear")], {"frozen": FROZEN_7_REAR}, "1.20(2b)"),
    ("note2_one_collision_undeclared", [("contact", "C", "7"), ("cushion", "C", "left_rear")],
     {"frozen": FROZEN_7_REAR}, None),
    # note 4: a jaw bounce is reported as two crossings: the line token stays
    ("note4_jaw_back_then_cushion", [("contact", "C", "7"), ("cross", "7", "rear"), ("cross", "7", "front"),
                                     ("cushion", "7", "front")], {}, "1.20(3a)"),
]


@pytest.mark.parametrize("steps,shot,clause", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.parametrize("game", ["free", "russian71", "classic71"])
def test_chain(game: str, steps: list, shot: dict, clause: str | None) -> None:
    v = judge_one(play_rows(game, steps, **shot))
    if clause is None:
        assert not v.legal
        assert [f.clause for f in v.fouls] == ["1.20"]
        assert "no ball completed a chain" in v.explanation
    else:
        assert v.legal, v.explanation
        assert v.chain is not None and v.chain.endswith(f"({clause})")
        assert clause in v.explanation


def test_chain_text_names_the_balls() -> None:
    steps = [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("contact", "7", "3"), ("cushion", "3", "rear")]
    v = judge_one(play_rows("russian71", steps))
    assert v.chain == "ball 7 off the left_rear cushion, then drove ball 3 to the rear cushion (1.20(2b))"


def test_note2_declared_frozen_makes_one_collision_legal() -> None:
    steps = [("contact", "C", "7"), ("cushion", "C", "left_rear")]
    rows = play_rows("russian71", steps, frozen=FROZEN_7_REAR,
                     before=[{"type": "declare_frozen", "ball": "7", "cushion": "rear"}])
    v = judge_one(rows)
    assert v.legal, v.explanation
    assert v.chain is not None and "1.20(2b)" in v.chain


@pytest.mark.parametrize("x,legal", [(0.0, False), (0.4, False), (-0.3, False), (0.6, True), (150.0, True)])
def test_note3_ball_starting_on_the_centre_line(x: float, legal: bool) -> None:
    """A ball whose centre starts on the line has not crossed by leaving it (note 3), within 0.5 mm."""
    steps = [("contact", "C", "7"), ("cross", "7"), ("cushion", "7", "rear")]
    positions = {"C": (-900.0, 0.0), "7": (x, 300.0), "3": (800.0, -200.0)}
    v = judge_one(play_rows("free", steps, positions=positions))
    assert v.legal is legal
    if not legal:
        assert any("note 3" in r for r in v.readings)


def test_note3_second_crossing_counts() -> None:
    steps = [("contact", "C", "7"), ("cross", "7", "rear"), ("cushion", "7", "rear"), ("cross", "7", "front")]
    positions = {"C": (-900.0, 0.0), "7": (0.0, 300.0)}
    v = judge_one(play_rows("free", steps, positions=positions))
    assert v.legal and v.chain is not None and "1.20(4a)" in v.chain


@pytest.mark.parametrize("identity,legal", [(CushionIdentity.SEGMENT, True), (CushionIdentity.SIDE, False)])
def test_another_cushion_setting(identity: CushionIdentity, legal: bool) -> None:
    steps = [("contact", "C", "7"), ("cushion", "7", "left_front"), ("cushion", "7", "left_rear")]
    v = judge_one(play_rows("russian71", steps), RulesSettings(cushion_identity=identity))
    assert v.legal is legal


@pytest.mark.parametrize("gap,legal,review", [(0.2, True, False), (0.8, True, True), (1.3, False, True),
                                              (3.0, False, False)])
def test_frozen_tolerance_band_is_reviewed(gap: float, legal: bool, review: bool) -> None:
    steps = [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("contact", "7", "3")]
    frozen = [{"ball": "3", "cushion": "rear", "gap_mm": gap}]
    v = judge_one(play_rows("russian71", steps, frozen=frozen), RulesSettings(frozen_tol_mm=1.0, frozen_band_mm=0.5))
    assert v.legal is legal
    assert v.review.flag is review
    if review:
        assert any(e.get("type") == "frozen" for e in v.review.events)


@pytest.mark.parametrize("gap,sigma,legal,review", [(0.2, 0.0, True, False), (0.2, 0.5, True, True),
                                                    (2.8, 1.0, False, True), (3.0, None, False, False),
                                                    (1.4, 0.1, False, True)])  # a small sigma keeps the 0.5 band
def test_a_frozen_gap_with_its_sigma_widens_the_band(gap: float, sigma: float | None, legal: bool,
                                                     review: bool) -> None:
    """Schema 1.6: `gap_sigma_mm` widens the frozen band to `gap_z` (3) of it; a zero or missing sigma does not."""
    steps = [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("contact", "7", "3")]
    item: dict = {"ball": "3", "cushion": "rear", "gap_mm": gap}
    if sigma is not None:
        item["gap_sigma_mm"] = sigma
    v = judge_one(play_rows("russian71", steps, frozen=[item]),
                  RulesSettings(frozen_tol_mm=1.0, frozen_band_mm=0.5))
    assert v.legal is legal
    assert v.review.flag is review


def test_low_confidence_event_in_the_chain_is_reviewed() -> None:
    steps = [("contact", "C", "7"), ("cushion", "7", "left_rear", 0.3), ("cushion", "7", "rear")]
    v = judge_one(play_rows("russian71", steps))
    assert v.legal and v.review.flag
    assert any(e["type"] == "cushion" and e["confidence"] == 0.3 for e in v.review.events)


def test_low_confidence_event_outside_the_chain_is_not_reviewed() -> None:
    steps = [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("cushion", "7", "rear"),
             ("cushion", "C", "front", 0.2)]
    v = judge_one(play_rows("russian71", steps))
    assert v.legal and not v.review.flag


def test_event_marked_for_review_by_vision_is_reviewed() -> None:
    rows = play_rows("russian71", [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("cushion", "7", "rear")])
    contact = next(r for r in rows if r["type"] == "ball_contact")
    contact["review"] = True
    v = judge_one(rows)
    assert v.legal and v.review.flag and v.review.events[0]["type"] == "ball_contact"


@pytest.mark.parametrize("frozen,review", [(FROZEN_7_REAR, False), ([], True)])
def test_declared_frozen_not_seen_frozen_is_reviewed(frozen: list, review: bool) -> None:
    steps = [("contact", "C", "7"), ("cushion", "C", "left_rear")]
    declare = {"type": "declare_frozen", "ball": "7", "cushion": "rear"}
    rows = play_rows("russian71", steps, frozen=frozen, before=[declare])
    v = judge_one(rows)
    assert v.legal and v.review.flag is review


def _chain_back_through(dt_last: float) -> list[dict]:
    """touching_cluster_hit (heldout41): C hits 2 of the touching 2-9-12; 12 comes off the rear cushion and rolls
    back into 9, the impulse runs through 9 and 2 into C, which crosses the centre line. The three contacts of
    that instant are reported 2-C, 9-2, then 12-9 `dt_last` later: the camera's timing, not the order."""
    steps = [("contact", "C", "2"), ("contact", "2", "9"), ("contact", "9", "12"), ("cushion", "12", "rear"),
             ("contact", "2", "C"), ("contact", "9", "2"), ("contact", "12", "9"), ("cross", "C", "front")]
    rows = play_rows("free", steps)
    back = [r for r in rows if r["type"] == "ball_contact"][3:]
    t0 = back[0]["t"]
    back[1]["t"], back[2]["t"] = t0 + 0.0005, t0 + dt_last
    return rows


def test_contacts_of_one_instant_pass_tokens_whatever_their_reported_order_for_review() -> None:
    v = judge_one(_chain_back_through(0.002))
    assert v.legal and v.chain is not None and v.chain.endswith("(1.20(4b))"), v.explanation
    assert v.review.flag and any("whose order the camera cannot tell" in r for r in v.review.reasons)


def test_contacts_apart_in_time_pass_tokens_in_their_order_only() -> None:
    v = judge_one(_chain_back_through(0.05))  # 12 reached 9 after 2 had left C: nothing passed back to C
    assert not v.legal and [f.clause for f in v.fouls] == ["1.20"]


def test_a_token_made_inside_an_instant_does_not_flow_back_into_its_earlier_contacts() -> None:
    # C meets 7, 7 touches the rear cushion a millisecond later and meets 3 a millisecond after that: C left 7
    # before 7 had its cushion, so C's later touch of the left_rear cushion completes nothing
    rows = play_rows("free", [("contact", "C", "7"), ("cushion", "7", "rear"), ("contact", "7", "3"),
                              ("cushion", "C", "left_rear")])
    t0 = rows[3]["t"]
    rows[4]["t"], rows[5]["t"] = t0 + 0.001, t0 + 0.002
    v = judge_one(rows)
    assert not v.legal and [f.clause for f in v.fouls] == ["1.20"], v.explanation


def test_a_token_passed_against_the_order_and_handed_on_later_is_still_reviewed() -> None:
    rows = _chain_back_through(0.002)
    cross = rows.index(next(r for r in rows if r["type"] == "line_cross"))
    t = rows[cross]["t"]
    rows[cross:cross + 1] = [{**rows[cross], "type": "ball_contact", "balls": ["C", "5"], "t": t},
                             {**rows[cross], "ball": "5", "t": t + 0.05}]
    for r in rows[cross:cross + 2]:
        if r["type"] == "ball_contact":
            r.pop("ball", None)
            r.pop("line", None)
            r.pop("to", None)
    v = judge_one(rows)
    assert v.legal and v.chain is not None and "ball 5 across the centre line" in v.chain, v.explanation
    assert v.review.flag
