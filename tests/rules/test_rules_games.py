"""Scoring of the five games: Free (2), Combined (3), Dynamic (4), Russian 71 (5), Classic 71 (001)."""

from __future__ import annotations

import itertools

import pytest

from calibration.table import Table
from rules.engine import judge_log
from rules.inputs import parse_log
from rules.logbuild import NO_CHAIN, SAFE_2B, LogBuilder, play_rows
from rules.state import DecisionKind, Hand
from rules.verdict import Result, Verdict

TABLE = Table.load()


def verdicts(rows: list[dict]) -> list[Verdict]:
    return judge_log(parse_log(rows), table=TABLE).verdicts


def one(rows: list[dict]) -> Verdict:
    return verdicts(rows)[-1]


def nom(ball: str, pocket: str = "rear_left", **kw: object) -> dict:
    return {"type": "nominate", "ball": ball, "pocket": pocket, **kw}


def pot(*balls: str, pocket: str = "rear_left") -> list:
    steps: list = [("contact", "C", balls[0])]
    for a, b in itertools.pairwise(balls):
        steps.append(("contact", a, b))
    return steps + [("pot", b, pocket) for b in balls]


# --- the 8-point games ----------------------------------------------------------------------------------
@pytest.mark.parametrize("game", ["free", "combined", "dynamic"])
@pytest.mark.parametrize("balls,points", [(("7",), 1), (("7", "3"), 2)])
def test_eight_point_games_count_every_ball_one_point(game: str, balls: tuple, points: int) -> None:
    v = one(play_rows(game, pot(*balls)))
    assert v.legal and v.score["A"] == points and v.next_player == "A"
    assert [p["points"] for p in v.potted_counted] == [1] * points


@pytest.mark.parametrize("game", ["free", "combined", "dynamic"])
def test_eight_point_games_legal_shot_without_pot_passes(game: str) -> None:
    v = one(play_rows(game, SAFE_2B))
    assert v.legal and v.next_player == "B" and v.score == {"A": 0, "B": 0}


@pytest.mark.parametrize("game,owed", [("free", DecisionKind.PENALTY_BALL), ("combined", DecisionKind.PENALTY_BALL),
                                       ("dynamic", DecisionKind.DYNAMIC_CHOICE)])
def test_eight_point_foul_gives_one_point_and_a_ball(game: str, owed: DecisionKind) -> None:
    v = one(play_rows(game, [*pot("7"), ("off", "3")]))
    assert not v.legal and v.score == {"A": 0, "B": 1}
    assert sorted(s["ball"] for s in v.spotted) == ["3", "7"]
    assert owed in [d.kind for d in v.decisions_owed]


def test_free_penalty_ball_goes_to_the_opponents_shelf() -> None:
    lb = LogBuilder("free")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot(NO_CHAIN)
    lb.add("penalty_ball", ball="12")
    lb.add("choose", option="play")
    lb.shot(SAFE_2B)
    st = judge_log(parse_log(lb.rows), table=TABLE).state
    assert st is not None and st.shelves["B"] == ("12",) and "12" not in st.balls and st.score["B"] == 1


def test_free_cue_ball_potted_off_an_object_ball_counts() -> None:
    v = one(play_rows("free", [("contact", "C", "7"), ("cushion", "7", "rear"), ("cushion", "7", "front"),
                               ("pot", "C", "front_left")]))
    assert v.legal and v.score["A"] == 1 and v.next_player == "A"


@pytest.mark.parametrize("game", ["free", "combined", "dynamic"])
def test_eight_points_win_the_frame(game: str) -> None:
    v = one(play_rows(game, pot("7"), state={"score": {"A": 7, "B": 3}}))
    assert v.result is Result.MATCH_WON and v.winner == "A"


