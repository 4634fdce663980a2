"""Touch readings beside the kink test: a ball near a cushion driven into it by a hit (no frame of it arriving),
and one touch read twice (a slow ball leaving a nose stays within its noise for frames)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.events.contacts import kink_confidence
from vision.events.cushions import Boundary, Touch
from vision.events.fit import fit_line, fixed_point
from vision.events.history import History
from vision.events.kink import Pieces
from vision.events.settings import EventSettings, noise_model


def driven_into(
    hist: History,
    bound: Boundary,
    s: EventSettings,
    ball: int,
    anchor: np.ndarray,
    hit: tuple[float, np.ndarray, float, float],
    radius: float,
    n_hi: int,
) -> Touch | None:
    """A ball at rest at `anchor`, hit at t along the unit `direction` (the line of centres, exactly where a
    ball from rest leaves) at `speed` mm/s (`hit` = (t, direction, speed, confidence of the contact)), into
    the nose segment it is nearest to, less than 2R away (no ball fits in between). It touches that nose:
    - if it is seen coming back off it (the normal velocity after it points away, a kink from rest), or
    - if it was sent at it fast enough to get there within the look-ahead: from rest it can only run along
      `direction` until something stops it, and nothing but the nose is there (the frozen-ball reading,
      carried to a ball a few centimetres off the cushion: 30 fps often shows no frame of it arriving).
    The time is where the straight run from the rest position reaches distance R. None when neither holds.
    """
    t_hit, direction, speed, conf_hit = hit
    p0 = np.asarray(anchor, dtype=float)
    dists, pts, par = bound.closest(p0)
    i = int(np.argmin(dists))
    gap = float(dists[i]) - radius
    if not (s.frozen_tol_mm < gap < 2 * radius):
        return None  # frozen to it (the detector's frozen rule), or far enough for the frames to show it
    n = (p0 - pts[i]) / float(dists[i])  # into the bed, at the closest point
    cos_in = -float(np.dot(direction, n))
    if cos_in < s.frozen_push_min_cos or speed <= 0.0:
        return None  # not driven into it
    t_reach = t_hit + gap / cos_in / speed  # when the straight run reaches distance R
    end = 0 if par[i] <= 1e-6 else 1 if par[i] >= 1 - 1e-6 else -1
    jaw = bound.jaw.get((i, end)) if end >= 0 else None
    t, xy = hist.track(ball, hist.counter_at(t_hit), n_hi)
    t, xy = t[t > t_reach], xy[t > t_reach]
    back = fit_line(t, xy, noise_model(s)) if len(t) >= 2 else None
    if back is not None:
        v_n = float(np.dot(back.v, n))
        z = v_n / max(back.sigma_v, 1e-9)
        margin = float(np.dot(back.at(t_hit) - pts[i], n)) - radius  # < 0: the way back runs through the nose
        if z >= s.kink_z_review and v_n >= s.kink_min_mm_s and gap - margin > s.review_band_mm:
            conf, review = kink_confidence(z, v_n + speed * cos_in, margin, s)
            if conf > 0.0:
                idc = float(hist.id_conf[hist.counter_at(t_reach) % hist.size, ball])
                return Touch(
                    ball, t_reach, bound.names[i], jaw, z, margin, conf * idc, review, Pieces(back, back, 0.0, True)
                )
    if t_reach - t_hit > s.lookahead_s:
        return None  # slow enough for the frames to show it arriving: the ordinary touch test's business
    line = fixed_point(p0, t_hit, s.noise_rest_mm, 1)
    line = replace(line, v=direction * speed)
    idc = float(hist.id_conf[hist.counter_at(t_reach) % hist.size, ball])
    conf = min(conf_hit, 0.8) * idc
    return Touch(ball, t_reach, bound.names[i], jaw, 0.0, -gap, conf, False, Pieces(line, line, 0.0, True))


# a centre this many noise sigmas beyond R from a nose on two samples in a row has left it (noise alone: about
# one pair in half a million; one sample alone is ~1 in 700, too often among the dozen samples of a slow touch)
_LEFT_Z = 3.0


def left_nose(
    hist: History, bound: Boundary, s: EventSettings, ball: int, cushion: str, t0: float, t1: float, radius: float
) -> bool:
    """Did the ball leave nose segment `cushion` between two touches of it at t0 and t1: do two samples in a
    row strictly between lie farther than R + _LEFT_Z noise sigmas from it? A ball that touched a nose leaves
    it along the normal and comes back only after another impulse (a ball, another nose); a slow ball
    creeping away stays within the noise of the nose for several frames, and a second local minimum of its
    sampled distance there is the same touch read again. True when the samples between are not held."""
    lo, hi = min(t0, t1), max(t0, t1)
    if lo < hist.time(hist.oldest):
        return True
    t, xy = hist.track(ball, hist.counter_at(lo) + 1, hist.counter_at(hi))
    t, xy = t[(t > lo) & (t < hi)], xy[(t > lo) & (t < hi)]
    if len(t) == 0:
        return False
    speed = float(np.hypot(*(xy[-1] - xy[0]))) / max(float(t[-1] - t[0]), 1.0 / 240.0) if len(t) > 1 else 0.0
    away = bound.closest(xy)[0][:, bound.names.index(cushion)] - radius > _LEFT_Z * noise_model(s)(speed)
    return bool(np.any(away[:-1] & away[1:]))


def same_touch(
    hist: History,
    bound: Boundary,
    s: EventSettings,
    tc: Touch,
    t_prev: float,
    kinks: list[float],
    radius: float,
) -> bool:
    """Is `tc` the touch of the same ball and nose at t_prev read again? Yes within `refractory_s`; beyond it,
    yes unless another impulse of the ball lies between them (`kinks`: its confident contacts and touches,
    t_prev's own excluded) or the ball left the nose in between (`left_nose`)."""
    gap = abs(tc.t - t_prev)
    if gap < s.refractory_s:
        return True
    if not np.isfinite(t_prev) or gap > s.history_s:
        return False
    lo, hi = min(tc.t, t_prev), max(tc.t, t_prev)
    tol = 1e-6
    if any(lo + tol < k < hi - tol for k in kinks):
        return False
    return not left_nose(hist, bound, s, tc.ball, tc.cushion, lo, hi, radius)
