"""Fouls clause by clause (1.4, 1.5, 1.11, 1.14, 1.15-1.19, 1.21-1.24, 1.26, 1.29) and the choice after (1.6)."""

from __future__ import annotations

import pytest

from calibration.table import Table
from rules.engine import judge_log
from rules.inputs import parse_log
from rules.logbuild import SAFE_2B, LogBuilder, play_rows
from rules.state import DecisionKind
from rules.verdict import Verdict

TABLE = Table.load()


def judge_rows(rows: list[dict]) -> list[Verdict]:
    return judge_log(parse_log(rows), table=TABLE).verdicts


def one(rows: list[dict]) -> Verdict:
    return judge_rows(rows)[-1]


def clauses(v: Verdict) -> list[str]:
    return [f.clause for f in v.fouls]


POT7 = [("contact", "C", "7"), ("pot", "7", "rear_left")]
WRONG_2A = [("contact", "5", "7"), ("cushion", "7", "left_rear"), ("cushion", "7", "rear")]
NOM7 = [{"type": "nominate", "ball": "7", "pocket": "rear_left"}]

FOUL_CASES = [
    # (id, game, steps, shot kwargs, before inputs, expected clauses)
    ("1.5.3_miss", "russian71", [("cushion", "C", "rear")], {}, [], ["1.5.3"]),
    ("1.4.2_wrong_ball_russian", "russian71", [("contact", "5", "7"), ("pot", "7", "rear_left")], {"struck": "5"},
     NOM7, ["1.4.2"]),
    ("1.4.2_wrong_ball_combined", "combined", WRONG_2A, {"struck": "5"}, [], ["1.4.2"]),
    ("1.4.2_wrong_ball_classic", "classic71", WRONG_2A, {"struck": "5"}, [], ["1.4.2"]),
    ("1.14.2_early", "russian71", SAFE_2B, {"early": True}, [], ["1.14.2"]),
    ("1.14.2_previous_running", "free", SAFE_2B, {"previous_shot_running": True}, [], ["1.14.2"]),
    ("1.17_disturbed", "russian71", [*SAFE_2B, ("disturbed", "9")], {}, [], ["1.17"]),
    ("1.18_double_hit", "dynamic", SAFE_2B, {"double_hit": True}, [], ["1.18"]),
    ("1.19_push_flag", "russian71", SAFE_2B, {"push": True}, [], ["1.19"]),
    ("1.24.3_jumped", "russian71", [*SAFE_2B, ("off", "3")], {}, [], ["1.24.3"]),
    ("1.24.3_cue_jumped", "russian71", [*SAFE_2B, ("off", "C")], {}, [], ["1.24.3"]),
    ("5.5.5_cue_potted", "russian71", [*SAFE_2B, ("pot", "C", "front_left")], {}, [], ["5.5.5"]),
    ("001b_cue_potted", "classic71", [*SAFE_2B, ("pot", "C", "front_left")], {}, [], ["001 (b)"]),
    ("1.15_referee", "russian71", SAFE_2B, {}, [{"type": "foul", "clause": "1.15"}], ["1.15"]),
    ("1.16_referee", "free", SAFE_2B, {}, [{"type": "foul", "clause": "1.16"}], ["1.16"]),
    ("1.29.2_several", "russian71", [("cushion", "C", "rear"), ("off", "C")], {"double_hit": True}, [],
     ["1.18", "1.5.3", "1.24.3"]),
]


@pytest.mark.parametrize("game,steps,shot,before,expected", [c[1:] for c in FOUL_CASES], ids=[c[0] for c in FOUL_CASES])
def test_foul_clauses(game: str, steps: list, shot: dict, before: list, expected: list[str]) -> None:
    v = one(play_rows(game, steps, before=before, **shot))
    assert not v.legal
    assert sorted(clauses(v)) == sorted(expected), v.explanation
    # 1.29.2: one penalty whatever the number of violations
    pts = {"free": 1, "combined": 1, "dynamic": 1, "russian71": 5, "classic71": 0}[game]
    if pts:
        assert v.points["B"] == pts
    # 1.6: the non-offender chooses (after the penalty ball in Free and Combined)
    kinds = [d.kind for d in v.decisions_owed]
    assert DecisionKind.CHOICE_AFTER_FOUL in kinds
    assert v.next_player == "B"


