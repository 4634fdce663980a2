"""Referee inputs before a shot: they settle the previous shot's decisions or apply to this shot.

`settle` folds the inputs of one shot's `before` list into the state and returns what applies to the shot
itself (nomination, declared frozen balls, fouls before the stroke). Decisions still owed when the stroke
comes are given their default and the verdict says so (review), never silently.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from calibration.table import Table
from rules.inputs import InputType, Option, RefereeInput
from rules.rack import RUSSIAN_RACK_ORDER, full_rack, incomplete_rack
from rules.state import Decision, DecisionKind, Game, Hand, MatchState, Nomination, NominationMode, Phase

Point = tuple[float, float]

_TURN_CHOICES = (DecisionKind.CHOICE_AFTER_FOUL, DecisionKind.BREAK_CHOICE, DecisionKind.LAG_CHOICE)
_FORCED = (Option.REPLAY_FRAME, Option.LAST_BALL)


@dataclass
class ShotPrep:
    """What the inputs before a shot say about the shot itself."""

    nomination: Nomination | None = None
    declared: dict[str, str] = field(default_factory=dict)
    fouls: list[RefereeInput] = field(default_factory=list)
    review: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def nomination_of(inp: RefereeInput, default_mode: NominationMode) -> Nomination:
    mode = NominationMode(inp.get("mode", default_mode.value))
    pocket = inp.get("pocket")
    return Nomination(inp.ball, None if pocket is None else str(pocket), mode, inp.get("how"), inp.line)


def _drop(st: MatchState, kind: DecisionKind) -> MatchState:
    out, dropped = [], False
    for d in st.decisions:
        if d.kind is kind and not dropped:
            dropped = True
            continue
        out.append(d)
    return replace(st, decisions=tuple(out))


def _to_shelf(st: MatchState, ball: str, player: str) -> MatchState:
    balls = {b: p for b, p in st.balls.items() if b != ball}
    shelves = dict(st.shelves)
    shelves[player] = (*shelves.get(player, ()), ball)
    return replace(st, balls=balls, shelves=shelves)


def rerack(st: MatchState, table: Table) -> dict[str, Point | None]:
    """The object balls still in play, racked again (a full or an incomplete pyramid, 1.8 note)."""
    objects = [b for b in st.balls if b != "C"]
    order = [b for b in RUSSIAN_RACK_ORDER if b in objects] + sorted(b for b in objects if b not in RUSSIAN_RACK_ORDER)
    if len(order) == 15:
        return dict(full_rack(table, order))
    if not order:
        return {}
    return dict(incomplete_rack(table, order))


def last_ball_replay(st: MatchState, table: Table) -> MatchState:
    """001: the drawn frame's last ball on the third (rear) spot, the cue ball in hand in the house for the
    player due to break the next frame; one stroke each without a nomination; a pot wins, a foul loses."""
    ball = st.forced_ball or "1"
    return replace(st, balls={ball: (table.rear_line_x, 0.0)}, phase=Phase.PLAY, hand=Hand.HOUSE, decider=True,
                   decider_free=(st.to_play, st.opponent(st.to_play)), premium=False)


def _choose(st: MatchState, inp: RefereeInput, table: Table, prep: ShotPrep) -> MatchState:
    opt = inp.option
    if opt in _FORCED:
        dec = st.owed(DecisionKind.FORCED_RESULT)
        if dec is None or opt.value not in dec.options:
            prep.review.append(f"line {inp.line}: choose {opt} but no such forced result is open: ignored")
            return st
        st = _drop(st, DecisionKind.FORCED_RESULT)
        if opt is Option.LAST_BALL:
            prep.notes.append("the frame is replayed in its last ball on the third spot (001)")
            return last_ball_replay(st, table)
        prep.notes.append("the drawn frame is replayed in full (001)")
        return st
    if opt in (Option.TAKE_BALL, Option.BALL_IN_HAND):
        dec = st.owed(DecisionKind.DYNAMIC_CHOICE)
        if dec is None:
            prep.review.append(f"line {inp.line}: choose {opt} but no 4.7 choice is owed: ignored")
            return st
        st = _drop(st, DecisionKind.DYNAMIC_CHOICE)
        if opt is Option.BALL_IN_HAND:
            balls = {b: p for b, p in st.balls.items() if b != "C"}
            return replace(st, balls=balls, hand=Hand.ANYWHERE, premium=True)
        # 4.7(1): play on from the position; only 4.7(2)'s penalty shot restricts pots to object balls (a cue
        # ball that left the table is still placed from hand).
        return replace(st, premium=False,
                       decisions=(Decision(DecisionKind.PENALTY_BALL, dec.by, (), "4.7(1)"), *st.decisions))
    dec = next((d for d in st.decisions if d.kind in _TURN_CHOICES), None)
    if dec is None:
        prep.review.append(f"line {inp.line}: choose {opt} but no choice is owed: ignored")
        return st
    if opt in (Option.RERACK_BREAK, Option.RERACK_OFFENDER_BREAKS):
        if dec.kind is not DecisionKind.BREAK_CHOICE:
            prep.review.append(f"line {inp.line}: {opt} is only open after an illegal break (1.12.2): ignored")
            return st
        player = dec.by if opt is Option.RERACK_BREAK else st.opponent(dec.by)
        st = _drop(st, dec.kind)
        st = replace(st, balls=rerack(st, table), phase=Phase.BREAK, hand=Hand.HOUSE, to_play=player,
                     premium=False, rebreak=True, last_end_t=None, decisions=tuple(d for d in st.decisions
                                                    if d.kind is not DecisionKind.CUE_BALL_IN_HAND))
        prep.notes.append(f"re-racked (1.12.2({3 if opt is Option.RERACK_BREAK else 4})): {player} breaks")
        return st
    if opt not in (Option.PLAY, Option.HAND_OVER):
        prep.review.append(f"line {inp.line}: option {opt} does not settle {dec.kind}: ignored")
        return st
    player = dec.by if opt is Option.PLAY else st.opponent(dec.by)
    st = _drop(st, dec.kind)
    if dec.kind is DecisionKind.LAG_CHOICE:  # a re-break (1.12.2, 1.27) keeps the frame's breaker (1.13)
        st = replace(st, breaker=player if st.phase is Phase.BREAK and not st.rebreak else st.breaker)
    return replace(st, to_play=player)


def settle(st: MatchState, inputs: Sequence[RefereeInput], table: Table) -> tuple[MatchState, ShotPrep]:
    """Fold the inputs before a shot into the state."""
    prep = ShotPrep()
    for inp in inputs:
        t = inp.type
        if t is InputType.NOMINATE:
            prep.nomination = nomination_of(inp, st.classic_mode)  # several nominations: the last counts
            st = _drop(st, DecisionKind.NOMINATION)
        elif t is InputType.DECLARE_FROZEN:
            prep.declared[str(inp.get("ball"))] = str(inp.get("cushion"))
        elif t is InputType.CHOOSE:
            st = _choose(st, inp, table, prep)
        elif t in (InputType.PENALTY_BALL, InputType.REMOVE_BALL):
            kind = DecisionKind.PENALTY_BALL if t is InputType.PENALTY_BALL else DecisionKind.REMOVE_BALL
            dec = st.owed(kind)
            ball = inp.ball or ""
            if dec is None:
                prep.review.append(f"line {inp.line}: {t} {ball} but none is owed: ignored")
            elif ball not in st.balls or (ball == "C" and st.game is not Game.FREE):
                # 2.7: in Free any ball may be taken, the coloured one too; elsewhere it is the cue ball.
                prep.review.append(f"line {inp.line}: {t} {ball}: not an object ball on the table: ignored")
            else:
                st = _drop(_to_shelf(st, ball, dec.by), kind)
                prep.notes.append(f"ball {ball} taken off to {dec.by}'s shelf ({dec.clause})")
        elif t is InputType.FOUL:
            prep.fouls.append(inp)
        elif t is InputType.CLOCK:
            st = _clock(st, inp, prep)
        elif t is InputType.WARNING:
            st = replace(st, draw_warning=True)
        elif t is InputType.INTERFERENCE:
            st = _interference(st, inp, table, prep)
        else:
            prep.review.append(f"line {inp.line}: {t} input not expected here: ignored")
    return st, prep


def _interference(st: MatchState, inp: RefereeInput, table: Table, prep: ShotPrep) -> MatchState:
    """1.27: balls moved by an outsider or an emergency. Restored (the default): play goes on, no foul. Not
    restorable: the cue ball in hand in the house, the object balls on the table re-racked (an incomplete
    pyramid, 1.8 note), a lag for the next stroke, played as a break (1.12), the score kept."""
    if inp.get("restored", True):
        prep.notes.append("balls moved by an outsider were restored, no foul (1.27)")
        return st
    prep.notes.append("balls moved by an outsider could not be restored: re-racked, a lag decides who breaks (1.27)")
    return replace(st, balls=rerack(st, table), phase=Phase.BREAK, hand=Hand.HOUSE, premium=False, rebreak=True,
                   last_end_t=None, decisions=(Decision(DecisionKind.LAG, st.to_play, (), "1.27"),))


def _clock(st: MatchState, inp: RefereeInput, prep: ShotPrep) -> MatchState:
    action = str(inp.get("action"))
    if action == "start":
        return replace(st, clock_on=True)
    if action == "stop":
        return replace(st, clock_on=False)
    if action == "extension":
        player = str(inp.get("player") or st.to_play)
        if st.extensions_left.get(player, 0) <= 0:
            prep.review.append(f"line {inp.line}: {player} has no extension left in this frame (1.26)")
            return st
        return replace(st, extension_pending=player)
    prep.review.append(f"line {inp.line}: unknown clock action {action!r}: ignored")
    return st


def apply_defaults(st: MatchState, start_positions: Mapping[str, Point] | None,
                   prep: ShotPrep) -> MatchState:
    """Decisions still owed at the stroke: infer what the positions show, else take the default."""
    for dec in list(st.decisions):
        if dec.kind in _TURN_CHOICES:
            st = _drop(st, dec.kind)
            prep.review.append(f"{dec.kind} by {dec.by} not entered: assumed 'play' ({dec.clause})")
        elif dec.kind is DecisionKind.DYNAMIC_CHOICE:
            st = _drop(st, dec.kind)
            st = replace(st, premium=False,
                         decisions=(Decision(DecisionKind.PENALTY_BALL, dec.by, (), "4.7(1)"), *st.decisions))
            prep.review.append(f"4.7 choice by {dec.by} not entered: assumed take_ball")
    for dec in list(st.decisions):
        if dec.kind in (DecisionKind.PENALTY_BALL, DecisionKind.REMOVE_BALL):
            gone = [] if start_positions is None else [
                b for b in st.balls if b != "C" and b not in start_positions]
            st = _drop(st, dec.kind)
            if len(gone) == 1:
                st = _to_shelf(st, gone[0], dec.by)
                prep.review.append(f"{dec.kind} not entered: ball {gone[0]} is missing at the stroke, taken as "
                                   f"{dec.by}'s ({dec.clause})")
            else:
                prep.review.append(f"{dec.kind} by {dec.by} not entered and not visible from positions")
        elif dec.kind is DecisionKind.FORCED_RESULT:
            st = _drop(st, dec.kind)
            prep.review.append("forced result (001) not entered: the frame is replayed in full")
        elif dec.kind is DecisionKind.LAG:
            st = _drop(st, dec.kind)
            prep.review.append(f"lag owed (5.5.7) not recorded: {st.to_play} assumed to play")
        elif dec.kind in (DecisionKind.NOMINATION, DecisionKind.CUE_BALL_IN_HAND, DecisionKind.CUE_BALL_CHOICE):
            st = _drop(st, dec.kind)
    return st
