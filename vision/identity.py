"""Initial ball identities: from a given position map (rules engine, referee, ground truth) or from the
rack (Russian order, 5.3) with the coloured ball found by its class."""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import linear_sum_assignment

from calibration.table import Table
from rules.rack import RUSSIAN_RACK_ORDER
from vision.trackstate import Track
from vision.types import BallClass, BallState, Detections

COLOURED_ID = "C"


def match_positions(
    ids: list[str], positions: np.ndarray, dets_xy: np.ndarray, gate_mm: float
) -> dict[str, int]:
    """Ball id -> detection index by minimum total distance, pairs farther than gate_mm dropped."""
    if not len(ids) or not len(dets_xy):
        return {}
    d = np.linalg.norm(np.asarray(positions)[:, None, :] - dets_xy[None, :, :], axis=2)
    cost = np.where(d <= gate_mm, d, 1e6)
    rows, cols = linear_sum_assignment(cost)
    return {ids[r]: int(c) for r, c in zip(rows, cols, strict=True) if cost[r, c] < 1e6}


def from_position_map(
    positions: dict[str, tuple[float, float]], dets: Detections, gate_mm: float
) -> dict[str, tuple[int, float]]:
    """Ball id -> (detection index, identity confidence) for ids of a known position map."""
    ids = list(positions)
    m = match_positions(ids, np.asarray([positions[i] for i in ids], dtype=float).reshape(-1, 2), dets.xy_mm, gate_mm)
    return {b: (k, 1.0) for b, k in m.items()}


# The identity confidence from_rack gives a detection that fits no rack slot: the id is a label, not the ball's
# number. The tracker keeps the two apart (Track.named), so this value never reaches the events as a swap risk.
UNNAMED = 0.1


def from_rack(
    table: Table, dets: Detections, ids: tuple[str, ...], order: tuple[str, ...] = RUSSIAN_RACK_ORDER
) -> dict[str, tuple[int, float]]:
    """Ids from the rack: the coloured ball by class, ivory balls by their rack slot. Detections that fit no
    slot get the remaining ids with low confidence (an unknown layout cannot name them)."""
    out: dict[str, tuple[int, float]] = {}
    used: set[int] = set()
    coloured = [k for k in range(len(dets)) if dets.cls[k] == BallClass.COLOURED]
    # several read coloured: the light tints the ivory balls too (none read coloured may mean C is in hand)
    odd = odd_one_out(dets) if len(coloured) >= 2 else None
    if COLOURED_ID in ids and odd is not None:
        out[COLOURED_ID] = odd  # the fixed hue rule failed under this light: the set itself names it
        used.add(odd[0])
    elif COLOURED_ID in ids and coloured:
        best = max(coloured, key=lambda k: float(dets.confidence[k]))
        out[COLOURED_ID] = (best, 0.95 if len(coloured) == 1 else 0.5)
        used.add(best)
    slots = table.rack_positions(list(order))
    rack_ids = [b for b in order if b in ids and b not in out]
    free = [k for k in range(len(dets)) if k not in used]
    m = match_positions(
        rack_ids, np.asarray([slots[b] for b in rack_ids]).reshape(-1, 2), dets.xy_mm[free], table.ball_radius * 0.8
    )
    for b, j in m.items():
        out[b] = (free[j], 0.95)
        used.add(free[j])
    rest_ids = [b for b in ids if b not in out]
    rest_dets = sorted((k for k in range(len(dets)) if k not in used), key=lambda k: tuple(dets.xy_mm[k]))
    for b, k in zip(rest_ids, rest_dets, strict=False):
        out[b] = (k, UNNAMED)
    return out


def odd_one_out(dets: Detections, min_sep: float = 10.0, min_conf: float = 0.6) -> tuple[int, float] | None:
    """The coloured ball read off the set itself, for a light or a cloth under which the fixed hue rule finds
    several coloured balls: the confident detection whose chroma (Cr, Cb) lies farthest from the median chroma
    of all of them, when it is alone out there (at least `min_sep` grey levels away, twice as far as the next
    one; the ivory balls share one colour whatever the light). None when no detection stands out.

    Returns (detection, identity confidence): 0.5 at either edge, rising to 0.9 at three times `min_sep` and
    four times the next one's distance, so a hairline call makes its events doubtful and their verdicts flagged."""
    col = dets.data.get("colour")
    if col is None or len(col) != len(dets):
        return None
    ok = np.nonzero((np.asarray(dets.confidence) >= min_conf) & np.all(np.isfinite(col), axis=1))[0]
    if len(ok) < 3:
        return None
    c = np.asarray(col, dtype=float)[ok, 1:3]
    d = np.hypot(*(c - np.median(c, axis=0)).T)
    order = np.argsort(-d)
    d0, d1 = float(d[order[0]]), float(d[order[1]])
    if d0 < min_sep or d0 < 2.0 * d1:
        return None
    margin = min((d0 / min_sep - 1.0) / 2.0, d0 / max(d1, 1e-9) / 2.0 - 1.0)
    return int(ok[order[0]]), 0.5 + 0.4 * float(np.clip(margin, 0.0, 1.0))


