"""Two straight pieces of one ball's track around a split frame: the velocity change (kink) they show.

Every collision detector (ball-ball, cushion, jaw) asks the same question: split the track at frame j,
fit a line before and after, and how large is the velocity change, and when did it happen. A ball at
rest before the split is the fixed point of its rest anchor (zero velocity, known precisely).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from vision.events.fit import LineFit, fit_line, fixed_point
from vision.events.history import History
from vision.events.settings import EventSettings, noise_model


class RestLookup(Protocol):
    def anchor_at(self, b: int, t: float) -> np.ndarray | None: ...

    def moving_at(self, b: int, t: float) -> bool: ...


@dataclass(frozen=True)
class Pieces:
    pre: LineFit
    post: LineFit
    chi2: float  # squared residuals over the noise variance, both pieces
    at_rest_before: bool

    @property
    def dv(self) -> np.ndarray:
        return self.post.v - self.pre.v

    @property
    def sigma_dv(self) -> float:
        return float(np.hypot(self.pre.sigma_v, self.post.sigma_v))

    def kink_time(self) -> float | None:
        """When the two lines come closest to meeting (the kink), None if they are parallel."""
        w = self.pre.v - self.post.v
        ww = float(np.dot(w, w))
        if ww <= 1e-9:
            return None
        c = (self.pre.p0 - self.pre.v * self.pre.t0) - (self.post.p0 - self.post.v * self.post.t0)
        return -float(np.dot(c, w)) / ww


_SLOW_REACH = 3  # a slow ball's incoming line may be fitted over up to this many times the usual window


Axis = tuple[np.ndarray, np.ndarray]  # (origin, unit direction) of a line the samples are projected onto


def _project(xy: np.ndarray, axis: Axis | None) -> np.ndarray:
    if axis is None:
        return xy
    origin, u = axis
    return origin + np.multiply.outer((xy - origin) @ u, u)


def pieces(
    hist: History,
    rest: RestLookup,
    s: EventSettings,
    b: int,
    j: int,
    n_lo: int,
    n_hi: int,
    slow: bool = False,
    axis: Axis | None = None,
) -> Pieces | None:
    """Fit ball b on counters n_lo..j (before) and j+1..n_hi (after); None without enough samples.

    `slow`: a ball slower than `blur_speed_mm_s` moves a few mm a frame, so the short window pins its
    velocity down poorly; its incoming line is fitted over up to `_SLOW_REACH` times the window as long as
    that longer piece stays straight within the noise (no earlier kink in it). The past costs no latency.
    `axis`: the samples are projected onto this line first (one velocity component only: a bounce off one
    cushion, blind to a bounce off a perpendicular one in between).
    """
    t_pre, xy_pre = hist.track(b, n_lo, j)
    t_post, xy_post = hist.track(b, j + 1, n_hi)
    xy_pre, xy_post = _project(xy_pre, axis), _project(xy_post, axis)
    if len(t_post) < 2:
        return None
    post = fit_line(t_post, xy_post, noise_model(s))
    if post is None:
        return None
    anchor = rest.anchor_at(b, hist.time(j))
    anchor = None if anchor is None else _project(anchor, axis)
    if anchor is not None:
        pre = fixed_point(anchor, hist.time(j), s.noise_rest_mm, 30)
        chi2_pre = float(np.sum((xy_pre - anchor) ** 2)) / s.noise_rest_mm**2 if len(t_pre) else 0.0
    else:
        fitted = fit_line(t_pre, xy_pre, noise_model(s))
        if fitted is None:
            return None
        pre = fitted
        if slow and pre.speed < s.blur_speed_mm_s:
            t_long, xy_long = hist.track(b, j - _SLOW_REACH * (j - n_lo), j)
            long = fit_line(t_long, _project(xy_long, axis), noise_model(s))
            if long is not None and long.n > pre.n and long.rms_mm <= 1.5 * noise_model(s)(long.speed):
                pre = long
        chi2_pre = float(np.sum((xy_pre - pre.at(t_pre)) ** 2)) / s.noise_moving_mm**2
    chi2_post = float(np.sum((xy_post - post.at(t_post)) ** 2)) / s.noise_moving_mm**2
    return Pieces(pre, post, chi2_pre + chi2_post, anchor is not None)


def best_split(
    hist: History,
    rest: RestLookup,
    s: EventSettings,
    balls: tuple[int, ...],
    splits: Sequence[int],
    n_lo: int,
    n_hi: int,
    slow: bool = False,
    axis: Axis | None = None,
) -> tuple[int, list[Pieces]] | None:
    """The split (last frame before the kink) whose pieces fit all the balls best, with their pieces."""
    best: tuple[float, int, list[Pieces]] | None = None
    for j in splits:
        fits = [pieces(hist, rest, s, b, j, n_lo, n_hi, slow, axis) for b in balls]
        if any(f is None for f in fits):
            continue
        got = [f for f in fits if f is not None]
        total = sum(f.chi2 for f in got)
        if best is None or total < best[0]:
            best = (total, j, got)
    return None if best is None else (best[1], best[2])
