"""The shot clock of 1.26 (slow play), as a pure value.

1.26 (one clause in the seed): after warning a slow player, the referee may impose 45 s per shot on both
players, announces when 10 s are left, and an overrun is a foul (1.29). The clock starts as soon as the
previous shot ends (1.14); each player may once per frame ask for an extension that doubles the time
("двукратное продление"), twice in the deciding frame of a match level on frames.

Readings committed here: an extension doubles the time of the shot it is asked for (45 s -> 90 s), and
only one extension applies to any one shot; the second extension of a deciding frame is for a later shot.
The warning comes `warning_s` before the (possibly extended) time runs out. Reaching the limit exactly is
still in time; any moment after it is an overrun. Whether the clock is in force at all (after the
referee's warning) is the match's business, not this value's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import StrEnum

LIMIT_S = 45.0  # 1.26
WARNING_S = 10.0  # 1.26
EXTENSIONS_PER_FRAME = 1  # 1.26
EXTENSIONS_DECIDING_FRAME = 2  # 1.26


class ClockStatus(StrEnum):
    OK = "ok"
    WARNING = "warning"  # the referee announces that warning_s are left (1.26)
    OVERRUN = "overrun"  # foul (1.26, 1.29)


@dataclass(frozen=True)
class ShotClock:
    """One player's shot clock for the current shot: base limit, warning lead, extensions left in the frame."""

    limit_s: float = LIMIT_S
    warning_s: float = WARNING_S
    extensions_left: int = EXTENSIONS_PER_FRAME
    extended: bool = False  # this shot's time is doubled (1.26)

    def __post_init__(self) -> None:
        if not (math.isfinite(self.limit_s) and self.limit_s > 0.0):
            raise ValueError(f"limit_s must be a finite number > 0, got {self.limit_s!r}")
        if not (math.isfinite(self.warning_s) and 0.0 <= self.warning_s < self.limit_s):
            raise ValueError(f"warning_s must be within [0, limit_s={self.limit_s}), got {self.warning_s!r}")
        if self.extensions_left < 0:
            raise ValueError(f"extensions_left must be >= 0, got {self.extensions_left!r}")

    @classmethod
    def for_frame(cls, deciding: bool, limit_s: float = LIMIT_S, warning_s: float = WARNING_S) -> ShotClock:
        """A player's clock at the start of a frame: one extension, two in the deciding frame (1.26)."""
        n = EXTENSIONS_DECIDING_FRAME if deciding else EXTENSIONS_PER_FRAME
        return cls(limit_s=limit_s, warning_s=warning_s, extensions_left=n)

    @property
    def time_s(self) -> float:
        """Time allowed for this shot: the limit, doubled when extended (1.26)."""
        return 2.0 * self.limit_s if self.extended else self.limit_s

    @property
    def warning_at_s(self) -> float:
        """Elapsed time at which the referee announces the last warning_s (1.26)."""
        return self.time_s - self.warning_s

    def status(self, elapsed_s: float) -> ClockStatus:
        """OK, WARNING (warning_s or less left) or OVERRUN (past the time: a foul, 1.26).

        `elapsed_s` counts from the end of the previous shot (1.26).
        """
        _check_elapsed(elapsed_s)
        if elapsed_s > self.time_s:
            return ClockStatus.OVERRUN
        if elapsed_s >= self.warning_at_s:
            return ClockStatus.WARNING
        return ClockStatus.OK

    def remaining(self, elapsed_s: float) -> float:
        """Seconds left for this shot at elapsed_s, never below 0."""
        _check_elapsed(elapsed_s)
        return max(0.0, self.time_s - elapsed_s)

    def with_extension(self, elapsed_s: float | None = None) -> ShotClock:
        """This shot with its time doubled, one extension used (1.26).

        Raises ValueError when no extension is left in the frame, this shot is already extended, or, given
        the time the player asked at, the time had already run out (1.26: the extension is asked in time).
        """
        if elapsed_s is not None and self.status(elapsed_s) is ClockStatus.OVERRUN:
            raise ValueError(f"extension asked at {elapsed_s:g} s, after the {self.time_s:g} s ran out (1.26)")
        if self.extended:
            raise ValueError("this shot is already extended: one extension per shot (1.26)")
        if self.extensions_left <= 0:
            raise ValueError("no extension left in this frame (1.26)")
        return replace(self, extended=True, extensions_left=self.extensions_left - 1)

    def next_shot(self) -> ShotClock:
        """The clock for the player's next shot in the same frame: base time, extensions kept."""
        return replace(self, extended=False)


def _check_elapsed(elapsed_s: float) -> None:
    if not (math.isfinite(elapsed_s) and elapsed_s >= 0.0):
        raise ValueError(f"elapsed_s must be a finite number >= 0, got {elapsed_s!r}")