class ColourModel:
    """The coloured ball told from the ivory balls by comparing detections with the balls themselves, not
    with a fixed hue: running means of the chroma (Cr, Cb) of the detections the tracker gave to the coloured
    ball and to ivory balls, learnt under this cloth and this light. A detection is coloured (ivory) when its
    chroma is at least `ratio` times nearer the coloured (ivory) mean than the other; the model speaks only
    once the two means lie `min_sep` grey levels apart (several times the chroma noise of a ball's median).

    The spread of each class is learnt too (a running covariance of the chroma about its mean, with a floor
    of `floor` grey levels for the median's quantisation and the codec): a detection farther than
    `foreign_sigma` standard deviations (Mahalanobis) from every class the model has learnt is no ball of
    this set (a hand, a sleeve, a cue tip), whatever the light and the skin. A ball of the set reads that far
    from its own class about once in 10^5 times under Gaussian noise; only fast blurred balls read there more
    often (their disc mixes with the cloth), so the tracker lets moving balls take such readings at a cost.
    One sample moves the model by at most `foreign_sigma` deviations (a clipped step), so a hand given to a
    ball now and then cannot drag it, while a slow change of the light is followed."""

    def __init__(self, alpha: float = 0.05, min_sep: float = 10.0, ratio: float = 2.0, foreign_sigma: float = 5.0,
                 floor: float = 1.0, min_samples: int = 100) -> None:
        self.alpha, self.min_sep, self.ratio = alpha, min_sep, ratio
        self.foreign_sigma, self.floor, self.min_samples = foreign_sigma, floor, min_samples
        self.mean: dict[bool, np.ndarray | None] = {True: None, False: None}  # coloured? -> (Cr, Cb)
        self.cov: dict[bool, np.ndarray] = {True: np.zeros((2, 2)), False: np.zeros((2, 2))}
        self.n: dict[bool, int] = {True: 0, False: 0}

    def _inv(self, coloured: bool) -> np.ndarray:
        """(cov + floor^2 I)^-1 in closed form (a 2x2; called per learnt sample, LAPACK's call costs 10x more)."""
        c = self.cov[coloured]
        f2 = self.floor**2
        a, b, cc, d = c[0, 0] + f2, c[0, 1], c[1, 0], c[1, 1] + f2
        return np.array([[d, -b], [-cc, a]]) / (a * d - b * cc)

    def learn(self, coloured: bool, colour: np.ndarray) -> None:
        # on Python floats: a 2-vector update per tracked ball per frame, where numpy's per-call cost is 10x the
        # arithmetic
        c0, c1 = float(colour[1]), float(colour[2])
        if not (math.isfinite(c0) and math.isfinite(c1)):
            return
        m = self.mean[coloured]
        if m is None:
            self.mean[coloured], self.n[coloured] = np.array([c0, c1]), 1
            return
        m0, m1 = m.tolist()
        d0, d1 = c0 - m0, c1 - m1
        n = self.n[coloured] = self.n[coloured] + 1
        (a, b), (cc, dd) = self.cov[coloured].tolist()
        if n > self.min_samples:  # clipped: one odd reading moves the model by at most foreign_sigma deviations
            (i00, i01), (i10, i11) = self._inv(coloured).tolist()
            r = math.sqrt((d0 * i00 + d1 * i10) * d0 + (d0 * i01 + d1 * i11) * d1)
            if r > self.foreign_sigma:
                d0, d1 = d0 * (self.foreign_sigma / r), d1 * (self.foreign_sigma / r)
        self.mean[coloured] = np.array([m0 + self.alpha * d0, m1 + self.alpha * d1])
        # the exact sample covariance over the first min_samples readings, then a running one over about as many
        w = 1.0 / min(n - 1, self.min_samples)
        self.cov[coloured] = np.array([[a + w * (d0 * d0 - a), b + w * (d0 * d1 - b)],
                                       [cc + w * (d1 * d0 - cc), dd + w * (d1 * d1 - dd)]])

    @property
    def ready(self) -> bool:
        a, b = self.mean[True], self.mean[False]
        return a is not None and b is not None and float(np.hypot(*(a - b))) >= self.min_sep

    def classes(self, dets: Detections) -> np.ndarray:
        """Per detection BallClass from the learnt means; the detector's own class where the model cannot
        tell (not ready, no colour, or a chroma between the two means)."""
        out = np.asarray(dets.cls, dtype=object).copy()
        col = dets.data.get("colour")
        a, b = self.mean[True], self.mean[False]
        if col is None or len(col) != len(dets) or a is None or b is None or not self.ready:
            return out
        c = np.asarray(col, dtype=float)[:, 1:3]
        dc = np.hypot(*(c - a).T)
        di = np.hypot(*(c - b).T)
        out[dc * self.ratio < di] = BallClass.COLOURED
        out[di * self.ratio < dc] = BallClass.IVORY
        return out

    def reads_as(self, coloured: bool, chroma: np.ndarray, ref: np.ndarray) -> bool:
        """Is `chroma` (Cr, Cb) within `foreign_sigma` deviations of the class's spread about `ref` (one ball's
        own colour)?"""
        d = np.asarray(chroma, dtype=float) - ref
        return bool(np.all(np.isfinite(d)) and float(d @ self._inv(coloured) @ d) <= self.foreign_sigma**2)

    def foreign(self, dets: Detections) -> np.ndarray:
        """Per detection: no ball of this set (farther than `foreign_sigma` deviations from both classes). All
        False until both classes are learnt: a coloured ball of a set the fixed hue rule does not know would
        read foreign against the ivory balls alone."""
        n = len(dets)
        out = np.zeros(n, dtype=bool)
        col = dets.data.get("colour")
        if n == 0 or col is None or len(col) != n or min(self.n.values()) < self.min_samples:
            return out
        c = np.asarray(col, dtype=float)[:, 1:3]
        out[:] = True
        for coloured in (False, True):
            m = self.mean[coloured]
            assert m is not None  # learnt
            d = c - m
            r2 = np.einsum("ni,ij,nj->n", d, self._inv(coloured), d)
            out &= ~(r2 <= self.foreign_sigma**2)  # a NaN colour is never foreign
        out &= np.all(np.isfinite(c), axis=1)
        return out


