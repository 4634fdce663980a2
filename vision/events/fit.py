"""Straight-line fits of short track pieces, and the times at which fitted tracks meet a distance.

Between two events a ball's track is close to a straight line at near-constant speed over the ~0.1 s the
detector looks at (rolling resistance changes the speed by a few mm/s in that time), so a least-squares
line p(t) = p0 + v (t - t0) is the model; the standard error of v sets the significance of a kink.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LineFit:
    """p(t) = p0 + v (t - t0); `sigma_v` is the standard error of each component of v (mm/s)."""

    t0: float
    p0: np.ndarray
    v: np.ndarray
    sigma_v: float
    rms_mm: float
    n: int

    def at(self, t: float | np.ndarray) -> np.ndarray:
        tt = np.asarray(t, dtype=float)
        return self.p0 + np.multiply.outer(tt - self.t0, self.v)

    @property
    def speed(self) -> float:
        return float(np.hypot(*self.v))


def fit_line(t: np.ndarray, xy: np.ndarray, noise_mm: float | Callable[[float], float]) -> LineFit | None:
    """Least-squares line through the samples; None with fewer than two samples.

    The standard error uses the larger of the stated noise (a number, or a function of the fitted speed:
    motion blur grows the tracker's noise with speed) and the residual scatter, so a piece that is not
    straight (a hidden second kink, spin) is trusted less.
    """
    n = len(t)
    if n < 2:
        return None
    t0 = float(np.add.reduce(t)) / n  # np.mean's own arithmetic, without its overhead
    dt = t - t0
    sxx = float(np.dot(dt, dt))
    if sxx <= 0:
        return None
    p0 = np.add.reduce(xy, axis=0) / n
    v = (dt @ (xy - p0)) / sxx
    resid = xy - (p0 + np.outer(dt, v))
    rms = float(np.sqrt(np.mean(resid**2))) if n > 2 else 0.0
    scatter = rms * np.sqrt(n / (n - 2)) if n > 2 else 0.0
    noise = noise_mm(float(np.hypot(*v))) if callable(noise_mm) else noise_mm
    sigma = max(noise, scatter)
    return LineFit(t0, p0, v, sigma / np.sqrt(sxx), rms, n)


def fixed_point(p: np.ndarray, t0: float, noise_mm: float, n: int) -> LineFit:
    """A ball at rest at p: zero velocity known to the precision of an averaged rest position."""
    return LineFit(t0, np.asarray(p, dtype=float), np.zeros(2), 0.0, noise_mm / np.sqrt(max(n, 1)), n)


def first_time_within(
    dist: Callable[[np.ndarray], np.ndarray], t_lo: float, t_hi: float, target: float, steps: int = 200
) -> tuple[float | None, float, float]:
    """First time in [t_lo, t_hi] at which dist(t) <= target, by dense sampling and linear interpolation.

    Returns (time or None, minimum distance, time of the minimum). `dist` maps an array of times to
    distances; the fitted tracks are straight, so `steps` samples resolve far below a frame.
    """
    ts = np.linspace(t_lo, t_hi, steps + 1)
    d = dist(ts)
    j_min = int(np.argmin(d))
    below = np.nonzero(d <= target)[0]
    if len(below) == 0:
        return None, float(d[j_min]), float(ts[j_min])
    j = int(below[0])
    if j == 0:
        return float(ts[0]), float(d[j_min]), float(ts[j_min])
    f = (d[j - 1] - target) / max(d[j - 1] - d[j], 1e-12)
    return float(ts[j - 1] + f * (ts[j] - ts[j - 1])), float(d[j_min]), float(ts[j_min])


def point_segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Distance from p to the segment a-b (a point when a == b)."""
    ab = b - a
    dd = float(np.dot(ab, ab))
    u = 0.0 if dd <= 1e-12 else float(np.clip(np.dot(p - a, ab) / dd, 0.0, 1.0))
    return float(np.hypot(*(p - a - u * ab)))


def ramp_scan(t: np.ndarray, d: np.ndarray, ts: np.ndarray, noise_mm: float) -> tuple[int, float, float] | None:
    """Least squares of d(t) = v max(0, t - t_s) for every t_s of `ts`: the best index, v and its error."""
    tau = np.clip(t[None, :] - ts[:, None], 0.0, None)  # (M, N)
    sxx = (tau * tau).sum(axis=1)
    ok = sxx > 1e-12
    if not ok.any():
        return None
    sxy = tau @ d
    v = sxy / np.where(ok, sxx, 1.0)
    sse = np.where(ok, float(d @ d) - v * sxy, np.inf)
    k = int(np.argmin(sse))
    sigma = max(noise_mm, float(np.sqrt(max(float(sse[k]), 0.0) / max(len(t) - 2, 1))))
    return k, float(v[k]), sigma / float(np.sqrt(sxx[k]))


def run_from_rest(
    dt: np.ndarray, off: np.ndarray, noise_mm: Callable[[float], float], lag_s: float
) -> np.ndarray | None:
    """The velocity of a straight run from rest begun at dt = 0, or None when the samples (times dt, offsets off from
    the rest, shapes (n,) and (n, 2)) do not show one: off = v dt within twice the noise at that speed (RMS), and not
    standing still first. A still stretch averages into that RMS, so s = w (dt - t0)+ along the run is fitted for
    each sample's t0; a run begun later than `lag_s` and half the span is none (the tracker's own lag at a start
    leaves a run slow for a few frames: seed 287's pack ball 8 sped up over its first 0.1 s)."""
    if dt.shape != off.shape[:1] or off.ndim != 2 or off.shape[1] != 2:
        raise ValueError(f"dt and off must have shapes (n,) and (n, 2), got {dt.shape} and {off.shape}")
    if len(dt) < 3 or float(np.dot(dt, dt)) <= 0.0:
        return None
    v = (dt @ off) / float(np.dot(dt, dt))
    speed = float(np.hypot(*v))
    rms = float(np.sqrt(np.mean(np.sum((off - np.outer(dt, v)) ** 2, axis=1))))
    if speed <= 0.0 or rms > 2.0 * noise_mm(speed):
        return None
    scan = ramp_scan(dt, off @ (v / speed), dt, noise_mm(speed))  # along the run, a start at each sample's dt
    return v if scan is not None and float(dt[scan[0]]) <= max(0.5 * float(dt[-1]), lag_s) else None
