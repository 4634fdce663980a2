"""Contacts, cushion touches and line crossings sure before the full look-ahead, out at once.

The full reading of a counter waits `lookahead_s` (at least three frames) past it: at 30 fps an event comes out
133 ms or more after it happened. The counters the full reading has not reached yet are looked at again with
every new frame on the samples there are; a contact or touch read there beyond doubt (`sure`) is reported then
and released without the release hold. Only the event comes out: what follows from it (its kinks, a cushion its
ball was driven into, a return off a cushion) is the full reading's, which runs as if nothing had come out early
and does not report that event again. A crossing sure on the newest samples sets the ball's side of the line
(`LineWatcher.sure_crossings`), which the smoothed reading then leaves alone. What needs the look-ahead (a near
miss, a thin cut, a touch within the review band) gets it.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from rules.events import Event, EventType
from vision.events.contacts import Contact, Window, pair_candidates, verify_in
from vision.events.cushions import Boundary, Touch, touch_candidates, under_cover, verify_touches
from vision.events.history import History
from vision.events.lines import Crossing, LineWatcher
from vision.events.motion import MotionTracker
from vision.events.settings import EventSettings

SURE_CONF = 0.95  # an early reading at or above this confidence, with no doubt flagged on it, is out at once
FAR_SAMPLES = 3  # ... read on at least this many samples after it (seed 269 frame_free: 4-7 sure on two, none on three)
# ... each seen about it at this position confidence or more: a disc merged with a neighbour's is read off by up to
# 20 mm (seed 271 frame_russian71: C chasing 5, read at 0.90-0.92, a sure C-5 2.5 frames before their real one)
CLEAR_CONF = 0.95
REF_FRAMES = 30


class _Detector(Protocol):
    hist: History
    motion: MotionTracker
    bound: Boundary
    s: EventSettings
    table: Any
    kinks: dict[int, list[float]]
    out: list[Event]
    lines: LineWatcher
    onsets: list[Any]
    ids: tuple[str, ...]
    analysed: int
    R: float
    W: int
    fps: float

    last_pair: dict[tuple[int, int], float]
    last_touch: dict[tuple[int, str], float]

    def _contact_event(self, c: Contact) -> Event: ...

    def _touch_event(self, tc: Touch) -> Event: ...

    def _emit(self, ev: Event) -> None: ...

    def lines_out(self, crossings: list[Crossing]) -> None: ...


class EarlyLook:
    """What the detector reported early: per pair or (ball, cushion) the time, and the events to release."""

    def __init__(self, active: bool) -> None:
        # worth its cost only where the full reading comes out later than the release hold (at 30 fps, 133 ms; at
        # 60 fps the hold, 80 ms, is the later: events are out within 100 ms as they are)
        self.active = active
        self.seen: dict[tuple[int, Any], float] = {}
        self.struck: dict[int, float] = {}  # a ball at rest hit by a moving one, out early: when
        self.candidates: dict[int, tuple[list[tuple[int, int]], list[int]]] = {}  # per counter: pairs, balls
        # the events out early, by id (released with no hold); held here so that no id is reused while listed
        self.sure: dict[int, Event] = {}

    def reported(self, key: tuple[int, Any], t: float, frames_s: float) -> bool:
        """Was an event of key reported early within two frames of t (the full reading's own date may differ)?"""
        return abs(self.seen.get(key, -np.inf) - t) <= 2.0 * frames_s

    def look(self, det: _Detector, n: int) -> None:
        """Read the counters the full reading has not reached, with samples up to n."""
        if not self.active:
            return
        h, s = det.hist, det.s
        if det.onsets:
            # a start being judged may prove contacts the tracks alone do not show (a pack's, a cradle's): a ball's
            # line read before them runs through its turn (seed 269 frame_free: 4, turned by 15, read as hitting
            # 7, which 15 set moving from touching it)
            return
        self.candidates = {m: c for m, c in self.candidates.items() if m > det.analysed}
        # a reading at m is dated no earlier than the frame before it: three samples past it need n >= m + 2
        for m in range(det.analysed + 1, n - 1):
            if m - 1 - det.W < h.oldest:
                continue
            if m not in self.candidates:  # (the samples about m and the motion then do not change)
                self.candidates[m] = (pair_candidates(h, det.motion, m, det.R, s),
                                      touch_candidates(h, det.motion, det.bound, m, det.R, s))
            pairs, balls = self.candidates[m]
            if not pairs and not balls:
                continue
            win = Window(h, det.motion, s, m, m - 1 - det.W, n, det.R, det.fps, det.kinks, det.table)
            for a, b in pairs:
                c = verify_in(win, a, b)
                pair = (min(a, b), max(a, b))
                if c is None or not _sure(c.confidence, c.review, c.margin_mm, s) or c.rival or c.knocked:
                    continue
                if n - h.counter_at(c.t) < FAR_SAMPLES or not _clear(h, (a, b), h.counter_at(c.t) - 2, n):
                    continue  # two samples past a kink make a line through noise: it may bend the other way
                if self.reported(pair, c.t, 1.0 / det.fps) or _near(det.last_pair.get(pair), c.t, s):
                    continue
                if self._mark(det, pair, det._contact_event(c)):
                    rest = [x for x, p in zip((c.a, c.b), c.pieces, strict=True) if p.at_rest_before]
                    if len(rest) == 1:
                        self.struck[rest[0]] = c.t
            for ball in balls:
                for tc in verify_touches(h, det.motion, det.bound, s, ball, m, m - 1 - det.W, n, det.R, det.fps):
                    tc = under_cover(h, tc)
                    if tc.stopped or not _sure(tc.confidence, tc.review, tc.margin_mm, s):
                        continue
                    if n - h.counter_at(tc.t) < FAR_SAMPLES or not _clear(h, (ball,), h.counter_at(tc.t) - 2, n):
                        continue
                    key = (ball, tc.cushion)
                    if self.reported(key, tc.t, 1.0 / det.fps) or _near(det.last_touch.get(key), tc.t, s):
                        continue
                    self._mark(det, key, det._touch_event(tc))
        self._crossings(det, n)

    def _crossings(self, det: _Detector, n: int) -> None:
        """Line crossings beyond doubt on the newest samples (`LineWatcher.sure_crossings`)."""
        h, t_n = det.hist, det.hist.time(n)
        # only a ball whose newest sample lies across a line from the side it is held on can have crossed it
        x = h.xy[n % h.size, :, 0]
        lines = np.array([x_line for _, x_line in det.lines.lines])
        side = det.lines.side.astype(float)
        across = np.any((np.abs(side) == 1) & (side * (x[:, None] - lines[None, :]) < 0), axis=1)
        balls = [b for b in np.flatnonzero(across & h.valid[n % h.size]).tolist()
                 if det.motion.moving_at(b, t_n) and _clear(h, (b,), n - FAR_SAMPLES, n)]
        for cr in det.lines.sure_crossings(h, n, balls, det.kinks):
            k0 = len(det.out)
            det.lines_out([cr])
            self.sure.update((id(e), e) for e in det.out[k0:] if e.type is EventType.LINE_CROSS)

    def _mark(self, det: _Detector, key: tuple[int, Any], ev: Event) -> bool:
        """Put out an event read early, alone: what follows from it (kinks, a cushion it was driven into, a return)
        is the full reading's, made when that reading reaches it as if nothing had come out early (an early kink
        changed what the full reading found at earlier frames: an independent review lost a shot's only contact)."""
        k0 = len(det.out)
        det._emit(ev)
        new = det.out[k0:]
        if new:
            self.seen[key] = ev.t
            self.sure.update((id(e), e) for e in new)
        return bool(new)

    def set_moving(self, ball: int, t_lo: float, t_hi: float) -> bool:
        """Did a contact out early, of a moving ball into this one at rest, set it moving between t_lo and t_hi
        (its last sample at rest and its first off it)? That start is no stroke to wait for."""
        return t_lo <= self.struck.get(ball, -np.inf) <= t_hi

    def forget(self, held: list[Event]) -> None:
        """Keep only the early events still held (released, withdrawn or re-dated ones go)."""
        ids = {id(e) for e in held}
        self.sure = {k: e for k, e in self.sure.items() if k in ids}


def _clear(h: History, balls: tuple[int, ...], lo: int, hi: int) -> bool:
    """Were the balls' samples lo..hi read at no lower position confidence than CLEAR_CONF, or than their best over
    the REF_FRAMES before where a tracker rates every read lower (the drop is what tells a merge)?"""
    cols = np.array(balls, dtype=np.intp)
    k = h.idx(max(lo, h.oldest), hi)
    before = h.idx(lo - REF_FRAMES, lo - 1)
    ref = h.conf[np.ix_(before, cols)].max(axis=0) if len(before) else np.ones(len(cols))
    floor = np.minimum(CLEAR_CONF, ref)
    seen = h.valid[np.ix_(k, cols)]
    return bool(np.all((h.conf[np.ix_(k, cols)] >= floor) | ~seen))


def _near(t_found: float | None, t: float, s: EventSettings) -> bool:
    return t_found is not None and abs(t_found - t) < s.refractory_s


def _sure(confidence: float, review: bool, margin_mm: float, s: EventSettings) -> bool:
    return confidence >= SURE_CONF and not review and abs(margin_mm) > s.review_band_mm
