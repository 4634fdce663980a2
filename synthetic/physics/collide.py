"""Finding the first contact within a step, and resolving contacts as instantaneous impulses.

Within one step (<= 1 ms) each centre moves along the chord between its start and end positions (the
parabolic sag is below 1 um), so contact times come from quadratics on the chords. Touching bodies that
approach (a frozen ball, a rack) give a contact at s = 0; resolving them one pair at a time, again and
again at the same instant, spreads the impulse through a cluster (the break).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from synthetic.physics.geometry import TableGeometry
from synthetic.physics.params import PhysicsParams

_TOUCH = 1e-6  # mm: bodies closer than contact + this count as touching
SLOW_CONTACT = 5.0  # mm/s
SEPARATE = 1e-3  # mm
_EDGE = 40.0  # mm: more than a step's travel at 30 m/s


class Kind(StrEnum):
    BALL = "ball"
    CUSHION = "cushion"
    JAW = "jaw"
    POT = "pot"
    OFF = "off"


@dataclass(frozen=True)
class Hit:
    """The first contact in a step: at fraction s of the step, ball i with ball/segment/jaw/pocket j."""

    s: float
    kind: Kind
    i: int
    j: int


def _first_root(c: np.ndarray, b: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Smallest s in [0, 1] with a s^2 + 2 b s + c = 0 for closing distances (b < 0), else inf."""
    out = np.full(c.shape, np.inf)
    disc = b * b - a * c
    ok = (b < 0) & (a > 0) & (disc >= 0) & (c > 0)
    s = np.where(ok, (-b - np.sqrt(np.maximum(disc, 0.0))) / np.where(a > 0, a, 1.0), np.inf)
    out[ok & (s <= 1.0)] = s[ok & (s <= 1.0)]
    return out


