"""Strokes: the shot_start they open, and a stroke on a ball that is still moving (1.14.2), the velocity
change no collision explains."""

from __future__ import annotations

from typing import Any

import numpy as np

from calibration.table import Table
from rules.events import Event, EventType
from vision.events.fit import fit_line
from vision.events.history import History
from vision.events.lines import LineWatcher
from vision.events.motion import MotionTracker
from vision.events.settings import MAX_SPEED_MM_S, EventSettings, frames, noise_model
from vision.events.shots import ShotPhase, rest_layout

KICK_PRE_S = 0.15  # line fits this long before the kink ... (5 mm of noise: ~40 mm/s of error)
KICK_POST_S = 0.1  # ... and after it (~70 mm/s); the stroke is found this late
KICK_CONF = 0.9  # existence of a stroke on a moving ball: a significant speed-up no collision explains


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
    lines: LineWatcher
    phase: ShotPhase
    shot_t0: float
    shot_anchors: dict[int, np.ndarray]
    first_hit_t: float
    last_stop: float
    last_hit: np.ndarray

    def _emit(self, ev: Event) -> None:  # provided by OutputLogic
        raise NotImplementedError

    def _stroke(self, b: int, t: float, speed: float, anchors: dict[int, np.ndarray], existence: float,
                extra: dict[str, Any]) -> Event:
        """The shot_start of a stroke on ball `b` at time `t` (not yet emitted), with the layout of the balls
        at rest (`anchors`); it opens a shot unless one runs (then it is early, 1.14.2). `existence` is the
        start_confidence; the struck ball's identity is stamped on when it leaves (`OutputLogic._emit`)."""
        positions, frozen, touching = rest_layout(self.table, self.ids, anchors, self.s)
        running = self.phase is ShotPhase.RUNNING
        info: dict[str, Any] = {"speed_mm_s": round(speed, 1), **extra, "start_confidence": round(existence, 4)}
        if running:
            info["early"] = True
        ev = Event(EventType.SHOT_START, t, 0, round(existence, 4), ball=self.ids[b], positions=positions,
                   frozen=frozen, touching=touching, extra=info)
        if not running:
            self.shot_t0, self.shot_anchors, self.first_hit_t = t, dict(anchors), np.inf
            self.lines.crossed_axis.clear()
        self.phase = ShotPhase.RUNNING
        self.last_stop = max(self.last_stop, t) if running else t
        return ev

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
        t_pre = h.time(m - pre_n)
        if not any(self.motion.moving_at(b, t_m) and self.motion.moving_at(b, t_pre) for b in range(len(self.ids))):
            return  # no ball moving all through: no candidate can pass the test below
        # the fits' own least-squares velocities for every ball at once: a stroke changes it by at least the
        # early-stroke speed, and most moving balls are rejected here without a fit
        v_a, n_a = _slopes(h, m - pre_n, m)
        v_b, n_b = _slopes(h, m + 1, m + 1 + post_n)
        cand = (n_a >= pre_n) & (n_b >= post_n) & (np.hypot(*(v_b - v_a).T) >= s.early_stroke_min_speed_mm_s)
        for b in np.flatnonzero(cand).tolist():
            if not (self.motion.moving_at(b, t_m) and self.motion.moving_at(b, h.time(m - pre_n))):
                continue  # moving all through the fit before: a start from rest is judged as an onset
            if t_m - self.kicked.get(b, -np.inf) < 4 * s.cause_window_s:
                continue
            if float(np.min(h.id_conf[h.idx(m - 1, m + 2), b])) < 0.5:
                continue  # a swap of two moving balls' identities looks just like a change of velocity
            t_a, xy_a = h.track(b, m - pre_n, m)
            t_b, xy_b = h.track(b, m + 1, m + 1 + post_n)
            if len(t_a) < pre_n or len(t_b) < post_n:
                continue  # not seen all along: a ball just re-found (or carried in a hand) tells no change
            if any(t_a[0] - s.cause_window_s <= k <= t_b[-1] + s.cause_window_s for k in self.kinks.get(b, [])):
                continue  # a contact or cushion inside the windows: its kink, not a stroke
            pre, post = fit_line(t_a, xy_a, noise_model(s)), fit_line(t_b, xy_b, noise_model(s))
            if pre is None or post is None:
                continue
            dv = post.v - pre.v
            sigma = float(np.hypot(pre.sigma_v, post.sigma_v))
            if float(np.hypot(*dv)) < s.early_stroke_min_speed_mm_s or post.speed - pre.speed < s.kink_z * sigma:
                continue
            if max(pre.speed, post.speed) > MAX_SPEED_MM_S:
                continue  # no ball runs that fast: the track jumps
            # when the two lines are closest, and how close: a jump leaves them apart
            t_k = float(post.t0 + np.dot(pre.p0 - post.p0 - pre.v * (pre.t0 - post.t0), dv) / np.dot(dv, dv))
            t_k = float(np.clip(t_k, pre.t0, post.t0))
            if float(np.hypot(*(pre.at(t_k) - post.at(t_k)))) > 3 * s.noise_moving_mm:
                continue
            xy_m = h.xy[m % h.size]
            others = [x for x in range(len(self.ids)) if x != b and h.valid[m % h.size, x]]
            reach = 2 * self.R + s.contact_gate_mm + post.speed * KICK_POST_S
            if any(float(np.hypot(*(xy_m[x] - xy_m[b]))) <= reach for x in others):
                continue  # a ball close by: a collision not yet proven, not a stroke
            self.kicked[b] = t_k
            anchors = {x: a for x in range(len(self.ids)) if (a := self.motion.anchor_at(x, t_k)) is not None}
            ev = self._stroke(b, t_k, post.speed, anchors, KICK_CONF, {"struck_moving": True})
            self.last_hit[b] = max(self.last_hit[b], t_k)
            self._emit(ev)


def _slopes(h: History, n0: int, n1: int) -> tuple[np.ndarray, np.ndarray]:
    """Every ball's least-squares velocity (B, 2) over its seen samples in counters n0..n1 (as `fit_line`
    computes it), and how many samples it had (B,)."""
    k = h.idx(n0, n1)
    seen = h.valid[k]
    w = seen.astype(float)  # (K, B)
    count = w.sum(axis=0)
    safe = np.maximum(count, 1.0)
    t = h.t[k][:, None]
    dt = (t - (w * t).sum(axis=0) / safe) * w
    xy = np.where(seen[..., None], h.xy[k], 0.0)
    xy_m = xy.sum(axis=0) / safe[:, None]
    sxx = np.maximum((dt * dt).sum(axis=0), 1e-12)
    v = np.einsum("kb,kbc->bc", dt, xy - xy_m) / sxx[:, None]
    return v, count
