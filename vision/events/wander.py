"""What another ball's own track shows of a ball whose tracked centre only wandered off its rest (a merged blob,
an arm over it): the ball stood at its rest all along, so a hit on it there is read from the other ball alone.

A ball at rest cannot push, so a contact with it needs the other ball to have run into its rest and been turned
away from it (a striker stopped or deflected), or to have left it as a third ball ran into it (a cradle: the hit
passed through). A ball that only passed near its rest shows no such change, whatever the wandering centre did.
"""

from __future__ import annotations

import numpy as np

from vision.events.fit import fit_line
from vision.events.history import History
from vision.events.settings import EventSettings, noise_model


def ran_into(
    hist: History, s: EventSettings, b: int, home: np.ndarray, t: float, radius: float, w: int, d: int
) -> tuple[bool, bool]:
    """(ran in, turned away): did ball b's track, split at about t (the sample at or before t, or one either
    side), come to touching the ball standing at `home` (within `contact_gate_mm`) with its velocity changed
    away from it by `kink_z` standard errors and `kink_min_mm_s`, having approached it at that speed (ran in)
    or not (turned away only: it left it, from rest or on its run)? `w`, `d`: samples fitted before and after."""
    nm = noise_model(s)
    best = (False, False)
    n0 = hist.counter_at(t)
    for n in (n0, n0 - 1, n0 + 1):
        if n - w < hist.oldest or not hist.has(n + 1):
            continue
        t_pre, xy_pre = hist.track(b, n - w, n)
        t_post, xy_post = hist.track(b, n + 1, min(n + 1 + d, hist.newest))
        pre, post = fit_line(t_pre, xy_pre, nm), fit_line(t_post, xy_post, nm)
        if pre is None or post is None:
            continue
        t_split = 0.5 * (float(t_pre[-1]) + float(t_post[0]))
        u = post.at(t_split) - home
        dist = float(np.hypot(*u))
        if dist < 1e-9 or dist - 2 * radius > s.contact_gate_mm:
            continue
        u /= dist  # from the resting ball to b: the way a hit from it sends b
        sig = float(np.hypot(pre.sigma_v, post.sigma_v))
        away = float(np.dot(post.v - pre.v, u)) >= max(s.kink_z * sig, s.kink_min_mm_s)
        came = -float(np.dot(pre.v, u)) >= max(s.kink_z * pre.sigma_v, s.kink_min_mm_s)
        if away and came:
            return True, True
        best = (False, best[1] or away)
    return best
