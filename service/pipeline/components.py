"""The pipeline's stages and the one place that knows where each colleague's component lives.

The loop in `service.pipeline.run` only sees the small protocols below. Each factory imports its component
lazily; a component that has not landed raises `ComponentMissing` naming the module it needs, so the
failure is clear and the call site stays.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from calibration.camera import CameraModel
from calibration.table import Table
from rules.events import Event
from vision.types import BallStates


class ComponentMissing(RuntimeError):
    """A stage's implementation is not available in this checkout."""


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


def _import(module: str, what: str) -> Any:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            raise ComponentMissing(f"{what} is not available: module {module!r} is missing ({exc})") from exc
        raise


def _attr(module: str, names: tuple[str, ...], what: str) -> Any:
    mod = _import(module, what)
    for name in names:
        if hasattr(mod, name):
            return getattr(mod, name)
    raise ComponentMissing(f"{what} is not available: {module} defines none of {names}")


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
        cal_cls = _attr("calibration.result", ("Calibration",), "calibration files")
        try:
            native = cal_cls.from_dict(data)
        except Exception as exc:  # CalibrationError: the package's own message names the problem
            raise ValueError(f"calibration file {path}: {exc}") from exc
        return CalibrationView(native.camera, table, f"file:{path}", native)
    try:
        camera = CameraModel.from_dict(data.get("camera", data))
    except (ValueError, TypeError) as exc:
        raise ValueError(f"calibration file {path}: no usable camera model ({exc})") from exc
    return CalibrationView(camera, table, f"file:{path}")


def auto_calibrate(image: np.ndarray, table: Table) -> CalibrationView:
    """Find the table in a frame and fit the camera (calibration.auto)."""
    fn = _attr("calibration.auto", ("calibrate_image", "calibrate"), "automatic calibration")
    try:
        native = fn(image, table, table.spec.name)
    except Exception as exc:
        if type(exc).__name__ != "CalibrationError":
            raise
        raise CalibrationFailed(f"automatic calibration failed: {exc}; give --calibration FILE") from exc
    return CalibrationView(native.camera, table, "auto", native)


# --- vision -----------------------------------------------------------------------------------------
def make_perception(cal: CalibrationView, fps: float,
                    positions: dict[str, tuple[float, float]] | None = None) -> Perception:
    """Detector + tracker for one video, bound to its calibration; `positions` (ball id -> mm at the first
    frame) names the balls when the recording starts from a known position."""
    factory = _attr("vision.pipeline", ("make_perception", "Perception"), "ball detection and tracking")
    camera = cal.native if cal.native is not None else cal.camera
    return factory(camera, cal.table, fps, initial_positions=positions)  # type: ignore[no-any-return]


def make_event_detector(table: Table, fps: float) -> EventDetectorLike:
    try:
        cls = _attr("vision.events", ("EventDetector",), "event detection")
    except ComponentMissing:
        cls = _attr("vision.events.detector", ("EventDetector",), "event detection")
    return cls(table, fps)  # type: ignore[no-any-return]
