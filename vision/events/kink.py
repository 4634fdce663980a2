"""Two straight pieces of one ball's track around a split frame: the velocity change (kink) they show.

Every collision detector (ball-ball, cushion, jaw) asks the same question: split the track at frame j,
fit a line before and after, and how large is the velocity change, and when did it happen. A ball at
rest before the split is the fixed point of its rest anchor (zero velocity, known precisely).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    from_rest: bool = False,
) -> Pieces | None:
    """Fit ball b on counters n_lo..j (before) and j+1..n_hi (after); None without enough samples.

    `slow`: a ball slower than `blur_speed_mm_s` moves a few mm a frame, so the short window pins its
    velocity down poorly; its incoming line is fitted over up to `_SLOW_REACH` times the window as long as
    that longer piece stays straight within the noise (no earlier kink in it). The past costs no latency.
    `axis`: the samples are projected onto this line first (one velocity component only: a bounce off one
    cushion, blind to a bounce off a perpendicular one in between).
    `from_rest`: a ball that left its rest inside the incoming piece is fitted by its run from the rest anchor
    (`_from_rest`), not by a free line through rest and moving samples.
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
        ramp = _from_rest(rest, s, b, t_pre, xy_pre, axis) if from_rest else None
        fitted = fit_line(t_pre, xy_pre, noise_model(s))
        if fitted is None and ramp is None:
            return None
        chi2_pre = np.inf
        if fitted is not None:
            pre = fitted
            if slow and pre.speed < s.blur_speed_mm_s:
                t_long, xy_long = hist.track(b, j - _SLOW_REACH * (j - n_lo), j)
                long = fit_line(t_long, _project(xy_long, axis), noise_model(s))
                if long is not None and long.n > pre.n and long.rms_mm <= 1.5 * noise_model(s)(long.speed):
                    pre = long
            chi2_pre = float(np.sum((xy_pre - pre.at(t_pre)) ** 2)) / s.noise_moving_mm**2
        if ramp is not None and ramp[1] <= chi2_pre:
            # the run from the rest, one parameter fewer than a free line, where it fits the samples as well: a
            # ball hit on inside its first frame (seed-127 frame_russian71: 1 hit by C and at once into 6, then
            # creeping) has a better free line than a run from its rest
            pre, chi2_pre = ramp
    chi2_post = float(np.sum((xy_post - post.at(t_post)) ** 2)) / s.noise_moving_mm**2
    return Pieces(pre, post, chi2_pre + chi2_post, anchor is not None)