def foreign_readings(model: ColourModel, dets: Detections, active: list[Track], radius: float) -> np.ndarray:
    """`ColourModel.foreign`, but not where a ball not moving lies and the reading is its own colour; and not
    at all when most detections lying on balls at rest read foreign (three at least: one track may sit on a
    hand): then the light changed and the model, not the balls, is out of date (it catches up through the
    balls it is given)."""
    out = model.foreign(dets)
    if not out.any():
        return out
    rest = [tr for tr in active if tr.state == BallState.STATIONARY]
    if rest:
        p = np.array([tr.xy for tr in rest])
        d = np.hypot(dets.xy_mm[:, None, 0] - p[None, :, 0], dets.xy_mm[:, None, 1] - p[None, :, 1])
        on_ball = d.min(axis=1) < 0.5 * radius
        if int(on_ball.sum()) >= 3 and 2 * int((out & on_ball).sum()) > int(on_ball.sum()):
            out[:] = False
            return out
    # the balls of a set differ in tint (ivory yellows with age, a ball's number shows more or less of its
    # paint) by more than the class's spread, learnt mostly from the balls that moved lately: a ball at rest
    # that reads as it always read is that ball (seed-181 frame_free: 4, 5.2 deviations off the ivory mean
    # under a drifted model, was lost at rest for 25 s and its detection taken by a ball just potted)
    col = dets.data.get("colour")
    if col is None:
        return out
    for tr in active:
        if tr.own_colour is None or tr.state == BallState.MOVING:
            continue
        near = out & (np.hypot(*(dets.xy_mm - tr.xy).T) < 0.5 * radius)
        for k in np.nonzero(near)[0]:
            out[k] = not model.reads_as(tr.ball == COLOURED_ID, np.asarray(col[k])[1:3], tr.own_colour)
    return out


def learn_own_colour(model: ColourModel, tr: Track, dets: Detections, k: int, foreign: np.ndarray | None,
                     cls: np.ndarray | None, alpha: float = 0.1) -> None:
    """Follow the chroma of a ball seen at rest in detection k (`foreign`, `cls`: this frame's readings of the
    detections): begun from a reading the class model takes for a ball of the set and of the ball's own class,
    then only from readings its own colour already explains (a step of at most alpha times `foreign_sigma`
    deviations: a hand over the ball now and then cannot drag it off)."""
    col = dets.data.get("colour")
    if col is None or k >= len(col) or not model.ready:
        return
    c = np.asarray(col[k], dtype=float)[1:3]
    if not np.all(np.isfinite(c)):
        return
    if cls is not None and cls[k] in (BallClass.COLOURED, BallClass.IVORY) and (
            (cls[k] == BallClass.COLOURED) != (tr.ball == COLOURED_ID)):
        return  # read as the other class: a swapped identity must not teach it
    if tr.own_colour is None:
        if foreign is None or not foreign[k]:
            tr.own_colour = c.copy()
    elif model.reads_as(tr.ball == COLOURED_ID, c, tr.own_colour):
        tr.own_colour = tr.own_colour + alpha * (c - tr.own_colour)
