"""The fold: a match log in, one verdict per shot (and per lag) out. Pure: no I/O, no clock, no randomness.

`judge_log(items, table=...)` groups the log (`rules.records`), then folds the steps over a `MatchState`. The same log
always gives the same verdicts and the same final state; an override is a line of the log, applied to the
shot it names, and the verdict keeps the original decision beside the overridden one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from calibration.table import Table
from rules.analysis import ShotFacts, analyse_shot
from rules.corrections import corrected
from rules.doubts import Counterfactual, ShotDecision, decision
from rules.events import ASSERTED, Event, ball_confidence, start_confidence
from rules.explain import build_review, explanation, unnamed_review
from rules.fouls import NOT_A_FOUL, Foul, FoulReport, detect_fouls
from rules.frames import DEFAULT_PLAYERS, apply_state_line, initial_state, next_frame, state_from_header
from rules.games import RULE_SETS, Outcome, RuleSet, ShotInput, score_shot
from rules.inputs import InputType, LogItem, RefereeInput
from rules.lag import judge_lag
from rules.numbering import Role, ShotNumbering, mark_event, mark_input
from rules.readings import READINGS
from rules.records import InputsRecord, LagRecord, ShotRecord, group_log
from rules.settings import RulesSettings
from rules.settle import apply_defaults, nomination_of, settle
from rules.spotting import spot_balls
from rules.state import Decision, DecisionKind, Game, Hand, MatchState, Nomination, Phase
from rules.turns import ending, ends_frame, forced_result, opponent_penalty, opponents, penalty_streak
from rules.verdict import LagVerdict, Output, Result, Review, Verdict, event_ref

Point = tuple[float, float]


@dataclass
class Judgement:
    """The verdicts of a log and the state after its last line."""

    outputs: list[Output] = field(default_factory=list)
    state: MatchState | None = None
    states: list[MatchState] = field(default_factory=list)  # the state after each output

    @property
    def verdicts(self) -> list[Verdict]:
        return [o for o in self.outputs if isinstance(o, Verdict)]


def judge_log(items: Iterable[LogItem], *, table: Table, game: Game | None = None,
              settings: RulesSettings | None = None) -> Judgement:
    """Judge a whole log on `table` (the caller loads it: no I/O here). `game` overrides the header's."""
    tbl = table
    cfg = settings or RulesSettings()
    out = Judgement()
    st: MatchState | None = None
    kept, doubtful = hold_doubtful_starts(items)
    prev_start: Event | None = None
    for step in group_log(kept):
        if isinstance(step, InputsRecord):
            for inp in step.inputs:
                if inp.type in (InputType.MATCH, InputType.STATE):
                    prev_start = None  # a new position: no shot of before is still running
                if inp.type is InputType.MATCH:
                    st = state_from_header(inp, game, tbl)
                elif inp.type is InputType.STATE:
                    st = apply_state_line(st or _default_state(game, tbl, inp), inp)
                else:
                    st, _prep = settle(st or _default_state(game, tbl, inp), [inp], tbl)
            continue
        st = st or _default_state(game, tbl, None)
        if isinstance(step, LagRecord):
            st, lag = play_lag(st, step, tbl, cfg)
            out.outputs.append(lag)
        else:
            st, verdict = play_shot(st, step, tbl, cfg, doubtful.get(step.number, ()))
            verdict = _early_after_doubtful(verdict, step, prev_start)
            prev_start = step.start
            out.outputs.append(verdict)
        out.states.append(st)
    out.state = st
    return out


def hold_doubtful_starts(items: Iterable[LogItem]) -> tuple[list[LogItem], dict[int, list[Event]]]:
    """The log without the shot_starts that must not split a shot, and those starts by the shot they fall in.

    A shot_start asserts two things: that a stroke happened (`start_confidence`) and which ball the cue
    struck (`ball_confidence`). One whose existence is doubtful (below ASSERTED) while a shot is open is no
    new shot: its events stay in the open shot, whose verdict names it for review. Opening a shot when none
    is open it splits nothing and counts (flagged in `_start_review`). Shots are numbered as `group_log`
    numbers them (`rules.numbering`, shared with the analysis loop and the report).
    """
    kept: list[LogItem] = []
    held: dict[int, list[Event]] = {}
    numbering = ShotNumbering()  # the one numbering rule the analysis loop and the report share
    for item in items:
        if isinstance(item, RefereeInput):
            numbering.step(mark_input(str(item.type)))
        elif numbering.step(mark_event(item)) is Role.HELD:
            held.setdefault(numbering.number, []).append(item)
            continue
        kept.append(item)
    return kept, held


