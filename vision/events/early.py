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
from vision.events.cushions import Boundary, touch_candidates, under_cover, verify_touches
from vision.events.history import History
from vision.events.lines import Crossing, LineWatcher
from vision.events.motion import MotionTracker, Onset
from vision.events.readings import contact_event, touch_event
from vision.events.settings import EventSettings
from vision.events.shots import ShotPhase

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
    pushes: list[Any]
    moved: list[Any]
    unhomed: dict[int, Any]
    phase: ShotPhase
    first_hit_t: float  # the running shot's first contact of a moving ball (inf: none yet)
    struck: str | None  # the ball of the last shot_start
    ids: tuple[str, ...]
    analysed: int
    R: float
    W: int
    fps: float

    last_pair: dict[tuple[int, int], float]
    last_touch: dict[tuple[int, str], float]

    def _emit(self, ev: Event) -> None: ...

    def lines_out(self, crossings: list[Crossing]) -> None: ...

    def _moving(self) -> np.ndarray: ...

    def _maybe_slow(self, o: Onset) -> bool: ...


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
        # a start being judged may prove contacts the tracks alone do not show (a pack's, a cradle's): a ball's line
        # read before them runs through its turn (seed 269 frame_free: 4, turned by 15, read as hitting 7, which 15
        # set moving from touching it). Nothing is read early of a ball that came within reach of such a start's
        # ball (`_related`); but the start of a ball at rest, struck by a contact read now, is that contact's.
        pending = [o for o, _ in det.onsets]
        self.candidates = {m: c for m, c in self.candidates.items() if m > det.analysed}
        extra = self._struck_at_once(det, n) if pending else {}
        # a reading at m is dated no earlier than the frame before it: three samples past it need n >= m + 2
        for m in range(det.analysed + 1, n - 1):
            if m - 1 - det.W < h.oldest:
                continue
            if m not in self.candidates:  # (the samples about m and the motion then do not change)
                self.candidates[m] = (pair_candidates(h, det.motion, m, det.R, s),
                                      touch_candidates(h, det.motion, det.bound, m, det.R, s))
            pairs, balls = self.candidates[m]
            pairs = pairs + [p for p in extra.get(m, []) if p not in pairs and p[::-1] not in pairs]
            if not pairs and not balls:
                continue
            win = Window(h, det.motion, s, m, m - 1 - det.W, n, det.R, det.fps, det.kinks, det.table)
            for a, b in pairs:
                c = verify_in(win, a, b)
                pair = (min(a, b), max(a, b))
                if c is None or not _sure(c.confidence, c.review, c.margin_mm, s) or c.rival or c.knocked:
                    continue
                if pending and _held_by(det, c, pending, n):
                    continue
                if n - h.counter_at(c.t) < FAR_SAMPLES or not _clear(h, (a, b), h.counter_at(c.t) - 2, n):
                    continue  # two samples past a kink make a line through noise: it may bend the other way
                if self.reported(pair, c.t, 1.0 / det.fps) or _near(det.last_pair.get(pair), c.t, s):
                    continue
                if self._mark(det, pair, contact_event(c, det.ids, det.R, s)):
                    rest = [x for x, p in zip((c.a, c.b), c.pieces, strict=True) if p.at_rest_before]
                    if len(rest) == 1:
                        self.struck[rest[0]] = c.t
            for ball in balls:
                if pending and any(_related(det, (ball,), o, n) for o in pending):
                    continue
                for tc in verify_touches(h, det.motion, det.bound, s, ball, m, m - 1 - det.W, n, det.R, det.fps):
                    tc = under_cover(h, tc)
                    if tc.stopped or not _sure(tc.confidence, tc.review, tc.margin_mm, s):
                        continue
                    if n - h.counter_at(tc.t) < FAR_SAMPLES or not _clear(h, (ball,), h.counter_at(tc.t) - 2, n):
                        continue
                    key = (ball, tc.cushion)
                    if self.reported(key, tc.t, 1.0 / det.fps) or _near(det.last_touch.get(key), tc.t, s):
                        continue
                    self._mark(det, key, touch_event(tc, det.ids, s))
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
                 if det.motion.moving_at(b, t_n) and _clear(h, (b,), n - FAR_SAMPLES, n)
                 and not any(_related(det, (b,), o, n) for o, _ in det.onsets)]
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

    def quiet_start(self, det: _Detector, o: Onset, n: int) -> bool:
        """May start o be judged now, before its look-ahead has passed? The look-ahead is there to rule a collision
        out as its cause, which a quiet table settles sooner: no shot runs, nothing else moves, o's ball left clear
        of every other ball (none within reach of its rest or of its samples so far: three, which the jump test
        needs too), its launch read clear all through, nothing else pending or held back. A stroke then (or a
        disturbance: a slower start is judged on its run, as before); its shot_start is out at once (`mark_stroke`)."""
        h, s = det.hist, det.s
        if not self.active or det.phase is ShotPhase.RUNNING or len(det.onsets) != 1 or n < o.n_first + 2:
            return False
        if det.out or det.pushes or det.moved or det.unhomed or det.lines.going:
            return False
        if not _clear(h, (o.ball,), o.n_first - 2, n):
            return False
        if _moving_but(det, o.ball):
            return False
        _, xy = h.track(o.ball, o.n_first, n)
        xy = np.vstack([o.anchor[None, :], xy])  # from its rest on
        rests = (a for x in range(len(det.ids)) if x != o.ball and (a := det.motion.anchor_at(x, o.t)) is not None)
        return all(float(np.min(np.hypot(*(xy - a).T))) - 2.0 * det.R > s.contact_gate_mm for a in rests)

    def mark_stroke(self, events: list[Event]) -> None:
        """A stroke judged early (`quiet_start`): its shot_start is out at once."""
        self.sure.update((id(e), e) for e in events if e.type is EventType.SHOT_START)

    def mark_pot(self, events: list[Event]) -> None:
        """A pot the tracker called (confidence 0.95 or more, not a hanging ball's drop, nothing for review) is out
        at once: no reading of it waits for later frames."""
        if self.active:
            self.sure.update((id(e), e) for e in events if e.type is EventType.POT and e.confidence >= SURE_CONF
                             and not any(k in e.extra for k in ("review", "hanging")))

    def _struck_at_once(self, det: _Detector, n: int) -> dict[int, list[tuple[int, int]]]:
        """Pairs to read early that the candidates miss: the shot's struck ball, running alone with nothing hit yet,
        reached a ball at rest a frame or two after the stroke (the candidates need a ball moving two frames before:
        the hit is read from the struck ball's start, judged after the look-ahead). Per counter about that ball's
        start: (struck ball, ball it reached), where nothing else came within reach of the ball it reached."""
        if len(det.onsets) != 1 or det.phase is not ShotPhase.RUNNING or np.isfinite(det.first_hit_t):
            return {}
        o = det.onsets[0][0]
        movers = _moving_but(det, o.ball)
        if len(movers) != 1 or det.struck != det.ids[movers[0]]:
            return {}
        y = movers[0]
        others = tuple(x for x in range(len(det.ids)) if x not in (o.ball, y))
        if not _related(det, (y,), o, n) or _related(det, others, o, n):
            return {}
        return {m: [(y, o.ball)] for m in (o.n_first - 1, o.n_first)}

    def set_moving(self, ball: int, t_lo: float, t_hi: float) -> bool:
        """Did a contact out early, of a moving ball into this one at rest, set it moving between t_lo and t_hi
        (its last sample at rest and its first off it)? That start is no stroke to wait for."""
        return t_lo <= self.struck.get(ball, -np.inf) <= t_hi

    def forget(self, held: list[Event]) -> None:
        """Keep only the early events still held (released, withdrawn or re-dated ones go)."""
        ids = {id(e) for e in held}
        self.sure = {k: e for k, e in self.sure.items() if k in ids}


