"""What happened in one shot, read from its events: the facts every rule set judges from.

Nothing here decides a foul or a score; `rules.fouls` and `rules.games` do. This module finds the struck
ball, the first contact (1.5, with the touching-ball reading of 1.19.2), the 1.20 chain, pots (with the
jump-back of 1.22.5 and the hanging balls of 1.23), jumped balls (1.24) and disturbed balls (1.17).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from calibration.table import Table
from rules.chain import ChainResult, FrozenInfo, frozen_table, judge_chain, name
from rules.events import ASSERTED, Event, EventType
from rules.records import ShotRecord
from rules.settings import RulesSettings, review_band

_MOVES = (EventType.BALL_CONTACT, EventType.CUSHION, EventType.LINE_CROSS)  # events that show their balls moved

Point = tuple[float, float]


@dataclass(frozen=True)
class Pot:
    ball: str
    pocket: str | None
    event: Event


@dataclass(frozen=True)
class PushCheck:
    """1.19: a push (foul), not a push, or undecidable from the data (review)."""

    foul: bool
    review: bool
    text: str


@dataclass(frozen=True)
class Restored:
    """A `pot` that is no pot of the shot: the ball goes back where it stood (1.22.5 jump-back, 1.23.1 fall)."""

    ball: str
    clause: str
    event: Event
    after_end: bool  # fell after every ball had stopped (1.23.1), not while the shot ran


@dataclass
class ShotFacts:
    struck: str
    start_positions: dict[str, Point]
    end_positions: dict[str, Point] | None
    first_contact: Event | None
    first_object: str | None
    chain: ChainResult
    frozen: dict[str, list[FrozenInfo]]
    potted: list[Pot] = field(default_factory=list)
    restored: list[Restored] = field(default_factory=list)  # hanging balls that fell, jump-backs
    jumped: list[Event] = field(default_factory=list)
    disturbed: list[Event] = field(default_factory=list)  # during the stroke (1.17)
    disturbed_before: list[Event] = field(default_factory=list)  # while the stroke was prepared
    push: PushCheck | None = None
    early: bool = False
    double_hit: bool = False
    ignored_contacts: list[Event] = field(default_factory=list)
    moved: set[str] = field(default_factory=set)
    review_notes: list[str] = field(default_factory=list)  # facts the referee should check
    # whether the struck ball touched a ball at the stroke, decided on a gap within its review band: (that ball,
    # the note); the engine keeps the note only if the shot judged the other way is decided otherwise (rules.doubts)
    touch_doubts: list[tuple[str, str]] = field(default_factory=list)

    @property
    def contact(self) -> bool:
        return self.first_contact is not None

    @property
    def potted_balls(self) -> list[str]:
        return [p.ball for p in self.potted]

    @property
    def jumped_balls(self) -> list[str]:
        out: list[str] = []
        for e in self.jumped:
            if e.ball is not None and e.ball not in out:
                out.append(e.ball)
        return out


def _sorted(events: Sequence[Event]) -> list[Event]:
    """Time order; stable. At equal times a contact comes first: what it causes cannot precede it (vision
    reports a frozen ball driven into its cushion at the contact time, docs/event-schema.md)."""
    return sorted(events, key=lambda e: (e.t, e.type is not EventType.BALL_CONTACT))


def _touching(start: Event, struck: str, positions: Mapping[str, Point], settings: RulesSettings,
              diameter: float) -> set[str]:
    """Balls touching the struck ball at shot_start (1.19.2), from `touching` items or positions."""
    out: set[str] = set()
    if start.touching is not None:
        for item in start.touching:
            pair = [str(b) for b in item.get("balls", ())]
            if struck in pair and float(item.get("gap_mm", 0.0)) <= settings.touching_tol_mm:
                out.update(b for b in pair if b != struck)
        return out
    if struck in positions:
        sx, sy = positions[struck]
        for b, (x, y) in positions.items():
            if b != struck and math.hypot(x - sx, y - sy) - diameter <= settings.touching_tol_mm:
                out.add(b)
    return out


def _gap(start: Event, struck: str, other: str | None, positions: Mapping[str, Point],
         diameter: float) -> tuple[float, float | None] | None:
    """The measured gap (mm) between the struck ball and `other` at shot_start and its sigma if reported:
    vision's `touching` item, else from the positions (no sigma); None when neither says."""
    if other is None:
        return None
    for item in start.touching or []:
        if {str(b) for b in item.get("balls", ())} == {struck, other} and item.get("gap_mm") is not None:
            sigma = item.get("gap_sigma_mm")
            return float(item["gap_mm"]), None if sigma is None else float(sigma)
    if struck in positions and other in positions:
        (x0, y0), (x1, y1) = positions[struck], positions[other]
        return math.hypot(x1 - x0, y1 - y0) - diameter, None
    return None


