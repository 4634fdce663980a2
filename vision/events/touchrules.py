"""A touch reading beside the kink test: a ball near a cushion driven into it by a hit (no frame of it arriving)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from calibration.table import Table
from vision.events.cushions import Boundary, Touch
from vision.events.fit import LineFit, fit_line, fixed_point
from vision.events.history import History
from vision.events.kink import Pieces, kink_confidence
from vision.events.settings import EventSettings, noise_model


def frozen_pushed(
    table: Table, s: EventSettings, anchor: np.ndarray, direction: np.ndarray, conf: float
) -> list[tuple[str, float, dict[str, object]]]:
    """The cushions a ball at rest at `anchor`, frozen to them (within `frozen_tol_mm`), touches when hit along the
    unit `direction` with a contact of confidence `conf`: (cushion, confidence, extra) for each it is driven into
    by more than `frozen_push_min_cos`. Into it by half that to the threshold (5 to 10 degrees off parallel), the
    touch rests on the line of centres' own error of a few degrees: for review at 0.4 (seed-233 frame_dynamic:
    11, 2.7 mm off the rear cushion, hit by 3 about 10 degrees into it, measured 9.0; the 560 mm/s touch went
    unsaid)."""
    out: list[tuple[str, float, dict[str, object]]] = []
    for name, gap in table.frozen_cushions(anchor, s.frozen_tol_mm):
        cos_in = -float(np.dot(direction, np.asarray(table.cushions[name].normal)))
        extra: dict[str, object] = {"frozen": True, "gap_mm": round(gap, 2)}
        c = conf
        if cos_in < s.frozen_push_min_cos:
            if cos_in < 0.5 * s.frozen_push_min_cos:
                continue
            c = min(c, 0.4)
            extra |= {"review": True, "cos_into": round(cos_in, 3),
                      "why": f"driven into it {np.degrees(np.arcsin(min(cos_in, 1.0))):.0f} degrees off parallel: "
                             "near the line-of-centres error"}
        out.append((name, float(round(c, 4)), extra))
    return out


def driven_into(
    hist: History,
    bound: Boundary,
    s: EventSettings,
    ball: int,
    anchor: np.ndarray,
    hit: tuple[float, np.ndarray, float, float],
    radius: float,
    n_hi: int,
) -> list[Touch]:
    """A ball at rest at `anchor`, hit at t along the unit `direction` (the line of centres, exactly where a
    ball from rest leaves) at `speed` mm/s (`hit` = (t, direction, speed, confidence of the contact)), into
    the nose segment its straight run reaches first, less than 2R away (no ball fits in between; a grazing nose
    nearer it does not hide it). It touches that nose:
    - if it is seen coming back off it (the normal velocity after it points away, a kink from rest), or
    - if it was sent at it fast enough to get there within the look-ahead: from rest it can only run along
      `direction` until something stops it, and nothing but the nose is there (the frozen-ball reading,
      carried to a ball a few centimetres off the cushion: 30 fps often shows no frame of it arriving).
    The time is where the straight run from the rest position reaches distance R. Then another nose within 2R,
    at 45 degrees or more to that one, is touched too when the ball's run across the first nose's normal, into
    that nose, is seen turned round: a bounce off the first nose keeps that part (seed-163 frame_russian71: 14,
    hit by C into the rear left mouth, came back out of it with its run into the side cushion turned round).
    """
    t_hit, direction, speed, conf_hit = hit
    if speed <= 0.0:
        return []
    p0 = np.asarray(anchor, dtype=float)
    nearest = bound.closest(p0)
    dists = nearest[0]
    near = [int(i) for i in np.argsort(dists) if s.frozen_tol_mm < float(dists[i]) - radius < 2 * radius]
    if not near:
        return []  # frozen to a nose (the detector's frozen rule), or far enough for the frames to show it
    # the straight run, sampled every half millimetre over 4R: where it first comes within R of each nose
    run = np.arange(0.0, 4 * radius, 0.5)
    path = p0 + run[:, None] * np.asarray(direction, dtype=float)
    d_path, pts_path, par_path = bound.closest(path)
    reached = [(int(np.argmax(d_path[:, i] <= radius)), i) for i in near if (d_path[:, i] <= radius).any()]
    if not reached:
        return []
    k, i = min(reached)
    n = (path[k] - pts_path[k, i]) / max(float(d_path[k, i]), 1e-9)  # into the bed, where it meets the nose
    cos_in = -float(np.dot(direction, n))
    if cos_in < s.frozen_push_min_cos:
        return []  # not driven into it
    t_reach = t_hit + float(run[k]) / speed
    gap = float(dists[i]) - radius
    jaw = bound.jaw_at(i, float(par_path[k, i]))
    t, xy = hist.track(ball, hist.counter_at(t_hit), n_hi)
    t, xy = t[t > t_reach], xy[t > t_reach]
    back = fit_line(t, xy, noise_model(s)) if len(t) >= 2 else None
    first: Touch | None = None
    if back is not None:
        v_n = float(np.dot(back.v, n))
        z = v_n / max(back.sigma_v, 1e-9)
        margin = float(np.dot(back.at(t_hit) - pts_path[k, i], n)) - radius  # < 0: the way back runs through it
        if z >= s.kink_z_review and v_n >= s.kink_min_mm_s and gap - margin > s.review_band_mm:
            conf, review = kink_confidence(z, v_n + speed * cos_in, margin, s)
            if conf > 0.0:
                first = Touch(ball, t_reach, bound.names[i], jaw, z, margin, conf, review,
                              Pieces(back, back, 0.0, True))
    if first is None:
        if t_reach - t_hit > s.lookahead_s:
            return []  # slow enough for the frames to show it arriving: the ordinary touch test's business
        line = replace(fixed_point(p0, t_hit, s.noise_rest_mm, 1), v=direction * speed)
        first = Touch(ball, t_reach, bound.names[i], jaw, 0.0, -gap, min(conf_hit, 0.8), False,
                      Pieces(line, line, 0.0, True))
    return [first, *_across(bound, s, ball, near, nearest, i, n, p0, direction, speed, t_reach, t, back, radius)]


def _across(bound: Boundary, s: EventSettings, ball: int, near: list[int],
            nearest: tuple[np.ndarray, np.ndarray, np.ndarray], first: int, n1: np.ndarray, p0: np.ndarray,
            direction: np.ndarray, speed: float, t_first: float, t: np.ndarray, back: LineFit | None,
            radius: float) -> list[Touch]:
    """The other noses within 2R touched after the first (see `driven_into`): the part of the run across the
    first nose's normal n1, into the other nose, turned round on the way back (`nearest`: `bound.closest` of the
    rest position p0). Timed where that part of the run covers the gap, no later than the first sample after."""
    if back is None:
        return []
    out = []
    dists, pts, par = nearest
    for j in near:
        if j == first:
            continue
        n = (p0 - pts[j]) / max(float(dists[j]), 1e-9)
        m = n - float(np.dot(n, n1)) * n1
        if float(np.hypot(*m)) < np.sin(np.radians(45.0)):
            continue  # near parallel to the first: a bounce off that one turns this part too
        m = m / float(np.hypot(*m))
        into = -float(np.dot(direction, m)) * speed
        v_m = float(np.dot(back.v, m))
        z = v_m / max(back.sigma_v, 1e-9)
        if into <= 0.0 or z < s.kink_z_review or v_m < s.kink_min_mm_s:
            continue
        margin = float(np.dot(back.at(t_first) - pts[j], n)) - radius
        conf, review = kink_confidence(z, v_m + into, margin, s)
        if conf <= 0.0:
            continue
        gap = float(dists[j]) - radius
        t_j = min(t_first + gap / into, float(t[0])) if len(t) else t_first + gap / into
        jaw = bound.jaw_at(j, float(par[j]))
        out.append(Touch(ball, max(t_j, t_first), bound.names[j], jaw, z, margin, conf, review,
                         Pieces(back, back, 0.0, True)))
    return out