def test_free_any_ball_may_be_the_cue_ball() -> None:
    v = one(play_rows("free", [("contact", "5", "7"), ("pot", "7", "rear_left")], struck="5"))
    assert v.legal and v.score["A"] == 1


def test_free_break_must_use_the_coloured_ball() -> None:
    lb = LogBuilder("free").shot([("contact", "5", "4"), ("cushion", "6", "rear"), ("cushion", "7", "rear"),
                                  ("cushion", "8", "left_rear")], struck="5")
    v = judge_rows(lb.rows)[0]
    assert "1.11.2" in clauses(v)


def test_wrong_ball_pot_is_spotted_and_chain_judged_from_the_struck_ball() -> None:
    v = one(play_rows("russian71", [("contact", "5", "7"), ("pot", "7", "rear_left")], struck="5", before=NOM7))
    assert [s["ball"] for s in v.spotted] == ["7"]
    assert v.chain is not None and "1.20(1)" in v.chain
    assert any("1.4.2" in r for r in v.readings)


def test_disturbed_by_an_outsider_is_no_foul() -> None:
    rows = play_rows("russian71", [*SAFE_2B, ("disturbed", "9")],
                     during=[{"type": "foul", "clause": "1.27", "reason": "spectator"}])
    v = one(rows)
    assert v.legal and "1.27" in v.explanation


def test_ball_touched_before_the_stroke_is_a_foul_of_the_striker() -> None:
    lb = LogBuilder("russian71").shot([("contact", "C", "4"), ("cushion", "5", "rear"), ("cushion", "6", "rear"),
                                       ("cushion", "3", "left_rear")])
    lb.events_after([("disturbed", "9")])
    lb.shot(SAFE_2B)
    v = judge_rows(lb.rows)[1]
    assert v.player == "B" and clauses(v) == ["1.17"]


def test_cue_ball_in_hand_may_be_adjusted_before_the_stroke() -> None:
    """1.11.5: the cue ball in hand is not in play until struck."""
    lb = LogBuilder("russian71")
    lb.events_after([("disturbed", "C")])
    lb.shot([("contact", "C", "4"), ("cushion", "5", "rear"), ("cushion", "6", "rear"), ("cushion", "3", "left_rear")])
    assert judge_rows(lb.rows)[0].legal


TOUCH = [{"balls": ["C", "7"], "gap_mm": 0.0}]


@pytest.mark.parametrize("extra,foul,review", [
    ({"stroke_angle_deg": 30.0, "cue_follow": True}, True, False),
    ({"stroke_angle_deg": 60.0, "cue_follow": True}, False, False),
    ({"stroke_angle_deg": 10.0, "cue_follow": False}, False, False),
    ({}, False, True),
])
def test_push_with_a_touching_ball(extra: dict, foul: bool, review: bool) -> None:
    """1.19.2: not a push at 45 degrees or more, or when the cue ball does not follow; unknown: review."""
    v = one(play_rows("russian71", SAFE_2B, touching=TOUCH, **extra))
    assert ("1.19" in clauses(v)) is foul
    assert v.review.flag is review


@pytest.mark.parametrize("gap,foul,review", [(-0.5, True, False), (0.3, True, True), (0.62, False, True),
                                             (1.4, False, False)])
def test_a_touch_decided_on_a_gap_near_the_tolerance_is_for_the_referee(gap: float, foul: bool,
                                                                       review: bool) -> None:
    """The struck ball played straight through the ball it met first, the cue ball following: a push when they
    touched (gap <= 0.5 mm). A measured gap within 0.5 mm of that tolerance decides it but is flagged, naming
    the gap (a camera measures two centres to about half a millimetre each: sample foul_push_touching_balls,
    touching in truth, measured 0.62 mm apart and judged legal unflagged)."""
    v = one(play_rows("russian71", SAFE_2B, touching=[{"balls": ["C", "7"], "gap_mm": gap}],
                      stroke_angle_deg=5.0, cue_follow=True))
    assert ("1.19" in clauses(v)) is foul
    assert v.review.flag is review
    assert any(f"{gap:.2f} mm" in r and "1.19.2" in r for r in v.review.reasons) is review