def test_combined_cue_ball_potted_gives_a_point_and_a_premium_shot_from_the_house() -> None:
    steps = [("contact", "C", "7"), ("cushion", "7", "rear"), ("cushion", "7", "front"), ("pot", "C", "front_left")]
    lb = LogBuilder("combined")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot(steps)
    lb.add("remove_ball", ball="9")
    j = judge_log(parse_log(lb.rows), table=TABLE)
    v = j.verdicts[0]
    assert v.legal and v.score["A"] == 1 and v.next_player == "A"
    assert DecisionKind.REMOVE_BALL in [d.kind for d in v.decisions_owed]
    assert any("not a second point" in r for r in v.readings)
    st = j.state
    assert st is not None and st.hand is Hand.HOUSE


def test_combined_foul_with_cue_ball_potted_opponent_plays_from_the_house() -> None:
    v = one(play_rows("combined", [("cushion", "C", "rear"), ("pot", "C", "front_left")]))
    assert not v.legal and v.score["B"] == 1
    assert any(d.kind is DecisionKind.CUE_BALL_IN_HAND and d.options == ("house",) for d in v.decisions_owed)


def test_dynamic_cue_ball_potted_gives_premium_from_hand_anywhere() -> None:
    steps = [("contact", "C", "7"), ("cushion", "7", "rear"), ("cushion", "7", "front"), ("pot", "C", "front_left")]
    v = one(play_rows("dynamic", steps))
    assert v.legal and v.score["A"] == 1 and v.next_player == "A"
    assert any(d.kind is DecisionKind.CUE_BALL_IN_HAND and d.options == ("anywhere",) for d in v.decisions_owed)


def test_dynamic_premium_shot_cue_ball_does_not_count_and_turn_passes() -> None:
    """4.5.2 (committed reading): object ball counts, cue ball does not, no foul, turn passes."""
    steps = [("contact", "C", "7"), ("pot", "7", "rear_left"), ("pot", "C", "front_left")]
    v = one(play_rows("dynamic", steps, state={"hand": "anywhere", "premium": True}))
    assert v.legal and v.score["A"] == 1 and v.next_player == "B"
    assert [p["ball"] for p in v.potted_counted] == ["7"]


def test_dynamic_foul_point_at_once_then_ball_in_hand() -> None:
    lb = LogBuilder("dynamic")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot(NO_CHAIN)
    lb.add("choose", option="ball_in_hand")
    lb.shot([("contact", "C", "7"), ("pot", "7", "rear_left"), ("pot", "C", "front_left")])
    v1, v2 = verdicts(lb.rows)
    assert v1.score == {"A": 0, "B": 1}
    assert v2.player == "B" and v2.legal and v2.score == {"A": 0, "B": 2} and v2.next_player == "A"


# --- Russian 71 -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("balls,points", [(("7",), 7), (("1",), 11), (("15",), 15), (("7", "3"), 10),
                                          (("1", "2"), 13)])
def test_russian_nominated_ball_counts_every_ball(balls: tuple, points: int) -> None:
    v = one(play_rows("russian71", pot(*balls), before=[nom(balls[0])]))
    assert v.legal and v.score["A"] == points and v.next_player == "A"


@pytest.mark.parametrize("nomination", [nom("3"), nom("7", "rear_right"), None])
def test_russian_other_ball_is_spotted_and_turn_passes(nomination: dict | None) -> None:
    v = one(play_rows("russian71", pot("7"), before=[nomination] if nomination else []))
    assert v.legal and v.score == {"A": 0, "B": 0} and v.next_player == "B"
    assert [s["ball"] for s in v.spotted] == ["7"]
    assert any("spotted, no foul" in r for r in v.readings)


def test_russian_nomination_during_the_stroke_does_not_replace_the_standing_one() -> None:
    rows = play_rows("russian71", pot("7"), before=[nom("3")], during=[nom("7")])
    v = one(rows)
    assert v.score["A"] == 0 and [s["ball"] for s in v.spotted] == ["7"]
    assert any("does not replace" in r for r in v.readings)


def test_russian_last_nomination_before_the_stroke_counts() -> None:
    v = one(play_rows("russian71", pot("7"), before=[nom("3"), nom("7")]))
    assert v.score["A"] == 7