def _from_rest(
    rest: RestLookup, s: EventSettings, b: int, t: np.ndarray, xy: np.ndarray, axis: Axis | None
) -> tuple[LineFit, float] | None:
    """The incoming piece of a ball that left its rest inside it: the run from its rest anchor, the start time
    scanned between its last rest sample and its first moving one (a ramp: at the anchor, then a straight run
    from it), with its chi2. A free line through rest and moving samples fits neither (a ball hit from rest 17
    mm off a cushion is at the nose two frames later: the free line's velocity was a quarter of the run's).
    None when the piece does not start at rest, has fewer than two moving samples (one is fitted exactly by
    any run, whatever happened between it and the rest: a ball struck into a cushion under a frame away), or
    its moving samples lie off the run by more than twice the noise."""
    if len(t) < 2:
        return None
    anchor = rest.anchor_at(b, float(t[0]))
    if anchor is None:
        return None
    k = 0
    while k + 1 < len(t) and rest.anchor_at(b, float(t[k + 1])) is not None:
        k += 1
    if k + 2 >= len(t):
        return None
    a = _project(anchor, axis)
    d = xy - a
    ts = np.linspace(float(t[k]), float(t[k + 1]), 9)[:-1]  # an eighth of the interval: far below the noise
    tau = np.clip(t[None, :] - ts[:, None], 0.0, None)  # (M, N)
    sxx = (tau * tau).sum(axis=1)
    v = (tau @ d) / sxx[:, None]  # (M, 2): the run's velocity for each start time
    resid = d[None] - tau[..., None] * v[:, None, :]
    sse = (resid**2).sum(axis=(1, 2))
    g = int(np.argmin(sse))
    vel = v[g]
    noise = noise_model(s)(float(np.hypot(*vel)))
    n_run = len(t) - k - 1
    if float(np.sqrt(sse[g] / (2 * n_run))) > 2.0 * noise:
        return None  # no straight run from the rest (out to a nose and back between the samples): a free line
    scatter = float(np.sqrt(sse[g] / max(2 * n_run - 2, 1)))
    sigma_v = max(noise, scatter) / float(np.sqrt(sxx[g]))
    rms = float(np.sqrt(sse[g] / (2 * len(t))))
    fit = LineFit(float(ts[g]), np.asarray(a, dtype=float), vel, sigma_v, rms, len(t))
    return fit, float(sse[g]) / s.noise_moving_mm**2


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
    lo: Mapping[int, int] | None = None,
    from_rest: frozenset[int] = frozenset(),
) -> tuple[int, list[Pieces]] | None:
    """The split (last frame before the kink) whose pieces fit all the balls best, with their pieces.
    `lo`: a first counter per ball overriding n_lo (its incoming piece starts after a kink already known;
    such a piece is not reached further back for a slow ball either). `from_rest`: the balls whose incoming
    piece may be their run from rest (see `pieces`)."""
    best: tuple[float, int, list[Pieces]] | None = None
    first = lo or {}
    for j in splits:
        fits = [pieces(hist, rest, s, b, j, first.get(b, n_lo), n_hi, slow and b not in first, axis, b in from_rest)
                for b in balls]
        if any(f is None for f in fits):
            continue
        got = [f for f in fits if f is not None]
        total = sum(f.chi2 for f in got)
        if best is None or total < best[0]:
            best = (total, j, got)
    return None if best is None else (best[1], best[2])


@dataclass(frozen=True)
class Bounce:
    """A bounce off a wall fitted with the centre pinned at the wall's reach (distance R) at time `t`: the
    normal coordinate u = (centre - wall) . n - R runs u = v_in (t' - t) before and u = v_out (t' - t)
    after (v_in < 0 coming in, v_out > 0 leaving). Pinning the apex uses what the physics fixes (the centre
    is at R when it touches), so each speed is known from the run to or from one point, not from a free line:
    a 4-sample piece after the touch gives its speed ~2.5 times better than a free fit of it."""

    t: float
    v_in: float
    v_out: float
    sigma_in: float
    sigma_out: float
    chi2: float  # of the pinned V over all samples (noise units)
    chi2_free: float  # of free lines before and after the same split (two more parameters)

    @property
    def z(self) -> float:
        """Significance of the normal velocity change."""
        return (self.v_out - self.v_in) / max(float(np.hypot(self.sigma_in, self.sigma_out)), 1e-9)