@pytest.mark.parametrize("gap,sigma,foul,review", [
    (-0.3, None, True, False),  # exact (a hand-made log): a touch, no doubt
    (-0.3, 1.0, True, True),  # measured to 1 mm: within 3 sigmas of 0.5 mm, the referee's call
    (-1.8, 1.0, True, True),  # within 3 sigmas too (the gaps' errors have tails: bench.gaps)
    (-2.8, 1.0, True, False),  # overlapping by more than 3 sigmas: a touch
    (2.3, 1.0, False, True),
    (3.6, 1.0, False, False),
    (0.62, 0.1, False, True),
    (0.9, 0.1, False, True),  # a small sigma never narrows the fixed band (0.5 mm)
])
def test_a_gap_with_its_sigma_widens_the_review_band(gap: float, sigma: float | None, foul: bool,
                                                     review: bool) -> None:
    """Schema 1.6: a touching item's `gap_sigma_mm` widens the review band to `gap_z` (3) of it. Seed 47's
    push_free_ivory was measured overlapping (-0.3 mm) where the truth had 0.64 mm: a push decided unflagged."""
    item: dict = {"balls": ["C", "7"], "gap_mm": gap}
    if sigma is not None:
        item["gap_sigma_mm"] = sigma
    v = one(play_rows("russian71", SAFE_2B, touching=[item], stroke_angle_deg=5.0, cue_follow=True))
    assert ("1.19" in clauses(v)) is foul
    assert v.review.flag is review
    assert any(f"{gap:.2f} mm" in r and "1.19.2" in r for r in v.review.reasons) is review


def test_playing_away_from_a_ball_touched_on_a_doubtful_gap_is_for_the_referee() -> None:
    """1.19.2: the touching ball is no contact when played away from; whether they touched rests on the gap, so a
    measured -0.8 +- 1.25 mm is flagged (it was decided silently before): C ran on to two cushions, a legal shot
    (2a) if C-7 was a contact, 1.5.3 if they touched."""
    positions = {"C": (-500.0, 0.0), "7": (-500.0, 68.0), "3": (900.0, 100.0)}
    end = {"C": (-1500.0, 0.0), "7": (-500.0, 68.0), "3": (900.0, 100.0)}
    steps = [("contact", "C", "7"), ("cushion", "C", "front"), ("cushion", "C", "left_front")]
    for sigma, review in ((1.25, True), (None, False)):
        item: dict = {"balls": ["C", "7"], "gap_mm": -0.8}
        if sigma is not None:
            item["gap_sigma_mm"] = sigma
        v = one(play_rows("russian71", steps, touching=[item], positions=positions, end_positions=end))
        assert clauses(v) == ["1.5.3"]
        assert any("played away" in r and "1.19.2" in r for r in v.review.reasons) is review


def test_a_doubtful_touch_that_decides_nothing_is_set_aside() -> None:
    """The same stroke with C off one cushion only: 1.5.3 if they touched, 1.20 if not, a foul paid alike either
    way: the gap decides nothing, so the verdict is not flagged and the explanation says why (rules.doubts)."""
    positions = {"C": (-500.0, 0.0), "7": (-500.0, 68.0), "3": (900.0, 100.0)}
    end = {"C": (-1500.0, 0.0), "7": (-500.0, 68.0), "3": (900.0, 100.0)}
    item = {"balls": ["C", "7"], "gap_mm": -0.8, "gap_sigma_mm": 1.25}
    v = one(play_rows("russian71", [("contact", "C", "7"), ("cushion", "C", "front")], touching=[item],
                      positions=positions, end_positions=end))
    assert clauses(v) == ["1.5.3"] and not v.review.flag, v.review.reasons
    text = v.explanation.lower()
    assert "whether c touched 7 at the stroke" in text and "1.20 instead of 1.5.3" in text, v.explanation


def test_playing_away_from_a_touching_ball_is_no_contact() -> None:
    """1.19.2: the touching ball did not move, no other contact followed: 1.5.3."""
    positions = {"C": (-500.0, 0.0), "7": (-500.0, 68.0), "3": (900.0, 100.0)}
    v = one(play_rows("russian71", [("contact", "C", "7"), ("cushion", "C", "front")], touching=TOUCH,
                      positions=positions,
                      end_positions={"C": (-1500.0, 0.0), "7": (-500.0, 68.0), "3": (900.0, 100.0)}))
    assert clauses(v) == ["1.5.3"]


