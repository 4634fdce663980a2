"""A decoded frame as the analysis loop uses it: converted to BGR only when a picture needs it; ball pixels."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from service.pipeline.components import CalibrationView
from service.pipeline.video import is_i420
from vision.source import bgr_of, small_bgr
from vision.types import BallState


class LazyBGR:
    """The BGR picture of a frame, converted from I420 at most once and only when asked for."""

    def __init__(self, image: np.ndarray) -> None:
        self._image, self._bgr = image, None if is_i420(image) else image

    def __call__(self) -> np.ndarray:
        if self._bgr is None:
            self._bgr = bgr_of(self._image)  # I420 or the decoder's planes (a YUVFrame)
        return self._bgr

    def small_for(self, width: int) -> Callable[[], np.ndarray]:
        """A picture about `width` px wide, when called: the full one when it was made anyway, else one
        converted from shrunk planes (a strip picture does not need a whole 1080p frame converted)."""
        return lambda: self._bgr if self._bgr is not None else small_bgr(self._image, width)


def project(cal: CalibrationView, states: Any) -> dict[str, tuple[float, float]]:
    """Pixel position of every ball still in play with a known position."""
    st = states.state  # integer comparisons: np.isin over enum members costs more than the projection
    mask = (st != int(BallState.POTTED)) & (st != int(BallState.OFF_TABLE)) & (st != int(BallState.UNKNOWN))
    mask &= np.isfinite(states.xy_mm).all(axis=1)
    if not mask.any():
        return {}
    xyz = np.hstack([states.xy_mm[mask], np.full((int(mask.sum()), 1), cal.table.ball_radius)])
    px = cal.camera.project(xyz)
    ids = [b for b, m in zip(states.ids, mask, strict=True) if m]
    return {b: (float(p[0]), float(p[1])) for b, p in zip(ids, px, strict=True)}
