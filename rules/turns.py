"""Who wins and who plays next after a shot: frame ends (targets, an empty table, 70-70, the 001 draws and
forced results), penalties paid by the player not at the table (1.28). Pure helpers of `rules.engine`.
"""

from __future__ import annotations

from dataclasses import replace

from calibration.table import Table
from rules.analysis import ShotFacts
from rules.fouls import OPPONENT_CLAUSES, Foul
from rules.games import AtSeventy, Outcome, RuleSet, apply_penalty
from rules.inputs import RefereeInput
from rules.spotting import spot_balls
from rules.state import Decision, DecisionKind, Hand, MatchState
from rules.verdict import Result


def ending(st: MatchState, st2: MatchState, rs: RuleSet, out: Outcome, facts: ShotFacts, fouls: list[Foul],
            player: str, opp: str, table: Table) -> tuple[
        Result, str | None, list[Decision], str | None, tuple[MatchState, list[dict[str, object]]]]:
    """Who wins, draws, or plays next; 70-70 (5.5.7, 001)."""
    decisions = list(out.decisions)
    next_player: str | None = out.next_player
    spotted: list[dict[str, object]] = []
    score, targets = st2.score, st2.targets
    if st.decider:  # 001, last-ball replay: the player who fouls loses, a counted pot wins
        if fouls:
            return Result.FRAME_WON, opp, [], None, (st2, spotted)
        if out.counted:
            return Result.FRAME_WON, player, [], None, (st2, spotted)
        return Result.CONTINUE, None, decisions, next_player, (st2, spotted)
    seventy = out.counted and not fouls and all(score[p] == 70 for p in st.players) and rs.target == 71
    if seventy and rs.at_seventy is AtSeventy.DRAW:
        return Result.DRAW, None, [], None, (st2, spotted)
    if seventy and rs.at_seventy is AtSeventy.LAG_PLAYOFF:
        last = out.counted[-1][0]
        shelves = dict(st2.shelves)
        mine = list(shelves.get(player, ()))
        if last in mine:
            mine.remove(last)
        shelves[player] = tuple(mine)
        balls = dict(st2.balls)
        balls.pop("C", None)
        occupied = {b: p for b, p in balls.items() if p is not None}
        xy = spot_balls(table, [last], occupied)[last]
        balls[last] = xy
        spotted.append({"ball": last, "x": round(xy[0], 1), "y": round(xy[1], 1), "clause": "5.5.7"})
        st2 = replace(st2, balls=balls, shelves=shelves, playoff=True, hand=Hand.HOUSE)
        decisions = [Decision(DecisionKind.LAG, player, (), "5.5.7")]
        return Result.CONTINUE, None, decisions, None, (st2, spotted)
    order = (opp, player) if fouls else (player, opp)
    for p in order:
        if score[p] >= targets[p]:
            return Result.FRAME_WON, p, [], None, (st2, spotted)
    if not [b for b in st2.balls if b != "C"]:
        a, b = st.players
        if score[a] == score[b]:
            return Result.DRAW, None, [], None, (st2, spotted)
        return Result.FRAME_WON, (a if score[a] > score[b] else b), [], None, (st2, spotted)
    if st2.playoff:
        st2 = replace(st2, hand=Hand.HOUSE, balls={b: p for b, p in st2.balls.items() if b != "C"})
    _ = facts
    return Result.CONTINUE, None, decisions, next_player, (st2, spotted)


def ends_frame(st: MatchState, rs: RuleSet, out: Outcome) -> bool:
    """Does a shot with this outcome end the frame: a player at his target, or no object ball left?"""
    score = {p: st.score.get(p, 0) + out.points.get(p, 0) for p in st.players}
    targets = {p: st.targets.get(p, rs.target) + out.target_delta.get(p, 0) for p in st.players}
    if any(score[p] >= targets[p] for p in st.players):
        return True
    if rs.at_seventy is AtSeventy.LAG_PLAYOFF and all(score[p] == 70 for p in st.players):
        return False  # 5.5.7: the frame goes on after a lag
    left = [b for b in st.balls if b != "C" and b not in out.shelf] + [b for b in out.spot if b != "C"]
    return not left


def penalty_streak(st: MatchState, facts: ShotFacts, foul: bool, player: str) -> dict[str, int]:
    """001 forced draw: consecutive penalty strokes that leave the object balls where they were."""
    streak = dict(st.penalty_streak)
    if not st.draw_warning:
        return streak
    unchanged = foul and not (facts.moved - {facts.struck}) and not facts.potted
    if not unchanged:
        return {p: 0 for p in st.players}  # "подряд": any other stroke breaks the run for both players
    streak[player] = streak.get(player, 0) + 1
    return streak


def forced_result(st: MatchState, last_ball: str | None) -> Decision:
    """001: a drawn frame that must have a result is replayed in full or, by agreement, in its last ball.

    Owed by the player due to break the next frame (who also plays first in a last-ball replay); the
    last-ball replay is open only when the draw came from a pot (70-70).
    """
    due = st.opponent(st.breaker or st.players[0])
    options = ("replay_frame", "last_ball") if last_ball is not None else ("replay_frame",)
    return Decision(DecisionKind.FORCED_RESULT, due, options, "001")


def opponents(r: RefereeInput, opp: str) -> bool:
    """Is this referee foul the non-striker's? Any clause naming him (`player`), or 1.28 naming nobody.

    A foul sent to a shot (`shot: N`) without `player` stays that shot's striker's (an after-shot foul).
    """
    named = r.get("player")
    if named is not None:
        return str(named) == opp
    return r.get("shot") is None and str(r.get("clause")) in OPPONENT_CLAUSES


def opponent_penalty(rs: RuleSet, st: MatchState, offender: str, out: Outcome, striker_fouled: bool) -> None:
    """The non-striker's foul (1.28): one penalty paid by him; the striker, as non-offender, decides (1.6).

    When the striker fouled too, each pays his own penalty and the turn follows the striker's foul.
    """
    pen = Outcome()
    apply_penalty(rs, st, offender, pen, False, False)
    for p, v in pen.points.items():
        out.points[p] = out.points.get(p, 0) + v
    for p, v in pen.target_delta.items():
        out.target_delta[p] = out.target_delta.get(p, 0) + v
    out.readings.extend(pen.readings)
    out.notes.extend(pen.notes)
    if striker_fouled:
        out.decisions.extend(d for d in pen.decisions if d.kind is DecisionKind.PENALTY_BALL)
        return
    out.decisions = [d for d in out.decisions if d.kind is not DecisionKind.CHOICE_AFTER_FOUL]
    out.decisions.extend(pen.decisions)
    out.next_player = pen.next_player
