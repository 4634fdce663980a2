"""Per-ball rest/motion state with a rest anchor: the starts from rest and the stops every detector needs.

A ball at rest has an anchor, the running mean of its centre; it starts moving when its centre leaves the
anchor by more than `onset_mm` on two consecutive seen frames (one beyond `onset_strong_mm`), and the start
time is found by running the first moving samples' line back to the anchor. A moving ball comes to rest
when every centre of the last `rest_window_s` lies within `rest_radius_mm` of their mean.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from vision.events.fit import LineFit, fit_line
from vision.events.history import History
from vision.events.settings import EventSettings, frames, noise_model
from vision.types import BallState

_ANCHOR_CAP = 120  # samples averaged into a rest anchor at most: a slow creep still drags it out


class Motion(StrEnum):
    REST = "rest"
    MOVING = "moving"
    GONE = "gone"  # potted or off the table
    UNKNOWN = "unknown"  # not yet seen at rest (start of the stream, back from a pocket)


@dataclass(frozen=True)
class Onset:
    """A ball started to move from rest at time t (sub-frame)."""

    ball: int
    t: float
    n_first: int  # counter of the first frame seen off the anchor
    anchor: np.ndarray
    fit: LineFit  # of the first moving samples

    @property
    def speed(self) -> float:
        return self.fit.speed


@dataclass(frozen=True)
class Stop:
    ball: int
    t: float
    anchor: np.ndarray


@dataclass
class _Ball:
    status: Motion = Motion.UNKNOWN  # it must be seen at rest first
    anchor: np.ndarray | None = None
    anchor_n: int = 0
    first_off: int | None = None  # counter of the first frame off the anchor
    off_count: int = 0
    rest_since: float = 0.0
    moving_since: float = 0.0
    # closed rest periods (start, end, anchor), newest last: what `anchor_at` looks back on
    past: list[tuple[float, float, np.ndarray]] = field(default_factory=list)


class MotionTracker:
    """Updates every ball's status from the newest frame of the history; returns its onsets and stops."""

    def __init__(self, hist: History, settings: EventSettings, fps: float) -> None:
        self.hist = hist
        self.s = settings
        self.fps = fps
        self.balls = [_Ball() for _ in hist.ids]
        self.rest_frames = frames(settings.rest_window_s, fps, 3)

    def status(self, b: int) -> Motion:
        return self.balls[b].status

    def anchor(self, b: int) -> np.ndarray | None:
        st = self.balls[b]
        return st.anchor if st.status is Motion.REST else None

    def moving_at(self, b: int, t: float) -> bool:
        """Known to be moving at time t: started from rest before t and not at rest at t."""
        st = self.balls[b]
        return (st.status is Motion.MOVING and t >= st.moving_since) or (
            st.status is Motion.REST and self.anchor_at(b, t) is None and bool(st.past) and t >= st.past[-1][1]
        )

    def anchor_at(self, b: int, t: float) -> np.ndarray | None:
        """The rest anchor of the ball if it was at rest at time t, else None."""
        st = self.balls[b]
        if st.status is Motion.REST and st.anchor is not None and t >= st.rest_since - 0.5 / self.fps:
            return st.anchor
        for start, end, anchor in reversed(st.past):
            if start - 0.5 / self.fps <= t <= end:
                return anchor
        return None

    def update(self, n: int) -> tuple[list[Onset], list[Stop]]:
        h = self.hist
        k = n % h.size
        onsets: list[Onset] = []
        stops: list[Stop] = []
        for b, st in enumerate(self.balls):
            code = BallState(int(h.state[k, b]))
            if code in (BallState.POTTED, BallState.OFF_TABLE):
                st.status = Motion.GONE
                continue
            if not h.valid[k, b]:
                continue
            p = h.xy[k, b]
            if st.status is Motion.GONE:
                st.status, st.anchor, st.moving_since = Motion.UNKNOWN, None, h.time(n)
            if st.status is Motion.REST:
                onset = self._rest_step(b, st, n, p)
                if onset is not None:
                    onsets.append(onset)
            else:
                stop = self._moving_step(b, st, n)
                if stop is not None:
                    stops.append(stop)
        return onsets, stops

    def _rest_step(self, b: int, st: _Ball, n: int, p: np.ndarray) -> Onset | None:
        assert st.anchor is not None
        dev = float(np.hypot(*(p - st.anchor)))
        if dev <= self.s.onset_mm:
            st.first_off, st.off_count = None, 0
            st.anchor_n = min(st.anchor_n + 1, _ANCHOR_CAP)
            st.anchor = st.anchor + (p - st.anchor) / st.anchor_n
            return None
        if st.first_off is None:
            st.first_off = n
        st.off_count += 1
        need = 1 if dev > self.s.onset_strong_mm else 2
        if st.off_count < need:
            return None
        t, xy = self.hist.track(b, st.first_off, n)
        if len(t) < 2:
            # one strong sample: the line from the anchor to it
            t = np.array([self.hist.time(st.first_off) - 1.0 / self.fps, t[0]])
            xy = np.vstack([st.anchor, xy[0]])
        fit = fit_line(t, xy, noise_model(self.s))
        if fit is None:
            return None
        t_on = self._start_time(b, fit, st.anchor, st.first_off)
        onset = Onset(b, t_on, st.first_off, st.anchor.copy(), fit)
        st.past = [*st.past[-4:], (st.rest_since, t_on, st.anchor.copy())]
        st.status, st.moving_since, st.first_off, st.off_count = Motion.MOVING, t_on, None, 0
        return onset

    def _start_time(self, b: int, fit: LineFit, anchor: np.ndarray, first_off: int) -> float:
        """When the first moving samples' line passes the anchor, kept between the last rest frame and
        the first frame off the anchor."""
        t_first = self.hist.time(first_off)
        seen, _ = self.hist.track(b, first_off - self.rest_frames, first_off - 1)  # last frame seen at rest
        t_prev = float(seen[-1]) if len(seen) else t_first - 1.0 / self.fps
        v2 = float(np.dot(fit.v, fit.v))
        if v2 <= 0:
            return t_prev
        t = fit.t0 + float(np.dot(anchor - fit.p0, fit.v)) / v2
        return float(np.clip(t, t_prev, t_first))

    def _moving_step(self, b: int, st: _Ball, n: int) -> Stop | None:
        t, xy = self.hist.track(b, n - self.rest_frames + 1, n)
        if len(t) < max(3, int(0.6 * self.rest_frames)):
            return None
        if t[0] < st.moving_since:
            return None
        mean = xy.mean(axis=0)
        if float(np.max(np.hypot(*(xy - mean).T))) > self.s.rest_radius_mm:
            return None
        t_stop = self._stop_time(b, n, float(t[0]), st.moving_since)
        st.status, st.anchor, st.anchor_n, st.rest_since = Motion.REST, mean, len(t), float(t[0])
        st.first_off, st.off_count = None, 0
        return Stop(b, t_stop, mean.copy())

    def _stop_time(self, b: int, n: int, t_window: float, t_moving: float) -> float:
        """When the ball stopped. Rolling to rest at a constant deceleration, the distance still to go
        shrinks as the square of the time left, so sqrt(distance to the rest point) falls on a straight
        line that meets zero at the stop; fitted on the samples clearly away from the rest point."""
        t, xy = self.hist.track(b, n - 3 * self.rest_frames, n)
        final = xy[-max(3, self.rest_frames // 3) :].mean(axis=0)  # the mean of the window lags the end
        r = np.hypot(*(xy - final).T)
        use = (t >= t_moving) & (r > 3.0 * self.s.noise_rest_mm) & (r < 60.0)
        if use.sum() < 3:
            return t_window
        slope, icpt = np.polyfit(t[use], np.sqrt(r[use]), 1)
        if slope >= 0:
            return t_window
        t_stop = -icpt / slope
        return float(np.clip(t_stop, t[use][-1], self.hist.time(n)))

    def force_rest(self, b: int, p: np.ndarray, t: float) -> None:
        """Seed a ball at rest (the first frame of a stream showing a still table)."""
        st = self.balls[b]
        st.status, st.anchor, st.anchor_n, st.rest_since = Motion.REST, np.asarray(p, float).copy(), 1, t
