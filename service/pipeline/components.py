"""The pipeline's stages: the one place that binds calibration, vision and events to the analyze loop.

The loop in `service.pipeline.run` only sees the small protocols below.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from calibration.auto import calibrate_image
from calibration.camera import CameraModel
from calibration.result import Calibration, CalibrationError
from calibration.table import Table
from rules.events import Event
from vision import pipeline as vision_pipeline
from vision.events import EventDetector
from vision.types import BallStates


class Perception(Protocol):
    """Frame in, every ball's state out: detection + tracking (+ calibration monitoring)."""

    def update(self, image: np.ndarray, frame: int, t: float) -> BallStates: ...


class EventDetectorLike(Protocol):
    def update(self, states: BallStates) -> list[Event]: ...

    def flush(self) -> list[Event]: ...


@dataclass(frozen=True)
class CalibrationView:
    """What the service needs of a calibration: the camera, the table, and where it came from."""

    camera: CameraModel
    table: Table
    source: str  # "file:<path>", "auto", "truth"
    native: Any = None  # the calibration package's own object, handed back to vision


# --- calibration ------------------------------------------------------------------------------------
class CalibrationFailed(ValueError):
    """Automatic calibration found no table; the message says what failed and what to do."""


def load_calibration(path: Path, table: Table) -> CalibrationView:
    """A calibration file: the calibration package's own format (`pyramid-calibration/1`), or any JSON
    with a `camera` dict (a truth.json qualifies)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"calibration file {path}: cannot read JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ValueError(f"calibration file {path}: expected a JSON object, got {type(data).__name__}")
    if data.get("format") == "pyramid-calibration/1":
        try:
            native = Calibration.from_dict(data)
        except (CalibrationError, ValueError, KeyError, TypeError) as exc:  # the package's message names it
            raise ValueError(f"calibration file {path}: {exc}") from exc
        return CalibrationView(native.camera, table, f"file:{path}", native)
    try:
        camera = CameraModel.from_dict(data.get("camera", data))
    except (ValueError, TypeError) as exc:
        raise ValueError(f"calibration file {path}: no usable camera model ({exc})") from exc
    return CalibrationView(camera, table, f"file:{path}")


def auto_calibrate(image: np.ndarray, table: Table) -> CalibrationView:
    """Find the table in a frame and fit the camera (calibration.auto)."""
    try:
        native = calibrate_image(image, table, table.spec.name)
    except CalibrationError as exc:
        raise CalibrationFailed(f"automatic calibration found no table in the first frame: {exc}; make a calibration "
                                "file by hand (`pyramid-monitor calibrate VIDEO --corners x1,y1,...,x4,y4`, the bed "
                                "corners in pixels) and give it with --calibration FILE") from exc
    return CalibrationView(native.camera, table, "auto", native)


# --- vision -----------------------------------------------------------------------------------------
def make_perception(cal: CalibrationView, fps: float,
                    positions: dict[str, tuple[float, float]] | None = None) -> Perception:
    """Detector + tracker for one video, bound to its calibration; `positions` (ball id -> mm at the first
    frame) names the balls when the recording starts from a known position."""
    camera = cal.native if cal.native is not None else cal.camera
    return vision_pipeline.make_perception(camera, cal.table, fps, initial_positions=positions)


def make_event_detector(table: Table, fps: float) -> EventDetectorLike:
    """The event layer, with the noise model of the tracker that feeds it (vision.pipeline.event_settings)."""
    return EventDetector(table, fps, vision_pipeline.event_settings())