def test_russian_last_ball_gets_ten_more() -> None:
    v = one(play_rows("russian71", pot("7"), before=[nom("7")], state={"balls": {"7": [500, 100]}}))
    assert v.score["A"] == 17


def test_russian_foul_is_minus_five_plus_five() -> None:
    v = one(play_rows("russian71", [("cushion", "C", "rear")], state={"score": {"A": 30, "B": 20}}))
    assert v.score == {"A": 25, "B": 25} and v.points == {"A": -5, "B": 5}


def test_russian_score_may_go_negative() -> None:
    v = one(play_rows("russian71", [("cushion", "C", "rear")]))
    assert v.score == {"A": -5, "B": 5}


def test_russian_cue_ball_potted_is_a_foul_opponent_plays_from_the_house() -> None:
    v = one(play_rows("russian71", [*pot("7"), ("pot", "C", "front_left")], before=[nom("7")]))
    assert "5.5.5" in [f.clause for f in v.fouls] and v.score == {"A": -5, "B": 5}
    assert [s["ball"] for s in v.spotted] == ["7"]
    assert any(d.kind is DecisionKind.CUE_BALL_IN_HAND and d.options == ("house",) for d in v.decisions_owed)


def test_russian_71_wins() -> None:
    v = one(play_rows("russian71", pot("7"), before=[nom("7")], state={"score": {"A": 64, "B": 10}}))
    assert v.result is Result.MATCH_WON and v.winner == "A" and v.score["A"] == 71


def test_russian_penalty_taking_opponent_to_71_wins_for_him() -> None:
    v = one(play_rows("russian71", [("cushion", "C", "rear")], state={"score": {"A": 10, "B": 66}}))
    assert v.winner == "B" and any("penalty that takes" in r for r in v.readings)


def test_russian_seventy_seventy_spots_the_ball_and_owes_a_lag() -> None:
    """5.5.7 (committed reading): the ball counts, is spotted on the rear spot, the next player by a lag."""
    from calibration.table import Table

    balls = {"7": [600, 300], "3": [500, -300], "5": [-200, 100]}
    v = one(play_rows("russian71", pot("7"), before=[nom("7")], state={"score": {"A": 63, "B": 70}, "balls": balls}))
    assert v.score == {"A": 70, "B": 70} and v.result is Result.CONTINUE and v.next_player is None
    assert v.spotted[0]["ball"] == "7" and v.spotted[0]["x"] == pytest.approx(Table.load().rear_line_x, abs=0.1)
    assert [d.kind for d in v.decisions_owed] == [DecisionKind.LAG]  # the lag verdict owes the house (5.5.7)


def test_russian_veterans_waive_1_20() -> None:
    rows = play_rows("russian71", NO_CHAIN)
    rows[0]["veterans"] = True
    v = one(rows)
    assert v.legal and "5.5.8" in v.explanation
    assert not one(play_rows("russian71", NO_CHAIN)).legal


# --- Classic 71 -------------------------------------------------------------------------------------------
def test_classic_ball_and_pocket_counts_every_ball() -> None:
    v = one(play_rows("classic71", pot("7", "3"), before=[nom("7", mode="ball_pocket")]))
    assert v.score["A"] == 10 and v.next_player == "A"


def test_classic_clean_designation_spots_every_other_ball() -> None:
    v = one(play_rows("classic71", pot("7", "3"), before=[nom("7", mode="clean", how="off ball 3")]))
    assert v.score["A"] == 7 and [s["ball"] for s in v.spotted] == ["3"]
    assert any("clean designation" in r for r in v.readings)


def test_classic_clean_designation_refused_by_the_referee() -> None:
    lb = LogBuilder("classic71")
    lb.state(phase="play", to_play="A", hand="none")
    lb.add("nominate", ball="7", pocket="rear_left", mode="clean", how="clean")
    lb.shot(pot("7"))
    lb.add("override", shot=1, verdict={"as_nominated": False}, reason="fell off two cushions, not clean")
    v = one(lb.rows)
    assert v.score["A"] == 0 and [s["ball"] for s in v.spotted] == ["7"]
    assert v.override is not None