def _early_after_doubtful(verdict: Verdict, rec: ShotRecord, prev_start: Event | None) -> Verdict:
    """A stroke marked early (1.14.2) after a shot whose own stroke was doubtful: the foul rests on that
    doubt (if no stroke was played, nothing was still running), so the verdict says so for review."""
    early = rec.start.extra.get("early") or rec.start.extra.get("previous_shot_running")
    if not early or prev_start is None or start_confidence(prev_start) >= ASSERTED:
        return verdict
    reason = (f"marked as struck before the previous shot ended, but that shot's stroke at t={prev_start.t:.3f} s "
              f"is doubtful (confidence {start_confidence(prev_start):.2f}): 1.14.2 rests on it")
    rv = verdict.review
    return replace(verdict, review=Review(True, (*rv.reasons, reason), (*rv.events, event_ref(prev_start))))


def _start_review(review: Review, rec: ShotRecord, doubtful: Sequence[Event], cfg: RulesSettings) -> Review:
    """The review flags the stroke itself raises: a stroke whose existence is doubtful, a struck ball of
    uncertain identity (the verdict rests on it: the cue ball of the shot, its first contact, its pots), and
    possible strokes inside the shot that were not counted as shots."""
    reasons, events = list(review.reasons), list(review.events)
    start = rec.start
    sc, bc = start_confidence(start), ball_confidence(start)
    if sc < ASSERTED:
        reasons.append(f"the stroke at t={start.t:.3f} s is doubtful (confidence {sc:.2f}): judged as a shot; "
                       "was one played?")
    named = any("ball" in dict(ov.get("start") or {}) for ov in rec.overrides)  # the referee named the ball
    if bc < cfg.review_confidence and not named:
        reasons.append(f"struck ball {start.ball}? its identity has confidence {bc:.2f}: the verdict rests on "
                       "which ball the cue struck")
    if (sc < ASSERTED or bc < cfg.review_confidence) and not named:
        events.append(event_ref(start))
    for e in doubtful:
        reasons.append(f"a possible stroke of ball {e.ball} at t={e.t:.3f} s (confidence {start_confidence(e):.2f}) "
                       "was not counted as a new shot (1.14.2 if it was one)")
        events.append(event_ref(e))
    if len(reasons) == len(review.reasons):
        return review
    return Review(True, tuple(dict.fromkeys(reasons)), tuple(events))


def _default_state(game: Game | None, table: Table, inp: RefereeInput | None) -> MatchState:
    if game is None:
        where = f"line {inp.line}: " if inp is not None else ""
        raise ValueError(f"{where}no game: the log has no match header before this line and no --game was given")
    players = DEFAULT_PLAYERS
    if inp is not None and inp.type is InputType.STATE and inp.get("score"):
        names = [str(k) for k in inp.get("score")]
        if len(names) == 2:
            players = (names[0], names[1])
    return initial_state(game, players, players[0], table=table)


def play_lag(st: MatchState, rec: LagRecord, table: Table, cfg: RulesSettings) -> tuple[MatchState, LagVerdict]:
    """A lag (1.7): its winner breaks or hands the break over; at 70-70 he plays next (5.5.7)."""
    st, prep = settle(st, rec.before, table)
    balls = {str(k): str(v) for k, v in dict(rec.request.get("balls")).items()}
    crossed, unknown = _crossed_long_axis(rec, balls)
    res = judge_lag(table, rec.events, balls, crossed, min_confidence=cfg.review_confidence)
    prep.review.extend(f"crossed_long_axis names ball {b}, which is not a lag ball: ignored" for b in unknown)
    purpose = "seventy" if st.playoff else ("interference" if st.rebreak else "break")
    st = replace(st, decisions=tuple(d for d in st.decisions if d.kind is not DecisionKind.LAG))
    decisions: tuple[Decision, ...] = ()
    if res.replay:
        decisions = (Decision(DecisionKind.LAG, st.players[0], (), "1.7.3"),)
    elif res.winner is not None:
        decisions = (Decision(DecisionKind.LAG_CHOICE, res.winner, ("play", "hand_over"), "1.7.4"),)
        if st.playoff:  # 5.5.7: then play from hand in the house, nominating as always
            decisions += (Decision(DecisionKind.CUE_BALL_IN_HAND, res.winner, ("house",), "5.5.7"),
                          Decision(DecisionKind.NOMINATION, res.winner, (), "5.5.2"))
        new_breaker = st.phase is Phase.BREAK and not st.rebreak  # a 1.27 re-break keeps the frame's (1.13)
        st = replace(st, to_play=res.winner, breaker=res.winner if new_breaker else st.breaker)
    end_t = max((e.t for e in rec.events), default=None)
    st = replace(st, decisions=(*st.decisions, *decisions), last_end_t=end_t)  # 1.26: the clock from the lag's end
    reasons = tuple(res.review) + tuple(prep.review)
    review = Review(bool(reasons), reasons, ())
    return st, LagVerdict(res.winner, res.replay, dict(res.reasons), decisions, review, purpose)


