"""How shots are numbered: the one rule the engine, the analysis loop and the report share.

Walking a match log in order (ball events and referee inputs), each shot_start that asserts a stroke opens
the next shot. A shot_start whose stroke is doubtful (`start_confidence` below ASSERTED) while a shot is
open is no new shot: it is held in the open one, whose verdict names it for review. Opening a shot when
none is open, it counts (no running shot to split). A `match` or `state` input closes any open shot; a
`lag` input makes the ball events up to the next shot_end the lag's, which no shot number counts: a lag's
events run to its shot_end, a state line inside it does not end it.

Pure: no I/O, no vision, no service; the callers say what each item is (`mark_event`, `mark_input`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from rules.events import Event, EventType, opens_shot


class Mark(Enum):
    """What an item of the log is, as far as numbering goes."""

    STROKE = "stroke"  # a shot_start asserting a stroke
    DOUBTFUL_STROKE = "doubtful_stroke"  # a shot_start whose stroke is doubtful
    SHOT_END = "shot_end"
    EVENT = "event"  # any other ball event
    RESET = "reset"  # a match or state input: no shot is open after it
    LAG = "lag"  # a lag input: the events up to the next shot_end are the lag
    INPUT = "input"  # any other referee input


class Role(Enum):
    """What the item does to the numbering."""

    OPENS = "opens"  # opens shot `ShotNumbering.number`
    HELD = "held"  # a doubtful stroke inside the open shot `ShotNumbering.number`: no new shot
    IN_SHOT = "in_shot"  # belongs to the open shot (a shot_end also closes it)
    OUTSIDE = "outside"  # before the first shot, between shots, in a lag, or a referee input


def mark_event(e: Event) -> Mark:
    if e.type is EventType.SHOT_START:
        return Mark.STROKE if opens_shot(e) else Mark.DOUBTFUL_STROKE
    if e.type is EventType.SHOT_END:
        return Mark.SHOT_END
    return Mark.EVENT


def mark_input(input_type: str) -> Mark:
    """The mark of a referee input by its `type` (rules.inputs.InputType values)."""
    if input_type == "lag":
        return Mark.LAG
    if input_type in ("match", "state"):
        return Mark.RESET
    return Mark.INPUT


@dataclass
class ShotNumbering:
    """The numbering state while walking a log: the last shot number given, whether it is open, whether the
    events are a lag's. Feed every item in log order to `step`."""

    number: int = 0
    open: bool = False
    in_lag: bool = False

    def step(self, mark: Mark) -> Role:
        if mark in (Mark.RESET, Mark.LAG):  # a state line inside a lag does not end it (rules.records.group_log)
            self.open, self.in_lag = False, self.in_lag or mark is Mark.LAG
            return Role.OUTSIDE
        if mark is Mark.INPUT:
            return Role.OUTSIDE
        if self.in_lag:
            self.in_lag = mark is not Mark.SHOT_END
            return Role.OUTSIDE
        if mark in (Mark.STROKE, Mark.DOUBTFUL_STROKE):
            if self.open and mark is Mark.DOUBTFUL_STROKE:
                return Role.HELD
            self.number, self.open = self.number + 1, True
            return Role.OPENS
        if not self.open:
            return Role.OUTSIDE
        if mark is Mark.SHOT_END:
            self.open = False
        return Role.IN_SHOT
