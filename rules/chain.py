"""The legal-shot condition (1.20) by the token model of RULES.md, and the break counts of 1.12.

Each ball carries tokens: `cushion(S)` (its motion descends from a rebound off segment S) and `line`
(descends from a centre-line crossing). Only events after the first contact of the struck ball count.
The first event that completes one of the chains (1)-(4) makes the shot legal under 1.20; the verdict
names that chain. Note 3 (a ball that starts on the centre line) is applied here from the shot_start
positions, whatever the vision layer reported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from rules.events import Event, EventType, Line
from rules.settings import RulesSettings, review_band

Point = tuple[float, float]


class TokenKind(StrEnum):
    CUSHION = "cushion"
    LINE = "line"


@dataclass(frozen=True)
class Token:
    """Where a ball's motion comes from: `origin` rebounded off `cushion` or crossed the line."""

    kind: TokenKind
    origin: str
    cushion: str | None = None
    event: Event | None = None  # the rebound or crossing that created it
    # the contacts that passed it on to the ball holding it, in order: a chain that completes with it rests on them
    via: tuple[Event, ...] = ()


@dataclass(frozen=True)
class FrozenInfo:
    """A ball near a cushion at shot_start: its gap, and whether the gap counts as frozen."""

    ball: str
    cushion: str
    gap_mm: float
    frozen: bool
    near_tolerance: bool
    declared: bool = False


@dataclass
class ChainResult:
    """The outcome of the 1.20 token model (and the counts 1.12 needs) for one shot."""

    legal: bool = False
    clause: str | None = None
    text: str = ""
    rests_on: list[Event] = field(default_factory=list)
    frozen_review: list[FrozenInfo] = field(default_factory=list)
    cushion_balls: list[str] = field(default_factory=list)  # balls touching a cushion after the first contact
    crossers: list[str] = field(default_factory=list)  # balls crossing the centre line after it (note 3 applied)
    potted: list[str] = field(default_factory=list)  # balls potted after it
    note3_ignored: list[Event] = field(default_factory=list)
    # contacts of one instant (`RulesSettings.simultaneous_s`) that passed the token the chain rests on against
    # their reported order: for the referee's review
    order_review: list[Event] = field(default_factory=list)


def name(ball: str) -> str:
    """A ball as the explanation names it."""
    return "the cue ball" if ball == "C" else f"ball {ball}"


def _origin_phrase(tok: Token) -> str:
    if tok.kind is TokenKind.LINE:
        return f"{name(tok.origin)} crossed the centre line"
    return f"{name(tok.origin)} off the {tok.cushion} cushion"


def frozen_table(
    frozen_items: Sequence[Mapping[str, object]] | None,
    declared: Mapping[str, str],
    settings: RulesSettings,
) -> dict[str, list[FrozenInfo]]:
    """Frozen balls at shot_start from the vision `frozen` items and the player's declarations."""
    out: dict[str, list[FrozenInfo]] = {}
    for item in frozen_items or ():
        ball, cushion = str(item["ball"]), str(item["cushion"])
        gap = float(item.get("gap_mm", 0.0))  # type: ignore[arg-type]
        sigma = item.get("gap_sigma_mm")
        band = review_band(settings.frozen_band_mm, None if sigma is None else float(sigma),  # type: ignore[arg-type]
                           settings.gap_z)
        lo, hi = settings.frozen_tol_mm - band, settings.frozen_tol_mm + band
        if gap > hi:
            continue
        info = FrozenInfo(ball, cushion, gap, gap <= settings.frozen_tol_mm, lo <= gap <= hi, ball in declared)
        out.setdefault(ball, []).append(info)
    for ball, cushion in declared.items():
        if not any(f.cushion == cushion for f in out.get(ball, [])):
            # Declared but not seen frozen: the declaration stands (note 2), the referee should look.
            out.setdefault(ball, []).append(FrozenInfo(ball, cushion, float("nan"), True, True, True))
    return out


