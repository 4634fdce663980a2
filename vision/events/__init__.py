"""The event layer of vision: ball tracks (BallStates per frame) in, the rules.events stream out.

One idea per module: `settings` (thresholds), `history` (frame buffer), `fit` (line fits), `motion`
(rest/moving per ball), `kink` (velocity changes), `contacts`, `cushions`, `lines`, `pots`, `shots`
(start/end payloads, push geometry), `strokes` (a ball struck while moving), `clusters` (impulses through
touching balls), `output` (ordered release) and `detector` (EventDetector, the incremental driver).
"""

from __future__ import annotations

from collections.abc import Iterable

from calibration.table import Table
from rules.events import Event
from vision.events.detector import EventDetector, ShotPhase
from vision.events.settings import EventSettings
from vision.types import BallStates

__all__ = ["EventDetector", "EventSettings", "ShotPhase", "detect_events"]


def detect_events(
    table: Table, fps: float, frames: Iterable[BallStates], settings: EventSettings | None = None
) -> list[Event]:
    """Run a detector over a whole stream: every event, in the order emitted."""
    det: EventDetector | None = None
    out: list[Event] = []
    for states in frames:
        if det is None:
            det = EventDetector(table, fps, settings, states.ids)
        out.extend(det.update(states))
    if det is not None:
        out.extend(det.flush())
    return out
