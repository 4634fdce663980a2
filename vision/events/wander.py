"""What another ball's own track shows of a ball whose tracked centre only wandered off its rest (a merged blob,
an arm over it): the ball stood at its rest all along, so a hit on it there is read from the other ball alone.

A ball at rest cannot push, so a contact with it needs the other ball to have run into its rest and been turned
away from it (a striker stopped or deflected), or to have left it as a third ball ran into it (a cradle: the hit
passed through). A ball that only passed near its rest shows no such change, whatever the wandering centre did.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import numpy as np

from vision.events.contacts import LEAVE_COS
from vision.events.fit import LineFit, first_time_within, fit_line
from vision.events.history import History
from vision.events.settings import EventSettings, noise_model


class RunInto(NamedTuple):
    ran_in: bool  # it approached the rest, touched it and was turned away from it
    away: bool  # it was turned away from it at least (it left it, from rest or on its run)
    t: float  # when its incoming line reached touching (the split time when it came from rest)


_NONE = RunInto(False, False, float("nan"))


def ran_into(
    hist: History, s: EventSettings, b: int, home: np.ndarray, t: float, radius: float, w: int, d: int
) -> RunInto:
    """Did ball b's track, split at about t (its last sample at or before t, or one either side; its `w` seen
    samples before and `d` + 1 after, across frames it was unseen in: a striker hidden as its blob merged with the
    ball it hit), come to touching a ball standing at `home` (within `contact_gate_mm`) with its velocity changed
    away from it by `kink_z` standard errors and `kink_min_mm_s`, and had it approached it at that speed?"""
    nm = noise_model(s)
    best, best_z = _NONE, 0.0
    n0 = hist.counter_at(t)
    reach = 4 * (w + d)  # how far back and on a hidden striker's samples are sought
    for n in (n0, n0 - 1, n0 + 1):  # the split that shows the change best (the contact may be either side)
        if not hist.has(n + 1):
            continue
        t_pre, xy_pre = hist.track(b, n - reach, n)
        t_post, xy_post = hist.track(b, n + 1, n + 1 + reach)
        t_pre, xy_pre, t_post, xy_post = t_pre[-w:], xy_pre[-w:], t_post[: d + 1], xy_post[: d + 1]
        pre, post = fit_line(t_pre, xy_pre, nm), fit_line(t_post, xy_post, nm)
        if pre is None or post is None:
            continue
        t_split = 0.5 * (float(t_pre[-1]) + float(t_post[0]))
        # where it met the ball at rest: its incoming line reaching touching distance between the two samples (within
        # the review band: a thin cut's tracked line may pass a millimetre wide); from rest, where it stood after the
        # split (touching, as a ball the hit passed through)
        touch = 2 * radius + s.review_band_mm
        t_meet, _, _ = first_time_within(partial(_dist, pre, home), float(t_pre[-1]), float(t_post[0]), touch)
        p_meet = pre.at(t_meet) if t_meet is not None else post.at(t_split)
        u = p_meet - home
        dist = float(np.hypot(*u))
        if dist < 1e-9 or dist - 2 * radius > s.contact_gate_mm:
            continue
        u /= dist  # the line of centres at the hit: the impulse from a ball at rest sends b along it
        dv = post.v - pre.v
        sig = float(np.hypot(pre.sigma_v, post.sigma_v))
        turn = float(np.dot(dv, u))
        # along the line of centres, as a ball hit at rest leaves it (`contacts.LEAVE_COS`): a turn off a
        # third ball beside the rest points elsewhere
        along = turn >= LEAVE_COS * float(np.hypot(*dv))
        away = along and turn >= max(s.kink_z * sig, s.kink_min_mm_s)
        came = t_meet is not None and -float(np.dot(pre.v, u)) >= max(s.kink_z * pre.sigma_v, s.kink_min_mm_s)
        z = turn / max(sig, 1e-9) + (1e9 if away and came else 0.0)  # a run in first, then the clearest turn
        if not away or z <= best_z:
            continue
        best, best_z = RunInto(came, True, t_meet if came and t_meet is not None else t_split), z
    return best


def _dist(line: LineFit, p: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """Distance from p of a fitted line at times ts."""
    return np.asarray(np.hypot(*(line.at(ts) - p).T))