def _crossed_long_axis(rec: LagRecord, balls: dict[str, str]) -> tuple[set[str], list[str]]:
    """1.7.2(1) as vision reports it: `crossed_long_axis: [balls]` on the lag's events (normally shot_end).

    Rest positions cannot show a ball that went into the opponent's half and came back.
    """
    crossed: set[str] = set()
    unknown: list[str] = []
    for e in rec.events:
        for b in e.extra.get("crossed_long_axis") or ():
            if str(b) in balls:
                crossed.add(str(b))
            else:
                unknown.append(str(b))
    return crossed, unknown


def _clock(st: MatchState, rec: ShotRecord, player: str) -> tuple[dict[str, object] | None, str | None, int]:
    """1.26: the shot clock runs from the previous shot's end to this stroke. Returns info, overrun, ext used."""
    if not st.clock_on or st.last_end_t is None:
        return None, None, 0
    from rules.clock import ClockStatus, ShotClock

    clock = ShotClock(extensions_left=max(0, st.extensions_left.get(player, 0)))
    used = 0
    if st.extension_pending == player and clock.extensions_left > 0:
        clock, used = clock.with_extension(), 1
    elapsed = max(0.0, rec.start.t - st.last_end_t)
    status = clock.status(elapsed)
    info: dict[str, object] = {"elapsed_s": round(elapsed, 2), "time_s": clock.time_s, "status": str(status),
                               "extended": bool(used)}
    if status is not ClockStatus.OK:
        info["warning_at_s"] = clock.warning_at_s
    overrun = None
    if status is ClockStatus.OVERRUN:
        overrun = f"the stroke came {elapsed:.1f} s after the previous shot, over the {clock.time_s:.0f} s allowed"
    return info, overrun, used


def _apply_overrides(rec: ShotRecord, fouls: list[Foul], after: list[Foul], original_fouls: list[Foul],
                     corrections: list[str]) -> tuple[list[Foul], list[Foul], dict[str, object] | None, bool, bool]:
    """Overrides of this shot, in log order; the original decision is kept for the record."""
    if not rec.overrides:
        return fouls, after, None, False, True
    original = {"legal": not original_fouls, "fouls": [f.to_dict() for f in original_fouls]}
    replay, as_nominated = False, True
    reasons, lines = [], []
    for ov in rec.overrides:
        v = dict(ov.get("verdict") or {})
        reason = str(ov.get("reason"))
        reasons.append(reason)
        lines.append(ov.line)
        if "fouls" in v:
            fouls = [Foul(str(c["clause"] if isinstance(c, dict) else c), reason, source="override")
                     for c in v["fouls"]]
        elif v.get("legal") is True:
            fouls, after = [], []
        elif v.get("legal") is False and not fouls:
            fouls = [Foul(str(v.get("clause", "override")), reason, source="override")]
        replay = replay or bool(v.get("replay"))
        if "as_nominated" in v:
            as_nominated = bool(v["as_nominated"])
    info: dict[str, object] = {"reason": "; ".join(reasons), "lines": lines, "original": original}
    if corrections:
        info["corrections"] = corrections
    return fouls, after, info, replay, as_nominated


