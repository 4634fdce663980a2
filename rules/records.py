"""Grouping a match log into steps: header, state, lag, shots (with the inputs around them), tail.

The fold in `rules.engine` walks these steps. Grouping only sorts lines into the step they belong to; it
decides nothing. Placement rules (docs/rules-engine.md):
- an input before a `shot_start` goes to that shot's `before` (it settles the previous shot's decisions
  or applies to this shot); an input between `shot_start` and `shot_end` goes to `during`;
- a `foul` after `shot_end` belongs to that shot: stroke clauses (1.14.2, 1.15, 1.16, 1.18, 1.19) as
  fouls during it, any other clause as a foul after it (penalised, pots stand, 1.22); a `foul` with a
  `shot` field goes to that shot;
- ball events after `shot_end` (a hanging ball falling, 1.23) go to that shot's `post_events`, except
  `ball_disturbed`, which goes to the next shot (a ball touched while the next stroke is prepared);
- an `override` goes to the shot it names, wherever it stands in the log.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from rules.events import Event, EventType
from rules.inputs import InputType, LogItem, RefereeInput

STROKE_CLAUSES = frozenset({"1.14.2", "1.15", "1.16", "1.18", "1.19", "1.19.1", "1.19.2"})


@dataclass
class ShotRecord:
    """One shot and the log lines attached to it."""

    number: int
    start: Event
    before: list[RefereeInput] = field(default_factory=list)
    before_events: list[Event] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    during: list[RefereeInput] = field(default_factory=list)
    end: Event | None = None
    post_events: list[Event] = field(default_factory=list)
    after_fouls: list[RefereeInput] = field(default_factory=list)
    overrides: list[RefereeInput] = field(default_factory=list)


@dataclass
class LagRecord:
    """A lag for the break (1.7) or for the next shot at 70-70 (5.5.7)."""

    request: RefereeInput
    events: list[Event] = field(default_factory=list)
    before: list[RefereeInput] = field(default_factory=list)


@dataclass
class InputsRecord:
    """Inputs that stand alone in the fold: the header, a state line, inputs after the last shot."""

    inputs: list[RefereeInput]


Step = ShotRecord | LagRecord | InputsRecord


def _is_stroke_clause(clause: str) -> bool:
    return str(clause) in STROKE_CLAUSES


def group_log(items: Iterable[LogItem]) -> list[Step]:
    """Sort a time-ordered log into steps."""
    steps: list[Step] = []
    shots: list[ShotRecord] = []
    pending: list[RefereeInput] = []
    pending_events: list[Event] = []
    current: ShotRecord | None = None
    last: ShotRecord | None = None
    lag: LagRecord | None = None
    overrides: list[RefereeInput] = []

    for item in items:
        if isinstance(item, RefereeInput):
            if item.type is InputType.OVERRIDE:
                overrides.append(item)
            elif item.type in (InputType.MATCH, InputType.STATE):
                current = None
                last = None
                steps.append(InputsRecord([*pending, item]))
                pending = []
            elif item.type is InputType.LAG:
                lag = LagRecord(item, before=pending)
                pending = []
                steps.append(lag)
                current = None
                last = None
            elif item.type is InputType.FOUL and item.get("shot") is not None:
                k = int(item.get("shot"))
                if not 1 <= k <= len(shots):
                    raise ValueError(f"line {item.line}: foul names shot {k}, but only {len(shots)} shots so far")
                target = shots[k - 1]
                during = _is_stroke_clause(item.get("clause")) or target is current
                (target.during if during else target.after_fouls).append(item)
            elif current is not None:
                current.during.append(item)
            elif item.type is InputType.FOUL and last is not None:
                (last.during if _is_stroke_clause(item.get("clause")) else last.after_fouls).append(item)
            else:
                pending.append(item)
            continue

        e = item
        if lag is not None:
            lag.events.append(e)
            if e.type is EventType.SHOT_END:
                lag = None
            continue
        if e.type is EventType.SHOT_START:
            rec = ShotRecord(len(shots) + 1, e, before=pending, before_events=pending_events)
            pending, pending_events = [], []
            shots.append(rec)
            steps.append(rec)
            current, last = rec, None
        elif e.type is EventType.SHOT_END:
            if current is not None:
                current.end = e
                last, current = current, None
        elif current is not None:
            current.events.append(e)
        elif last is not None and e.type is not EventType.BALL_DISTURBED:
            last.post_events.append(e)
        else:
            pending_events.append(e)

    for ov in overrides:
        k = int(ov.get("shot"))
        if not 1 <= k <= len(shots):
            raise ValueError(f"line {ov.line}: override names shot {k}; the log has {len(shots)} shots")
        shots[k - 1].overrides.append(ov)
    if pending:
        steps.append(InputsRecord(pending))
    return steps
