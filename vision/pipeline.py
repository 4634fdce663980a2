"""Driving the tracker from a frame source, and the factory the service's analyze pipeline calls."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from calibration.camera import CameraModel
from calibration.table import Table
from vision.source import FrameSource
from vision.tracker import BallTracker
from vision.types import BallStates


def camera_of(calibration: Any) -> CameraModel:
    """A CameraModel, or the calibration package's object holding one as `.camera`."""
    if isinstance(calibration, CameraModel):
        return calibration
    cam = getattr(calibration, "camera", None)
    if isinstance(cam, CameraModel):
        return cam
    raise TypeError(f"expected a CameraModel or an object with a .camera CameraModel, got {type(calibration)}")


class Perception:
    """The service's view of vision: `update(image, frame, t) -> BallStates`."""

    def __init__(self, calibration: Any, table: Table, fps: float) -> None:
        self.fps = fps
        self.tracker = BallTracker(camera_of(calibration), table)

    def update(self, image: np.ndarray, frame: int, t: float) -> BallStates:
        states = self.tracker.update(image, t)
        states.frame = frame
        return states


def make_perception(calibration: Any, table: Table, fps: float) -> Perception:
    return Perception(calibration, table, fps)


def track_source(source: FrameSource, tracker: BallTracker) -> Iterator[BallStates]:
    """One BallStates per frame of the source; ends when the source ends (check `source.error`)."""
    for fr in source:
        states = tracker.update(fr.image, fr.t)
        states.frame = fr.index
        yield states
