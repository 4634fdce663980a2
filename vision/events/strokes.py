"""Strokes: the shot_start they open, a stroke on a ball that is still moving (1.14.2), the velocity
change no collision explains, and the run off a rest position that tells a cue's impulse from a push."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rules.events import Event, EventType
from vision.events.core import DetectorCore
from vision.events.fit import fit_line, ramp_scan
from vision.events.history import History
from vision.events.lines import LineWatcher
from vision.events.motion import Onset
from vision.events.settings import MAX_SPEED_MM_S, EventSettings, frames, noise_model
from vision.events.shots import ShotPhase, rest_layout

KICK_PRE_S = 0.15  # line fits this long before the kink ... (5 mm of noise: ~40 mm/s of error)
KICK_POST_S = 0.1  # ... and after it (~70 mm/s); the stroke is found this late
KICK_CONF = 0.9  # existence of a stroke on a moving ball: a significant speed-up no collision explains
# A cue stroke is an impulse: the ball leaves at its launch speed and, past its sliding time (under two frames
# at 60 fps below 300 mm/s: 2 u / (7 mu g), mu ~0.2), only slows. Follow spin can speed it up while it slides,
# at most to (5 + 5 h / R) / 7 of its launch speed with the tip h = 0.7 R above the centre (the miscue limit):
# 1.21. A run that gains more than that over the fit window, beyond the noise, was pushed (a hand, a sleeve).
FOLLOW_GAIN = 1.21
# A straight piece's residuals are the position noise (rms below one sigma); one that bends by a bounce inside
# it leaves them at several (a ball into a cushion and back within the window: 17 mm at 5 mm of noise), and
# its mean velocity is no speed to compare: the stroke is looked for where both pieces are straight.
_BENT = 2.0


# Rolling resistance of a cloth slows a rolling ball by 50-150 mm/s^2: the mean speed of a run over a window
# is below its launch speed by a/2 of the window, read at the middle of that range, its spread an error.
_ROLL_DECEL_MM_S2 = 100.0
_ROLL_DECEL_SPREAD_MM_S2 = 50.0


@dataclass(frozen=True)
class RunFit:
    """A ball's run off its rest position: start time t_s and launch speed v (the line d(t) = v (t - t_s) along
    the way it went, 0 before t_s, read back for rolling resistance), and how much the run sped up from the
    first half of the window to the second (`gain`, negative: it slowed), with standard errors."""

    t_s: float
    v: float
    sigma_v: float
    gain: float
    sigma_gain: float
    span_s: float  # from t_s to the last sample fitted


def run_fit(t: np.ndarray, xy: np.ndarray, anchor: np.ndarray, t_lo: float, t_hi: float, noise_mm: float,
            dt: float) -> RunFit | None:
    """Fit a start's run to samples around it (the rest samples before it included), the start time scanned
    at a quarter frame between `t_lo` and `t_hi`. None when the samples do not span the start and some run."""
    if len(t) < 6:
        return None
    way = xy[-1] - anchor
    if float(np.hypot(*way)) <= 0:
        return None
    u = way / float(np.hypot(*way))
    d = (xy - anchor) @ u
    scan = ramp_scan(t, d, np.arange(t_lo, t_hi + dt / 8, dt / 4), noise_mm)
    if scan is None:
        return None
    k, v, sigma_v = scan
    t_s = t_lo + k * dt / 4
    span = float(t[-1] - t_s)
    lag = 0.5 * span  # the line's mean speed is that of the middle of the run
    v_launch = v + _ROLL_DECEL_MM_S2 * lag
    sigma_launch = float(np.hypot(sigma_v, _ROLL_DECEL_SPREAD_MM_S2 * lag))
    run = t > t_s
    mid = t_s + 0.5 * span
    first, second = run & (t <= mid), run & (t > mid)
    f1 = fit_line(t[first], xy[first], noise_mm) if first.sum() >= 3 else None
    f2 = fit_line(t[second], xy[second], noise_mm) if second.sum() >= 3 else None
    gain, sigma_gain = 0.0, np.inf
    if f1 is not None and f2 is not None:
        gain = float(np.dot(f2.v - f1.v, u))
        sigma_gain = float(np.hypot(f1.sigma_v, f2.sigma_v))
    return RunFit(t_s, v_launch, sigma_launch, gain, sigma_gain, span)


def crept(hist: History, o: Onset, s: EventSettings, fps: float, look: int) -> bool:
    """Did the ball roll off its rest position rather than its centre jump? Along the way it went, the samples
    from a rest window before its first frame off to `look` frames after it are fitted by a ramp (rest, then
    a constant speed from some time on) and by a step (rest, then still at an offset from some frame on): a
    slow ball creeps past `onset_mm` over many frames and may look still for a few frames after (the ramp
    fits better); a centre that moved without rolling (a hand over the ball, a ball dropping into a pocket,
    an identity swap) steps there in one frame (the step fits better)."""
    n_rest = frames(s.rest_window_s, fps, 3)
    t, xy = hist.track(o.ball, o.n_first - n_rest, min(hist.newest, o.n_first + look))
    if len(t) < 6 or float(np.max(np.diff(t))) > s.start_seen_s + 1e-9:
        return False
    way = xy[-1] - o.anchor
    if float(np.hypot(*way)) <= 0:
        return False
    d = (xy - o.anchor) @ (way / float(np.hypot(*way)))
    ramp = ramp_scan(t, d, t[:-1], s.noise_rest_mm)  # the ramp's start on a sample (its sse below)
    if ramp is None:
        return False
    k, v, _ = ramp
    tau = np.clip(t - t[k], 0.0, None)
    sse_ramp = float(np.sum((d - v * tau) ** 2))
    sse_step = min(float(np.sum(d[:j] ** 2) + np.sum((d[j:] - d[j:].mean()) ** 2)) for j in range(1, len(t)))
    return sse_ramp < sse_step


class StrokeLogic(DetectorCore):
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
            noise = noise_model(s)
            pre, post = fit_line(t_a, xy_a, noise), fit_line(t_b, xy_b, noise)
            if pre is None or post is None:
                continue
            if pre.rms_mm > _BENT * noise(pre.speed) or post.rms_mm > _BENT * noise(post.speed):
                continue  # a kink inside a window (a cushion touch missed between samples): its split is not here
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