def play_shot(st: MatchState, rec: ShotRecord, table: Table, cfg: RulesSettings,
              doubtful: Sequence[Event] = ()) -> tuple[MatchState, Verdict]:
    """Judge one shot and return the state after it; `doubtful`: possible strokes inside it not counted."""
    rs = RULE_SETS[st.game]
    original_rec = rec
    rec, corrections = corrected(rec)
    st, prep = settle(st, rec.before, table)
    st = apply_defaults(st, rec.start.positions, prep)
    if st.phase is Phase.MATCH_OVER:
        # Judged as the break of one more frame, and flagged: the match was already over.
        prep.review.append("a shot after the end of the match")
        st = replace(st, phase=Phase.BREAK)
    player, opp = st.to_play, st.opponent(st.to_play)
    is_break = st.phase is Phase.BREAK
    during_noms = [r for r in rec.during if r.type is InputType.NOMINATE]
    nomination_during = nomination_of(during_noms[-1], st.classic_mode) if during_noms else None
    state_pos = {b: p for b, p in st.balls.items() if p is not None}
    facts = analyse_shot(rec, state_pos, prep.declared, cfg, table)
    _drop_unknown_balls(st, facts, prep.review)
    clock_info, overrun, ext_used = _clock(st, rec, player)
    referee = [*prep.fouls, *(r for r in rec.during if r.type is InputType.FOUL)]
    # 1.28 (or a foul naming the other player) is the foul of the player not at the table: paid by him.
    theirs = [Foul(str(r.get("clause")), str(r.get("reason") or "interference in the opponent's play"),
                   source="referee", offender=opp)
              for r in [*referee, *rec.after_fouls] if opponents(r, opp)]
    referee = [r for r in referee if not opponents(r, opp)]
    rec = replace(rec, after_fouls=[r for r in rec.after_fouls if not opponents(r, opp)])

    def report(fx: ShotFacts) -> FoulReport:
        return detect_fouls(fx, rs, table, is_break=is_break, hand=st.hand,
                            require_1_20=not (st.game is Game.RUSSIAN71 and st.veterans), referee=referee,
                            clock_overrun=overrun)

    def decided(fx: ShotFacts, fo: list[Foul]) -> ShotDecision:
        return decision(fx, fo, is_break, penalty_streak(st, fx, bool(fo), player))

    def judge(r: ShotRecord) -> ShotDecision:  # the same shot on other events (rules.doubts)
        fx = analyse_shot(r, state_pos, prep.declared, cfg, table)
        _drop_unknown_balls(st, fx, [])
        return decided(fx, report(fx).fouls)

    rep = report(facts)
    base = decided(facts, rep.fouls)
    doubts = Counterfactual(rec, judge, base, cfg.review_confidence, cfg.touching_tol_mm)
    after = [Foul(str(r.get("clause")), str(r.get("reason") or "entered by the referee after the shot"),
                  after_shot=True, source="referee")
             for r in rec.after_fouls if str(r.get("clause")) not in NOT_A_FOUL]
    original_fouls = list(rep.fouls)
    if corrections:  # what the uncorrected events would have given, for the record
        original_fouls = report(analyse_shot(original_rec, state_pos, prep.declared, cfg, table)).fouls
    fouls, after, override, replay, as_nominated = _apply_overrides(rec, list(rep.fouls), after, original_fouls,
                                                                    corrections)
    readings = list(rep.readings)
    notes = [*prep.notes, *rep.notes]
    if clock_info is not None and clock_info["status"] == "warning":
        notes.append(f"the referee announced the last 10 s at {clock_info['warning_at_s']:g} s (1.26)")
    if replay:
        st2, v = _replay(st, rec, facts, player, prep.review, override)
        # a possible stroke inside the replayed shot is kept for review with its evidence, not dropped
        return st2, replace(v, review=_start_review(v.review, rec, doubtful, cfg))

    potted = [(p.ball, p.pocket) for p in facts.potted]
    break_illegal = rep.break_illegal and any(f.clause in ("1.12.1", "1.5.3") for f in fouls)
    if st.decider and player in st.decider_free:
        # 001: in a last-ball replay each player's first stroke is made without a nomination.
        prep.nomination, nomination_during = Nomination(None, None), None
        notes.append("last-ball replay: this stroke is made without a nomination (001)")
    si = ShotInput(st, player, is_break, potted, facts.jumped_balls, bool(fouls), break_illegal,
                   prep.nomination if rs.nominate.value != "none" else None,
                   nomination_during if rs.nominate.value != "none" else None, as_nominated, facts.struck)
    if after and not fouls and ends_frame(st, rs, score_shot(rs, si, after_foul=False)):
        notes.extend(f"after the shot: {f.reason} ({f.clause}): not penalised, the shot ended the frame (1.22.3)"
                     for f in after)
        after = []  # 1.22.3 note: a violation after the shot that ended the frame is not penalised
        readings.append(READINGS["after_last_ball"])
    out = score_shot(rs, si, after_foul=bool(after))
    if theirs:
        opponent_penalty(rs, st, opp, out, striker_fouled=bool(fouls or after))
    readings.extend(out.readings)
    if facts.chain.legal and facts.chain.clause == "1.20(1)" and not out.counted and not is_break:
        readings.append(READINGS["pot_physical"])  # the shot is legal by a pot that does not score
    st2, spotted, review_more = _move_balls(st, rs, facts, out, player, table)
    prep.review.extend(review_more)
    score = {p: st.score.get(p, 0) + out.points.get(p, 0) for p in st.players}
    targets = {p: st.targets.get(p, rs.target) + out.target_delta.get(p, 0) for p in st.players}
    st2 = replace(st2, score=score, targets=targets)
    result, winner, decisions, next_player, extra = ending(st, st2, rs, out, facts, fouls, player, opp, table)
    st2, spotted_more = extra
    spotted.extend(spotted_more)
    if result is Result.CONTINUE and st2.playoff and next_player is not None:  # else the lag decides who
        decisions = [*decisions, Decision(DecisionKind.CUE_BALL_IN_HAND, next_player, ("house",), "5.5.7")]
    readings.extend(_state_readings(st, st2, rs, fouls))
    if result is Result.FRAME_WON and fouls and winner == opp and rs.game is Game.RUSSIAN71:
        readings.append(READINGS["russian_penalty_win"])
    streak = penalty_streak(st, facts, bool(fouls), player)
    if result is Result.CONTINUE and rs.game is Game.CLASSIC71 and st.draw_warning and all(
            streak.get(p, 0) >= 3 for p in st.players):
        result = Result.DRAW
        notes.append("three penalty strokes each after the referee's warning, balls unchanged: draw (001)")
    forced_ball = out.counted[-1][0] if out.counted and not fouls else None
    if result is Result.DRAW and st.decisive:
        decisions = [forced_result(st, forced_ball)]
    frames_won = dict(st.frames_won)
    if result in (Result.FRAME_WON, Result.MATCH_WON) and winner is not None:
        frames_won[winner] = frames_won.get(winner, 0) + 1
        if frames_won[winner] >= st.frames_to_win:
            result = Result.MATCH_WON
    if rs.nominate.value != "none" and result is Result.CONTINUE and next_player is not None:
        decisions = [*decisions, Decision(DecisionKind.NOMINATION, next_player, (), rs.clauses.get("nominate", ""))]
    if rs.cue_any and result is Result.CONTINUE and next_player is not None:
        decisions = [*decisions, Decision(DecisionKind.CUE_BALL_CHOICE, next_player, (), rs.clauses["cue_choice"])]
    ext_left = dict(st.extensions_left)
    ext_left[player] = ext_left.get(player, 0) - ext_used
    st2 = replace(
        st2,
        to_play=next_player or player,
        phase=Phase.PLAY,
        decisions=tuple(decisions),
        offender=player if fouls else None,
        shots=st.shots + 1,
        last_end_t=rec.end.t if rec.end is not None else rec.start.t,
        extension_pending=None,
        extensions_left=ext_left,
        penalty_streak=streak,
        decider_free=tuple(p for p in st.decider_free if p != player),
        breaker=player if is_break and not st.rebreak else st.breaker,  # 1.13: a re-break keeps the frame's
        rebreak=False,
        frames_won=frames_won,
        winner=winner,
    )
    review = _start_review(build_review(facts, fouls, [*prep.review, *unnamed_review(
        rs, facts, rec.start, [n.ball for n in (prep.nomination, nomination_during) if n is not None],
        cfg.review_confidence)], cfg, doubts.matters, doubts.touch_matters), rec, doubtful, cfg)
    verdict = Verdict(
        shot=rec.number,
        frame=st.frame,
        player=player,
        is_break=is_break,
        legal=not fouls and not after,
        fouls=tuple([*fouls, *after, *theirs]),
        potted=tuple({"ball": b, "pocket": k} for b, k in potted),
        potted_counted=tuple({"ball": b, "points": v} for b, v in out.counted),
        spotted=tuple(spotted),
        points={p: out.points.get(p, 0) for p in st.players},
        score=dict(st2.score),
        targets=dict(st2.targets),
        next_player=None if result is not Result.CONTINUE else next_player,
        decisions_owed=tuple(decisions),
        result=result,
        winner=winner,
        review=review,
        explanation=explanation(st, rs, facts, rep, fouls, after, out, [*notes, *out.notes, *doubts.notes()], spotted,
                                next_player, result, winner, is_break, decisions, list(dict.fromkeys(readings)),
                                theirs),
        chain=facts.chain.text if facts.chain.legal else None,
        readings=tuple(dict.fromkeys(readings)),
        frames_won=frames_won,
        clock=clock_info,
        override=override,
        t=rec.start.t,
    )
    if result is Result.DRAW and st.decisive:
        # 001: the frame must have a result: it is replayed (in full, or in its last ball), same frame number.
        st2 = replace(next_frame(st2, table), frame=st.frame, decisions=tuple(decisions), forced_ball=forced_ball)
    elif result in (Result.FRAME_WON, Result.DRAW):
        st2 = next_frame(st2, table)
    elif result is Result.MATCH_WON:
        st2 = replace(next_frame(st2, table), phase=Phase.MATCH_OVER, winner=winner)
    return st2, verdict