def _near_touch(start: Event, struck: str, other: str | None, positions: Mapping[str, Point],
                settings: RulesSettings, diameter: float) -> str | None:
    """How the touch of `struck` and `other` at the stroke was measured, when that gap lies within its review
    band of the touching tolerance (the fixed band, or `gap_z` of the gap's reported sigma if wider); else None."""
    measured = _gap(start, struck, other, positions, diameter)
    if measured is None:
        return None
    gap, sigma = measured
    tol = settings.touching_tol_mm
    band = review_band(settings.touching_band_mm, sigma, settings.gap_z)
    if not tol - band < gap <= tol + band:
        return None
    plus = "" if band == settings.touching_band_mm else f" ({settings.gap_z:g} x its {sigma:.2f} mm sigma)"
    return f"on a measured gap of {gap:.2f} mm, within {band:.2g} mm{plus} of the {tol:g} mm tolerance"


def _ball_moved(ball: str, idx: int, events: Sequence[Event], start: Mapping[str, Point],
                end: Mapping[str, Point] | None, settings: RulesSettings) -> bool:
    """Did `ball` move after the contact at `idx`? Later events of it, or a changed rest position."""
    for e in events[idx + 1:]:
        if ball in e.agents and e.type is not EventType.BALL_DISTURBED:
            return True
    if end is not None and ball in start:
        if ball not in end:
            return True
        (x0, y0), (x1, y1) = start[ball], end[ball]
        return math.hypot(x1 - x0, y1 - y0) > settings.moved_mm
    return end is None  # no rest positions: give the contact the benefit of the doubt


def _push(start: Event, touching_hit: bool) -> PushCheck | None:
    if start.extra.get("push"):
        return PushCheck(True, False, "the tip stayed on the cue ball until it met the object ball (1.19.1)")
    if not touching_hit:
        return None
    angle = start.extra.get("stroke_angle_deg")
    follow = start.extra.get("cue_follow")
    geo = start.extra.get("push_geometry")
    # vision's measurement within its tolerance of a limit (45 deg, the forward travel): decided, but marked
    doubt = str(geo.get("why") or "measured near its limit") if isinstance(geo, dict) and geo.get("review") else ""
    if angle is not None and float(angle) >= 45.0:
        check = PushCheck(False, False, f"touching ball played at {float(angle):.0f} deg to the line of centres "
                          "(1.19.2(1)): not a push")
    elif follow is False:
        check = PushCheck(False, False, "the cue ball did not follow the touching ball (1.19.2(2)): not a push")
    elif angle is not None and follow is True:
        check = PushCheck(True, False, f"touching ball played at {float(angle):.0f} deg (< 45) and the cue ball "
                          "followed it (1.19)")
    else:
        return PushCheck(False, True, "the cue ball played a touching ball; stroke angle or follow not reported "
                         "(1.19.2): for the referee")
    if doubt:
        return PushCheck(check.foul, True, f"{check.text}; for the referee: {doubt} (1.19.2)")
    return check