class _Tokens:
    """The token sets of all balls, each token kept with its first provenance."""

    def __init__(self, settings: RulesSettings) -> None:
        self.by_ball: dict[str, dict[tuple[TokenKind, str], Token]] = {}
        self.settings = settings

    def add(self, ball: str, tok: Token) -> bool:
        """Give the ball this token; False when it held one of that kind and cushion already."""
        key = self.key(tok)
        held = self.by_ball.setdefault(ball, {})
        if key in held:
            return False
        held[key] = tok
        return True

    def key(self, tok: Token) -> tuple[TokenKind, str]:
        """What makes two tokens the same: their kind and (the identity of) their cushion."""
        return (tok.kind, self.settings.cushion_key(tok.cushion) if tok.cushion else "")

    def of(self, ball: str) -> list[Token]:
        # Own tokens first: a chain the ball made itself reads better than one it received.
        toks = list(self.by_ball.get(ball, {}).values())
        return sorted(toks, key=lambda t: t.origin != ball)

    def line(self, ball: str) -> Token | None:
        return next((t for t in self.of(ball) if t.kind is TokenKind.LINE), None)

    def other_cushion(self, ball: str, cushion: str) -> Token | None:
        key = self.settings.cushion_key(cushion)
        return next(
            (
                t
                for t in self.of(ball)
                if t.kind is TokenKind.CUSHION and t.cushion and self.settings.cushion_key(t.cushion) != key
            ),
            None,
        )

    def any_cushion(self, ball: str) -> Token | None:
        return next((t for t in self.of(ball) if t.kind is TokenKind.CUSHION), None)


