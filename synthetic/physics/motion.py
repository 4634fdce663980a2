"""Free motion between collisions, in closed form (the published sliding/rolling/spinning model).

Sliding: the contact-point velocity u = v + w x (-R z) keeps its direction and shrinks at 7/2 mu_s g, so
the ball slides for 2|u| / (7 mu_s g) and then rolls. Rolling: v shrinks at mu_r g along itself. The z spin
shrinks at 5 mu_sp g / (2 R). A ball in the air follows a parabola. Callers never step past the next
transition time of a ball (see `transition_times`), so each step uses one formula per ball.
"""

from __future__ import annotations

import numpy as np

from synthetic.physics.params import Motion, PhysicsParams

_STAT, _SPIN, _ROLL, _SLIDE, _AIR = (
    int(Motion.STATIONARY),
    int(Motion.SPINNING),
    int(Motion.ROLLING),
    int(Motion.SLIDING),
    int(Motion.AIRBORNE),
)
_EPS_U = 1e-6  # mm/s: below this the contact point is taken as not slipping
_EPS_V = 1e-6  # mm/s
_EPS_W = 1e-7  # rad/s


def contact_velocity(vel: np.ndarray, w: np.ndarray, R: float) -> np.ndarray:
    """Velocity (k, 2) of the cloth contact point of balls with velocities vel (k, 3) and spins w (k, 3)."""
    return np.stack([vel[:, 0] - R * w[:, 1], vel[:, 1] + R * w[:, 0]], axis=1)


def classify(pos: np.ndarray, vel: np.ndarray, w: np.ndarray, mode: np.ndarray, R: float) -> None:
    """Update `mode` in place for balls in play, snapping numerically finished transitions to exact rest."""
    live = mode <= _AIR
    if not live.any():
        return
    idx = np.flatnonzero(live)
    air = (pos[idx, 2] > R + 1e-6) | (vel[idx, 2] > 1e-9)
    u = contact_velocity(vel[idx], w[idx], R)
    un = np.hypot(u[:, 0], u[:, 1])
    sp = np.hypot(vel[idx, 0], vel[idx, 1])
    new = np.full(len(idx), _STAT, dtype=np.int8)
    new[np.abs(w[idx, 2]) > _EPS_W] = _SPIN
    roll = sp > _EPS_V
    new[roll] = _ROLL
    slide = un > max(_EPS_U, 0.0)
    new[slide] = _SLIDE
    new[air] = _AIR
    mode[idx] = new
    bed = idx[~air]
    pos[bed, 2] = R
    vel[bed, 2] = 0.0
    rolling = bed[new[~air] <= _ROLL]
    # no slip: make w consistent with v exactly (removes the tiny residue left at the transition)
    w[rolling, 0] = -vel[rolling, 1] / R
    w[rolling, 1] = vel[rolling, 0] / R
    still = bed[new[~air] <= _SPIN]
    vel[still] = 0.0
    w[still, :2] = 0.0
    w[bed[new[~air] == _STAT], 2] = 0.0


def transition_times(
    pos: np.ndarray, vel: np.ndarray, w: np.ndarray, mode: np.ndarray, R: float, p: PhysicsParams
) -> np.ndarray:
    """Time (s) until each ball's motion formula changes; inf for balls at rest or out of play."""
    out = np.full(len(mode), np.inf)
    g = p.g
    a_sp = 5.0 * p.mu_spin * g / (2.0 * R)
    on_bed = (mode >= _SPIN) & (mode <= _SLIDE)
    spin = on_bed & (np.abs(w[:, 2]) > 0)
    out[spin] = np.abs(w[spin, 2]) / a_sp
    s = mode == _SLIDE
    if s.any():
        u = contact_velocity(vel[s], w[s], R)
        out[s] = np.minimum(out[s], 2.0 * np.hypot(u[:, 0], u[:, 1]) / (7.0 * p.mu_slide * g))
    r = mode == _ROLL
    if r.any():
        out[r] = np.minimum(out[r], np.hypot(vel[r, 0], vel[r, 1]) / (p.mu_roll * g))
    a = mode == _AIR
    if a.any():
        vz, h = vel[a, 2], pos[a, 2] - R
        out[a] = (vz + np.sqrt(vz * vz + 2.0 * g * np.maximum(h, 0.0))) / g
    return out


def advance(
    pos: np.ndarray, vel: np.ndarray, w: np.ndarray, mode: np.ndarray, h: float, R: float, p: PhysicsParams
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """State after h seconds of free motion (h must not pass any ball's transition time)."""
    pos, vel, w = pos.copy(), vel.copy(), w.copy()
    g = p.g
    a = mode == _AIR
    if a.any():
        pos[a] += vel[a] * h
        pos[a, 2] -= 0.5 * g * h * h
        vel[a, 2] -= g * h
    s = mode == _SLIDE
    if s.any():
        u = contact_velocity(vel[s], w[s], R)
        uhat = u / np.hypot(u[:, 0], u[:, 1])[:, None]
        acc = p.mu_slide * g
        pos[s, :2] += vel[s, :2] * h - 0.5 * acc * h * h * uhat
        vel[s, :2] -= acc * h * uhat
        k = 2.5 / R * acc * h  # torque of the friction force: dw = (r x F) / I
        w[s, 0] -= k * uhat[:, 1]
        w[s, 1] += k * uhat[:, 0]
    r = mode == _ROLL
    if r.any():
        sp = np.hypot(vel[r, 0], vel[r, 1])
        vhat = vel[r, :2] / sp[:, None]
        acc = p.mu_roll * g
        pos[r, :2] += vel[r, :2] * h - 0.5 * acc * h * h * vhat
        vel[r, :2] -= acc * h * vhat
        w[r, 0] = -vel[r, 1] / R
        w[r, 1] = vel[r, 0] / R
    bed = (mode >= _SPIN) & (mode <= _SLIDE)
    if bed.any():
        dw = 5.0 * p.mu_spin * g / (2.0 * R) * h
        wz = w[bed, 2]
        w[bed, 2] = np.sign(wz) * np.maximum(np.abs(wz) - dw, 0.0)
    return pos, vel, w


def rest_distance_rolling(v0: float, p: PhysicsParams) -> float:
    """Distance (mm) a purely rolling ball at v0 mm/s covers before it stops: v0^2 / (2 mu_r g)."""
    return v0 * v0 / (2.0 * p.mu_roll * p.g)
