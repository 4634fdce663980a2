"""Re-checking the calibration during a match: has the camera been bumped?

Cheap by design (vision calls it on every frame): only every `check_every`-th frame is looked at, on a
grey copy downscaled to `scale`; in thin bands around the cushion lines, the edge map is compared with the
one from the reference frame by normalised cross-correlation, side by side. The median over the four sides
ignores a side hidden by a player. Two failing checks in a row mean the view moved: at 60 fps and
check_every = 10, a bump is reported within 20-30 frames.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from calibration.result import Calibration, CalibrationError, CalibrationStatus

Recalibrate = Callable[[np.ndarray], Calibration]


class CalibrationMonitor:
    """Feed frames in order with `update`; read `status` (never silently keeps a moved calibration)."""

    def __init__(
        self,
        calibration: Calibration,
        check_every: int = 10,
        scale: float = 0.25,
        threshold: float = 0.5,
        confirm: int = 2,
        recalibrate: Recalibrate | None = None,
    ) -> None:
        if check_every < 1 or not 0.05 <= scale <= 1.0:
            raise ValueError(f"check_every must be >= 1 and scale in [0.05, 1], got {check_every}, {scale}")
        self.calibration = calibration
        self.check_every = check_every
        self.scale = scale
        self.threshold = threshold
        self.confirm = confirm
        self.recalibrate = recalibrate
        self.status = CalibrationStatus.OK
        self.last_score = 1.0
        self.frames_seen = 0
        self._fails = 0
        self._ref: np.ndarray | None = None
        self._bands = self._side_bands(calibration)

    def _side_bands(self, cal: Calibration) -> list[np.ndarray]:
        """Per table side, a boolean mask (downscaled frame) around its bed edge and nose line."""
        w = max(1, round(cal.camera.width * self.scale))
        h = max(1, round(cal.camera.height * self.scale))
        t = cal.table
        hl, hw = t.half_length, t.half_width
        s = np.linspace(0.1, 0.9, 40)
        ends = [((-hl, -hw), (-hl, hw)), ((-hl, hw), (hl, hw)), ((hl, hw), (hl, -hw)), ((hl, -hw), (-hl, -hw))]
        bands = []
        for a, b in ends:
            xy = np.asarray(a)[None, :] * (1 - s[:, None]) + np.asarray(b)[None, :] * s[:, None]
            m = np.zeros((h, w), np.uint8)
            for z in (0.0, t.spec.cushion_nose_height_mm):
                px = cal.to_image(xy, z) * self.scale
                cv2.polylines(m, [np.round(px).astype(np.int32).reshape(-1, 1, 2)], False, 1, 5)
            bands.append(m.astype(bool))
        return bands

    def _edges(self, frame: np.ndarray) -> np.ndarray:
        small = cv2.resize(frame, self._bands[0].shape[::-1], interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
        grey = cv2.GaussianBlur(grey.astype(np.float32), (3, 3), 0)
        out: np.ndarray = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
        return out

    def score(self, frame: np.ndarray) -> float:
        """Median over the sides of the edge-map correlation with the reference (1: unchanged)."""
        if self._ref is None:
            self._ref = self._edges(frame)
            return 1.0
        cur = self._edges(frame)
        vals = []
        for band in self._bands:
            a, b = self._ref[band], cur[band]
            a, b = a - a.mean(), b - b.mean()
            den = float(np.sqrt((a * a).sum() * (b * b).sum()))
            vals.append(float((a * b).sum()) / den if den > 0 else 0.0)
        return float(np.median(vals))

    def update(self, frame: np.ndarray) -> CalibrationStatus:
        """One frame of the match; the first frame seen is the reference view."""
        self.frames_seen += 1
        if self._ref is not None and (self.frames_seen - 1) % self.check_every:
            return self.status
        if self.status is CalibrationStatus.BUMPED and self.recalibrate is None:
            return self.status  # stays reported until someone re-calibrates
        self.last_score = self.score(frame)
        self._fails = self._fails + 1 if self.last_score < self.threshold else 0
        if self._fails < self.confirm:
            if self.status is CalibrationStatus.RECALIBRATED:
                self.status = CalibrationStatus.OK
            return self.status
        self.status = CalibrationStatus.BUMPED
        if self.recalibrate is not None:
            try:
                self.reset(self.recalibrate(frame), frame)
                self.status = CalibrationStatus.RECALIBRATED
            except CalibrationError:
                pass
        return self.status

    def reset(self, calibration: Calibration, frame: np.ndarray | None = None) -> None:
        """Adopt a new calibration (and its frame as the reference view)."""
        self.calibration = calibration
        self._bands = self._side_bands(calibration)
        self._ref = None if frame is None else self._edges(frame)
        self._fails = 0
        self.status = CalibrationStatus.OK
