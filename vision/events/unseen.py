"""Starts the tracker did not see well: was the ball seen leaving its rest, is a ball found off it rolling
straight away from it, or did its tracked centre only jump (`StartLogic` judges its onsets with these)."""

from __future__ import annotations

import numpy as np

from vision.events.fit import fit_line
from vision.events.history import History
from vision.events.motion import Onset
from vision.events.settings import MAX_SPEED_MM_S, EventSettings, noise_model


def seen_leaving(hist: History, o: Onset, seen_s: float) -> bool:
    """Was the ball seen leaving: seen at rest, then on its first three samples off the rest position, none
    of these more than `seen_s` apart (else the tracker lost it as it left, or right after: a hand or an arm
    arriving over a ball shifts its centre a few mm, then hides it)."""
    before, _ = hist.track(o.ball, o.n_first - hist.size, o.n_first - 1)
    t, _ = hist.track(o.ball, o.n_first, min(hist.newest, o.n_first + hist.size))
    if len(before) == 0 or len(t) < 3:
        return False
    return float(max(t[0] - before[-1], t[1] - t[0], t[2] - t[1])) <= seen_s + 1e-9


def runs_back(hist: History, o: Onset, s: EventSettings) -> bool:
    """A start not seen, but the ball is found rolling straight away from its rest position: the line through
    its first four samples is straight within the noise and passes its rest position within three standard
    errors of a moving centre, heading away from it (another ball re-found under its name seldom does)."""
    t, xy = hist.track(o.ball, o.n_first, o.n_first + hist.size)
    if len(t) < 3:
        return False
    fit = fit_line(t[:4], xy[:4], noise_model(s))
    if fit is None or fit.speed > MAX_SPEED_MM_S or fit.rms_mm > 2 * s.noise_moving_mm:
        return False
    rel = o.anchor - fit.p0
    off = abs(float(rel[0] * fit.v[1] - rel[1] * fit.v[0])) / max(fit.speed, 1e-9)
    return off <= 3 * s.noise_moving_mm and float(np.dot(rel, fit.v)) < 0


def unseen_jump(hist: History, o: Onset, rest_radius_mm: float, onset_mm: float) -> bool:
    """A start the tracker did not see, judged on the track after it: no start when the ball was hardly seen
    again (fewer than three samples: no motion was seen), when it is back at rest on its rest position (it
    never left: a hand or the cue hid it and the tracker took something else for it), or when it sits still
    elsewhere after its first sample (put down by hand, or another ball re-found under its name)."""
    t, xy = hist.track(o.ball, o.n_first, hist.newest)
    if len(t) < 3:
        return True
    tail = xy[-3:]
    if float(np.max(np.hypot(*(tail - o.anchor).T))) <= onset_mm:
        return True  # back where it rested
    rest = xy[1:]
    return bool(float(np.max(np.hypot(*(rest - rest.mean(axis=0)).T))) <= rest_radius_mm)
