"""Track-to-detection assignment with motion hypotheses, solved by `linear_sum_assignment`.

A ball's next position is not one point: it rolls on (constant velocity, mirrored at a cushion), or it
stops or is kicked at a contact with another ball, or it did something unmodelled (a swerve, a touch).
Each track offers a few hypotheses (point, std, penalty); the cost of a detection is the best
`(d / std)^2 + penalty` among the hypotheses it falls within 3 std of. A resting ball's own hypothesis is
a few mm wide, so a ball that arrives next to it (at 2 R) can never take over its identity: that is what
keeps identities when two balls meet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

INVALID = 1e6


@dataclass(frozen=True)
class Hypothesis:
    point: np.ndarray  # (2,) mm
    std: float  # mm
    penalty: float
    origin: np.ndarray  # (2,) where a re-seeded velocity is measured from
    dt_from_origin: float  # seconds from origin to the frame time


def contact_time(p: np.ndarray, v: np.ndarray, q: np.ndarray, u: np.ndarray, dist: float, dt: float) -> float | None:
    """First time in [0, dt] when balls at p, q with velocities v, u come within `dist`, else None."""
    dp, dv = p - q, v - u
    a = float(dv @ dv)
    b = 2.0 * float(dp @ dv)
    c = float(dp @ dp) - dist * dist
    if c <= 0.0:
        return 0.0 if b < 0.0 else None  # touching already: a contact only if approaching
    if a < 1e-9:
        return None
    disc = b * b - 4 * a * c
    if disc < 0:
        return None
    t = (-b - np.sqrt(disc)) / (2 * a)
    return float(t) if 0.0 <= t <= dt else None


def contact_pairs(tracks: list[Any], dist: float, dt: float) -> list[tuple[int, int, float]]:
    """(i, j, t) for every pair, at least one of them moving, whose centres come within `dist` at time t in
    [0, dt] on straight paths (tracks need prev_xy, prev_v). Vectorised over all pairs."""
    n = len(tracks)
    if n < 2:
        return []
    p = np.array([t.prev_xy for t in tracks], dtype=float)
    v = np.array([t.prev_v for t in tracks], dtype=float)
    moving = np.hypot(v[:, 0], v[:, 1]) > 1.0
    iu, ju = np.triu_indices(n, 1)
    sel = moving[iu] | moving[ju]
    iu, ju = iu[sel], ju[sel]
    dp, dv = p[iu] - p[ju], v[iu] - v[ju]
    a = (dv * dv).sum(1)
    b = 2.0 * (dp * dv).sum(1)
    c = (dp * dp).sum(1) - dist * dist
    disc = b * b - 4 * a * c
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (-b - np.sqrt(np.maximum(disc, 0.0))) / (2 * a)
    hit = (a > 1e-9) & (disc >= 0) & (t >= 0) & (t <= dt)
    touching = (c <= 0) & (b < 0)  # in contact already and approaching
    t = np.where(touching, 0.0, t)
    ok = hit | touching
    return [(int(i), int(j), float(tt)) for i, j, tt in zip(iu[ok], ju[ok], t[ok], strict=True)]


def cost_matrix(hyps: list[list[Hypothesis]], dets: np.ndarray, extra: np.ndarray | None = None) -> tuple[
    np.ndarray, np.ndarray
]:
    """(T, D) costs and the index of the hypothesis that gave each cost (-1 when invalid). Vectorised over
    all hypotheses of all tracks."""
    T, D = len(hyps), len(dets)
    sizes = [len(hs) for hs in hyps]
    if T == 0 or D == 0 or not any(sizes):
        return np.full((T, D), INVALID), np.full((T, D), -1, dtype=int)
    flat = [h for hs in hyps for h in hs]
    owner = np.repeat(np.arange(T), sizes)
    local = np.concatenate([np.arange(n) for n in sizes])
    pts = np.array([h.point for h in flat], dtype=float)
    std = np.array([h.std for h in flat], dtype=float)
    pen = np.array([h.penalty for h in flat], dtype=float)
    d = np.hypot(pts[:, None, 0] - dets[None, :, 0], pts[:, None, 1] - dets[None, :, 1])
    c = np.where(d <= 3.0 * std[:, None], (d / std[:, None]) ** 2 + pen[:, None], np.inf)
    # per track the best of its hypotheses (the first among equals): one padded (T, H, D) minimum
    grid = np.full((T, max(sizes), D), np.inf)
    grid[owner, local] = c
    which = grid.argmin(axis=1)
    cost = np.take_along_axis(grid, which[:, None, :], axis=1)[:, 0, :]
    gated = ~np.isfinite(cost)
    cost[gated], which[gated] = INVALID, -1
    if extra is not None:
        valid = cost < INVALID
        cost[valid] += extra[valid]
    return cost, which


def solve(cost: np.ndarray, miss_cost: float | None = None) -> list[tuple[int, int]]:
    """Minimum-cost pairs (track, detection), dropping pairs that were gated out.

    With `miss_cost` every track may also stay unmatched at that cost (one dummy column per track). Without
    it the solver must match as many tracks as the gates allow, so a track with one far, poor candidate can
    push a neighbour off its own good detection (two bad pairs beat one good pair and one miss)."""
    if cost.size == 0:
        return []
    n_det = cost.shape[1]
    if miss_cost is not None:
        cost = np.hstack([cost, np.full((cost.shape[0], cost.shape[0]), miss_cost)])
    rows, cols = linear_sum_assignment(cost)
    return [(int(r), int(c)) for r, c in zip(rows, cols, strict=True) if c < n_det and cost[r, c] < INVALID]


def ambiguity(cost: np.ndarray, pairs: list[tuple[int, int]], miss_cost: float | None = None) -> dict[int, float]:
    """Per assigned track, how much the best assignment that takes its detection from it costs more (small
    margin: identity could have gone either way). The alternatives are a swap with another assigned track
    (each takes the other's detection: a detection the other track sits near but whose own detection fits it
    far better is no doubt), and an unassigned track taking the detection while this one goes to a free
    detection or unmatched (at `miss_cost`; without it, the other track's cost alone is compared)."""
    out: dict[int, float] = {}
    if not pairs:
        return out
    rows = np.array([r for r, _ in pairs])
    cols = np.array([c for _, c in pairs])
    own = cost[rows, cols]
    m = cost[np.ix_(rows, cols)]  # m[i, j]: assigned track i on assigned detection j
    ok = (m < INVALID) & (m.T < INVALID)
    swap = np.where(ok, m + m.T - own[:, None] - own[None, :], np.inf)
    np.fill_diagonal(swap, np.inf)
    best = swap.min(axis=1)
    lone = np.setdiff1d(np.arange(cost.shape[0]), rows)
    if len(lone):  # an unmatched track takes the detection; this one goes unmatched or to a free detection
        takers = cost[np.ix_(lone, cols)].min(axis=0)  # (P,)
        alt = takers - own
        if miss_cost is not None:
            free = np.setdiff1d(np.arange(cost.shape[1]), cols)
            moved = np.minimum(cost[np.ix_(rows, free)].min(axis=1), miss_cost) if len(free) else miss_cost
            alt = alt + moved - miss_cost
        best = np.where(takers < INVALID, np.minimum(best, alt), best)
    for i, (r, _) in enumerate(pairs):
        out[r] = float(best[i])
    return out
