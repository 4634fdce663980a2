"""Per-ball rest/motion state with a rest anchor: the starts from rest and the stops every detector needs.

A ball at rest has an anchor, the running mean of its centre; it starts moving when its centre leaves the
anchor by more than `onset_mm` on two consecutive seen frames (one beyond `onset_strong_mm`), and the start
time is found by running the first moving samples' line back to the anchor. A moving ball comes to rest
when every centre of the last `rest_window_s` lies within `rest_radius_mm` of their mean.
"""

from __future__ import annotations

import itertools
from collections.abc import Container
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from vision.events.fit import LineFit, fit_line, point_segment_distance
from vision.events.history import History
from vision.events.settings import MAX_SPEED_MM_S, EventSettings, frames, is_jump, noise_model
from vision.types import BallState

_ANCHOR_CAP = 120  # samples averaged into a rest anchor at most: a slow creep still drags it out
_STOP_FIT_S = 1.2  # look-back of the stop fit: a rolling ball's last few cm at cloth deceleration
_STOP_REACH_MM = 60.0  # ... over its last this many mm to the rest point (rolling, past any sliding)
_STOP_AHEAD_S = 0.5  # a stop may be fitted this far past the last sample: a crawl that passed the rest test
# (below rest_speed_mm_s, 20 mm/s, or a little above it with the noise) runs on for v/a, ~0.2-0.4 s
_ROLL_DECEL_MM_S2 = 200.0  # rolling resistance slows a ball by at most this (cloth: 50-150 mm/s^2)
_HIT_REACH_MM = 90.0  # centres closer than this may have touched (the largest balls, pyramid's, are 68 mm across)


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
    since: float  # when the motion that ended here began (its start from rest)


@dataclass
class _Ball:
    status: Motion = Motion.UNKNOWN  # it must be seen at rest first
    anchor: np.ndarray | None = None
    anchor_n: int = 0
    first_off: int | None = None  # counter of the first frame off the anchor
    off_count: int = 0
    rest_since: float = 0.0
    moving_since: float = 0.0
    prev_moving: float = 0.0  # moving_since of the motion before the last rest (see `resume`)
    # closed rest periods (start, end, anchor), newest last: what `anchor_at` looks back on
    past: list[tuple[float, float, np.ndarray]] = field(default_factory=list)
    lifted: np.ndarray | None = None  # where it rested when the tracker gave it up (taken off by hand)
    # (start, end) of the run that ended in a pocket: `moving_at` still answers for it while the
    # look-ahead analysis catches up with the frames before the ball went
    last_run: tuple[float, float] | None = None


