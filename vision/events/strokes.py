"""A stroke on a ball that is still moving (1.14.2): the velocity change no collision explains."""

from __future__ import annotations

import numpy as np

from calibration.table import Table
from vision.events.fit import fit_line
from vision.events.history import History
from vision.events.motion import MotionTracker
from vision.events.settings import MAX_SPEED_MM_S, EventSettings, frames, noise_model

KICK_PRE_S = 0.15  # line fits this long before the kink ... (5 mm of noise: ~40 mm/s of error)
KICK_POST_S = 0.1  # ... and after it (~70 mm/s); the stroke is found this late


class StrokeLogic:
    s: EventSettings
    hist: History
    motion: MotionTracker
    table: Table
    ids: tuple[str, ...]
    fps: float
    R: float
    kicked: dict[int, float]
    kinks: dict[int, list[float]]

    def _moving_stroke(self, b: int, t: float, speed: float) -> None:  # provided by EventDetector
        raise NotImplementedError

    def _kicks(self, m: int) -> None:
        """A stroke on a moving ball (1.14.2 struck before the balls stopped): its velocity changes by at
        least the early-stroke speed and it speeds up significantly, with no contact or cushion that could
        explain it (a cushion only slows a ball; a ball speeds up only when hit), seen all along, and the
        tracks before and after meet (a jump of the tracked centre does not)."""
        h, s = self.hist, self.s
        pre_n, post_n = frames(KICK_PRE_S, self.fps, 3), frames(KICK_POST_S, self.fps, 3)
        if m - pre_n < h.oldest or m + 1 + post_n > h.newest:
            return
        t_m = h.time(m)
        for b in range(len(self.ids)):
            if not (self.motion.moving_at(b, t_m) and self.motion.moving_at(b, h.time(m - pre_n))):
                continue  # moving all through the fit before: a start from rest is judged as an onset
            if t_m - self.kicked.get(b, -np.inf) < 4 * s.cause_window_s:
                continue
            t_a, xy_a = h.track(b, m - pre_n, m)
            t_b, xy_b = h.track(b, m + 1, m + 1 + post_n)
            if len(t_a) < pre_n or len(t_b) < post_n:
                continue  # not seen all along: a ball just re-found (or carried in a hand) tells no change
            pre, post = fit_line(t_a, xy_a, noise_model(s)), fit_line(t_b, xy_b, noise_model(s))
            if pre is None or post is None:
                continue
            dv = post.v - pre.v
            sigma = float(np.hypot(pre.sigma_v, post.sigma_v))
            if float(np.hypot(*dv)) < s.early_stroke_min_speed_mm_s or post.speed - pre.speed < s.kink_z * sigma:
                continue
            if max(pre.speed, post.speed) > MAX_SPEED_MM_S or float(np.min(h.id_conf[h.idx(m - 1, m + 2), b])) < 0.5:
                continue  # a swap of two moving balls' identities looks just like a change of velocity
            # when the two lines are closest, and how close: a jump leaves them apart
            t_k = float(post.t0 + np.dot(pre.p0 - post.p0 - pre.v * (pre.t0 - post.t0), dv) / np.dot(dv, dv))
            t_k = float(np.clip(t_k, pre.t0, post.t0))
            if float(np.hypot(*(pre.at(t_k) - post.at(t_k)))) > 3 * s.noise_moving_mm:
                continue
            if any(t_a[0] - s.cause_window_s <= k <= t_b[-1] + s.cause_window_s for k in self.kinks.get(b, [])):
                continue  # a contact or cushion inside the windows: its kink, not a stroke
            xy_m = h.xy[m % h.size]
            others = [x for x in range(len(self.ids)) if x != b and h.valid[m % h.size, x]]
            reach = 2 * self.R + s.contact_gate_mm + post.speed * KICK_POST_S
            if any(float(np.hypot(*(xy_m[x] - xy_m[b]))) <= reach for x in others):
                continue  # a ball close by: a collision not yet proven, not a stroke
            self.kicked[b] = t_k
            self._moving_stroke(b, t_k, post.speed)
