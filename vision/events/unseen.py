"""Starts the tracker did not see well: was the ball seen leaving its rest, is a ball found off it rolling
straight away from it, did its tracked centre only jump, or go out and back onto its rest sooner than a ball
can (`StartLogic` judges its onsets with these)."""

from __future__ import annotations

import numpy as np

from calibration.table import Table
from vision.events.fit import fit_line
from vision.events.history import History
from vision.events.motion import Onset
from vision.events.settings import MAX_SPEED_MM_S, EventSettings, frames, noise_model

# out and back onto the rest within this long, decelerating harder than this, is no ball (see out_and_back):
# five times sliding friction (~0.2 g), so that the noise of a few samples never makes a backspun ball one
_OUT_AND_BACK_S = 0.25
_TURN_MAX_MM_S2 = 10000.0


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


def _too_sharp_a_turn(out_mm: float, span_s: float) -> bool:
    """Out `out_mm` and back in `span_s` asks 8 d / T^2 of deceleration: more than `_TURN_MAX_MM_S2`?"""
    return 8.0 * out_mm / max(span_s, 1e-9) ** 2 > _TURN_MAX_MM_S2


def out_and_back(h: History, table: Table, s: EventSettings, fps: float, o: Onset) -> bool | None:
    """Off its rest and back onto it (within the rest radius) sooner than any ball can turn round, with no
    cushion nose and no other ball within that reach to turn it: the tracked centre followed something else
    (a hand carrying the cue ball over it: seed-37 cue_ball_in_hand_anywhere, 6 "struck" at 5.6 m/s for one
    frame; an arm lifting off a ball it covered: seed-59 frame_dynamic, 15 "struck" 25 mm out and back in
    0.1 s). A ball turns round on the cloth alone only by backspin, against sliding friction: out d and back
    in T takes 8 d / T^2 of deceleration, held under `_TURN_MAX_MM_S2`. A ball struck into a cushion 10 cm
    off does come back near its spot: the nose within reach rules that out. None while it is on its way
    back but not yet home (only then: a ball rolling away is never kept waiting)."""
    t, xy = h.track(o.ball, o.n_first, o.n_first + frames(_OUT_AND_BACK_S, fps, 2))
    if len(t) < 2:
        return False
    off = np.hypot(*(xy - o.anchor).T)
    home = np.nonzero(off[1:] <= s.rest_radius_mm)[0]
    j = int(home[0]) + 1 if len(home) else len(off)
    out = float(off[:j].max())
    # between two samples it may have run on past the farthest one by up to half a step (seed-83
    # frame_russian71: C struck at 0.5 m/s into the front nose 21 mm off, farthest sample 19 mm out)
    seen = np.vstack([o.anchor, xy[: j + 1]])
    reach = out + 0.5 * float(np.max(np.hypot(*np.diff(seen, axis=0).T)))
    if min(table.cushion_gaps(o.anchor).values(), default=np.inf) <= reach:
        return False
    k = o.n_first % h.size
    for b in range(h.xy.shape[1]):
        if b != o.ball and h.valid[k, b] and table.ball_gap(h.xy[k, b], o.anchor) <= reach:
            # a ball that turned it round took its momentum and left its place (a touching ball that stayed
            # put turned nothing: seed-59 frame_dynamic, 15 against 5)
            tb, yb = h.track(b, o.n_first - 1, h.counter_at(float(t[min(j, len(t) - 1)])))
            if not len(yb):
                return False
            # unless it ran off faster than twice this ball's start: a ball hit takes at most the striker's
            # speed (seed-127 frame_free: C struck away from touching 6 at 2 m/s; 5, beside them, read 17 mm
            # off and back at 0.5 m/s, took C's stroke for a hit into its pack: no shot)
            left = float(np.max(np.hypot(*(yb - yb[0]).T))) > s.rest_radius_mm
            if left and ran_off(h, b, float(tb[0])) <= 2.0 * o.speed:
                return False
    t_rest, _ = h.track(o.ball, o.n_first - 3, o.n_first - 1)  # its last sample at rest: the longest it took
    t_left = t_rest[-1] if len(t_rest) else t[0] - 1.0 / fps
    if not len(home):
        heading_back = off[-1] < out - s.rest_radius_mm
        window_open = h.time(h.newest) - t[0] < _OUT_AND_BACK_S
        # the soonest it can still be home, then: the next frame
        possible = _too_sharp_a_turn(out - s.rest_radius_mm, h.time(h.newest) + 1.0 / fps - t_left)
        return None if heading_back and window_open and possible else False
    return _too_sharp_a_turn(out - s.rest_radius_mm, float(t[j] - t_left))


def ran_off(hist: History, b: int, t: float) -> float:
    """The median speed (mm/s) of the ball's first three steps from time t: how fast it left. A ball hit by
    another takes at most the striker's speed (equal masses), so one that left much faster than a ball ran
    was not set moving by it, nor did it turn it round."""
    n = hist.counter_at(t)
    tb, yb = hist.track(b, n, n + 3)
    steps = np.hypot(*np.diff(yb, axis=0).T) / np.maximum(np.diff(tb), 1e-9)
    return float(np.median(steps)) if len(steps) >= 2 else 0.0