def test_jump_back_out_of_the_pocket_is_not_potted() -> None:
    """1.22.5: the ball is back on the bed at the end: not potted, no foul."""
    v = one(play_rows("russian71", [*SAFE_2B, ("pot", "3", "rear_left")], before=NOM7,
                      end_positions={"3": (1000.0, 300.0), "7": (500.0, 0.0), "C": (0.0, 0.0)}))
    assert v.legal and v.potted == ()
    assert "Ball 3 jumped back out of the rear left pocket onto the bed: not potted, no foul (1.22.5)." in v.explanation


def test_ball_off_table_that_came_back_is_not_jumped() -> None:
    v = one(play_rows("russian71", [*SAFE_2B, ("off", "3")],
                      end_positions={"3": (1000.0, 300.0), "7": (500.0, 0.0), "C": (0.0, 0.0)}))
    assert v.legal


def test_jumped_object_ball_is_spotted() -> None:
    v = one(play_rows("russian71", [*SAFE_2B, ("off", "3")]))
    assert [s["ball"] for s in v.spotted] == ["3"]


def test_hanging_ball_falling_by_itself_is_restored() -> None:
    """1.23.1: a ball hanging in a pocket mouth that nobody touched fell during the shot: restored."""
    from rules.rack import full_rack

    balls = {b: list(xy) for b, xy in full_rack(TABLE).items() if b != "11"}
    balls["11"] = list(TABLE.pockets["rear_right"].mouth_centre)
    balls["C"] = [-1200.0, 0.0]
    v = one(play_rows("russian71", [*SAFE_2B, ("pot", "11", "rear_right")], state={"balls": balls},
                      before=[{"type": "nominate", "ball": "11", "pocket": "rear_right"}]))
    assert v.legal and v.potted == () and v.score["A"] == 0
    assert "Ball 11 fell into the rear right pocket by itself during the shot, untouched: put back where it stood, " \
        "no foul (1.23.1)." in v.explanation
    # Whether the fall changed the shot (1.23.2) is the referee's call: flagged with the pot as evidence.
    assert v.review.flag and any("(1.23.2)" in r for r in v.review.reasons)
    assert any(e.get("type") == "pot" and e.get("balls") == ["11"] for e in v.review.events)


def test_ball_potted_with_no_reported_contact_is_potted_and_reviewed() -> None:
    """Not hanging (in the rack), so the shot moved it through a contact vision could not separate."""
    v = one(play_rows("russian71", [*SAFE_2B, ("pot", "11", "rear_right")],
                      before=[{"type": "nominate", "ball": "11", "pocket": "rear_right"}]))
    assert v.legal and [p["ball"] for p in v.potted_counted] == ["11"] and v.score["A"] == 11
    assert v.review.flag and any("no reported contact" in r for r in v.review.reasons)


@pytest.mark.parametrize("ball, pocket", [("7", "rear_left"), ("12", "middle_left")])
def test_a_ball_falling_after_the_shot_is_potted_by_it_only_if_the_shot_moved_it(ball: str, pocket: str) -> None:
    """1.23.3: a moving ball (7) that stops on the lip and falls after the shot ended counts for that shot;
    1.23.1: a ball at rest on a lip (12), untouched by the shot, that falls then is put back, and that is said."""
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.add("nominate", ball="7", pocket="rear_left")
    lb.shot([("contact", "C", "7"), ("cushion", "7", "left_rear"), ("cushion", "7", "rear")])
    lb.events_after([("pot", ball, pocket)])
    v = judge_rows(lb.rows)[-1]
    assert v.legal and not any("(1.23.2)" in r for r in v.review.reasons)
    if ball == "7":
        assert [p["ball"] for p in v.potted_counted] == ["7"] and v.score["A"] == 7
    else:
        assert v.potted == () and v.score["A"] == 0
        assert "Ball 12 fell into the middle left pocket by itself after the shot: put back where it stood, " \
            "no foul (1.23.1)." in v.explanation