class MotionTracker:
    """Updates every ball's status from the newest frame of the history; returns its onsets and stops."""

    def __init__(self, hist: History, settings: EventSettings, fps: float, held: Container[int]) -> None:
        self.hist = hist
        self.s = settings
        self.fps = fps
        self.balls = [_Ball() for _ in hist.ids]
        self.rest_frames = frames(settings.rest_window_s, fps, 3)
        self.stop_fit_s = _STOP_FIT_S
        # balls potted though still seen (lying in a pocket, past its mouth line): a live view of the pot
        # watcher's own record; gone while they are in it, however long the tracker sees them at rest there
        self.held = held

    def status(self, b: int) -> Motion:
        return self.balls[b].status

    def anchor(self, b: int) -> np.ndarray | None:
        st = self.balls[b]
        return st.anchor if st.status is Motion.REST else None

    def rest_since(self, b: int) -> float | None:
        """When the ball was last called at rest, if it is at rest."""
        st = self.balls[b]
        return st.rest_since if st.status is Motion.REST else None

    def moving_at(self, b: int, t: float) -> bool:
        """Known to be moving at time t: started from rest before t and not at rest at t."""
        st = self.balls[b]
        gone = st.status is Motion.GONE and st.last_run is not None and st.last_run[0] <= t <= st.last_run[1]
        return (st.status is Motion.MOVING and t >= st.moving_since) or gone or (
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

    def mark_gone(self, b: int, t: float, potted: bool) -> None:
        """The event layer found the ball potted or off the table at time t while the tracker still holds it
        (hidden, or given up as lifted): no rest anchor lists it as on the bed; seen again, it starts afresh
        (unless `held`: lying in the pocket). A ball that left the bed otherwise flew off it: its last frames are
        no run on the bed (its centre seen in the air projects off its way)."""
        if potted:
            self._went(b, t)
        self._close_rest(b)
        self.balls[b].status, self.balls[b].anchor, self.balls[b].lifted = Motion.GONE, None, None

    def _went(self, b: int, t: float) -> None:
        """A ball drops into a pocket at t: a run it was on ends there (seed-241 frame_free: 6 rattled between a
        middle pocket's jaws and dropped; found potted while the jaw touch four frames before still waited for
        its look-ahead, it was no longer moving then, and the touch was never sought)."""
        st = self.balls[b]
        if st.status is Motion.MOVING:
            st.last_run = (st.moving_since, max(t, st.moving_since))
        elif st.status is Motion.GONE and st.last_run is not None:  # the tracker said so first, a frame or more late
            st.last_run = (st.last_run[0], max(st.last_run[0], min(t, st.last_run[1])))

    def _close_rest(self, b: int) -> None:
        """A ball at rest that leaves the bed keeps its rest period up to its last sample in `past`: what it was
        before it went (a ball hanging in a mouth knocked in within the frame: its striker met it at rest)."""
        st = self.balls[b]
        if st.status is not Motion.REST or st.anchor is None:
            return
        t, _ = self.hist.track(b, self.hist.oldest, self.hist.newest)
        end = float(t[-1]) if len(t) else st.rest_since
        if end >= st.rest_since:
            st.past = [*st.past[-4:], (st.rest_since, end, st.anchor.copy())]

    def update(self, n: int) -> tuple[list[Onset], list[Stop]]:
        h = self.hist
        k = n % h.size
        onsets: list[Onset] = []
        stops: list[Stop] = []
        state, valid = h.state[k].tolist(), h.valid[k].tolist()
        for b, st in enumerate(self.balls):
            # the tracker's UNKNOWN on a ball it held: its place in view and empty, taken off by hand (a penalty
            # ball, 2.7): no rest anchor lists it on the bed (seed-103 frame_free: 8, taken off at 53.4 s, stayed
            # "touching" 15 at every later stroke and hid C's hit on 15 as one through it)
            gone = state[b] == BallState.POTTED or state[b] == BallState.OFF_TABLE
            lifted = state[b] == BallState.UNKNOWN and st.status is not Motion.UNKNOWN
            if gone or lifted:
                if gone:
                    st.lifted = None
                elif st.status is Motion.REST and st.anchor is not None:
                    st.lifted = st.anchor.copy()
                if state[b] == BallState.POTTED:
                    self._went(b, h.time(n))
                self._close_rest(b)
                st.status, st.anchor = Motion.GONE, None
                continue
            if not valid[b]:
                continue
            p = h.xy[k, b]
            if st.status is Motion.GONE and st.lifted is not None and b not in self.held:
                # put back on the bed: at rest where it was taken off, since it was last seen there, so that a ball
                # set down elsewhere starts off it as a move nobody saw (`_moved_unseen`), as before it was taken for
                # gone (it was no neighbour meanwhile: its status was GONE)
                since = st.past[-1][1] if st.past else h.time(n)
                st.status, st.anchor, st.rest_since, st.anchor_n = Motion.REST, st.lifted, since, _ANCHOR_CAP
                st.first_off, st.off_count, st.lifted, st.last_run = None, 0, None, None
            if st.status is Motion.GONE:
                if b in self.held:
                    continue
                st.status, st.anchor, st.moving_since, st.last_run = Motion.UNKNOWN, None, h.time(n), None
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
        st.prev_moving = st.moving_since
        st.status, st.moving_since, st.first_off, st.off_count = Motion.MOVING, t_on, None, 0
        return onset

    def resume(self, b: int) -> None:
        """The ball's last rest was a crawl that only looked still: it has been moving since its previous
        start, and the rest period is forgotten."""
        st = self.balls[b]
        if st.status is Motion.MOVING:
            st.moving_since = min(st.moving_since, st.prev_moving)
            st.past = st.past[:-1]

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
        # a ball that ran more than twice the rest radius over the window has a sample farther than the
        # radius from any mean (the test below), so it is not at rest
        if float(np.hypot(*(xy[-1] - xy[0]))) > 2 * self.s.rest_radius_mm + 1e-6:
            return None
        mean = xy.mean(axis=0)
        if float(np.max(np.hypot(*(xy - mean).T))) > self.s.rest_radius_mm:
            return None
        drift = fit_line(t, xy, self.s.noise_rest_mm)
        if drift is not None and drift.speed > self.s.rest_speed_mm_s:
            return None  # still crawling: compact over the window, but it would run on
        if self._turning(b, n, float(t[0])):
            return None
        t_stop = self.stop_time(b, n, float(t[0]), st.moving_since)
        st.status, st.anchor, st.anchor_n, st.rest_since = Motion.REST, mean, len(t), float(t[0])
        st.first_off, st.off_count = None, 0
        return Stop(b, t_stop, mean.copy(), st.moving_since)

    def _turning(self, b: int, n: int, t_window: float) -> bool:
        """Compact over the rest window, yet it came into it faster than rolling resistance can stop a ball
        within the window, with no other ball near enough to have stopped it dead: a turn, not a rest. A soft
        bounce off a cushion nose (it gives back a share of the speed) or a spin reversal looks still for a
        window, in and out by a few mm; the motion on after it is the same motion."""
        st = self.balls[b]
        w = self.rest_frames
        t, xy = self.hist.track(b, n - 2 * w + 1, n - w)
        keep = t >= st.moving_since
        t, xy = t[keep], xy[keep]
        if len(t) < 3:
            return False
        fit = fit_line(t, xy, noise_model(self.s))
        if fit is None:
            return False
        # the fastest it can be at the window's middle, having rolled from the fitted speed at fit.t0 (a crawl
        # at rest_speed_mm_s passes the rest test)
        stoppable = self.s.rest_speed_mm_s + _ROLL_DECEL_MM_S2 * (t_window - fit.t0 + self.s.rest_window_s / 2)
        if fit.speed - 2.0 * fit.sigma_v <= stoppable:
            return False
        h = self.hist
        k = np.arange(n - 2 * w + 1, n + 1) % h.size
        ok = h.valid[k] & h.valid[k, b][:, None]
        gap = np.linalg.norm(h.xy[k] - h.xy[k, b][:, None, :], axis=-1)
        gap[:, b] = np.inf
        # only a ball it closed on can have stopped it: one it ran away from did not (seed-67 frame_free: 10,
        # 11 mm off a resting 3 as it rolled away from it into a cushion nose and back, was called at rest there
        # and its cushion touch was lost). Closed on: the gap at its least within reach is smaller, by more than
        # the noise of two centres, than some gap before it in the window
        gap = np.where(ok, gap, np.inf)
        least = np.argmin(gap, axis=0)  # (B,)
        for x in np.flatnonzero(gap[least, np.arange(gap.shape[1])] <= _HIT_REACH_MM):
            before = gap[: least[x], x]
            before = before[np.isfinite(before)]
            if len(before) and float(before.max()) - float(gap[least[x], x]) > 2.0 * self.s.noise_rest_mm:
                return False
        return True

    def stop_time(self, b: int, n: int, t_window: float, t_moving: float) -> float:
        """When the ball stopped, from its last approach to rest (see `stop_fit`); `t_window` (the start of
        the rest window) when the approach is too short to fit."""
        t, xy = self.hist.track(b, n - frames(_STOP_FIT_S, self.fps, 4), n)
        keep = t >= t_moving
        t_stop = stop_fit(t[keep], xy[keep], self.s.noise_rest_mm, 1.0 / self.fps)
        return t_window if t_stop is None else t_stop

    def force_rest(self, b: int, p: np.ndarray, t: float) -> None:
        """Seed a ball at rest (the first frame of a stream showing a still table)."""
        st = self.balls[b]
        st.status, st.anchor, st.anchor_n, st.rest_since = Motion.REST, np.asarray(p, float).copy(), 1, t


def stop_fit(t: np.ndarray, xy: np.ndarray, noise_mm: float, dt: float) -> float | None:
    """The time a ball rolling to rest stopped, from samples of its approach and of its rest after it.

    Rolling resistance decelerates a rolling ball at a near-constant rate, so along its path the distance
    still to go is a/2 (t_s - t)^2 before the stop t_s and zero after it. The model is fitted by least
    squares (rest point and deceleration linear, t_s scanned at a quarter frame) on the last
    `_STOP_REACH_MM` of the approach; a crawl that only looked still for a while is timed where it really
    ends, not where it first looked still. None when the approach is too short to tell (a nudge).
    """
    if len(t) < 4:
        return None
    end = xy[-3:].mean(axis=0)
    r = np.hypot(*(xy - end).T)
    far = np.nonzero(r >= _STOP_REACH_MM)[0]
    lo = int(far[-1]) + 1 if len(far) else 0
    t, xy, r = t[lo:], xy[lo:], r[lo:]
    if len(t) < 4 or np.count_nonzero(r >= 3.0 * noise_mm) < 4:
        return None  # no approach to fit: a nudge, or a ball long at rest
    way = end - xy[int(np.argmax(r))]
    u = way / max(float(np.hypot(*way)), 1e-9)
    s = (xy - end) @ u  # position along the way, 0 at the rest point
    ts = np.arange(float(t[0]), float(t[-1]) + _STOP_AHEAD_S + dt / 8, dt / 4)
    x = -0.5 * np.clip(ts[:, None] - t[None, :], 0.0, None) ** 2  # (M, N): s = s_f + a x
    xm = x.mean(axis=1, keepdims=True)
    sxx = ((x - xm) ** 2).sum(axis=1)
    sxs = ((x - xm) * (s - s.mean())[None, :]).sum(axis=1)
    ok = (sxx > 1e-12) & (sxs > 0)  # a > 0: decelerating
    if not ok.any():
        return None
    sse = np.where(ok, float(((s - s.mean()) ** 2).sum()) - sxs**2 / np.where(ok, sxx, 1.0), np.inf)
    return float(ts[int(np.argmin(sse))])


def track_jump(hist: History, o: Onset, fps: float, look: int, rest_radius_mm: float,
               bed: tuple[float, float]) -> bool | None:
    """Is the start `o` a jump of the tracked centre rather than a ball set moving? True when its first
    step off the rest position is faster than any ball runs, or much faster than the ball runs after it (a
    struck ball leaves at its highest speed and friction only slows it; a ball stopped dead at once by
    another has set that one moving, so its start is caused), or when it is found off its rest position
    sitting still for `look` frames (unseen meanwhile, under the arm or cue, or seen stepping there in one
    frame and stopping dead with no ball hit): no rolling motion was seen. None while it is found still
    but not yet for that long, or seen once only. `bed`: the half length and half width a centre can reach
    (the cushion noses less R), so that a step that turned off a nose is read along its bounce."""
    t, xy = hist.track(o.ball, o.n_first, hist.newest)
    if len(t) < 3:
        return None  # two steps after it at least: one noisy step (5 mm a frame: ~400 mm/s) decides nothing
    gap, step, after = _step_speeds(hist, o, t, xy, rest_radius_mm, bed)
    if max(step, float(np.max(after))) > MAX_SPEED_MM_S:
        return True  # no ball runs that fast: the track jumps, at the start or right after it
    # a stroke leaves no faster than it runs on, give or take the noise; unless it hit a ball on its first or
    # second step (a hit inside the second frame interval slows that step too: at 30 fps a ball struck at 3 m/s
    # runs 100 mm a frame, and a ball 150 mm away is hit in the second)
    if is_jump(step, float(np.max(after))) and not _handed_on(hist, o, xy[:2], 2 * rest_radius_mm):
        return True
    still = float(np.max(np.hypot(*(xy - xy[0]).T))) <= rest_radius_mm
    if not still:
        return False
    if gap <= 2.5 / fps and _handed_on(hist, o, xy[:1], 2 * rest_radius_mm):
        return False  # it passed its speed on to a ball in its first step (stopped dead by a full hit)
    # seen leaving and still at once: a ball that rolled its first step (faster than onset_mm a frame, some
    # 400 mm/s at 60 fps) runs on for decimetres, it cannot stop within a frame unless it hit a ball; so
    # the centre moved without rolling (a hanging ball dropping into the pocket, a centroid shift)
    return True if t[-1] - t[0] >= (look - 0.5) / fps else None


def _step_speeds(hist: History, o: Onset, t: np.ndarray, xy: np.ndarray, rest_radius_mm: float,
                 bed: tuple[float, float]) -> tuple[float, float, np.ndarray]:
    """The time unseen before the first sample (t, xy) after start o, the speed of the step off the rest
    position onto it, and of each step between those samples (one that turned off a nose at its run there and
    back)."""
    before, _ = hist.track(o.ball, o.n_first - hist.size, o.n_first - 1)
    # unseen all the history long: it was at least that long away
    gap = float(t[0] - (before[-1] if len(before) else hist.time(hist.oldest)))
    step = float(np.hypot(*(xy[0] - o.anchor))) / max(gap, 1e-9)
    # a step that turned off a nose ran there and back: its displacement understates its run (seed-179
    # frame_dynamic: 2, hit at 3.2 m/s 120 mm off the front cushion, seen 32 mm back off it a frame later)
    prev = np.vstack([xy[:1] - o.anchor, np.diff(xy, axis=0)])
    run = np.maximum(np.hypot(*np.diff(xy, axis=0).T), _bounced(xy, prev, bed, 2 * rest_radius_mm))
    return gap, step, run / np.maximum(np.diff(t), 1e-9)


def jumps_midway(hist: History, o: Onset, rest_radius_mm: float, bed: tuple[float, float]) -> bool:
    """Does the track after start o jump after its first step: a step much faster than the ball ran in every
    step before it and in the one after (`is_jump`: friction only slows a ball, and a hit shows in the speed of
    the ball it hit), with no ball at rest within reach of the way there set moving? A track that leaves its
    rest, jumps, and is found back on that rest never left it (seed 263 frame_russian71: 12 in a corner under
    the arm of a hand moving 3, tracked 10 mm off, then 370 mm away in a frame, then back on its rest: two
    phantom strokes)."""
    t, xy = hist.track(o.ball, o.n_first, hist.newest)
    if len(t) < 3:
        return False
    _, step, after = _step_speeds(hist, o, t, xy, rest_radius_mm, bed)
    runs = np.concatenate([[step], after])
    for k in range(1, len(runs) - 1):
        # against every step before it: a fast ball's step that turned off a nose unseen (its first step from
        # mid-frame too short for `_bounced` to read the way there and back) looks slow beside the next one
        if is_jump(float(runs[k]), float(max(*runs[:k], runs[k + 1]))) and not _handed_on(
                hist, o, xy[:k + 2], 2 * rest_radius_mm):
            return True
    return False


def _bounced(xy: np.ndarray, prev: np.ndarray, bed: tuple[float, float], tol_mm: float) -> np.ndarray:
    """Per step between the samples xy (K, 2): the run of a ball that turned off a nose line on it, via the
    mirror image; else 0. The step before it, `prev[k]`, heads into the line, and this one away from it; and
    the way there and back across the line (`gap_p + gap_q`) is no longer than that step's run towards it, give
    or take `tol_mm`: a ball comes back off a nose no faster than it went in (a jump of the tracked centre that
    lands near a line, or runs along it, is no bounce)."""
    out = np.zeros(max(len(xy) - 1, 0))
    for k in range(len(out)):
        p, q = xy[k], xy[k + 1]
        for a in (0, 1):
            for sign in (1.0, -1.0):
                gap_p, gap_q = max(bed[a] - sign * p[a], 0.0), max(bed[a] - sign * q[a], 0.0)
                towards = float(prev[k][a]) * sign
                if towards > 0 and (q[a] - p[a]) * sign < 0 and gap_p + gap_q <= towards + tol_mm:
                    out[k] = max(out[k], float(np.hypot(q[1 - a] - p[1 - a], gap_p + gap_q)))
    return out


def _handed_on(hist: History, o: Onset, path: np.ndarray, moved_mm: float) -> bool:
    """Did the ball pass speed on to another inside its first steps? A ball at rest within reach of them (the
    segments from the rest position through the centres `path` (K, 2) seen off it) left its place (by more
    than `moved_mm`, beyond a resting centre's scatter) over the same frames:
    a hit in the first frame interval slows the striker at once, so its first step is faster than its run."""
    h = o.n_first
    pts = np.vstack([o.anchor, np.asarray(path, dtype=float).reshape(-1, 2)])
    for b in range(len(hist.ids)):
        if b == o.ball:
            continue
        t0, p0 = hist.track(b, h - 2, h - 1)
        t1, p1 = hist.track(b, h, h + len(pts))  # the frames of the path's steps, and one more
        if not (len(t0) and len(t1)):
            continue
        if float(np.max(np.hypot(*(p0 - p0[-1]).T))) > moved_mm:
            continue  # rolling already: a ball at rest takes the speed a hit hands on
        q = p0[-1]
        near = min(point_segment_distance(q, a, c) for a, c in itertools.pairwise(pts)) <= _HIT_REACH_MM
        if near and float(np.max(np.hypot(*(p1 - q).T))) > moved_mm:
            return True
    return False
