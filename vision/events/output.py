"""The detector's output: events are held and released in time order once the stream is past them.

A mixin of EventDetector (the buffer and the shot state belong to the detector). A weak (review) event
can be withdrawn while held when a confident one of the same balls replaces it; contacts passed on between
balls at rest are kept after the shot's first contact of a moving ball.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from rules.events import Event, EventType
from vision.events.early import EarlyLook
from vision.events.history import History
from vision.events.lines import Crossing, LineWatcher
from vision.events.motion import Motion, MotionTracker, Onset, Stop
from vision.events.settings import EventSettings
from vision.events.wander import ran_into

_TYPE_ORDER = {t: i for i, t in enumerate(EventType)}
_CLUSTER_WAIT_S = 0.2
_EDGES = (EventType.SHOT_START, EventType.SHOT_END)
_START_SLACK_S = 0.1  # a crossing dated this little before its ball's start is dated at the start
# the events whose balls' identity confidence is stamped apart (`_stamp_swap`); a shot_start has its own
_SWAP_STAMPED = (EventType.BALL_CONTACT, EventType.CUSHION, EventType.LINE_CROSS, EventType.POT,
                 EventType.OFF_TABLE, EventType.BALL_DISTURBED)
# what a track excursion judged no motion cannot show of its ball (`_void_excursion`)
_VOIDED = (EventType.BALL_CONTACT, EventType.CUSHION, EventType.LINE_CROSS)
# a start judged a jump whose ball is not yet back on its rest holds the stream this long for it (`_after_jump`):
# as long as a ball found elsewhere after a jump waits to show where it stays (disturb.SETTLE_WAIT_S)
_HOME_WAIT_S = 1.0
_HOME_HIT_CONF = 0.55  # a hit on or through a ball whose track wandered, read off the others' tracks: for review
_STRIKER_FLAGGED = 0.7  # a struck ball chosen on evidence within tolerance (`striker_review`): its identity at most


class OutputLogic:
    s: EventSettings
    fps: float
    hist: History
    struck: str | None  # the ball of the last shot_start emitted
    now: float
    out: list[Event]
    early: EarlyLook
    weak: dict[tuple[int, Any], Event]
    shot_t0: float
    first_hit_t: float
    onsets: list[tuple[Onset, int]]
    pushes: list[tuple[Event, Onset, dict[str, Any], float]]
    moved: list[tuple[Stop, np.ndarray]]
    lines: LineWatcher
    motion: MotionTracker
    last_seen: np.ndarray  # per ball: time of its last sample
    started: np.ndarray  # per ball: its last start from rest
    crossed: list[Event]  # recent crossings by the centre
    voids: dict[int, tuple[float, float]]  # per ball: a span its track only wandered in (`_void_excursion`)
    void_homes: dict[int, np.ndarray]  # per ball with a void: the rest it stood on all along
    R: float
    W: int  # samples fitted before a kink
    D: int  # ... and after it
    last_pair: dict[tuple[int, int], float]  # per pair: its last contact's time
    # per ball: a start judged a jump of the track, its ball not yet back on its rest, and when it was judged
    unhomed: dict[int, tuple[Onset, float]]

    def _seen_home(self, o: Onset) -> bool:
        """Is o's ball seen back on its rest (`HomeLogic._seen_home`)?"""
        raise NotImplementedError

    def _review_contact(self, a: int, b: int, t: float, conf: float, extra: dict[str, object]) -> bool:
        """Report a's hit on b at t, for review (`CauseLogic._review_contact`)."""
        raise NotImplementedError

    def _pushed_first(self, o: Onset) -> float:
        """When a stroke on o's ball would begin (`StartLogic._pushed_first`)."""
        raise NotImplementedError

    def _note_emitted(self, ev: Event) -> None:
        """Hook for the detector: bookkeeping of an emitted event."""

    def _supersede(self, key: tuple[int, Any], confidence: float) -> bool:
        """A confident event replaces a weak (review) one of the same balls found a moment before from
        a worse split: the weak one is withdrawn if it is still held."""
        weak = self.weak.pop(key, None)
        if weak is None or confidence < 0.5:
            if weak is not None:
                self.weak[key] = weak
            return False
        self.out = [e for e in self.out if e is not weak]
        return True

    def _remember_weak(self, key: tuple[int, Any], ev: Event) -> None:
        if ev.confidence < 0.5:
            self.weak[key] = self.out[-1]  # (its callers drop a voided event before it is emitted)
        else:
            self.weak.pop(key, None)

    def _void_excursion(self, o: Onset, stop: Stop | None) -> None:
        """A start judged a jump of the tracked centre, the ball found back on its rest: it never left (hidden
        under an arm, the tracker took weak reads of something else for it: seed-241 hanging_ball_drops_later,
        12 in a middle mouth "ran" 110 mm out and back in two frames, over the centre line and into a jaw, so its
        later fall counted as potted by the shot). What its track showed from its last sample at rest until it
        rests again is no motion: no contact, touch or crossing of it is reported (`stop`: the rest it is
        already back at, if the motion tracker called it before the jump was judged)."""
        t0 = self._last_rest_sample(o)
        t1 = self._void_end(stop, t0) if stop is not None and stop.since == o.t else np.inf
        self.voids[o.ball] = (t0, t1)
        self.void_homes[o.ball] = o.anchor
        self.out = [e for e in self.out if not self._voided(e)]
        self.lines.on_start(o.ball, o.anchor)  # its sides stand as they were at rest
        self._hits_at_home(o.ball, o.anchor, t0, min(t1, self.now))

    def _hits_at_home(self, a: int, home: np.ndarray, t0: float, t1: float) -> None:
        """A ball whose own track ran into ball a, on its rest all along, in the span a's track wandered in hit it:
        reported for review where no contact of the pair was (the striker hidden at the hit as its blob merged with
        a's, so that neither track showed the hit: an independent review's cradle, C unseen for 3-5 frames)."""
        ids = self.hist.ids
        for c in range(len(ids)):
            ts, xy = self.hist.track(c, self.hist.counter_at(t0), self.hist.counter_at(t1) + 1)
            if c == a or not len(ts) or self._voided_at(c, t0):
                continue
            near = np.flatnonzero(np.hypot(*(xy - home).T) - 2 * self.R <= self.s.contact_gate_mm)
            k = int(near[0]) if len(near) else -1  # its first sample there: where it arrived
            hit = ran_into(self.hist, self.s, c, home, float(ts[k]), self.R, self.W, self.D) if k >= 0 else None
            said = hit is not None and any(  # (a contact of the pair found meanwhile, still held)
                e.type is EventType.BALL_CONTACT and {ids[a], ids[c]} == set(e.agents)
                and abs(e.t - hit.t) < self.s.refractory_s for e in self.out)
            if hit is not None and hit.ran_in and not said:
                why = f"{ids[c]} ran into {ids[a]} on its rest (its track read off it)"
                # no contact of the pair is held: a time remembered from one the void withdrew is no repeat of it
                self.last_pair.pop((min(a, c), max(a, c)), None)
                self._review_contact(c, a, hit.t, _HOME_HIT_CONF, {"why": why})

    def _after_jump(self, o: Onset, stop: Stop | None) -> None:
        """A start judged a jump of the tracked centre. Its ball seen back on its rest: the excursion is void. Not yet
        back and still on its way: its events are held until it rests (`_home_after_jump`), up to `_HOME_WAIT_S`
        after the verdict (seed-273 hanging_ball_drops_later: 12 in a middle mouth, read 10 mm off under an arm and
        judged a jump a sample before it was read home, later read 175 mm out and back within four frames: a jaw
        touch, and its fall after the shot counted as potted by it, 1.23.3)."""
        if self._seen_home(o):
            self._void_excursion(o, stop)
        elif stop is None or stop.since != o.t:
            self.unhomed[o.ball] = (o, self.now)

    def _home_after_jump(self, st: Stop) -> None:
        """A ball whose start was judged a jump, not back home then, comes to rest at the end of that run: on its
        rest (within `onset_mm`), it never left and what its track showed meanwhile is void; elsewhere, the moved
        ball is `_moved_unseen`'s."""
        held = self.unhomed.pop(st.ball, None)
        if held is None or held[0].t != st.since:
            return
        o = held[0]
        if float(np.hypot(*(st.anchor - o.anchor))) <= self.s.onset_mm:
            self._void_excursion(o, st)

    def _voided(self, ev: Event) -> bool:
        if ev.type not in _VOIDED:
            return False
        ids = self.hist.ids
        if ev.type is EventType.BALL_CONTACT and len(ev.agents) == 2 and all(b in ids for b in ev.agents):
            return self._void_hides(ids.index(ev.agents[0]), ids.index(ev.agents[1]), ev.t, ev.confidence)
        # a touch or crossing fitted on the piece that ends at the ball's first sample back home may be dated just
        # past it (seed 273: 1.3 ms), and a ball back at rest touches nothing within half a frame; a contact is not
        # stretched so: a real hit may follow a wander at once (an independent review: 5 ms after)
        slack = 0.0 if ev.type is EventType.BALL_CONTACT else 0.5 / self.fps
        return any(self._voided_at(ids.index(b), ev.t - slack) for b in ev.agents if b in ids)

    def _void_hides(self, x: int, y: int, t: float, confidence: float) -> bool:
        """Is a contact of x and y at t void? Where either ball's track only wandered then, unless it is asserted and
        the other one's own track shows the hit (`_hit_at_home`): the wandering ball stood on its rest all along, so
        such a contact was real whatever its centre was read as (an independent review: 5 frozen to 6, read 25 mm
        off under C's merged blob as C hit it, lost C-5 and 5-6, a foul for no contact). A contact for review, or one
        the other track does not show (a ball rolling past it, near), rests on the wandering centre: void."""
        for a, b in ((x, y), (y, x)):
            if self._voided_at(a, t) and (
                confidence < 0.5 or self._voided_at(b, t) or not self._hit_at_home(a, b, t)
            ):
                return True
        return False

    def _hit_at_home(self, a: int, b: int, t: float) -> bool:
        """Does ball b's own track show a hit at about t on ball a standing at its rest (`wander.ran_into`): b ran
        into it and was turned away, or b was sent away from it as another ball ran into it (a cradle)?"""
        home = self._home_of(a, t)
        if home is None:
            return False
        hit = ran_into(self.hist, self.s, b, home, t, self.R, self.W, self.D)
        return hit.ran_in or (hit.away and self._struck_at_home(a, home, t, (a, b)) is not None)

    def _struck_at_home(self, a: int, home: np.ndarray, t: float, but: tuple[int, ...]) -> tuple[int, float] | None:
        """The ball other than `but`, not wandering itself, that ran into ball a standing at `home` at about t, and
        when it reached it."""
        for c in range(len(self.hist.ids)):
            if c not in but and not self._voided_at(c, t):
                hit = ran_into(self.hist, self.s, c, home, t, self.R, self.W, self.D)
                if hit.ran_in:
                    return c, hit.t
        return None

    def _home_of(self, a: int, t: float) -> np.ndarray | None:
        """Where ball a stood at t if its track then only wandered off its rest (a jump not yet back home, or a
        void): that rest; else None."""
        held = self.unhomed.get(a)
        if held is not None and held[0].t <= t:
            return held[0].anchor
        return self.void_homes.get(a) if self._voided_at(a, t) else None

    def _cause_at_home(self, a: int, o: Onset) -> bool | None:
        """None unless ball a's track only wandered off its rest at o's start (`_home_of`); then whether another
        ball ran into a there as o's ball, touching that rest, started (a cradle: the hit passed through a): both
        contacts reported at the striker's meeting, for review (a pair already reported is not again). Read off
        the striker's own track, not off a contact found before: one hidden at the hit is read later."""
        home = self._home_of(a, o.t)
        if home is None:
            return None
        hit = None
        if float(np.hypot(*(home - o.anchor))) - 2 * self.R <= self.s.touch_tol_mm:
            hit = self._struck_at_home(a, home, o.t, (a, o.ball))
        if hit is None:
            return False
        (striker, t_hit), ids = hit, self.hist.ids
        # inferred: a confident reading of either pair found later replaces it (`_supersede`, as a weak one; an
        # independent review: said first, the striker's kept C's own 1.0 contact out)
        ran = f"{ids[striker]} ran into {ids[a]} on its rest (its track read off it)"
        passed = f"{ids[a]} stood touching {ids[o.ball]} (its track read off its rest) and was hit by {ids[striker]}"
        pairs: tuple[tuple[int, int, dict[str, object]], ...] = (
            (striker, a, {"why": ran}), (a, o.ball, {"why": passed, "cluster": True}))
        for x, y, extra in pairs:
            n_out = len(self.out)
            if self._review_contact(x, y, t_hit, _HOME_HIT_CONF, extra) and len(self.out) > n_out:
                self.weak[(min(x, y), max(x, y))] = self.out[-1]
        return True

    def _voided_at(self, b: int, t: float) -> bool:
        span = self.voids.get(b)
        return span is not None and span[0] <= t <= span[1]

    def _close_void(self, st: Stop) -> None:
        """The ball of an open void came to rest: its span ends there."""
        span = self.voids.get(st.ball)
        if span is not None and not np.isfinite(span[1]):
            self.voids[st.ball] = (span[0], self._void_end(st, span[0]))

    def _void_end(self, st: Stop, t0: float) -> float:
        """Where a void from t0 ends at the stop that closes it: at the ball's first sample of the rest it stays at
        (within `onset_mm` of the stop's anchor to the newest sample; `_voided` allows touches half a frame more);
        never past the stream. Not at the stop's fitted time, which may lie up to the stop fit's reach past the
        stream (an independent review: a void so closed reached 0.5 s ahead and hid a ball's real hit)."""
        t, xy = self.hist.track(st.ball, self.hist.counter_at(t0), self.hist.newest)
        if not len(t):
            return min(st.t, self.now)
        off = np.flatnonzero(np.hypot(*(xy - st.anchor).T) > self.s.onset_mm)
        home = float(t[min(int(off[-1]) + 1, len(t) - 1)]) if len(off) else float(t[0])
        return min(home, self.now)

    def _close_voids_gone(self) -> None:
        """An open void whose ball left the bed (potted, lifted, off) before it came to rest ends at its last
        sample: put back later, the ball is read afresh."""
        for b, (t0, t1) in list(self.voids.items()):
            if not np.isfinite(t1) and self.motion.status(b) is Motion.GONE:
                self.voids[b] = (t0, max(t0, float(self.last_seen[b])))

    def _last_rest_sample(self, o: Onset) -> float:
        """When o's ball was last seen before its first sample off its rest (the earliest any event read from
        its run can be dated: a ball unseen as it left is timed between the two); o's own time when the history
        no longer holds it."""
        t, _ = self.hist.track(o.ball, o.n_first - self.hist.size, o.n_first - 1)
        return float(t[-1]) if len(t) else o.t

    def _order_chain(self) -> None:
        """The shot's first contact is the struck ball's: nothing else moves before it. A contact of other balls
        dated before it by less than a frame period (a chain through several balls inside one frame, each timed
        from its own noisy samples: seed-79 frame_free C -> 15 -> 6 within 3 ms, 15-6 dated 29 ms before C-15) is
        moved just after it, in the order of the chain from the struck ball; the rest keep their order after
        those. One dated earlier still is left as found (a ball still rolling from the shot before, 1.14.2)."""
        struck = self.struck
        if struck is None or not np.isfinite(self.shot_t0):
            return
        contacts = [e for e in self.out if e.type is EventType.BALL_CONTACT and e.t >= self.shot_t0]
        own = [e for e in contacts if struck in (e.balls or ()) and e.confidence >= 0.5]
        if not own:
            return
        first = min(own, key=lambda e: e.t)
        dt = self.hist.dt()
        early = sorted((e for e in contacts if struck not in (e.balls or ()) and first.t - dt < e.t < first.t),
                       key=lambda e: e.t)
        if not early:
            return
        reached, order = set(first.balls or ()), []
        while early:
            nxt = next((e for e in early if reached & set(e.balls or ())), early[0])  # the chain's next link
            early.remove(nxt)
            order.append(nxt)
            reached |= set(nxt.balls or ())
        moved = {id(e): replace(e, t=first.t + 1e-6 * (k + 1), frame=self._frame_of(first.t))
                 for k, e in enumerate(order)}
        self.out = [moved.get(id(e), e) for e in self.out]
        self.first_hit_t = min(self.first_hit_t, first.t)

    def _order_clusters(self) -> None:
        """A contact passed on between balls at rest cannot precede the shot's first contact of a moving
        ball (its start was timed from noisy samples): it is moved to that time."""
        if not np.isfinite(self.shot_t0):
            return
        # the struck ball's (`_order_chain`): another ball's moving contact cannot open the shot
        moving = [
            e.t
            for e in self.out
            if e.type is EventType.BALL_CONTACT
            and not e.extra.get("cluster")
            and e.confidence >= 0.5
            and e.t >= self.shot_t0
            and (self.struck is None or self.struck in (e.balls or ()))
        ]
        first = min([*moving, self.first_hit_t])
        self.first_hit_t = first
        if not np.isfinite(first):
            return
        self.out = [
            replace(e, t=first + 1e-6, frame=self._frame_of(first))  # just after it
            if e.type is EventType.BALL_CONTACT and e.extra.get("cluster") and self.shot_t0 <= e.t <= first
            else e
            for e in self.out
        ]

    def _release(self, final: bool) -> list[Event]:
        mark = np.inf if final else self.now - self.s.emit_hold_s
        bound = np.inf  # what is pending holds every event after it, those out early (`EarlyLook`) too
        if not final:
            # a stroke may be dated before its ball's onset, at the start of the touching ball it pushed
            # (and no later than its last sample at rest: a run read from a ball unseen as it left may be dated
            # before its start, and withdrawn with it if the start was no motion, `_void_excursion`)
            pending = [min(self._pushed_first(o), rest) for o, _ in self.onsets
                       if not self.early.set_moving(o.ball, (rest := self._last_rest_sample(o)), o.t + 1.0 / self.fps)]
            pending += [ev.t for ev, _, _, _ in self.pushes]
            # a potted ball's last crossing, read when the line test reaches its pot, falls within the piece it reads
            pending += [self.hist.time(max(n - 2 * self.lines.hw, self.hist.oldest)) for b, n, _ in self.lines.going
                        if self.lines.may_cross(self.hist, b, n)]
            pending += [st.since for st, _ in self.moved]  # found elsewhere after a jump: judged later
            if self.unhomed:  # jumped, not yet home: held while it may still come back (rare)
                self.unhomed = {b: (o, t) for b, (o, t) in self.unhomed.items()
                                if self.now - t < _HOME_WAIT_S and self.motion.status(b) is Motion.MOVING}
                pending += [self._last_rest_sample(o) for o, _ in self.unhomed.values()]
            if pending:
                bound = min(pending) - 1e-6
        self._order_chain()
        self._order_clusters()
        if not final and not np.isfinite(self.first_hit_t):
            # contacts passed on between resting balls, and other balls' contacts, wait (up to _CLUSTER_WAIT_S)
            # for the struck ball's contact that started them, which may be found later from its track
            waiting = [
                e.t
                for e in self.out
                if e.type is EventType.BALL_CONTACT
                and (e.extra.get("cluster") or (self.struck is not None and self.struck not in (e.balls or ())))
                and e.t >= self.shot_t0
                and self.now - e.t < _CLUSTER_WAIT_S
            ]
            if waiting:
                bound = min(bound, min(waiting) - 1e-6)
        mark, sure = min(mark, bound), min(self.now, bound) if not final else np.inf
        # an event out early never passes a held shot boundary dated before it: the rules engine reads a shot's
        # events between its shot_start and shot_end (within a shot it orders them by time)
        edges = [e.t for e in self.out if e.type in _EDGES and id(e) not in self.early.sure and e.t > mark]
        sure = min([sure, *(t - 1e-6 for t in edges)])
        ready = [e for e in self.out if e.t <= mark or (id(e) in self.early.sure and e.t <= sure)]
        gone = {id(e) for e in ready}
        self.out = [e for e in self.out if id(e) not in gone]
        self.early.forget(self.out)
        struck = {e.ball for e in ready if e.type is EventType.SHOT_START} | {self.struck}

        def key(e: Event) -> tuple[float, int, int, float]:
            # at the shot's first contact (one instant: within 10 us), the struck ball's contact comes before the
            # contacts it passed on (seed-79 frame_russian71: C struck into 15, 15 into 12 in the same frame);
            # at a later instant the order found stands (seed-73 touching_cluster_hit: 12 back into 9-2-C)
            passed_on = e.type is EventType.BALL_CONTACT and not struck & set(e.balls or ())
            passed_on = passed_on and abs(e.t - self.first_hit_t) <= 1e-5
            return round(e.t, 5), _TYPE_ORDER[e.type], int(passed_on), e.t

        return sorted(ready, key=key)

    def lines_out(self, crossings: list[Crossing]) -> None:
        for cr in crossings:
            if self._voided_at(cr.ball, cr.t):
                continue
            # a ball that left its rest just behind the line crosses after it left: the smoothed line reads back
            # across the rest and may date it earlier (and put it before the shot_start in the stream)
            t = float(self.started[cr.ball]) if cr.t < self.started[cr.ball] < cr.t + _START_SLACK_S else cr.t
            if "note4" not in cr.extra:
                self.crossed.append(
                    Event(EventType.LINE_CROSS, t, 0, ball=self.hist.ids[cr.ball], line=cr.line, to=cr.to)
                )
                self.crossed = self.crossed[-64:]
            self._emit(
                Event(
                    EventType.LINE_CROSS,
                    t,
                    0,
                    float(round(cr.confidence, 4)),
                    ball=self.hist.ids[cr.ball],
                    line=cr.line,
                    to=cr.to,
                    extra=dict(cr.extra),
                )
            )

    def _emit(self, ev: Event) -> None:
        if self._voided(ev) or self._out_early(ev):
            return
        if ev.type is EventType.SHOT_START and "start_confidence" in ev.extra:
            ev = self._stamp_identity(ev)
        ev = self._stamp_unnamed(ev)
        if ev.type in _SWAP_STAMPED:
            ev = self._stamp_swap(ev)
        if ev.type is EventType.SHOT_START:
            self.struck = ev.ball
        self._note_emitted(ev)
        self.out.append(replace(ev, frame=self._frame_of(ev.t)))

    def _out_early(self, ev: Event) -> bool:
        """Is ev a contact or touch already out early (`EarlyLook`), read again (by the start logic's own reading of
        a hit, say: a stun read as a kiss)? A return off a cushion into the ball just met is a second contact."""
        ids, frame = self.hist.ids, 1.0 / self.fps
        if ev.extra.get("returned"):
            return False
        if ev.type is EventType.BALL_CONTACT and len(ev.agents) == 2 and all(b in ids for b in ev.agents):
            a, b = sorted(ids.index(x) for x in ev.agents)
            return self.early.reported((a, b), ev.t, frame)
        if ev.type is EventType.CUSHION and ev.ball in ids and ev.cushion is not None:
            return self.early.reported((ids.index(ev.ball), ev.cushion), ev.t, frame)
        return False

    def _stamp_identity(self, ev: Event) -> Event:
        """A shot_start says that a stroke happened (`start_confidence`) and which ball it struck
        (`ball_confidence`: the tracker's identity confidence of that ball on the first frame after the stroke,
        capped when the striker of two touching balls was chosen within tolerance); `confidence` is their
        product, as schema 1.0 defined it."""
        h = self.hist
        b = h.ids.index(ev.ball) if ev.ball in h.ids else None
        n = min(h.newest, h.counter_at(ev.t) + 1)
        idc = float(h.id_conf[n % h.size, b]) if b is not None else 0.0
        if ev.extra.get("striker_review"):
            idc = min(idc, _STRIKER_FLAGGED)
        sc = float(ev.extra["start_confidence"])
        extra = {**ev.extra, "ball_confidence": round(idc, 4)}
        return replace(ev, confidence=round(min(ev.confidence, sc * idc), 4), extra=extra)

    def _stamp_swap(self, ev: Event) -> Event:
        """Extra `id_confidence` (1.8): the lowest tracker identity confidence of the event's balls at its frame,
        the risk that a track took another ball's detections, when below 1. It is not folded into `confidence`:
        a contact of C with a ball whose label may be swapped happened all the same (seed-97 frame_free: C-10,
        10 held at 0.3 since an earlier crossing under an arm, was a review flag, and the shot lost its first
        contact); the rules flag a verdict on it where the ball's number counts."""
        h = self.hist
        n = min(h.newest, max(h.oldest, h.counter_at(ev.t)))
        idc = [float(h.id_conf[n % h.size, h.ids.index(b)]) for b in ev.agents if b in h.ids]
        low = min(idc, default=1.0)
        return replace(ev, extra={**ev.extra, "id_confidence": round(low, 4)}) if low < 1.0 else ev

    def _stamp_unnamed(self, ev: Event) -> Event:
        """Extra `unnamed`: the event's balls (for shot_start and shot_end, the balls of `positions`) whose id
        is a label vision gave a ball it could not name, at the event's frame. Their number is unknown; what
        the event says of that ball, and its `confidence`, stand."""
        h = self.hist
        balls = list(ev.positions or {}) if ev.type in (EventType.SHOT_START, EventType.SHOT_END) else ev.agents
        n = h.counter_at(ev.t) % h.size
        unnamed = [b for b in balls if b in h.ids and not h.named[n, h.ids.index(b)]]
        return replace(ev, extra={**ev.extra, "unnamed": unnamed}) if unnamed else ev

    def _frame_of(self, t: float) -> int:
        """The last frame at or before t (the convention of the synthetic ground truth)."""
        return self.hist.frame_no(self.hist.counter_at(t + 1e-9))