@pytest.mark.parametrize("conf, counted", [(0.45, False), (0.7, True)])
def test_a_ball_falling_after_the_shot_moved_only_by_doubtful_events_is_restored_and_flagged(
        conf: float, counted: bool) -> None:
    """1.23.1 against 1.23.3 rests on whether the shot moved the ball that fell: a cushion touch reported for
    review (below ASSERTED: a hanging ball's centre wobbling under an arm) does not say it did, and the referee is
    asked; an asserted one does (seed-107 hanging_ball_drops_later: 12 counted for the shot, A+33 for A+11)."""
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.add("nominate", ball="7", pocket="rear_left")
    lb.shot([("contact", "C", "7"), ("cushion", "12", "left_front", conf), ("pot", "7", "rear_left")])
    lb.events_after([("pot", "12", "middle_left")])
    v = judge_rows(lb.rows)[-1]
    assert v.legal
    assert [p["ball"] for p in v.potted_counted] == (["7", "12"] if counted else ["7"])
    asked = [r for r in v.review.reasons if "only events reported for review say it moved" in r]
    assert bool(asked) is not counted
    if asked:
        assert "fell by itself, restored (1.23.1) if it did not, potted by the shot (1.23.3) if it did" in asked[0]


def test_foul_after_the_shot_is_penalised_and_the_pot_stands() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.add("nominate", ball="7", pocket="rear_left")
    lb.shot(POT7)
    lb.add("foul", clause="1.17", reason="touched ball 3 with the sleeve")
    v = judge_rows(lb.rows)[-1]
    assert not v.legal and v.fouls[0].after_shot
    assert v.score == {"A": 7 - 5, "B": 5}
    assert v.next_player == "B"


def test_stroke_foul_entered_after_the_shot_makes_the_pot_illegal() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.add("nominate", ball="7", pocket="rear_left")
    lb.shot(POT7)
    lb.add("foul", clause="1.16")
    v = judge_rows(lb.rows)[-1]
    assert clauses(v) == ["1.16"] and not v.fouls[0].after_shot
    assert [s["ball"] for s in v.spotted] == ["7"] and v.score == {"A": -5, "B": 5}


@pytest.mark.parametrize("option,next_player", [("play", "B"), ("hand_over", "A")])
def test_choice_after_a_foul(option: str, next_player: str) -> None:
    """1.6: the non-offender plays, or hands the shot back to the offender."""
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot([("cushion", "C", "rear")])
    lb.add("choose", option=option)
    lb.shot(SAFE_2B)
    assert judge_rows(lb.rows)[-1].player == next_player


HAND = {"phase": "play", "to_play": "A", "hand": "house"}


@pytest.mark.parametrize("game,pos7,cue,clause", [
    ("russian71", (-1200.0, 100.0), (-1500.0, 0.0), "1.21.2"),  # first contact in the house
    ("classic71", (-1200.0, 100.0), (-1500.0, 0.0), "001 (zh)"),
    ("russian71", (-800.0, 100.0), (-1500.0, 0.0), None),  # the object ball outside the house
    ("russian71", (1000.0, 100.0), (1500.0, 0.0), "1.21.2"),  # played from the rear end
    ("combined", (-1200.0, 100.0), (-1500.0, 0.0), "1.21.2"),
])
def test_hand_shot_from_the_house(game: str, pos7: tuple, cue: tuple, clause: str | None) -> None:
    positions = {"C": cue, "7": pos7, "3": (800.0, 300.0)}
    v = one(play_rows(game, SAFE_2B, state=HAND, positions=positions))
    if clause is None:
        assert v.legal, v.explanation
    else:
        assert clause in clauses(v)


def test_ball_on_the_house_line_is_outside_the_house() -> None:
    from calibration.table import Table

    hx = Table.load().house_line_x
    positions = {"C": (-1500.0, 0.0), "7": (hx, 100.0), "3": (800.0, 300.0)}
    assert one(play_rows("russian71", SAFE_2B, state=HAND, positions=positions)).legal


