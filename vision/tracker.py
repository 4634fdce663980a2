"""`BallTracker`: frames in, `BallStates` out: the detector and the track set driven frame by frame."""

from __future__ import annotations

import numpy as np

from calibration.camera import CameraModel
from calibration.table import Table
from rules.events import BALL_IDS
from vision.detect import BallDetector, DetectorConfig
from vision.track import TrackerConfig, TrackSet
from vision.types import BallState, BallStates, Detections


class BallTracker:
    """Detection + tracking for one fixed camera. `update(frame, t)` takes BGR or I420 frames."""

    def __init__(
        self,
        camera: CameraModel,
        table: Table,
        ids: tuple[str, ...] = BALL_IDS,
        initial_positions: dict[str, tuple[float, float]] | None = None,
        detector_config: DetectorConfig | None = None,
        tracker_config: TrackerConfig | None = None,
    ) -> None:
        self.detector = BallDetector(camera, table, detector_config)
        self.tracks = TrackSet(table, ids, initial_positions, tracker_config)
        self.last_detections: Detections = Detections.empty()
        # the occluders of the last frame the detector measured: a quiet frame reuses the detections and
        # leaves its own occluder mask empty, but the arm is still where it was
        self._occluders = self.detector.occluder_mask.copy()

    def update(self, frame: np.ndarray, t: float) -> BallStates:
        live = [tr for tr in self.tracks.tracks.values() if tr.in_play]
        hints = np.array([tr.xy for tr in live]).reshape(-1, 2)
        calm = self.tracks.t is not None and all(tr.state != BallState.MOVING for tr in live)
        moving = np.array([tr.xy for tr in live if tr.state == BallState.MOVING]).reshape(-1, 2)
        dets = self.detector.detect(frame, hints_mm=hints, allow_skip=calm, moving_mm=moving)
        if not (len(dets) and np.array_equal(dets.xy_mm, self.last_detections.xy_mm)):
            np.copyto(self._occluders, self.detector.occluder_mask)
        self.last_detections = dets
        return self.tracks.step(dets, t, self._occluded)

    def set_positions(self, positions: dict[str, tuple[float, float]], id_conf: float = 0.9) -> None:
        """Ball identities from the rules engine or the referee (a stated position, a re-rack): the ball
        resting at a stated place takes that id; a stated ball not seen there is put there."""
        self.tracks.set_positions(positions, id_conf)

    def expect_spotted(self, positions: dict[str, tuple[float, float]], id_conf: float = 0.9) -> None:
        """Balls the rules engine spots (1.25): the ball that comes to rest on the spot takes that id."""
        self.tracks.expect_spotted(positions, id_conf)

    def take_off(self, balls: list[str]) -> None:
        """Balls the referee takes off the table (a penalty ball, 1.16): they leave play and never revive alone."""
        self.tracks.take_off(balls)

    def clear_expected(self) -> None:
        """A new shot began: forget spots still empty."""
        self.tracks.clear_expected()

    def _occluded(self, xy_mm: np.ndarray) -> bool:
        """Is this table point under an arm or a cue (or next to one, within a ball radius)?"""
        det = self.detector
        u, v = det.rect.to_px(np.asarray(xy_mm, dtype=float).reshape(1, 2))[0]
        r = int(np.ceil(det.r_px * 1.5))
        iu, iv = round(u), round(v)
        patch = self._occluders[max(iv - r, 0) : iv + r + 1, max(iu - r, 0) : iu + r + 1]
        return bool(patch.size and patch.any())
