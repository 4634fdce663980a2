"""A cushion touch read from a contact: the striker's straight run could not reach the ball it hit, but it did
reach a cushion nose first, so the nose turned it into that ball (both inside one frame, one kink to the eye).

Seed-223 frame_russian71: 8, hit by C, ran into the rear nose and 11 ms later into 11; the contact 8-11 was
found, the touch was not (8 then crept at the nose, so its sampled distance to it had no minimum), and the
shot's chain (8 off the rear cushion drove 11 to another) was lost: a 1.20 foul for a legal 2b.
"""

from __future__ import annotations

import numpy as np

from vision.events.cushions import Boundary, Touch
from vision.events.fit import LineFit
from vision.events.history import History
from vision.events.kink import Pieces
from vision.events.settings import EventSettings, noise_model

_STEPS = 40  # points along the run: 3-4 mm apart for a ball at 2.5 m/s over two frames at 30 fps
_REST_MM = 2.0  # where the ball it hit rested: its rest centre's own error, with a margin
_CONF = 0.6  # an inference from where the run could go, not a kink seen at the nose: for review


def nose_before_contact(
    hist: History, bound: Boundary, s: EventSettings, x: int, y: int, other: np.ndarray, t_c: float, radius: float,
    fps: float,
) -> Touch | None:
    """Ball x hit ball y, resting at `other`, at about t_c. Its straight run from its last two samples before
    t_c (to a frame after it: t_c is known to a frame) never comes within touching that ball, yet reaches a
    cushion nose: it touched that nose first, when its run reached it. None when the run reaches the ball
    (within three standard errors of its place), or no nose, or a third ball lies on the way there, or the
    samples are too few or their step within the noise, or the nose is met only after t_c."""
    c = hist.counter_at(t_c)
    t, xy = hist.track(x, c - 1, c)
    if len(t) < 2 or float(t[-1] - t[0]) > 1.5 / fps:  # (counter_at: the samples are at or before t_c)
        return None
    v = (xy[-1] - xy[0]) / float(t[-1] - t[0])
    speed = float(np.hypot(*v))
    sd = noise_model(s)(speed)
    noise = float(np.sqrt(2.0)) * sd  # a step between two samples: both their noises
    if speed * float(t[-1] - t[0]) <= 3.0 * noise:
        return None  # a step within the noise shows no way
    ts = np.linspace(float(t[-1]), t_c + 1.0 / fps, _STEPS)
    tau = (ts - float(t[-1])) / float(t[-1] - t[0])  # in steps past the last sample
    run = xy[-1] + np.multiply.outer(ts - float(t[-1]), v)
    # p = (1 + tau) x2 - tau x1: its error is the samples' noise times sqrt((1 + tau)^2 + tau^2); three of
    # that, plus the rest position's own, is the least miss that shows the run could not reach the ball
    sigma = sd * np.sqrt((1.0 + tau) ** 2 + tau**2)
    gaps = np.hypot(*(run - other).T) - 2.0 * radius
    j = int(np.argmin(gaps))
    miss, slack = float(gaps[j]), 3.0 * float(sigma[j]) + _REST_MM
    if miss <= slack:
        return None  # the run reaches the ball: no nose is needed to explain the hit
    d = bound.distance(run)
    inside = np.nonzero(d <= radius)[0]
    if len(inside) == 0:
        return None
    k = int(inside[0])
    for z in range(len(hist.ids)):  # a third ball on the way to the nose may have turned it instead
        _, q = hist.track(z, c, c)
        if z in (x, y) or not len(q):  # (the ball it hit: judged above)
            continue
        if float(np.min(np.hypot(*(run[: k + 1] - q[0]).T))) - 2.0 * radius <= 3.0 * float(sigma[k]):
            return None
    p = run[k]
    dists, _, par = bound.closest(p)
    i = int(np.argmin(dists))
    t_touch = float(ts[k])
    if k > 0:  # between the last point clear of the nose and the first at it
        d0, d1 = float(d[k - 1]), float(d[k])
        t_touch = float(ts[k - 1] + (ts[k] - ts[k - 1]) * (d0 - radius) / max(d0 - d1, 1e-9))
    pre = LineFit(float(t[-1]), np.asarray(xy[-1], dtype=float), v, noise * fps, noise, 2)
    why = (f"its run could not reach the ball it hit ({miss:.0f} mm short of touching it) but met this nose "
           "first: the nose turned it")
    if t_touch > t_c:
        return None  # the nose lies past the hit: it cannot have turned the ball into it
    return Touch(x, t_touch, bound.names[i], bound.jaw_at(i, float(par[i])), 0.0, float(np.min(d)) - radius, _CONF,
                 True, Pieces(pre, pre, 0.0, False), why=why)
