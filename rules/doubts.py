"""Does a doubtful event decide the verdict? The shot judged again without it.

Vision reports an event it is unsure of (a near-miss contact, a weak kink, a touch near the nose) with a low
confidence or `extra.review`. A verdict that rests on it goes to the referee, but only when the doubt can
change the decision: if the shot judged without that event is decided the same (a foul or not, the same pots,
jumps and struck ball; at a break, the same illegal-break clauses), the event's existence is immaterial and the
verdict stands unflagged (the explanation says which doubt it set aside, and under which clause the foul would
be cited without it). The test is one of existence, so an event doubted for which ball it was (a `rival`
striker, a swap risk in `id_confidence` at or below the review threshold, an `unnamed` ball) or for when it
happened (a time the service `repaired`) is always kept for review.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from rules.analysis import ShotFacts
from rules.events import Event, doubtful, id_confidence, unnamed_of
from rules.fouls import Foul
from rules.records import ShotRecord

BREAK_CLAUSES = frozenset({"1.12.1", "1.5.3"})  # at a break they make it illegal: the opponent's options (1.12.2)


@dataclass(frozen=True)
class ShotDecision:
    """What a shot's verdict decides, as far as its events can change it."""

    foul: bool
    break_clauses: frozenset[str]  # at a break: the clauses that make it illegal
    potted: tuple[tuple[str, str | None], ...]  # (ball, pocket) in the order potted: 71 nominations, last ball
    jumped: tuple[str, ...]
    struck: str
    streak: tuple[tuple[str, int], ...]  # Classic 71 after a warning: the penalty strokes that force a draw (001)
    clauses: frozenset[str] = field(compare=False)  # cited, not decided: a foul is paid alike under any of them


Judge = Callable[[ShotRecord], ShotDecision]


def decision(facts: ShotFacts, fouls: list[Foul], is_break: bool, streak: dict[str, int]) -> ShotDecision:
    """The decision of a judged shot. A foul is paid the same whatever its clause (RuleSet.foul_pay), but for an
    illegal break (1.12.2) and a potted or jumped cue ball (compared through the pots and jumps); `streak`:
    `rules.turns.penalty_streak` after it (which balls moved decides it)."""
    clauses = frozenset(f.clause for f in fouls)
    return ShotDecision(bool(fouls), clauses & BREAK_CLAUSES if is_break else frozenset(),
                        tuple((p.ball, p.pocket) for p in facts.potted), tuple(sorted(facts.jumped_balls)),
                        facts.struck, tuple(sorted(streak.items())), clauses)


def doubt_of_existence(e: Event, min_id: float) -> bool:
    """Whether the event's doubt is only whether it happened, not which ball it was or when: no rival striker
    (`rival`, schema 1.9), no swap risk at or below `min_id` (`id_confidence`, 1.8), no unnamed ball (1.7), no
    time the service had to repair (`repaired`: vision gave an impossible one)."""
    swap = id_confidence(e) <= min_id
    return not e.extra.get("rival") and not swap and not unnamed_of(e) and not e.extra.get("repaired")


def without(rec: ShotRecord, gone: list[Event]) -> ShotRecord:
    """The shot's record with events taken out (by identity: equal events elsewhere stay)."""
    ids = {id(e) for e in gone}
    return replace(
        rec,
        events=[x for x in rec.events if id(x) not in ids],
        before_events=[x for x in rec.before_events if id(x) not in ids],
        post_events=[x for x in rec.post_events if id(x) not in ids],
    )


class Counterfactual:
    """`matters(e)`: does judging the shot without e, or without every doubt of existence in it, change its
    decision? The second catches doubts that stand behind each other (a doubtful first contact whose removal
    makes a second doubtful contact the first). Memoised per event."""

    def __init__(self, rec: ShotRecord, judge: Judge, base: ShotDecision, min_conf: float, touch_tol: float) -> None:
        self.rec, self.judge, self.base, self.min_conf, self.touch_tol = rec, judge, base, min_conf, touch_tol
        self.touch_memo: dict[str, bool] = {}
        self.touch_aside: list[tuple[str, ShotDecision]] = []  # touches read either way, decided the same
        self.memo: dict[int, bool] = {}
        self.set_aside: list[tuple[Event, ShotDecision]] = []  # doubts found not to matter, and the shot without each
        self.doubts = [e for e in [*rec.before_events, *rec.events, *rec.post_events]
                       if e is not rec.start and doubtful(e, min_conf) and doubt_of_existence(e, min_conf)]
        self.without_all: ShotDecision | None = None

    def matters(self, e: Event) -> bool:
        if id(e) not in self.memo:
            if not doubt_of_existence(e, self.min_conf) or e is self.rec.start:
                self.memo[id(e)] = True
            else:
                alt = self.judge(without(self.rec, [e]))
                if self.without_all is None:
                    self.without_all = self.judge(without(self.rec, [*self.doubts, e]))
                self.memo[id(e)] = alt != self.base or self.without_all != self.base
                if not self.memo[id(e)]:
                    self.set_aside.append((e, alt))
        return self.memo[id(e)]

    def touch_matters(self, other: str) -> bool:
        """Does reading the struck ball's touch of `other` at the stroke the other way change the decision? Read
        on vision's `touching` list (a log without one, judged from positions, is not weighed)."""
        if other not in self.touch_memo:
            start = self.rec.start
            flipped = _flip_touch(start, start.ball or "C", other, self.touch_tol)
            alt = None if flipped is None else self.judge(replace(self.rec, start=flipped))
            self.touch_memo[other] = alt is None or alt != self.base
            if alt is not None and alt == self.base:
                self.touch_aside.append((other, alt))
        return self.touch_memo[other]

    def notes(self) -> list[str]:
        """One line per doubt set aside, for the explanation; where the foul would be cited otherwise, how."""
        struck = self.rec.start.ball or "C"
        said = [(f"vision's doubt about {e.type} {'-'.join(e.agents)} at t={e.t:.3f} s", "without it", alt)
                for e, alt in self.set_aside]
        said += [(f"whether {struck} touched {other} at the stroke, a gap within its review band", "the other way", alt)
                 for other, alt in self.touch_aside]
        out = []
        for what, how, alt in said:
            line = f"{what} does not change this verdict: judged {how}, the shot is decided the same"
            if alt.clauses != self.base.clauses:
                line += (f" (the foul cited as {', '.join(sorted(alt.clauses)) or 'none'} instead of "
                         f"{', '.join(sorted(self.base.clauses))}, paid alike)")
            out.append(line)
        return out


def _flip_touch(start: Event, struck: str, other: str, tol: float) -> Event | None:
    """The shot_start with the pair's touch read the other way: a touching gap put just past the tolerance, a
    clear one to zero. None when vision gave no `touching` list (the rules then read positions)."""
    if start.touching is None:
        return None
    items = [dict(it) for it in start.touching]
    pair = {struck, other}
    hit = [it for it in items if {str(b) for b in it.get("balls", ())} == pair]
    if hit:
        for it in hit:
            it["gap_mm"] = tol + 1.0 if float(it.get("gap_mm", 0.0)) <= tol else 0.0
    else:
        items.append({"balls": [struck, other], "gap_mm": 0.0})
    return replace(start, touching=tuple(items))