def _moving_but(det: _Detector, ball: int) -> list[int]:
    """The balls moving now, but `ball`."""
    moving = det._moving()
    moving[ball] = False
    return np.flatnonzero(moving).tolist()


def _related(det: _Detector, balls: tuple[int, ...], o: Onset, n: int) -> bool:
    """Is one of the balls o's own, or did one come within reach of o's rest (two radii and the contact gate) from
    the fit window before o's start on: a hit or push its judgement may prove?"""
    if o.ball in balls:
        return True
    reach = 2.0 * det.R + det.s.contact_gate_mm
    c0 = det.hist.counter_at(o.t) - det.W - 1
    for x in balls:
        _, xy = det.hist.track(x, c0, n)
        if len(xy) and float(np.min(np.hypot(*(xy - o.anchor).T))) <= reach:
            return True
    return False


def _held_by(det: _Detector, c: Contact, pending: list[Onset], n: int) -> bool:
    """Does a start being judged hold contact c back? Not the start of c's ball at rest that c struck, dated within
    a frame of c, nothing else within reach of it but c's striker; nor a start nothing of c came near."""
    rest = [x for x, p in zip((c.a, c.b), c.pieces, strict=True) if p.at_rest_before]
    frame = 1.0 / det.fps
    for o in pending:
        if len(rest) == 1 and o.ball == rest[0] and abs(o.t - c.t) <= frame:
            others = tuple(x for x in range(len(det.ids)) if x not in (c.a, c.b))
            if _related(det, others, o, n):
                return True  # another ball near it may have set it moving, or be pushed on by it
            continue
        if _related(det, (c.a, c.b), o, n):
            return True
    return False


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