def judge_chain(
    events: Sequence[Event],
    first_contact: int | None,
    start_positions: Mapping[str, Point] | None,
    frozen: Mapping[str, list[FrozenInfo]],
    settings: RulesSettings,
    ignored: frozenset[int] = frozenset(),
) -> ChainResult:
    """Run the token model over `events` (one shot, time order); `first_contact` indexes the first contact.

    `ignored` indexes contacts that do not count (a touching ball played away from, 1.19.2) and pots that
    are none (a ball that jumped back out, 1.22.5, or fell by itself, 1.23.1).
    """
    res = ChainResult()
    on_line = {
        b for b, (x, _y) in (start_positions or {}).items() if abs(float(x)) <= settings.on_line_mm
    }
    left_line: set[str] = set()  # note 3: the first crossing of a ball that starts on the line is its leave
    moved: set[str] = set()
    toks = _Tokens(settings)
    instant: list[Event] = []  # the contacts of the latest instant (see RulesSettings.simultaneous_s)
    out_of_order: dict[tuple[str, tuple[TokenKind, str]], list[Event]] = {}  # tokens passed against the order

    def win(clause: str, text: str, e: Event, tok: Token | None = None, ball: str | None = None) -> None:
        if not res.legal:
            res.legal, res.clause, res.text = True, clause, text
            if tok is not None and tok.event is not None:
                res.rests_on.append(tok.event)
            if tok is not None:
                res.rests_on.extend(tok.via)  # a doubtful contact that passed the token decides the chain too
            res.rests_on.append(e)
            if tok is not None and ball is not None:
                res.order_review.extend(out_of_order.get((ball, toks.key(tok)), []))

    def give(giver: str, taker: str, tok: Token, contact: Event) -> bool:
        """Pass a token on through a contact; one that reached the giver against the reported order stays marked so."""
        if not toks.add(taker, replace(tok, via=(*tok.via, contact))):
            return False
        doubt = out_of_order.get((giver, toks.key(tok)))
        if doubt is not None:
            out_of_order[(taker, toks.key(tok))] = doubt
        return True

    def pass_through_instant(e: Event) -> None:
        """Tokens held before the instant began, through every contact of the instant e belongs to (contacts
        within `simultaneous_s` of its first), to a fixed point. A token made during the instant (a cushion
        touched a millisecond after a contact) never flows back into a contact before it."""
        if instant and e.t - instant[0].t > settings.simultaneous_s:
            instant.clear()
        instant.append(e)
        t0 = instant[0].t
        changed = len(instant) > 1
        while changed:
            changed = False
            for c in instant:
                assert c.balls is not None
                x, y = c.balls
                for giver, taker in ((x, y), (y, x)):
                    for tok in toks.of(giver):
                        if tok.event is not None and tok.event.t > t0:
                            continue
                        if give(giver, taker, tok, c):
                            changed = True
                            out_of_order.setdefault((taker, toks.key(tok)), list(instant))

    for i, e in enumerate(events):
        counting = first_contact is not None and i >= first_contact
        if e.type is EventType.LINE_CROSS and e.line is Line.CENTRE and e.ball is not None:
            b = e.ball
            if b in on_line and b not in left_line:
                left_line.add(b)
                res.note3_ignored.append(e)
                continue
            if not counting:
                continue
            if b not in res.crossers:
                res.crossers.append(b)
            tok = toks.any_cushion(b)
            if tok is not None:
                if tok.origin == b:
                    win("1.20(4a)", f"{_origin_phrase(tok)}, then crossed the centre line (1.20(4a))", e, tok, b)
                else:
                    win("1.20(4b)", f"{_origin_phrase(tok)}, then rolled {name(b)} across the centre line "
                        "(1.20(4b))", e, tok, b)
            toks.add(b, Token(TokenKind.LINE, b, None, e))
        elif e.type is EventType.CUSHION and e.ball is not None and e.cushion is not None:
            b, s = e.ball, e.cushion
            left_line.add(b)
            moved.add(b)
            if not counting:
                continue
            if b not in res.cushion_balls:
                res.cushion_balls.append(b)
            tl, tc = toks.line(b), toks.other_cushion(b, s)
            if tl is not None:
                clause = "1.20(3a)" if tl.origin == b else "1.20(3b)"
                verb = "touched the" if tl.origin == b else f"drove {name(b)} to the"
                win(clause, f"{_origin_phrase(tl)}, then {verb} {s} cushion ({clause})", e, tl, b)
            elif tc is not None:
                clause = "1.20(2a)" if tc.origin == b else "1.20(2b)"
                verb = "touched the" if tc.origin == b else f"drove {name(b)} to the"
                win(clause, f"{_origin_phrase(tc)}, then {verb} {s} cushion ({clause})", e, tc, b)
            toks.add(b, Token(TokenKind.CUSHION, b, s, e))
        elif e.type is EventType.BALL_CONTACT and e.balls is not None:
            a, b = e.balls
            if i in ignored or not counting:
                moved.update((a, b))
                continue
            for hitter, target in ((a, b), (b, a)):
                if target in moved:
                    continue
                for fi in frozen.get(target, []):
                    tl, tc = toks.line(hitter), toks.other_cushion(hitter, fi.cushion)
                    qualifying = tl or tc
                    if qualifying is None:
                        continue
                    if fi.near_tolerance:
                        res.frozen_review.append(fi)
                    if not fi.frozen:
                        continue
                    clause = ("1.20(3c)" if tl is not None else "1.20(2c)")
                    verb = "touched" if qualifying.origin == hitter else f"drove {name(hitter)} onto"
                    win(clause, f"{_origin_phrase(qualifying)}, then {verb} {name(target)} frozen to the "
                        f"{fi.cushion} cushion ({clause})", e, qualifying, hitter)
            ta, tb = toks.of(a), toks.of(b)
            for tok in tb:
                give(b, a, tok, e)
            for tok in ta:
                give(a, b, tok, e)
            pass_through_instant(e)
            # Note 2, declared case: a ball declared frozen to S hands cushion(S) to the ball that hits it.
            for hitter, target in ((a, b), (b, a)):
                if target not in moved:
                    for fi in frozen.get(target, []):
                        if fi.declared:
                            toks.add(hitter, Token(TokenKind.CUSHION, target, fi.cushion, e))
                            if fi.near_tolerance and fi not in res.frozen_review:
                                res.frozen_review.append(fi)  # declared, but vision did not see it clearly frozen
            moved.update((a, b))
        elif e.type is EventType.POT and e.ball is not None:
            left_line.add(e.ball)
            if not counting or i in ignored:  # ignored: no pot after all (1.22.5, 1.23.1)
                continue
            res.potted.append(e.ball)
            win("1.20(1)", f"{name(e.ball)} potted in the {e.pocket} pocket (1.20(1))", e)
    if not res.legal:
        seen = _what_happened(events, first_contact)
        res.text = "no ball completed a chain of 1.20 after the first contact" + (f" ({seen})" if seen else "")
    return res


def _what_happened(events: Sequence[Event], first_contact: int | None, limit: int = 4) -> str:
    """The events after the first contact in words, for the referee reading a 1.20 foul."""
    if first_contact is None:
        return ""
    words: list[str] = []
    for e in events[first_contact:]:
        if e.type is EventType.BALL_CONTACT and e.balls is not None:
            words.append(f"{name(e.balls[0])} met {name(e.balls[1])}")
        elif e.type is EventType.CUSHION:
            words.append(f"{name(e.ball or '?')} touched the {e.cushion} cushion")
        elif e.type is EventType.LINE_CROSS and e.line is Line.CENTRE:
            words.append(f"{name(e.ball or '?')} crossed the centre line")
    if not words:
        return ""
    more = f", and {len(words) - limit} more" if len(words) > limit else ""
    return "seen: " + "; ".join(words[:limit]) + more