def find_first(
    geo: TableGeometry,
    pos0: np.ndarray,
    pos1: np.ndarray,
    vel: np.ndarray,
    live: np.ndarray,
    moving: np.ndarray,
    pi: np.ndarray,
    pj: np.ndarray,
) -> Hit | None:
    """The earliest contact between fractions 0 and 1 of a step; `pi, pj` list every ball pair."""
    best: Hit | None = None
    R = geo.R
    D = 2.0 * R
    # --- ball-ball
    m = live[pi] & live[pj] & (moving[pi] | moving[pj])
    if m.any():
        i, j = pi[m], pj[m]
        # contacts are taken in plan with horizontal normals: a ball in the air more than R above or
        # below another passes over it (3D normals let a hopping ball chatter on top of another)
        level = np.abs(pos0[i, 2] - pos0[j, 2]) < R
        i, j = i[level], j[level]
        d0 = pos0[i, :2] - pos0[j, :2]
        dd = (pos1[i, :2] - pos1[j, :2]) - d0
        a = np.einsum("ij,ij->i", dd, dd)
        b = np.einsum("ij,ij->i", d0, dd)
        c = np.einsum("ij,ij->i", d0, d0) - D * D
        s = _first_root(c, b, a)
        vrel = np.einsum("ij,ij->i", vel[i, :2] - vel[j, :2], d0)
        touching = (c <= 2 * D * _TOUCH) & (vrel < -1e-9)
        s[touching] = 0.0
        kb = int(np.argmin(s)) if len(s) else 0
        if len(s) and np.isfinite(s[kb]):
            best = Hit(float(s[kb]), Kind.BALL, int(i[kb]), int(j[kb]))
    # only balls near the edge can meet a cushion, a jaw or a pocket within one step (<= 1 ms)
    near = (np.abs(pos0[:, 0]) > geo.table.half_length - R - _EDGE) | (
        np.abs(pos0[:, 1]) > geo.table.half_width - R - _EDGE
    )
    idx = np.flatnonzero(moving & live & near)
    if len(idx) == 0:
        return best
    p0, p1, v = pos0[idx], pos1[idx], vel[idx]
    reach = geo.reach(p0[:, 2])
    clear = p0[:, 2] - R >= geo.nose_h  # bottom above the nose: passes over the cushion
    # --- cushion noses
    rel0 = p0[:, None, :2] - geo.seg_a[None]
    rel1 = p1[:, None, :2] - geo.seg_a[None]
    d0 = np.einsum("kcd,cd->kc", rel0, geo.seg_n)
    d1 = np.einsum("kcd,cd->kc", rel1, geo.seg_n)
    along0 = np.einsum("kcd,cd->kc", rel0, geo.seg_t)
    along1 = np.einsum("kcd,cd->kc", rel1, geo.seg_t)
    rr = reach[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where((d0 > rr) & (d1 <= rr), (d0 - rr) / (d0 - d1), np.inf)
    vn = v[:, :2] @ geo.seg_n.T
    touch = (np.abs(d0 - rr) <= _TOUCH) & (vn < -1e-9)
    s = np.where(touch, 0.0, s)
    s_c = np.clip(np.where(np.isfinite(s), s, 0.0), 0.0, 1.0)
    along = along0 + s_c * (along1 - along0)
    s = np.where((along >= 0) & (along <= geo.seg_len[None]) & ~clear[:, None], s, np.inf)
    best = _better(best, s, Kind.CUSHION, idx)
    # --- jaw points (the rounded ends of the noses)
    q0 = p0[:, None, :2] - geo.jaw_xy[None]
    dq = (p1[:, None, :2] - p0[:, None, :2]) + np.zeros_like(q0)
    a = np.einsum("kjd,kjd->kj", dq, dq)
    b = np.einsum("kjd,kjd->kj", q0, dq)
    c = np.einsum("kjd,kjd->kj", q0, q0) - rr**2
    s = _first_root(c, b, a)
    vq = np.einsum("kjd,kd->kj", q0, v[:, :2])
    s = np.where((np.abs(c) <= 2 * R * _TOUCH) & (vq < -1e-9), 0.0, s)
    s[clear] = np.inf
    best = _better(best, s, Kind.JAW, idx)
    # --- pocket mouths: a centre that passes the mouth line between the jaws drops
    m0 = p0[:, None, :2] - geo.mouth_c[None]
    m1 = p1[:, None, :2] - geo.mouth_c[None]
    dep0 = np.einsum("kpd,pd->kp", m0, geo.mouth_out)
    dep1 = np.einsum("kpd,pd->kp", m1, geo.mouth_out)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where((dep0 < 0) & (dep1 >= 0), -dep0 / (dep1 - dep0), np.inf)
    lat0 = np.einsum("kpd,pd->kp", m0, geo.mouth_lat)
    lat1 = np.einsum("kpd,pd->kp", m1, geo.mouth_lat)
    s_c = np.clip(np.where(np.isfinite(s), s, 0.0), 0.0, 1.0)
    lat = lat0 + s_c * (lat1 - lat0)
    s = np.where(np.abs(lat) <= geo.mouth_half[None], s, np.inf)
    s[clear] = np.inf  # a ball flying higher than the nose passes over the pocket too
    best = _better(best, s, Kind.POT, idx)
    # --- over the cushion top: off the bed
    hl, hw = geo.table.half_length + geo.outer, geo.table.half_width + geo.outer
    out0 = np.maximum(np.abs(p0[:, 0]) - hl, np.abs(p0[:, 1]) - hw)
    out1 = np.maximum(np.abs(p1[:, 0]) - hl, np.abs(p1[:, 1]) - hw)
    cand = (out0 < 0) & (out1 >= 0)
    if cand.any():
        s_off = np.where(cand, -out0 / np.where(cand, out1 - out0, 1.0), np.inf)
        k2 = int(np.argmin(s_off))
        if best is None or s_off[k2] < best.s:
            best = Hit(float(s_off[k2]), Kind.OFF, int(idx[k2]), -1)
    return best


def _better(best: Hit | None, s: np.ndarray, kind: Kind, idx: np.ndarray) -> Hit | None:
    """The earlier of `best` and the smallest entry of s (rows: balls idx, columns: bodies)."""
    r, c = np.unravel_index(int(np.argmin(s)), s.shape)
    if np.isfinite(s[r, c]) and (best is None or s[r, c] < best.s):
        return Hit(float(s[r, c]), kind, int(idx[r]), int(c))
    return best


def resolve_ball_ball(
    pos: np.ndarray, vel: np.ndarray, w: np.ndarray, i: int, j: int, R: float, p: PhysicsParams
) -> float:
    """Impulse between touching balls i and j (equal masses); returns the closing speed (mm/s)."""
    n = pos[j] - pos[i]
    n[2] = 0.0
    n = n / np.linalg.norm(n)
    # contact point velocities: ball i at +R n, ball j at -R n
    ui = vel[i] + np.cross(w[i], R * n)
    uj = vel[j] + np.cross(w[j], -R * n)
    urel = ui - uj
    un = float(urel @ n)
    if un <= 0.0:
        return 0.0
    # a slow contact (a ball pushing another, a chain of touching balls) is plastic, and the pair is set
    # 1 um apart: bouncing it would re-collide every microsecond
    slow = un < SLOW_CONTACT
    e = 0.0 if slow else p.e_ball
    jn = 0.5 * (1.0 + e) * un  # per unit mass
    ut = urel - un * n
    ut[2] = 0.0  # the balls' contact friction acts in the plane of the bed
    ut_mag = float(np.linalg.norm(ut))
    jt = min(p.mu_ball * jn, ut_mag / 7.0)  # friction limited to stopping the relative slip
    imp = -jn * n  # impulse on i per unit mass
    if ut_mag > 1e-12:
        imp = imp - jt * ut / ut_mag
    vel[i] += imp
    vel[j] -= imp
    dw = np.cross(R * n, imp) * 2.5 / (R * R)  # I = 2/5 m R^2
    w[i] += dw
    w[j] += dw
    if slow:
        gap = 2 * R + SEPARATE - float(np.linalg.norm(pos[j, :2] - pos[i, :2]))
        if gap > 0:
            pos[i, :2] -= 0.5 * gap * n[:2]
            pos[j, :2] += 0.5 * gap * n[:2]
    return un


def resolve_wall(
    pos: np.ndarray,
    vel: np.ndarray,
    w: np.ndarray,
    i: int,
    n_in: np.ndarray,
    geo: TableGeometry,
    p: PhysicsParams,
    jaw: bool = False,
) -> float:
    """Impulse of a cushion nose or jaw on ball i; n_in is the horizontal direction into the bed."""
    R = geo.R
    N = geo.contact_normal(n_in, float(pos[i, 2]))  # from the contact point into the centre
    rc = -R * N
    u = vel[i] + np.cross(w[i], rc)
    un = float(u @ N)
    if un >= 0.0:
        return 0.0
    slow = -un < SLOW_CONTACT
    jn = -(1.0 + (0.0 if slow else p.e_jaw if jaw else p.e_cushion)) * un
    ut = u - un * N
    ut_mag = float(np.linalg.norm(ut))
    imp = jn * N
    if ut_mag > 1e-12:
        imp = imp - min(p.mu_cushion * jn, ut_mag / 3.5) * ut / ut_mag
    vel[i] += imp
    w[i] += np.cross(rc, imp) * 2.5 / (R * R)
    if slow:
        pos[i, :2] += SEPARATE * N[:2] / max(float(np.linalg.norm(N[:2])), 1e-9)
    on_bed = pos[i, 2] <= R + 1e-6
    if on_bed and vel[i, 2] < p.settle_vz:
        vel[i, 2] = 0.0  # the bed takes the downward part and small hops
    return -un
