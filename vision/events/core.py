"""The state every part of the event detector reads: declared once for the checker (`EventDetector` sets it)."""

from __future__ import annotations

from calibration.table import Table
from vision.events.history import History
from vision.events.motion import MotionTracker
from vision.events.settings import EventSettings


class DetectorCore:
    s: EventSettings
    hist: History
    motion: MotionTracker
    table: Table
    ids: tuple[str, ...]
    fps: float
    R: float  # ball radius, mm
