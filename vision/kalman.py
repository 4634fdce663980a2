"""Constant-velocity Kalman filter for one ball in table mm (filterpy), with two process-noise levels.

State x = [x, y, vx, vy] (mm, mm/s); measurement z = [x, y] (mm).
    predict:  x = F x,            P = F P F' + Q
    update:   y = z - H x,        S = H P H' + R,   K = P H' S^-1
              x = x + K y,        P = (I - K H) P
A resting ball gets a tiny Q (it does not move unless struck); a rolling ball gets white-noise acceleration
large enough for cloth friction and swerve. Collisions are not noise: they are handled by re-seeding the
filter from the measurement (see `reseed`), so the filter never clings to the velocity before a contact.
"""

from __future__ import annotations

import functools

import numpy as np
from filterpy.kalman import KalmanFilter

Q_ACC_MOVING = 6000.0  # mm/s^2, std of unmodelled acceleration of a rolling ball
Q_ACC_RESTING = 30.0
R_MM = 1.5  # std of a detection, mm


@functools.lru_cache(maxsize=64)  # dt is one frame interval nearly always: made once, read-only
def transition(dt: float) -> np.ndarray:
    """F for the constant-velocity model over dt seconds."""
    f = np.array([[1, 0, dt, 0], [0, 1, 0, dt], [0, 0, 1, 0], [0, 0, 0, 1]], dtype=float)
    f.flags.writeable = False
    return f


@functools.lru_cache(maxsize=64)
def process_noise(dt: float, q_acc: float) -> np.ndarray:
    """Q for white-noise acceleration of std q_acc: per axis q^2 [[dt^4/4, dt^3/2], [dt^3/2, dt^2]]."""
    q = q_acc * q_acc
    a, b, c = dt**4 / 4.0, dt**3 / 2.0, dt**2
    out = q * np.array([[a, 0, b, 0], [0, a, 0, b], [b, 0, c, 0], [0, b, 0, c]], dtype=float)
    out.flags.writeable = False
    return out


def make_filter(xy: np.ndarray, vel: np.ndarray | None = None, r_mm: float = R_MM) -> KalmanFilter:
    """A filter at position xy (mm) with velocity vel (mm/s, default rest)."""
    kf = KalmanFilter(dim_x=4, dim_z=2)
    kf.x = np.array([xy[0], xy[1], 0.0, 0.0], dtype=float).reshape(4, 1)
    if vel is not None:
        kf.x[2:, 0] = vel
    kf.H = np.array([[1, 0, 0, 0], [0, 1, 0, 0]], dtype=float)
    kf.R = np.eye(2) * r_mm * r_mm
    kf.P = np.diag([r_mm**2, r_mm**2, 300.0**2, 300.0**2])
    return kf


def predict(kf: KalmanFilter, dt: float, moving: bool) -> None:
    """x = F x, P = F P F' + Q with the noise level of the ball's motion state."""
    kf.F = transition(dt)
    kf.Q = process_noise(dt, Q_ACC_MOVING if moving else Q_ACC_RESTING)
    kf.predict()


def reseed(kf: KalmanFilter, xy: np.ndarray, vel: np.ndarray, vel_std: float) -> None:
    """Restart the filter at a measured position with a new velocity (after a contact or a cushion)."""
    r2 = float(kf.R[0, 0])
    kf.x = np.array([xy[0], xy[1], vel[0], vel[1]], dtype=float).reshape(4, 1)
    kf.P = np.diag([r2, r2, vel_std**2, vel_std**2])


def innovation_std(kf: KalmanFilter) -> float:
    """Isotropic std (mm) of the predicted measurement: sqrt(trace(S) / 2), S = H P H' + R.

    H picks the position, so trace(H P H') = P[0, 0] + P[1, 1] (no matrix products per call)."""
    P, R = kf.P, kf.R
    return float(np.sqrt((P[0, 0] + P[1, 1] + R[0, 0] + R[1, 1]) / 2.0))
