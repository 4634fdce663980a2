"""Fouls of one shot (1.29) from its facts, the rule set and the referee's inputs; the legal break (1.12).

Every foul found is listed with its clause; one penalty is charged for all of them (1.29.2). 1.20 is
cited only when no chain exists (RULES.md, committed readings).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from calibration.table import Table
from rules.analysis import ShotFacts
from rules.chain import name
from rules.games import CuePot, RuleSet
from rules.inputs import RefereeInput
from rules.readings import READINGS
from rules.state import Game, Hand

NOT_A_FOUL = frozenset({"1.27"})  # outside interference: restore, no foul
OPPONENT_CLAUSES = frozenset({"1.28"})  # committed by the player who is not at the table

_REFEREE_TEXT = {
    "1.14.2": "stroke before the previous shot ended",
    "1.15": "the cue ball was not struck with the tip along the cue",
    "1.16": "no foot on the floor",
    "1.17": "a ball was touched",
    "1.18": "double hit",
    "1.19": "push shot",
    "1.26": "slow play",
    "1.28": "interference in the opponent's play",
}


@dataclass(frozen=True)
class Foul:
    clause: str
    reason: str
    after_shot: bool = False
    source: str = "engine"  # engine | referee | override
    offender: str | None = None  # set when it is not the striker's foul (1.28: the player not at the table)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"clause": self.clause, "reason": self.reason, "source": self.source}
        if self.after_shot:
            d["after_shot"] = True
        if self.offender is not None:
            d["offender"] = self.offender
        return d


@dataclass(frozen=True)
class BreakJudgement:
    legal: bool
    clause: str
    text: str


@dataclass
class FoulReport:
    fouls: list[Foul] = field(default_factory=list)
    readings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    brk: BreakJudgement | None = None

    @property
    def break_illegal(self) -> bool:
        return self.brk is not None and not self.brk.legal


def judge_break(facts: ShotFacts, rs: RuleSet, violated: bool = False) -> BreakJudgement:
    """1.12.1: after the first contact, a legal pot, three object balls to cushions, or two and a crossing.

    `violated`: the shot broke another rule, so no ball in it is legally potted (1.22.3) and (1) cannot hold.
    """
    if not facts.contact:
        return BreakJudgement(False, "1.5.3", "the cue ball touched no object ball")
    ch = facts.chain
    cue = facts.struck
    pots = [b for b in ch.potted if b != cue or rs.cue_pot is not CuePot.FOUL]
    if pots and not violated:
        return BreakJudgement(True, "1.12.1(1)", f"{name(pots[0])} potted")
    cush = [b for b in ch.cushion_balls if b != cue]
    if len(cush) >= 3:
        return BreakJudgement(True, "1.12.1(2)", f"{len(cush)} object balls ({', '.join(cush)}) touched cushions")
    crossers = [b for b in ch.crossers if b != cue]
    if len(cush) == 2 and crossers:
        return BreakJudgement(True, "1.12.1(3)", f"object balls {' and '.join(cush)} touched cushions and "
                              f"{name(crossers[0])} crossed the centre line")
    illegal_pot = f"{name(pots[0])} was potted in a shot with a violation, not legally (1.22.3); " if pots else ""
    return BreakJudgement(False, "1.12.1", f"{illegal_pot}only {len(cush)} object ball(s) touched a cushion"
                          + (f" and {len(crossers)} crossed the centre line" if crossers else
                             " and none crossed the centre line"))


def _hand_shot(facts: ShotFacts, table: Table, rs: RuleSet, rep: FoulReport) -> None:
    """1.21: from hand in the house, the first contact must be outside the house; the temporary house."""
    cue = facts.struck
    pos = facts.start_positions
    objects = {b: p for b, p in pos.items() if b != cue}
    rear = bool(objects) and all(table.in_house(p) for p in objects.values())
    if cue in pos:
        xy = pos[cue]
        if rear and table.in_house(xy):
            clause = "001 (z)" if rs.game is Game.CLASSIC71 else "1.21.2"
            rep.fouls.append(Foul(clause, "every object ball is in the house: the shot is played from the "
                                          "temporary house at the rear end, not from the house"))
        elif not rear and table.in_rear_house(xy):
            clause = "001 (z)" if rs.game is Game.CLASSIC71 else "1.21.2"
            rep.fouls.append(Foul(clause, "played from the rear end; the house is at the front end"))
        elif not (table.in_rear_house(xy) if rear else table.in_house(xy)):
            rep.readings.append(READINGS["placed_outside_house"])
            rep.notes.append("the cue ball stood outside the house and nobody warned the player: it stands (1.11.3)")
    first = facts.first_object
    if first is not None and first in pos:
        inside = table.in_rear_house(pos[first]) if rear else table.in_house(pos[first])
        if inside:
            clause = "001 (zh)" if rs.game is Game.CLASSIC71 else "1.21.2"
            rep.fouls.append(Foul(clause, f"from hand, the cue ball first touched {name(first)} inside the house"))
            rep.readings.append(READINGS["hand_first_contact"])


def detect_fouls(
    facts: ShotFacts,
    rs: RuleSet,
    table: Table,
    *,
    is_break: bool,
    hand: Hand,
    require_1_20: bool,
    referee: Sequence[RefereeInput],
    clock_overrun: str | None,
) -> FoulReport:
    """Every violation during the shot (and before the stroke), each with its clause."""
    rep = FoulReport()
    f = rep.fouls
    struck = facts.struck
    if facts.early:
        f.append(Foul("1.14.2", "stroke before the previous shot ended"))
    if struck != "C" and (is_break or not rs.cue_any):
        if is_break:
            f.append(Foul("1.11.2", f"the break was played with {name(struck)}, not the coloured ball"))
        else:
            clause = "1.4.2"
            f.append(Foul(clause, f"struck {name(struck)}, not the cue ball" +
                          (" (001 (d))" if rs.game is Game.CLASSIC71 else "")))
            rep.readings.append(READINGS["wrong_ball"])
    if not facts.contact:
        f.append(Foul("1.5.3", f"{name(struck)} touched no object ball"))
        rep.readings.append(READINGS["no_contact"])
    if facts.push is not None:
        if facts.push.foul:
            f.append(Foul("1.19", facts.push.text))
        else:
            rep.notes.append(facts.push.text)
    if facts.double_hit:
        f.append(Foul("1.18", "the tip touched the cue ball twice"))
    outsider = any(str(r.get("clause")) in NOT_A_FOUL for r in referee)
    for e in facts.disturbed:
        if outsider:
            rep.notes.append(f"{name(e.ball or '?')} moved by an outsider: restored, no foul (1.27)")
            continue
        f.append(Foul("1.17", f"{name(e.ball or '?')} started to move with no stroke or collision on it"))
        rep.readings.append(READINGS["disturbed_117"])
    for e in facts.disturbed_before:
        if e.ball == struck and hand is not Hand.NONE:
            continue  # 1.11.5: the cue ball may be adjusted by hand until it is struck
        if not outsider:
            f.append(Foul("1.17", f"{name(e.ball or '?')} was touched before the stroke"))
            rep.readings.append(READINGS["disturbed_117"])
    for b in facts.jumped_balls:
        f.append(Foul("1.24.3", f"{name(b)} jumped off the table" +
                      (" (5.5.5)" if b == "C" and rs.game is Game.RUSSIAN71 else "") +
                      (" (001 (v))" if b == "C" and rs.game is Game.CLASSIC71 else "")))
    cue_potted = any(p.ball == "C" for p in facts.potted)
    if cue_potted and rs.cue_pot is CuePot.FOUL:
        f.append(Foul(rs.clauses["cue_pot"], "the cue ball was potted"))
    if hand is Hand.HOUSE and not is_break:
        _hand_shot(facts, table, rs, rep)
    elif is_break and struck in facts.start_positions and not table.in_house(facts.start_positions[struck]):
        rep.readings.append(READINGS["placed_outside_house"])
        rep.notes.append("the cue ball stood outside the house (or on the house line) for the break and nobody "
                         "warned the player: it stands (1.11.3)")
    if clock_overrun:
        f.append(Foul("1.26", clock_overrun))
    for r in referee:
        clause = str(r.get("clause"))
        if clause in NOT_A_FOUL:
            continue
        text = str(r.get("reason") or _REFEREE_TEXT.get(clause, "entered by the referee"))
        f.append(Foul(clause, text, source="referee"))
    if is_break:
        rep.brk = judge_break(facts, rs, violated=bool(f))
        if not rep.brk.legal:
            f.append(Foul("1.12.1", rep.brk.text))
    elif facts.contact and require_1_20 and not facts.chain.legal:
        f.append(Foul("1.20", facts.chain.text))
    if facts.chain.note3_ignored:
        rep.readings.append(READINGS["note3"])
    if len(f) > 1:
        rep.readings.append(READINGS["one_penalty"])
    return rep