def test_classic_nomination_during_the_stroke_does_not_count() -> None:
    v = one(play_rows("classic71", pot("7"), during=[nom("7")]))
    assert v.score["A"] == 0 and [s["ball"] for s in v.spotted] == ["7"]


def test_classic_one_ball_left_needs_no_number() -> None:
    v = one(play_rows("classic71", pot("7"), before=[{"type": "nominate", "pocket": "rear_left"}],
                      state={"balls": {"7": [500, 100]}}))
    assert v.score["A"] == 17  # the last ball: 7 + 10 (values as 5.5.1, see test_rules_review_scoring)


@pytest.mark.parametrize("a,b,after_a,after_b,target_b", [
    (0, 10, 0, 10, 66), (20, 10, 15, 15, 71), (3, 10, 0, 13, 69)])
def test_classic_penalty_never_below_zero_lowers_the_target(a: int, b: int, after_a: int, after_b: int,
                                                            target_b: int) -> None:
    v = one(play_rows("classic71", [("cushion", "C", "rear")], state={"score": {"A": a, "B": b}}))
    assert v.score == {"A": after_a, "B": after_b}
    assert v.targets["B"] == target_b
    assert v.targets["B"] - v.score["B"] == 71 - b - 5  # points still needed to win


def test_classic_lowered_target_wins() -> None:
    v = one(play_rows("classic71", pot("7"), before=[nom("7")], state={"score": {"A": 60, "B": 0},
                                                                       "targets": {"A": 66, "B": 71}}))
    assert v.winner == "A"


def test_classic_seventy_seventy_is_a_draw() -> None:
    v = one(play_rows("classic71", pot("7"), before=[nom("7")], state={"score": {"A": 63, "B": 70}}))
    assert v.result is Result.DRAW and v.winner is None


def test_classic_three_penalty_strokes_each_after_warning_is_a_draw() -> None:
    lb = LogBuilder("classic71")
    lb.state(phase="play", to_play="A", hand="none", score={"A": 30, "B": 30})
    lb.add("warning", about="penalty_draw")
    for _ in range(6):
        lb.shot([("cushion", "C", "rear")])
        lb.add("choose", option="play")
    vs = verdicts(lb.rows)
    assert [v.result for v in vs] == [Result.CONTINUE] * 5 + [Result.DRAW]


def test_classic_penalty_strokes_without_warning_do_not_draw() -> None:
    lb = LogBuilder("classic71")
    lb.state(phase="play", to_play="A", hand="none", score={"A": 30, "B": 30})
    for _ in range(6):
        lb.shot([("cushion", "C", "rear")])
    assert all(v.result is Result.CONTINUE for v in verdicts(lb.rows))


def test_dynamic_take_ball_then_penalty_ball_to_shelf() -> None:
    lb = LogBuilder("dynamic")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot(NO_CHAIN)
    lb.add("choose", option="take_ball")
    lb.add("penalty_ball", ball="10")
    lb.add("choose", option="hand_over")
    lb.shot(SAFE_2B)
    j = judge_log(parse_log(lb.rows), table=TABLE)
    assert j.state is not None and j.state.shelves["B"] == ("10",)
    assert j.verdicts[1].player == "A" and not j.verdicts[1].review.flag


def test_combined_removed_ball_goes_to_the_shelf_without_a_point() -> None:
    steps = [("contact", "C", "7"), ("cushion", "7", "rear"), ("cushion", "7", "front"), ("pot", "C", "front_left")]
    lb = LogBuilder("combined")
    lb.state(phase="play", to_play="A", hand="none")
    lb.shot(steps)
    lb.add("remove_ball", ball="9")
    lb.shot(SAFE_2B, positions={"C": (-1500.0, 0.0), "7": (500.0, 0.0), "3": (900.0, 300.0)})
    j = judge_log(parse_log(lb.rows), table=TABLE)
    assert j.state is not None and j.state.shelves["A"] == ("9",) and j.state.score["A"] == 1
    assert j.verdicts[1].player == "A" and j.verdicts[1].legal
