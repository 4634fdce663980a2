"""A ball struck into a cushion that comes straight back into its striker: the second contact within a frame.

A ball resting near a cushion, hit hard, meets the cushion and returns into the cue ball a few
milliseconds later, often before the next frame (`frame_free` at 60 fps: 12 ms from the first contact to
the second). The two contacts share one local minimum of the sampled distance, so the pair search sees only
the first; the cushion touch between them is seen. What proves the second is momentum: across the frame
the two balls' velocity changes must be explained by impulses along known directions, the first contact's
line of centres u1, the cushion's normal n (with its friction along the nose t, |Jt| <= MU_CUSHION Jc), and
(if there was one) the second contact's line u2. With equal masses and impulses J >= 0 in mm/s of the
velocity they give,

    dv_a = -J1 u1 - J2 u2,    dv_b = J1 u1 + Jc n + Jt t + J2 u2,

solved by weighted least squares with J >= 0 and J1 at most the closing speed along u1 (restitution <= 1;
without that bound a head-on return is J1 and J2 along one line, which momentum cannot split). A J2 whose
fit beats the one without it by `kink_z` standard errors (likelihood ratio; by `kink_z_review` to `kink_z`:
returned for review), with the balls' lines after the touch not clearly apart where they met, is the second
contact, timed where those lines part at 2R (they would overlap before it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import lsq_linear

from vision.events.fit import LineFit, fit_line
from vision.events.history import History
from vision.events.settings import EventSettings, noise_model

_MIN_SAMPLES = 3  # per ball and side: a line from two points has no error estimate
# Ball-cushion friction coefficient, the upper end of what is measured for billiard balls on rubber noses
# (0.14-0.2): bounds the impulse the nose can give along itself
MU_CUSHION = 0.2


@dataclass(frozen=True)
class Return:
    t: float  # the second contact: where the post-touch lines part at 2R (just after the touch if they never meet)
    z: float  # its impulse in standard errors
    impulse_mm_s: float
    gap_mm: float  # distance of the post-touch lines at the touch minus 2R (negative: they overlap)
    striker: int  # the ball that came back off the cushion
    struck: int


def _fit(hist: History, x: int, n0: int, n1: int, s: EventSettings, least: int = _MIN_SAMPLES) -> LineFit | None:
    t, xy = hist.track(x, n0, n1)
    return fit_line(t, xy, noise_model(s)) if len(t) >= least else None


def return_contact(
    hist: History,
    s: EventSettings,
    a: int,
    b: int,
    t_first: float,
    touch: tuple[float, np.ndarray],
    n_window: tuple[int, int],
    radius: float,
    runs_from: tuple[int, int],
) -> Return | None:
    """Ball b met a at t_first and touched a cushion (time, inward unit normal) just after: did it come back
    into a before the next frames? `n_window`: (frames of fit before, last counter of the fit after).
    `runs_from`: for a and b, the first counter of a run that began inside that window (a striker struck a
    frame or two before the hit: its incoming line is that run alone, two samples with the stated noise being
    enough; a line through its rest too points nowhere), else the window's start (`c - w`, c the counter at
    t_first). None when a track is too short to read or no second impulse stands out."""
    t_touch, normal = touch
    w, n_hi = n_window
    c_pre = hist.counter_at(t_first)
    c_post = hist.counter_at(t_touch) + 1
    if c_post > hist.newest:
        return None
    # a run of one sample (struck the frame before) has no line: the window as before
    lo = [n0 if n0 < c_pre else c_pre - w for n0 in runs_from]
    pre = [_fit(hist, x, n0, c_pre, s, 2 if n0 > c_pre - w else _MIN_SAMPLES) for x, n0 in zip((a, b), lo, strict=True)]
    post = [_fit(hist, x, c_post, n_hi, s) for x in (a, b)]
    if any(f is None for f in pre + post):
        return None
    (pa, pb), (qa, qb) = pre, post
    assert pa is not None and pb is not None and qa is not None and qb is not None  # for mypy
    t_seen = float(max(qa.t0, qb.t0))
    # u1: a's incoming line where it reaches 2R from b at the first contact (b's line then)
    u1 = pb.at(t_first) - pa.at(t_first)
    # u2: a -> b where the post-touch lines are when first seen together (they separate along it)
    u2 = qb.at(t_seen) - qa.at(t_seen)
    if min(float(np.hypot(*u1)), float(np.hypot(*u2))) < 1e-6:
        return None
    u1, u2 = u1 / np.hypot(*u1), u2 / np.hypot(*u2)
    n = np.asarray(normal, dtype=float)
    tang = np.array([-n[1], n[0]])
    z2 = np.zeros(2)
    # columns J1, the cushion's two friction-cone edges, J2; rows dv_a (2), dv_b (2). The nose pushes b along
    # its normal and, by friction, along the nose against b's slide, at most mu_cushion times as much: any
    # such impulse is a non-negative sum of n + mu t and n - mu t (a ball frozen to the nose and struck
    # obliquely slides along it as it is driven in: 9 off the front cushion carried 400 mm/s of it)
    m = np.column_stack([np.r_[-u1, u1], np.r_[z2, n + MU_CUSHION * tang], np.r_[z2, n - MU_CUSHION * tang],
                         np.r_[-u2, u2]])
    y = np.r_[qa.v - pa.v, qb.v - pb.v]
    sig = np.r_[[float(np.hypot(pa.sigma_v, qa.sigma_v))] * 2, [float(np.hypot(pb.sigma_v, qb.sigma_v))] * 2]
    mw, yw = m / sig[:, None], y / sig
    # one contact with equal masses gives at most the closing speed along its line (restitution <= 1): the
    # bound that tells a's recoil from b coming back from a bigger first impulse when u2 is near u1
    closing = max(float(np.dot(pa.v - pb.v, u1)), 0.0)
    hi1 = closing + 2.0 * float(np.hypot(sig[0], sig[2]))
    with_j2 = lsq_linear(mw, yw, bounds=([0.0, 0.0, 0.0, 0.0], [hi1, np.inf, np.inf, np.inf]))
    without = lsq_linear(mw[:, :3], yw, bounds=([0.0, 0.0, 0.0], [hi1, np.inf, np.inf]))
    j2 = float(with_j2.x[3])
    # likelihood ratio of the two fits: the second impulse's significance in standard errors
    z = float(np.sqrt(max(2.0 * (without.cost - with_j2.cost), 0.0)))
    if z < s.kink_z_review or j2 < s.kink_min_mm_s:
        return None  # (between kink_z_review and kink_z: the caller reports it for review)
    # the lines after the touch: run back to it they must not be clearly apart (b came back to a), give or take
    # two standard errors of that run back (seed-179 frame_russian71: C struck 2 frames before its hit on 11,
    # 20 mm off the side cushion, came back at 1.8 m/s; the lines met 6.2 mm apart, a 14-sigma second impulse)
    ts = np.linspace(t_touch, t_seen, 101)
    d = np.hypot(*(qb.at(ts) - qa.at(ts)).T)
    gap = float(d[0]) - 2 * radius
    slack = min(2.0 * float(np.hypot(qa.sigma_v, qb.sigma_v)) * (t_seen - t_touch), s.cause_gap_mm)
    if gap > s.cause_gap_mm + slack:  # (capped: a piece that is no line, a third ball met, widens the error)
        return None
    inside = np.nonzero(d <= 2 * radius)[0]
    t_hit = t_touch + 1e-4  # after the touch it came back from (the log orders times to 10 us)
    if len(inside):  # they part at 2R: the last time the lines are within it
        k = int(inside[-1])
        t_hit = float(ts[k])
        if k + 1 < len(ts):
            t_hit += float((2 * radius - d[k]) / max(float(d[k + 1] - d[k]), 1e-12) * (ts[k + 1] - ts[k]))
    return Return(t_hit, z, j2, gap, b, a)