def analyse_shot(
    rec: ShotRecord,
    state_positions: Mapping[str, Point],
    declared: Mapping[str, str],
    settings: RulesSettings,
    table: Table,
) -> ShotFacts:
    """The facts of one shot from its record, with `state_positions` where shot_start has none."""
    start = rec.start
    struck = start.ball or "C"
    positions = dict(start.positions) if start.positions is not None else dict(state_positions)
    end = dict(rec.end.positions) if rec.end is not None and rec.end.positions is not None else None
    events = _sorted(rec.events)
    frozen = frozen_table(start.frozen, declared, settings)
    if start.frozen is None and positions:
        frozen = _frozen_from_positions(positions, declared, settings, table)

    touching = _touching(start, struck, positions, settings, table.spec.ball_diameter_mm)
    ignored: set[int] = set()
    first: int | None = None
    touching_hit = False
    for i, e in enumerate(events):
        if e.type is not EventType.BALL_CONTACT or e.balls is None or struck not in e.balls:
            continue
        other = e.balls[1] if e.balls[0] == struck else e.balls[0]
        if other in touching and first is None and not _ball_moved(other, i, events, positions, end, settings):
            ignored.add(i)  # 1.19.2: playing away from a touching ball without moving it is no contact
            continue
        if first is None:
            first = i
            touching_hit = other in touching
    moved: set[str] = {struck}
    doubtful: set[str] = set()  # moved only by events vision reports for review, not asserts
    for e in events:
        if e.type in _MOVES:
            (moved if e.confidence >= ASSERTED else doubtful).update(e.agents)
    doubtful -= moved
    # A pot that is not one (jumped back out, 1.22.5; fell by itself, 1.23.1) cannot meet 1.20(1) either.
    not_pots = {i for i, e in enumerate(events)
                if e.type is EventType.POT and _not_a_pot(e, False, moved, positions, end, table)}
    chain = judge_chain(events, first, positions, frozen, settings, frozenset(ignored | not_pots))
    fc = events[first] if first is not None else None
    first_object = None
    if fc is not None and fc.balls is not None:
        first_object = fc.balls[1] if fc.balls[0] == struck else fc.balls[0]

    facts = ShotFacts(
        struck=struck,
        start_positions=positions,
        end_positions=end,
        first_contact=fc,
        first_object=first_object,
        chain=chain,
        frozen=frozen,
        push=_push(start, touching_hit),
        early=bool(start.extra.get("early") or start.extra.get("previous_shot_running")),
        double_hit=bool(start.extra.get("double_hit")),
        ignored_contacts=[events[i] for i in sorted(ignored)],
    )
    facts.moved = moved
    near = _near_touch(start, struck, first_object, positions, settings, table.spec.ball_diameter_mm)
    if near is not None:
        said = "touched" if first_object in touching else "did not touch"
        facts.touch_doubts.append((str(first_object), f"{name(struck)} {said} ball {first_object} at the stroke "
                                   f"{near}: a push if they touched and the struck ball followed (1.19.2)"))
    for i in sorted(ignored):  # played away from a ball it touched: no contact, if they did touch
        e = events[i]
        other = next(b for b in e.agents if b != struck)
        near = _near_touch(start, struck, other, positions, settings, table.spec.ball_diameter_mm)
        if near is not None:
            facts.touch_doubts.append((other, f"{name(struck)} touched ball {other} at the stroke {near}: played away "
                                       "from it, their contact counts as none only if they touched (1.19.2)"))
    if start.extra.get("striker_review"):  # vision could not tell which of two touching balls the cue struck
        facts.review_notes.append(f"struck ball {struck}? {start.extra['striker_review']} (1.4.1, 1.19.2)")
    _pots_and_jumps(facts, events, rec.post_events, end, moved, table)
    _doubtful_falls(facts, events, rec.post_events, end, moved, doubtful, table)
    facts.disturbed = [e for e in events if e.type is EventType.BALL_DISTURBED]
    facts.disturbed_before = [e for e in rec.before_events if e.type is EventType.BALL_DISTURBED]
    return facts


def _hanging_at_start(e: Event, start: Mapping[str, Point], table: Table) -> bool:
    """1.23: was the ball at rest hanging over a pocket? Vision's `hanging` flag, or its start in a mouth."""
    if e.extra.get("hanging"):
        return True
    xy = start.get(e.ball or "")
    return xy is None or table.pocket_at(xy) is not None


