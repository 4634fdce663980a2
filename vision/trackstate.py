"""One ball's track (`Track`), the tracker's settings (`TrackerConfig`), and the steps that touch one track
alone: the Kalman position update, holding an unseen ball in place, and the moving / stationary hysteresis.

`vision.track.TrackSet` owns the tracks and decides which step each one takes in a frame.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from filterpy.kalman import KalmanFilter

from vision import kalman
from vision.types import BallState

Occluded = Callable[[np.ndarray], bool]  # table mm -> is that point under an occluder

_EYE4 = np.eye(4)
COVERED_SHIFT_R = 4.0 / (3.0 * np.pi)  # centroid of a half disc, in radii (see TrackerConfig.covered_shift_r)


@dataclass
class TrackerConfig:
    """The tracker's thresholds and costs (mm, seconds, frames)."""

    move_speed_mm_s: float = 60.0  # filtered speed above this: moving
    start_disp_mm: float = 4.0  # a resting ball displaced this far from its rest point: moving
    rest_disp_mm: float = 2.0  # displacement over `rest_frames` below this: stopping
    rest_frames: int = 6
    spin_diff: float = 9.0  # mean abs grey difference of the ball's texture between frames: spinning
    lost_frames: int = 2  # misses before a vanished ball is potted / off the table / hidden
    vmax_mm_s: float = 12000.0
    class_penalty: float = 8.0
    revive_frames: int = 15  # an unclaimed detection must stay put this long to bring a ball back
    # a stated position (spotted ball, referee) names the resting track this near it; under 2R, so it can
    # never name a neighbour (the engine spots onto a free place)
    spot_tol_mm: float = 50.0
    spot_frames: int = 5  # on a spot a verdict named, a ball (not a hand: that is an occluder) comes back sooner
    # a track may stay unmatched at this cost (a negative log-likelihood like the pair costs): above a pair
    # at its gate edge (9) on the wide hypothesis (6) with the wrong class (class_penalty), so a lone track
    # keeps every detection it gates; but one poor pair no longer buys a second poor pair that pushes a
    # neighbour off its own detection (a hidden ball taking a struck ball while the struck ball takes a hand)
    miss_cost: float = 30.0
    # a track read as the other class (coloured vs ivory, by the learnt chroma) this long without a break holds
    # the other ball: a single misread (blur, a shadow) lasts a frame or two, a swapped identity lasts
    recolour_s: float = 0.25
    # a hidden resting ball whose place has been in clear view (no occluder) this long with nothing detected
    # there was taken off by hand (a penalty ball, a ball in hand): a ball in view is missed for a frame or
    # two at most (a merged blob, a shadow). Left hidden, such a ghost takes the next hand or cue tip it can
    # reach as a ball struck at 12 m/s
    lift_s: float = 1.0
    # a ball at rest measured under or next to an occluder is still at rest while its centre reads within this
    # many radii of its rest point: the detector keeps a disc at least about half in view (min_fill 0.45), and
    # the centroid of a half disc lies 4 / (3 pi) R from the full disc's centre (COVERED_SHIFT_R). OFF (0) for
    # now: a hand that moves a ball it covers then shows as a ball found moving after it was unseen, which the
    # event layer (at 21d8831) reads as a stroke, not a disturbance (samples foul_ball_touched_by_hand, heldout13
    # frame_dynamic shot 8); the drift of the biased centre read as the disturbance before
    covered_shift_r: float = 0.0


