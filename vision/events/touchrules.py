"""A touch reading beside the kink test: a ball near a cushion driven into it by a hit (no frame of it arriving)."""

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
                return Touch(ball, t_reach, bound.names[i], jaw, z, margin, conf, review, Pieces(back, back, 0.0, True))
    if t_reach - t_hit > s.lookahead_s:
        return None  # slow enough for the frames to show it arriving: the ordinary touch test's business
    line = fixed_point(p0, t_hit, s.noise_rest_mm, 1)
    line = replace(line, v=direction * speed)
    conf = min(conf_hit, 0.8)
    return Touch(ball, t_reach, bound.names[i], jaw, 0.0, -gap, conf, False, Pieces(line, line, 0.0, True))
