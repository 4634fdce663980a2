"""The five rule sets as data (`RuleSet`) plus the small pure functions that score a shot.

A rule set says what a pot is worth, what a potted cue ball means, how a foul is paid and what the
opponent may choose after it. `score_shot` turns the facts and fouls of one shot into an `Outcome`; the
engine applies it to the state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from rules.readings import READINGS
from rules.state import Decision, DecisionKind, Game, Hand, MatchState, Nomination, NominationMode


class CuePot(StrEnum):
    """What a cue ball potted off an object ball in a legal shot means."""

    COUNTS = "counts"  # Free 2.5.4: any ball is a ball
    PREMIUM_HOUSE = "premium_house"  # Combined 3.5.2
    PREMIUM_ANYWHERE = "premium_anywhere"  # Dynamic 4.5.2
    FOUL = "foul"  # Russian 5.5.5, Classic 001 (b)


class FoulPay(StrEnum):
    """How a foul is paid."""

    PENALTY_BALL = "penalty_ball"  # +1 to the opponent, who takes a ball off to his shelf (2.7, 3.7)
    DYNAMIC = "dynamic"  # +1 at once, then take a ball or play from hand anywhere (4.6, 4.7)
    TRANSFER = "transfer"  # -5 offender, +5 opponent (5.5.6)
    TRANSFER_FLOOR = "transfer_floor"  # 001: never below zero, the opponent's target drops instead


class Nominate(StrEnum):
    NONE = "none"
    BALL_POCKET = "ball_pocket"  # 5.5.2
    CLASSIC = "classic"  # 001: clean designation or ball and pocket


class AtSeventy(StrEnum):
    NONE = "none"
    LAG_PLAYOFF = "lag_playoff"  # 5.5.7
    DRAW = "draw"  # 001


@dataclass(frozen=True)
class RuleSet:
    game: Game
    title: str
    target: int
    cue_any: bool  # 1.4.3: any ball may be the cue ball (not on the break)
    nominate: Nominate
    numbered_values: bool  # pots score the ball's number (ace 11) instead of 1
    last_ball_bonus: int
    cue_pot: CuePot
    foul_pay: FoulPay
    foul_points: int
    at_seventy: AtSeventy
    clauses: Mapping[str, str] = field(default_factory=dict)  # citation per topic


RULE_SETS: dict[Game, RuleSet] = {
    Game.FREE: RuleSet(
        Game.FREE, "Free pyramid", target=8, cue_any=True, nominate=Nominate.NONE, numbered_values=False,
        last_ball_bonus=0, cue_pot=CuePot.COUNTS, foul_pay=FoulPay.PENALTY_BALL, foul_points=1,
        at_seventy=AtSeventy.NONE,
        clauses={"pot": "2.5.5", "score": "2.6", "foul_points": "2.6", "foul": "2.7", "cue_pot": "2.5.4",
                 "cue_choice": "2.5.1"},
    ),
    Game.COMBINED: RuleSet(
        Game.COMBINED, "Combined pyramid", target=8, cue_any=False, nominate=Nominate.NONE, numbered_values=False,
        last_ball_bonus=0, cue_pot=CuePot.PREMIUM_HOUSE, foul_pay=FoulPay.PENALTY_BALL, foul_points=1,
        at_seventy=AtSeventy.NONE,
        clauses={"pot": "3.5.3", "score": "3.6", "foul_points": "3.6", "foul": "3.7", "cue_pot": "3.5.2",
                 "cue_hand_foul": "3.7"},
    ),
    Game.DYNAMIC: RuleSet(
        Game.DYNAMIC, "Dynamic pyramid", target=8, cue_any=False, nominate=Nominate.NONE, numbered_values=False,
        last_ball_bonus=0, cue_pot=CuePot.PREMIUM_ANYWHERE, foul_pay=FoulPay.DYNAMIC, foul_points=1,
        at_seventy=AtSeventy.NONE,
        clauses={"pot": "4.5.3", "score": "4.6", "foul_points": "4.6", "foul": "4.7", "cue_pot": "4.5.2",
                 "cue_hand_foul": "4.7(2)"},
    ),
    Game.RUSSIAN71: RuleSet(
        Game.RUSSIAN71, "Russian pyramid to 71", target=71, cue_any=False, nominate=Nominate.BALL_POCKET,
        numbered_values=True, last_ball_bonus=10, cue_pot=CuePot.FOUL, foul_pay=FoulPay.TRANSFER, foul_points=5,
        at_seventy=AtSeventy.LAG_PLAYOFF,
        clauses={"pot": "5.5.3", "score": "5.5.1", "foul_points": "5.5.6", "foul": "5.5.6", "nominate": "5.5.2",
                 "cue_pot": "5.5.5", "other": "5.5.4", "cue_hand_foul": "5.5.5"},
    ),
    Game.CLASSIC71: RuleSet(
        Game.CLASSIC71, "Classic pyramid to 71 (001)", target=71, cue_any=False, nominate=Nominate.CLASSIC,
        numbered_values=True, last_ball_bonus=10, cue_pot=CuePot.FOUL, foul_pay=FoulPay.TRANSFER_FLOOR,
        foul_points=5, at_seventy=AtSeventy.DRAW,
        clauses={"pot": "001 ball and pocket", "score": "001", "foul_points": "001 penalties",
                 "foul": "001 penalties", "nominate": "001", "cue_pot": "001 (b)", "cue_hand_foul": "1.21"},
    ),
}


def ball_value(rs: RuleSet, ball: str) -> int:
    """Points for a legally potted ball (5.5.1: its number, the ace 11; 2.6/3.6/4.6: one)."""
    if not rs.numbered_values or ball == "C":
        return 1
    return 11 if ball == "1" else int(ball)


@dataclass
class Outcome:
    """What a shot changes: points, balls, the next player and what is owed before the next stroke."""

    counted: list[tuple[str, int]] = field(default_factory=list)  # (ball, points) in potting order
    spot: list[str] = field(default_factory=list)
    shelf: list[str] = field(default_factory=list)  # to the striker's shelf
    points: dict[str, int] = field(default_factory=dict)
    target_delta: dict[str, int] = field(default_factory=dict)
    next_player: str = ""
    hand: Hand = Hand.NONE
    premium: bool = False
    decisions: list[Decision] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    readings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ShotInput:
    """What a rule set needs to score one shot."""

    state: MatchState
    player: str
    is_break: bool
    potted: Sequence[tuple[str, str | None]]  # (ball, pocket) in potting order
    jumped: Sequence[str]
    foul: bool  # a violation during the shot: every pot is illegal (1.22.3)
    break_illegal: bool  # 1.12.1 failed: the four choices of 1.12.2
    nomination: Nomination | None
    nomination_during: Nomination | None
    as_nominated: bool = True  # Classic clean designation: the referee says the ball fell as called
    cue: str = "C"


def _add(d: dict[str, int], k: str, v: int) -> None:
    d[k] = d.get(k, 0) + v


def _nominated_ok(rs: RuleSet, si: ShotInput, objects_before: Sequence[str]) -> tuple[bool, str]:
    """Did the nominated ball fall in the nominated pocket? With the reason when not."""
    nom = si.nomination
    if nom is None:
        if si.nomination_during is not None:
            return False, "the nomination was made during the stroke and does not count"
        return False, "no nomination was made"
    ball = nom.ball
    if ball is None:
        if rs.game is Game.CLASSIC71 and len(objects_before) == 1:
            ball = objects_before[0]  # 001: with one object ball left its number need not be named
        else:
            return False, "the nomination names no ball"
    for b, pocket in si.potted:
        if b == ball:
            if nom.pocket is None or pocket == nom.pocket:
                return True, f"ball {ball} fell in the {pocket} pocket as nominated"
            return False, f"nominated ball {ball} fell in the {pocket} pocket, not the {nom.pocket} pocket"
    return False, f"nominated ball {ball} was not potted"


def _legal_pots(rs: RuleSet, si: ShotInput, out: Outcome) -> None:
    """Score the pots of a shot with no violation during it."""
    st, p = si.state, si.player
    opp = st.opponent(p)
    objects_before = [b for b in st.balls if b != "C"]
    pots = list(si.potted)
    cue_potted = rs.cue_pot is not CuePot.COUNTS and any(b == "C" for b, _ in pots)
    obj_pots = [(b, k) for b, k in pots if rs.cue_pot is CuePot.COUNTS or b != "C"]
    out.next_player = p
    counted: list[str] = []
    if rs.nominate is Nominate.NONE:
        counted = [b for b, _ in obj_pots]
        if counted:
            out.notes.append(f"every ball potted in a legal shot counts ({rs.clauses['pot']})")
    elif obj_pots:
        ok, why = _nominated_ok(rs, si, objects_before)
        mode = si.nomination.mode if si.nomination is not None else st.classic_mode
        if ok and rs.game is Game.CLASSIC71 and mode is NominationMode.CLEAN:
            nominated = si.nomination.ball if si.nomination and si.nomination.ball else objects_before[0]
            if si.as_nominated:
                counted = [nominated]
                out.readings.append(READINGS["clean_as_nominated"])
                out.notes.append(f"{why}; clean designation: every other ball potted is spotted (001)")
            else:
                out.notes.append(f"ball {nominated} did not fall as designated (referee): spotted (001)")
        elif ok:
            counted = [b for b, _ in obj_pots]
            out.notes.append(f"{why}: every ball potted counts ({rs.clauses['pot']})")
        else:
            out.notes.append(f"{why}: potted balls are spotted, no foul, the turn passes "
                             f"({rs.clauses.get('other', '001')})")
            out.readings.append(READINGS["nomination_other_ball"])
            if si.nomination is None and si.nomination_during is None:
                out.readings.append(READINGS["missing_nomination"])
        if si.nomination_during is not None and (rs.game is Game.RUSSIAN71 or not ok):
            out.readings.append(READINGS["nominate_during_" + rs.game.value])  # Classic: only when it spotted one
    out.spot.extend(b for b, _ in obj_pots if b not in counted)
    for b in counted:
        out.counted.append((b, ball_value(rs, b)))
    if counted and rs.last_ball_bonus:
        left = [b for b in objects_before if b not in counted and b not in si.jumped] + out.spot
        if not left:
            last = counted[-1]
            out.counted = [(b, v + rs.last_ball_bonus if b == last else v) for b, v in out.counted]
            out.notes.append(f"ball {last} was the last object ball: +{rs.last_ball_bonus} (5.5.1)")
            if rs.game is Game.CLASSIC71:
                out.readings.append(READINGS["classic_last_ball"])
    out.shelf.extend(counted)
    _add(out.points, p, sum(v for _, v in out.counted))
    if cue_potted:
        _cue_pot_legal(rs, si, out, opp)
        return
    if not counted:
        out.next_player = opp


def _cue_pot_legal(rs: RuleSet, si: ShotInput, out: Outcome, opp: str) -> None:
    """A cue ball potted off an object ball in a shot with no violation (3.5.2, 4.5.2)."""
    p = si.player
    if rs.cue_pot is CuePot.PREMIUM_HOUSE:
        _add(out.points, p, 1)
        out.counted.append(("C", 1))
        out.readings.append(READINGS["cue_point"])
        out.notes.append("cue ball potted off an object ball: one point, an object ball comes off, premium shot "
                         "from hand in the house (3.5.2, 1.21)")
        out.decisions.append(Decision(DecisionKind.REMOVE_BALL, p, (), "3.5.2"))
        out.next_player, out.hand = p, Hand.HOUSE
    elif rs.cue_pot is CuePot.PREMIUM_ANYWHERE and si.state.premium:
        out.readings.append(READINGS["dynamic_premium"])
        out.notes.append("cue ball potted on a premium shot: it does not count, no foul, the opponent plays from "
                         "hand anywhere (4.5.2)")
        out.next_player, out.hand, out.premium = opp, Hand.ANYWHERE, True
    elif rs.cue_pot is CuePot.PREMIUM_ANYWHERE:
        _add(out.points, p, 1)
        out.counted.append(("C", 1))
        out.readings.append(READINGS["cue_point"])
        out.notes.append("cue ball potted off an object ball: one point, an object ball to the shelf, premium "
                         "shot from hand anywhere (4.5.2)")
        out.decisions.append(Decision(DecisionKind.REMOVE_BALL, p, (), "4.5.2"))
        out.next_player, out.hand, out.premium = p, Hand.ANYWHERE, True


def apply_penalty(rs: RuleSet, st: MatchState, offender: str, out: Outcome, break_illegal: bool,
                  cue_gone: bool) -> None:
    """Pay one foul (1.29.2) and list what the non-offender decides (1.6, 1.12.2, 2.7, 3.7, 4.7)."""
    opp = st.opponent(offender)
    fp = rs.foul_points
    if rs.foul_pay in (FoulPay.PENALTY_BALL, FoulPay.DYNAMIC):
        _add(out.points, opp, fp)
        if rs.foul_pay is FoulPay.DYNAMIC:
            out.readings.append(READINGS["dynamic_foul_point"])
    elif rs.foul_pay is FoulPay.TRANSFER:
        _add(out.points, offender, -fp)
        _add(out.points, opp, fp)
    else:
        have = st.score.get(offender, 0) + out.points.get(offender, 0)
        paid = max(0, min(fp, have))
        _add(out.points, offender, -paid)
        _add(out.points, opp, paid)
        if paid < fp:
            out.target_delta[opp] = out.target_delta.get(opp, 0) - (fp - paid)
            out.readings.append(READINGS["classic_floor"])
            out.notes.append(f"{offender} cannot go below zero: {opp}'s target drops by {fp - paid} (001)")
    if break_illegal and rs.foul_pay is not FoulPay.TRANSFER and rs.foul_pay is not FoulPay.TRANSFER_FLOOR:
        out.decisions.append(Decision(DecisionKind.PENALTY_BALL, opp, (), rs.clauses["foul"]))
        out.readings.append(READINGS["break_penalty_first"])
    elif rs.foul_pay is FoulPay.PENALTY_BALL:
        out.decisions.append(Decision(DecisionKind.PENALTY_BALL, opp, (), rs.clauses["foul"]))
    elif rs.foul_pay is FoulPay.DYNAMIC:
        out.decisions.append(Decision(DecisionKind.DYNAMIC_CHOICE, opp, ("take_ball", "ball_in_hand"), "4.7"))
    if break_illegal:
        out.decisions.append(Decision(DecisionKind.BREAK_CHOICE, opp,
                                      ("play", "hand_over", "rerack_break", "rerack_offender_breaks"), "1.12.2"))
    else:
        out.decisions.append(Decision(DecisionKind.CHOICE_AFTER_FOUL, opp, ("play", "hand_over"), "1.6"))
    out.next_player = opp
    if cue_gone:
        out.hand = Hand.ANYWHERE if rs.cue_pot is CuePot.PREMIUM_ANYWHERE else Hand.HOUSE
        out.premium = rs.cue_pot is CuePot.PREMIUM_ANYWHERE


def score_shot(rs: RuleSet, si: ShotInput, after_foul: bool) -> Outcome:
    """The outcome of one shot: pots (legal or spotted), the penalty if any, the next player."""
    out = Outcome(next_player=si.player)
    cue_gone = not rs.cue_any and ("C" in si.jumped or any(b == "C" for b, _ in si.potted))
    if si.foul:
        # 1.22.3-4: every ball potted in a shot with a violation is spotted; the cue ball goes in hand.
        for b, _ in si.potted:
            if rs.cue_any or b != "C":
                out.spot.append(b)
        apply_penalty(rs, si.state, si.player, out, si.break_illegal, cue_gone)
    else:
        _legal_pots(rs, si, out)
        if after_foul:
            apply_penalty(rs, si.state, si.player, out, False, cue_gone)
    for b in si.jumped:
        if (rs.cue_any or b != "C") and b not in out.spot:
            out.spot.append(b)  # 1.24.4
    if out.hand is not Hand.NONE:
        where = "anywhere" if out.hand is Hand.ANYWHERE else "house"
        # The clause that puts the cue ball in hand: the game's foul rule, or its premium (3.5.2, 4.5.2).
        clause = rs.clauses["cue_hand_foul"] if si.foul or after_foul else rs.clauses["cue_pot"]
        if not (si.foul or after_foul) and si.state.premium and rs.cue_pot is CuePot.PREMIUM_ANYWHERE:
            clause = "4.5.2"
        out.decisions.append(Decision(DecisionKind.CUE_BALL_IN_HAND, out.next_player, (where,), clause))
    return out