def _drop_unknown_balls(st: MatchState, facts: ShotFacts, review: list[str]) -> None:
    """Pots and jumps of balls the engine does not have on the bed cannot be judged: dropped, for review."""
    on_bed = set(st.balls) | {facts.struck}
    if "C" not in on_bed and not any("C" in s for s in st.shelves.values()):
        on_bed.add("C")  # the cue ball in hand
    for p in [p for p in facts.potted if p.ball not in on_bed]:
        facts.potted.remove(p)
        review.append(f"pot of ball {p.ball}, which is not on the table: ignored")
    for e in [e for e in facts.jumped if e.ball not in on_bed]:
        facts.jumped.remove(e)
        review.append(f"ball {e.ball} reported off the table but it is not on it: ignored")


def _state_readings(st: MatchState, st2: MatchState, rs: RuleSet, fouls: list[Foul]) -> list[str]:
    """Readings that come from the state rather than the shot: 70-70, the general rules in Classic 71."""
    out = []
    if rs.game is Game.CLASSIC71 and any(f.clause.startswith("1.") for f in fouls):
        out.append(READINGS["classic_general"])
    if st2.playoff and not st.playoff:
        out.append(READINGS["russian_7070"])
    return out


def _replay(st: MatchState, rec: ShotRecord, facts: ShotFacts, player: str, review: list[str],
            override: dict[str, object] | None) -> tuple[MatchState, Verdict]:
    """1.23.2 (by the referee): every ball back where it stood, the same player plays the shot again."""
    balls = dict(st.balls)
    balls.update(facts.start_positions)
    st2 = replace(st, balls=balls, last_end_t=rec.end.t if rec.end is not None else rec.start.t)
    v = Verdict(rec.number, st.frame, player, st.phase is Phase.BREAK, True, (), (), (), (),
                {p: 0 for p in st.players}, dict(st.score), dict(st.targets), player, st.decisions, Result.REPLAY,
                None, Review(bool(review), tuple(review), ()),
                "The referee restored every ball and the shot is replayed (1.23.2).", None, (),
                dict(st.frames_won), None, override, rec.start.t)
    return st2, v


