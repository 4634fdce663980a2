"""Cushion and pocket-jaw touches: a ball's centre comes within R of a nose segment and bounces off it.

The boundary is the six nose segments of `calibration.table`; each runs from jaw tip to jaw tip, so a
closest point at a segment's end is a touch of that pocket jaw (reported as the segment's cushion with
extra {"jaw": pocket}). The touch is confirmed by the velocity change along the contact normal (the
normal component reverses); its time is where the incoming line reaches distance R.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.table import Table
from vision.events.contacts import kink_confidence
from vision.events.fit import first_time_within
from vision.events.history import History
from vision.events.kink import Pieces, RestLookup, best_split
from vision.events.settings import EventSettings


@dataclass(frozen=True)
class Touch:
    ball: int
    t: float
    cushion: str
    jaw: str | None  # pocket name when the closest point is a jaw tip
    z: float
    margin_mm: float  # closest approach of the incoming line minus R (negative: it reaches the nose)
    confidence: float
    review: bool
    pieces: Pieces


class Boundary:
    """The nose segments as arrays, with the pocket each segment end (jaw tip) belongs to."""

    def __init__(self, table: Table) -> None:
        self.names = list(table.cushions)
        self.a = np.array([table.cushions[n].a for n in self.names], dtype=float)
        self.b = np.array([table.cushions[n].b for n in self.names], dtype=float)
        self.jaw: dict[tuple[int, int], str] = {}
        for i, name in enumerate(self.names):
            for end, point in ((0, self.a[i]), (1, self.b[i])):
                for pk in table.pockets.values():
                    if min(np.hypot(*(point - pk.jaw_a)), np.hypot(*(point - pk.jaw_b))) < 1.0:
                        self.jaw[(i, end)] = pk.name
            del name

    def closest(self, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For points p (..., 2): distance to every segment (..., S), the closest points (..., S, 2) and
        the clamped segment parameter (..., S)."""
        ab = self.b - self.a
        rel = p[..., None, :] - self.a
        s = np.clip(np.sum(rel * ab, axis=-1) / np.sum(ab * ab, axis=-1), 0.0, 1.0)
        pts = self.a + s[..., None] * ab
        return np.linalg.norm(p[..., None, :] - pts, axis=-1), pts, s

    def distance(self, p: np.ndarray) -> np.ndarray:
        return self.closest(p)[0].min(axis=-1)


def touch_candidates(
    hist: History, rest: RestLookup, bound: Boundary, m: int, radius: float, s: EventSettings
) -> list[int]:
    """Balls whose sampled distance to the boundary has a local minimum at counter m, near R."""
    if not (hist.has(m - 1) and hist.has(m + 1)):
        return []
    xy, ok = hist.filled(m - 1, m + 1)
    d = bound.distance(np.nan_to_num(xy, nan=1e9))  # (3, B)
    step = np.linalg.norm(xy[2] - xy[0], axis=-1) / 2.0
    hit = ok & (d[1] <= radius + s.contact_gate_mm + step) & (d[1] <= d[0]) & (d[1] < d[2])
    t_m = hist.time(m)
    return [int(b) for b in np.nonzero(hit)[0] if rest.moving_at(int(b), t_m)]


def verify_touch(
    hist: History,
    rest: RestLookup,
    bound: Boundary,
    s: EventSettings,
    ball: int,
    m: int,
    n_lo: int,
    n_hi: int,
    radius: float,
    fps: float,
) -> Touch | None:
    found = best_split(hist, rest, s, (ball,), range(m - 2, m + 2), n_lo, n_hi)
    if found is None:
        return None
    j, (pc,) = found
    if pc.at_rest_before:
        return None  # a ball leaving a cushion from rest: see the frozen-ball rule in the detector
    dt = 1.0 / fps
    t_lo, t_hi = hist.time(min(j, m)) - dt, hist.time(max(j, m)) + 2 * dt

    def dist(ts: np.ndarray) -> np.ndarray:
        return bound.distance(pc.pre.at(ts))

    t_touch, d_min, t_min = first_time_within(dist, t_lo, t_hi, radius)
    margin = d_min - radius
    if t_touch is None:
        t_k = pc.kink_time()
        t_c = float(np.clip(t_k, t_lo, t_hi)) if t_k is not None else t_min
        p = pc.post.at(t_c)
    else:
        t_c = t_touch
        p = pc.pre.at(t_c)
    dists, pts, par = bound.closest(p)
    i = int(np.argmin(dists))
    n = p - pts[i]
    norm = float(np.hypot(*n))
    if norm <= 1e-9:
        return None
    n = n / norm
    if float(np.dot(pc.pre.v, n)) > 2 * pc.pre.sigma_v + s.kink_min_mm_s:
        return None  # moving away from the boundary already: not a bounce off it
    impulse = float(np.dot(pc.dv, n))
    z = impulse / max(pc.sigma_dv, 1e-9)
    t_k = pc.kink_time()
    near_nose = t_k is None or abs(float(bound.distance(pc.pre.at(t_k))) - radius) <= s.contact_gate_mm
    if z >= s.kink_z and t_k is not None and abs(t_k - t_c) < 3 * dt and not near_nose:
        return None  # the kink happened away from the nose: a ball made it
    conf, review = kink_confidence(z, impulse, margin, s)
    if conf <= 0.0:
        return None
    end = 0 if par[i] <= 1e-6 else 1 if par[i] >= 1 - 1e-6 else -1
    jaw = bound.jaw.get((i, end)) if end >= 0 else None
    idc = float(hist.id_conf[j % hist.size, ball])
    return Touch(ball, float(t_c), bound.names[i], jaw, z, margin, conf * idc, review, pc)
