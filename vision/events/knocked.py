"""A ball at rest knocked out of view inside one frame (into a pocket from the jaws): the striker's kink proves it.

A ball hanging in a pocket mouth, hit, drops within the frame: the tracker's last sample shows it at rest and
the next shows nothing (the striker covers the mouth as it falls). There is no distance minimum to find (the
striker runs on into the place the ball left) and no start to read, so the pair search and the start logic see
nothing. What is left is the striker: its incoming line reaches touching distance of the resting ball's centre
between that ball's last sample and its first missing one, and its velocity changes there, pushed back along
the line of centres (an impulse from the ball, the only way a ball's velocity changes at one instant away from
a cushion) by `kink_z` standard errors and `kink_min_mm_s`, with no other kink of its own there to explain it.
"""

from __future__ import annotations

import numpy as np

from vision.events.contacts import Contact, Window
from vision.events.fit import first_time_within, fixed_point
from vision.events.history import History
from vision.events.kink import Pieces, RestLookup, best_split, kink_confidence
from vision.events.settings import EventSettings

_AWAY = 2  # frames unseen after its last sample: the ball left the view, not a sample missed

_CLEAR_CONF = 0.45  # a knocked contact whose striker's line missed the rest centre beyond the band


def vanish_candidates(
    hist: History, rest: RestLookup, m: int, radius: float, s: EventSettings
) -> list[tuple[int, int]]:
    """(striker, ball) pairs where a ball at rest has its last sample at counter m, unseen for `_AWAY` frames after,
    with a ball that was moving before within touching distance of its rest centre (plus a frame's run)."""
    if not (hist.has(m - 2) and hist.has(m + _AWAY)):
        return []
    k = m % hist.size
    after = hist.idx(m + 1, m + _AWAY)
    out = []
    for x in np.flatnonzero(hist.valid[k] & ~hist.valid[after].any(axis=0)):
        anchor = rest.anchor_at(int(x), hist.time(m))
        if anchor is None:
            continue
        for y in range(len(hist.ids)):
            if y == x or not rest.moving_at(y, hist.time(m - 2)):
                continue
            t, xy = hist.track(y, m - 1, m + 1)
            if len(t) < 2:
                continue
            step = float(np.max(np.hypot(*np.diff(xy, axis=0).T)))
            if float(np.min(np.hypot(*(xy - anchor).T))) - 2 * radius <= s.contact_gate_mm + step:
                out.append((y, int(x)))
    return out


def verify_knocked(w: Window, y: int, x: int) -> Contact | None:
    """Did striker y knock resting ball x (last seen at w.m) out of view? The contact, timed where y's incoming
    line reaches 2R from x's rest centre, or None."""
    hist, rest, s, m, radius, fps = w.hist, w.rest, w.s, w.m, w.radius, w.fps
    anchor = rest.anchor_at(x, hist.time(m))
    if anchor is None:
        return None
    found = best_split(hist, rest, s, (y,), range(m - 2, m + 2), w.n_lo, w.n_hi, slow=True)
    if found is None:
        return None
    _, (py,) = found
    if py.at_rest_before:
        return None  # struck inside the frame: its change is the cue's as much as the ball's
    dt = 1.0 / fps
    t_lo, t_hi = hist.time(m - 1), hist.time(m + 1)

    def dist(ts: np.ndarray) -> np.ndarray:
        return np.linalg.norm(py.pre.at(ts) - anchor, axis=-1)

    t_touch, d_min, _ = first_time_within(dist, t_lo, t_hi, 2 * radius)
    margin = d_min - 2 * radius
    t_k = py.kink_time()
    if t_k is None or margin > s.contact_gate_mm:
        return None
    t_c = t_touch if t_touch is not None else float(np.clip(t_k, t_lo, t_hi))
    if abs(t_k - t_c) > 2 * dt:
        return None  # the track turned apart from the ball
    if any(abs(t - t_c) <= 2 * dt for t in w.kinks.get(y, ())):
        return None  # a cushion or another ball turned it there
    u = anchor - py.pre.at(t_c)
    u = u / max(float(np.hypot(*u)), 1e-9)
    impulse = -float(np.dot(py.dv, u))  # the striker is pushed back along -u
    z = impulse / max(py.sigma_dv, 1e-9)
    if z < s.kink_z:
        return None  # the only evidence is this kink: a weak one proves nothing of a ball nobody saw move
    conf, review = kink_confidence(z, impulse, margin, s)
    if conf <= 0.0:
        return None
    if margin > s.review_band_mm:
        # the striker's line passed clear of the rest centre by more than the band, and the ball was never seen
        # moving (it may only be hidden): the kink alone does not prove the touch, so it is reported, not asserted
        conf, review = min(conf, _CLEAR_CONF), True
    still = fixed_point(anchor, hist.time(m), s.noise_rest_mm, 30)
    pieces = (py, Pieces(still, still, 0.0, True))
    return Contact(y, x, float(t_c), z, impulse, margin, u, conf, review, pieces, knocked=True)