@dataclass
class Track:
    """One ball id's filter, motion state and the bookkeeping of its detections and misses."""

    ball: str
    kf: KalmanFilter
    state: BallState = BallState.UNKNOWN
    # how sure the tracker is that this track still follows the ball it followed (no swap with another): 0..1
    id_conf: float = 0.0
    # whether the ball's number is known (the rack, a stated place, a spot, the colour); False: its id is a label
    # the tracker gave an ivory ball it could not name, kept for as long as it follows that ball
    named: bool = True
    conf: float = 0.0
    misses: int = 0
    still: int = 0
    spin: int = 0
    rest_xy: np.ndarray = field(default_factory=lambda: np.full(2, np.nan))
    history: deque[np.ndarray] = field(default_factory=lambda: deque(maxlen=8))
    patch: np.ndarray | None = None
    prev_xy: np.ndarray = field(default_factory=lambda: np.full(2, np.nan))
    prev_v: np.ndarray = field(default_factory=lambda: np.zeros(2))
    last_z: np.ndarray | None = None  # the last measurement used
    off_colour_since: float | None = None  # time its detections began to read as the other class
    seen_t: float = -np.inf  # time of the last detection it took
    clear_since: float | None = None  # hidden at rest: since when its place has been in clear view
    left_t: float = -np.inf  # time it left play: potted, off the table, found taken off by hand
    hid_speed: float = 0.0  # mm/s, its speed when it went out of view
    removed: bool = False  # taken off by a referee's statement: leaves at its next miss, never revives by itself
    # revived from a reading the learnt colour model called foreign (its colour where the light differs): it may
    # take such readings at rest where it was revived
    odd_colour_xy: np.ndarray | None = None
    own_colour: np.ndarray | None = None  # (Cr, Cb) this ball reads at rest: see identity.foreign_readings
    # detections taken since it last began to move: its speed is only known from the second on (a stroke falls
    # anywhere inside the frame of its first step, so that step's length is a fraction of a frame's travel)
    moving_seen: int = 0

    @property
    def xy(self) -> np.ndarray:
        return self.kf.x[:2, 0].copy()

    @property
    def v(self) -> np.ndarray:
        return self.kf.x[2:, 0].copy()

    @property
    def in_play(self) -> bool:
        return self.state not in (BallState.POTTED, BallState.OFF_TABLE, BallState.UNKNOWN)


def kf_update(kf: KalmanFilter, z: np.ndarray) -> None:
    """filterpy's update (Joseph form) for a position measurement H = [I 0], with the 2x2 innovation inverse
    in closed form: the same numbers without a generic inverse and dot chain per call."""
    P, R = kf.P, kf.R
    s00, s01, s10, s11 = P[0, 0] + R[0, 0], P[0, 1] + R[0, 1], P[1, 0] + R[1, 0], P[1, 1] + R[1, 1]
    det = s00 * s11 - s01 * s10
    si = np.array([[s11, -s01], [-s10, s00]]) / det
    K = P[:, :2] @ si
    kf.x = kf.x + K @ (np.asarray(z, dtype=float).reshape(2, 1) - kf.x[:2])
    ikh = _EYE4.copy()
    ikh[:, :2] -= K
    kf.P = ikh @ P @ ikh.T + K @ R @ K.T


def hold(tr: Track, p: np.ndarray) -> None:
    """Hold an unseen ball at p, at rest, as sure of p as of a detection: unseen, it does not drift
    (a covariance left growing made a hidden ball's gate cover the table within a second)."""
    kalman.reseed(tr.kf, p, np.zeros(2), vel_std=30.0)


def motion_state(tr: Track, spinning: bool, cfg: TrackerConfig) -> None:
    """Moving / stationary with hysteresis after a detection: a moving ball comes to rest after `rest_frames`
    calm frames; a resting one moves when displaced from its rest point, fast, or spinning on the spot."""
    speed = float(np.hypot(*tr.v))
    tr.spin = tr.spin + 1 if spinning else 0
    if tr.state == BallState.MOVING:
        old = tr.history[0]
        disp = float(np.hypot(*(tr.xy - old)))
        calm = disp < cfg.rest_disp_mm * len(tr.history) / cfg.rest_frames and speed < cfg.move_speed_mm_s
        tr.still = tr.still + 1 if calm and tr.spin == 0 else 0
        if tr.still >= cfg.rest_frames:
            tr.state = BallState.STATIONARY
            tr.rest_xy = tr.xy
            tr.kf.x[2:, 0] = 0.0
    else:
        moved = np.isfinite(tr.rest_xy).all() and float(np.hypot(*(tr.xy - tr.rest_xy))) > cfg.start_disp_mm
        if moved or speed > 2 * cfg.move_speed_mm_s or tr.spin >= 2:
            tr.state, tr.still = BallState.MOVING, 0
        else:
            tr.state = BallState.STATIONARY
            if not np.isfinite(tr.rest_xy).all():
                tr.rest_xy = tr.xy