def pinned_bounce(
    t: np.ndarray, u: np.ndarray, sigma: np.ndarray, t_a: float, t_b: float, step_s: float = 0.0005
) -> Bounce | None:
    """Least-squares V through u = 0 at a time in [t_a, t_b] (searched every `step_s`, far below a frame);
    samples at or before that time are the incoming piece. None without two samples on each side."""
    grid = np.arange(t_a, t_b + 1e-12, step_s)
    if len(grid) == 0 or len(t) < 4:
        return None
    tau = t[None, :] - grid[:, None]  # (G, N)
    pre = tau <= 0.0
    w = 1.0 / sigma**2
    wtt, wut = w * tau * tau, w * u * tau
    s_in, s_out = np.where(pre, wtt, 0.0).sum(axis=1), np.where(pre, 0.0, wtt).sum(axis=1)
    ok = (pre.sum(axis=1) >= 2) & ((~pre).sum(axis=1) >= 2) & (s_in > 0) & (s_out > 0)
    if not ok.any():
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(pre, wut, 0.0).sum(axis=1) / s_in
        b = np.where(pre, 0.0, wut).sum(axis=1) / s_out
    chi2 = np.where(ok, (w * (u - np.where(pre, a[:, None], b[:, None]) * tau) ** 2).sum(axis=1), np.inf)
    g = int(np.argmin(chi2))
    if g in (0, len(grid) - 1) or not (np.isfinite(chi2[g - 1]) and np.isfinite(chi2[g + 1])):
        return None  # the best apex is at the edge of the span searched: the bounce is not in it
    free = 0.0
    for part in (pre[g], ~pre[g]):
        fit = _wline_chi2(t[part], u[part], w[part])
        free += fit
    dof = max(len(t) - 3, 1)
    scale = max(1.0, float(np.sqrt(chi2[g] / dof)))  # a worse fit than the noise: trust the speeds less
    return Bounce(
        float(grid[g]),
        float(a[g]),
        float(b[g]),
        scale / float(np.sqrt(s_in[g])),
        scale / float(np.sqrt(s_out[g])),
        float(chi2[g]),
        free,
    )


def _wline_chi2(t: np.ndarray, u: np.ndarray, w: np.ndarray) -> float:
    """Weighted chi2 of the free least-squares line through (t, u)."""
    if len(t) <= 2:
        return 0.0
    sw = float(w.sum())
    tm, um = float(w @ t) / sw, float(w @ u) / sw
    dt, du = t - tm, u - um
    sxx = float(w @ (dt * dt))
    slope = float(w @ (dt * du)) / sxx if sxx > 0 else 0.0
    return float(w @ (du - slope * dt) ** 2)


def kink_time_error(p: Pieces, t: float, s: EventSettings) -> float:
    """Standard error (s) of a kink's time: the lines cross where they meet, so an error in where either
    line lies at the kink (mm: its mean position's error plus its slope's error carried from its centre to
    t) moves the crossing by that error over the velocity change."""
    noise = noise_model(s)

    def pos_error(f: LineFit) -> float:
        return float(np.hypot(noise(f.speed) / np.sqrt(max(f.n, 1)), f.sigma_v * (t - f.t0)))

    return float(np.hypot(pos_error(p.pre), pos_error(p.post))) / max(float(np.hypot(*p.dv)), 1e-9)


def kink_confidence(z: float, impulse: float, margin: float, s: EventSettings) -> tuple[float, bool]:
    """Confidence from the kink's significance and the geometric margin; (0, False) means no event.

    - a clear kink (z >= kink_z and a real change of speed): a contact whatever the margin (0.75..1,
      at most 0.7 and flagged when the margin is within the review band);
    - a weaker kink (z >= kink_z_review) where the incoming lines run into each other (or into the nose)
      by more than the review band, which they cannot do without touching: a contact (0.6..0.75);
    - a weak kink with the lines within the review band: reported for review (0.3..0.45);
    - no kink but the lines within the review band (a near miss): reported for review (0.2).
    """
    span = max(s.kink_z - s.kink_z_review, 1e-9)
    if z >= s.kink_z and impulse >= s.kink_min_mm_s:
        conf = 0.75 + 0.25 * min(1.0, (z - s.kink_z) / s.kink_z)
        if abs(margin) <= s.review_band_mm:
            return min(conf, 0.7), True
        return conf, False
    if z >= s.kink_z_review and margin < -s.review_band_mm:
        return 0.6 + 0.15 * (z - s.kink_z_review) / span, False
    if z >= s.kink_z_review and abs(margin) <= s.review_band_mm:
        return 0.3 + 0.15 * (z - s.kink_z_review) / span, True
    if abs(margin) <= s.review_band_mm:
        return 0.2, True
    return 0.0, False