def _move_balls(st: MatchState, rs: RuleSet, facts: ShotFacts, out: Outcome, player: str,
                table: Table) -> tuple[MatchState, list[dict[str, object]], list[str]]:
    """Balls after the shot: rest positions, pots and jumps off the bed, shelves, spotting (1.25)."""
    review: list[str] = []
    balls: dict[str, Point | None] = dict(st.balls)
    on_shelf = {b for s in st.shelves.values() for b in s}
    start = facts.start_positions
    if facts.struck not in balls and facts.struck not in on_shelf:
        balls[facts.struck] = start.get(facts.struck)  # the cue ball placed from hand
    for b in balls:
        if b in start:
            balls[b] = start[b]
    for b in [*facts.potted_balls, *facts.jumped_balls]:
        balls.pop(b, None)
    if facts.end_positions is not None:
        for b in balls:
            if b in facts.end_positions:
                balls[b] = facts.end_positions[b]
    shelves = dict(st.shelves)
    shelves[player] = (*shelves.get(player, ()), *out.shelf)
    spotted: list[dict[str, object]] = []
    if out.spot:
        occupied = {b: p for b, p in balls.items() if p is not None}
        try:
            spots = spot_balls(table, out.spot, occupied)
        except ValueError as exc:
            review.append(f"spotting failed: {exc}")
            spots = {}
        for b in out.spot:
            xy = spots.get(b)
            balls[b] = xy
            spotted.append({"ball": b, "x": None if xy is None else round(xy[0], 1),
                            "y": None if xy is None else round(xy[1], 1)})
    if out.hand is not Hand.NONE and not rs.cue_any:
        balls.pop("C", None)
    return replace(st, balls=balls, shelves=shelves, hand=out.hand, premium=out.premium), spotted, review