def test_all_balls_in_the_house_play_from_the_temporary_house() -> None:
    """1.21.2: every object ball in the house: the cue ball goes to the rear end, behind the rear line."""
    positions = {"C": (1500.0, 0.0), "7": (-1200.0, 100.0), "3": (-1300.0, 300.0)}
    rows = play_rows("russian71", SAFE_2B, state={**HAND, "balls": {"7": [-1200, 100], "3": [-1300, 300]}},
                     positions=positions)
    assert one(rows).legal
    wrong = {**positions, "C": (-1500.0, 0.0)}
    rows = play_rows("russian71", SAFE_2B, state={**HAND, "balls": {"7": [-1200, 100], "3": [-1300, 300]}},
                     positions=wrong)
    assert "1.21.2" in clauses(one(rows))


@pytest.mark.parametrize("wait,extension,status,foul", [
    (20.0, False, "ok", False), (40.0, False, "warning", False), (50.0, False, "overrun", True),
    (50.0, True, "ok", False), (95.0, True, "overrun", True)])
def test_shot_clock(wait: float, extension: bool, status: str, foul: bool) -> None:
    """1.26: 45 s from the end of the previous shot, warning 10 s before, one extension doubles it."""
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.add("clock", action="start")
    lb.shot(SAFE_2B)
    if extension:
        lb.add("clock", action="extension", player="B")
    lb.shot(SAFE_2B, wait_s=wait)
    v = judge_rows(lb.rows)[-1]
    assert v.clock is not None and v.clock["status"] == status
    assert ("1.26" in clauses(v)) is foul


def test_second_extension_in_a_frame_is_refused() -> None:
    lb = LogBuilder("russian71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.add("clock", action="start")
    lb.shot(SAFE_2B)
    for _ in range(2):
        lb.add("clock", action="extension", player="B")
        lb.shot(SAFE_2B, wait_s=50.0)
        lb.shot(SAFE_2B, wait_s=5.0)
    vs = judge_rows(lb.rows)
    assert vs[1].legal and vs[1].clock is not None and vs[1].clock["extended"]
    assert "1.26" in clauses(vs[3]) and vs[3].review.flag


def test_cue_ball_placed_outside_the_house_stands() -> None:
    """1.11.3 (committed reading): no warning, the shot stands."""
    positions = {"C": (-700.0, 0.0), "7": (-200.0, 100.0), "3": (800.0, 300.0)}
    v = one(play_rows("russian71", SAFE_2B, state=HAND, positions=positions))
    assert v.legal and any("1.11.3" in r for r in v.readings)


def test_interference_in_the_opponents_play_is_a_referee_foul() -> None:
    v = one(play_rows("russian71", SAFE_2B, before=[{"type": "foul", "clause": "1.28", "reason": "moved ball 5"}]))
    assert clauses(v) == ["1.28"] and v.fouls[0].source == "referee"


def test_several_spotted_balls_go_along_the_spotting_line_without_touching() -> None:
    """1.25: one ball on the rear spot, the next behind it towards the rear cushion, not touching."""
    from calibration.table import Table

    table = Table.load()
    balls = {"C": [-1000, 0], "7": [0, 300], "3": [300, -300], "5": [-300, 500]}
    v = one(play_rows("russian71", [("contact", "C", "7"), ("contact", "7", "3"), ("pot", "7", "rear_left"),
                                    ("pot", "3", "rear_right"), ("pot", "C", "front_left")],
                      state={"balls": balls}, before=NOM7))
    assert [s["ball"] for s in v.spotted] == ["7", "3"]
    (x1, y1), (x2, y2) = [(s["x"], s["y"]) for s in v.spotted]
    assert x1 == pytest.approx(table.rear_line_x, abs=0.1) and y1 == 0.0 and y2 == 0.0
    assert x2 - x1 > table.spec.ball_diameter_mm and x2 - x1 < table.spec.ball_diameter_mm + 2.0


def test_spotted_ball_goes_around_a_ball_on_the_rear_spot() -> None:
    from calibration.table import Table

    table = Table.load()
    balls = {"C": [-1000, 0], "7": [0, 300], "5": [table.rear_line_x, 0]}
    v = one(play_rows("russian71", [*SAFE_2B, ("off", "7")], state={"balls": {**balls, "3": [300, -300]}}))
    (sx, sy) = (v.spotted[0]["x"], v.spotted[0]["y"])
    assert sy == 0.0 and abs(sx - table.rear_line_x) >= table.spec.ball_diameter_mm