def _not_a_pot(e: Event, after_end: bool, moved: set[str], start: Mapping[str, Point],
               end: Mapping[str, Point] | None, table: Table) -> str | None:
    """The clause by which a `pot` event is no pot of this shot, or None when it is one."""
    b = e.ball or ""
    if e.extra.get("returned") or (end is not None and b in end and not after_end):
        return "1.22.5"  # jumped back out of the pocket onto the bed: not potted, no foul
    if b not in moved and (after_end or _hanging_at_start(e, start, table)):
        # Fell by itself without being touched in this shot: restored (1.23.1); the referee overrides to a
        # replay when it changed the shot (1.23.2).
        return "1.23.1"
    return None


def _pots_and_jumps(facts: ShotFacts, events: Sequence[Event], post: Sequence[Event],
                    end: Mapping[str, Point] | None, moved: set[str], table: Table) -> None:
    seen: set[str] = set()
    for e in [*events, *_sorted(post)]:
        b = e.ball
        if b is None or b in seen:
            continue
        after_end = e in post
        if e.type is EventType.POT:
            clause = _not_a_pot(e, after_end, moved, facts.start_positions, end, table)
            if clause is not None:
                facts.restored.append(Restored(b, clause, e, after_end))
                continue
            if b not in moved:
                # Not hanging, so something moved it: a contact vision could not separate (a cluster, the
                # rack at the break). Potted by the shot, for the referee to check.
                facts.review_notes.append(f"ball {b} was potted with no reported contact moving it: taken as "
                                          "potted by the shot (not a hanging ball, 1.23)")
            seen.add(b)
            facts.potted.append(Pot(b, e.pocket, e))  # after the end: stopped on the lip, then fell (1.23.3)
        elif e.type is EventType.OFF_TABLE and not after_end:
            if end is not None and b in end:
                continue  # came back onto the bed by itself (1.24.2)
            seen.add(b)
            facts.jumped.append(e)


def _doubtful_falls(facts: ShotFacts, events: Sequence[Event], post: Sequence[Event],
                    end: Mapping[str, Point] | None, moved: set[str], doubtful: set[str], table: Table) -> None:
    """A pot judged as fallen by itself (1.23.1) or as potted by the shot (1.23.3) on whether its ball moved in
    the shot, when only events reported for review say it did: the referee looks (a ball hanging on a lip read
    under an arm wobbles across a line or off a jaw; a ball nudged in a pack moves unseen)."""
    for e in [*events, *post]:
        b = e.ball or ""
        if e.type is not EventType.POT or b not in doubtful:
            continue
        after_end = e in post
        fell = _not_a_pot(e, after_end, moved, facts.start_positions, end, table) == "1.23.1"
        if fell == (_not_a_pot(e, after_end, moved | doubtful, facts.start_positions, end, table) == "1.23.1"):
            continue
        said = [f"{x.type} at t={x.t:.3f} s ({x.confidence:.2f})" for x in events if b in x.agents and x.type in _MOVES]
        still, rolled = "fell by itself, restored (1.23.1)", "potted by the shot (1.23.3)"
        if not fell:
            still, rolled = rolled, still
        facts.review_notes.append(
            f"{name(b)} fell into the {e.pocket} pocket; only events reported for review say it moved in the shot "
            f"({'; '.join(said)}): {still} if it did not, {rolled} if it did")


def _frozen_from_positions(positions: Mapping[str, Point], declared: Mapping[str, str],
                           settings: RulesSettings, table: Table) -> dict[str, list[FrozenInfo]]:
    """Frozen balls computed from rest positions when vision sent no `frozen` items."""
    items: list[dict[str, object]] = []
    reach = table.ball_radius + settings.frozen_tol_mm + settings.frozen_band_mm
    for b, xy in positions.items():
        if abs(xy[0]) < table.half_length - reach and abs(xy[1]) < table.half_width - reach:
            continue  # far from every cushion: skip the exact (slower) geometry
        for cushion, gap in table.cushion_gaps(xy).items():
            items.append({"ball": b, "cushion": cushion, "gap_mm": gap})
    return frozen_table(items, declared, settings)
