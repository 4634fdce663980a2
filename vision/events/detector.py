"""EventDetector: BallStates in, one frame at a time; rules.events.Event out, as soon as each is certain.

Latency (documented in docs/event-schema.md): a contact, cushion or line crossing needs `lookahead_s` of
frames after it to be confirmed; a stroke needs the same to rule out a collision as its cause (plus
`push_window_s` when the cue ball touched an object ball); events are then released in time order once
the stream is `emit_hold_s` past them. shot_end needs the settle window by definition.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calibration.table import Table
from rules.events import BALL_IDS, Event, EventType
from vision.events.clusters import ClusterLogic
from vision.events.contacts import Contact, Window, pair_candidates, verify_in
from vision.events.covershift import CoverShiftWatcher
from vision.events.cushions import Boundary, Touch, touch_candidates, under_cover, verify_touches
from vision.events.early import EarlyLook
from vision.events.history import History
from vision.events.knocked import vanish_candidates, verify_knocked
from vision.events.lines import Crossing, LineWatcher
from vision.events.motion import Motion, MotionTracker, Onset, Stop
from vision.events.nosestop import stopped_at_nose
from vision.events.noseturn import nose_before_contact
from vision.events.output import OutputLogic
from vision.events.pots import Gone, PotWatcher
from vision.events.pushes import PushLogic
from vision.events.readings import contact_event, touch_event
from vision.events.returns import return_contact
from vision.events.settings import EventSettings, frames
from vision.events.shots import ShotPhase, rest_layout
from vision.events.starts import StartLogic
from vision.events.strokes import StrokeLogic
from vision.events.touchrules import driven_into, frozen_pushed
from vision.types import BallStates

_LOST_S = 1.0  # a moving ball unseen this long no longer holds the shot open
_HIT_MOVING_S = 1.0  # a ball hit this recently is moving for the pot watcher (its hit is found a look-ahead late;
# one lost under a weak reading is judged after DOUBT_WAIT_S, 0.5 s)

__all__ = ["EventDetector", "ShotPhase"]


class EventDetector(StartLogic, OutputLogic, ClusterLogic, PushLogic, StrokeLogic):
    """Incremental event detector: call `update` with every frame's BallStates, then `flush` at the end."""

    def __init__(
        self, table: Table, fps: float, settings: EventSettings | None = None, ids: tuple[str, ...] = BALL_IDS
    ) -> None:
        self.s = settings if settings is not None else EventSettings()
        self.table, self.fps, self.ids = table, float(fps), ids
        self.R = table.ball_radius
        self.W = frames(self.s.fit_before_s, fps, 3)
        self.D = frames(self.s.lookahead_s, fps, 3)
        self.hist = History(ids, frames(self.s.history_s, fps, 4 * (self.W + self.D)))
        self.pots = PotWatcher(table, self.s, len(ids), fps)
        self.motion = MotionTracker(self.hist, self.s, fps, held=self.pots.beyond)
        self.bound = Boundary(table)
        self.lines = LineWatcher(table, self.s, len(ids), self.D)
        self.phase = ShotPhase.IDLE
        self.analysed = -1  # last counter analysed for contacts / cushions / lines
        # events sure before the look-ahead, out at once, where the full reading comes out after the hold
        self.early = EarlyLook((self.D + 1) / self.fps > self.s.emit_hold_s)
        self.onsets: list[tuple[Onset, int]] = []  # pending, with the counter at which they are ready
        self.pushes: list[tuple[Event, Onset, dict[str, Any], float]] = []  # shot_starts awaiting 1.19
        self.pack_hit: dict[int, tuple[float, np.ndarray]] = {}  # per ball: a pack solve proved it hit (when, its rest)
        self.behind: set[int] = set()  # ids of pending onsets judged as the struck ball of a group they pushed
        self.wobbled: set[int] = set()  # ids of onsets judged just now as a cover's drag (`covered_wobble`)
        self.claims: dict[int, tuple[float, float]] = {}  # struck balls whose late start is their stroke's
        self.out: list[Event] = []
        self.last_pair: dict[tuple[int, int], float] = {}
        self.pair_times: dict[tuple[int, int], list[float]] = {}  # contacts reported in the last second, per pair
        self.last_touch: dict[tuple[int, str], float] = {}
        self.returned: set[tuple[int, int, float]] = set()  # (ball, partner, touch time) checked for a return
        self.came_back: dict[tuple[int, int], float] = {}  # (ball, striker): its return read from a rebound, time
        self.weak: dict[tuple[int, Any], Event] = {}  # held review events a confident one may replace
        # per ball: (stop time, last way rolled, when that run began)
        self.stop_dir: dict[int, tuple[float, np.ndarray, float]] = {}
        self.stop_before: dict[int, tuple[float, np.ndarray, float]] = {}  # per ball: the stop_dir before the last
        self.note4: list[Crossing] = []  # far middle-jaw bounces awaiting judgement
        self.crossed: list[Event] = []  # recent crossings by the centre
        self.kinks: dict[int, list[float]] = {}  # recent contact / touch times per ball (line smoothing)
        self.last_hit = np.full(len(ids), -np.inf)  # last contact or start time per ball (causes)
        self.last_seen = np.full(len(ids), -np.inf)
        self.started = np.full(len(ids), -np.inf)  # last start from rest per ball
        self.judged = np.full(len(ids), -np.inf)  # ... last judged (caused, a stroke or disturbed): a cause
        self.hit_from: dict[tuple[int, int], float] = {}  # (striker, struck): contact time proven by a start
        self.caused_by: dict[tuple[int, int], float] = {}  # (cause, started ball): a start it explained unproven
        self.last_stop = -np.inf
        self.last_event_t = -np.inf  # of the running shot's last event but its shot_end
        self.kicked: dict[int, float] = {}  # per ball: time it was last struck while moving
        self.jumps: dict[int, float] = {}  # per ball: time of its last start that was a jump of the track
        self.voids: dict[int, tuple[float, float]] = {}  # per ball: a span its track only wandered in
        self.void_homes: dict[int, np.ndarray] = {}  # per ball with a void: the rest it stood on all along
        self.unhomed: dict[int, tuple[Onset, float]] = {}  # per ball: a jump of its track, not yet back home
        self._jump_memo: dict[tuple[int, int], bool] = {}  # decided jump verdicts of pending onsets
        self.last_stops: dict[int, Stop] = {}  # per ball: its last stop (a jump may be judged after it)
        # balls found at rest elsewhere after a jump, to judge, with where they rested before (`_moved_unseen`)
        self.moved: list[tuple[Stop, np.ndarray]] = []
        self.moved_home: dict[int, tuple[float, np.ndarray]] = {}  # per ball: last such rest, the home before
        self.shifts = CoverShiftWatcher(len(ids), self.s, self.fps, self.R)  # moved less than a start, covered
        self.calls: dict[tuple[int, int], Event | None] = {}  # (ball, first counter): a lone start's disturbance
        self.homes: dict[int, tuple[float, np.ndarray]] = {}  # per ball: its last would-be disturbance, and
        # where it rested before it (or before the one it followed)
        self.stop_rec: dict[int, tuple[float, float]] = {}  # per ball: (stop time, start of the fitted approach)
        self.shot_t0 = np.inf  # start of the running shot, and the rest positions at its stroke
        self.ended_t = -np.inf  # time of the last shot_end
        self.shot_anchors: dict[int, np.ndarray] = {}
        self.first_hit_t = np.inf  # the shot's first contact of a moving ball
        self.struck: str | None = None
        self.now = 0.0

    # --- public -----------------------------------------------------------------------------------
    def update(self, states: BallStates) -> list[Event]:
        n = self.hist.push(states)
        self.now = float(states.t)
        self.last_seen[self.hist.valid[n % self.hist.size]] = self.now
        onsets, stops = self.motion.update(n)
        for st in stops:
            self._stopped(st, n)
        for o in onsets:  # `started` is set once the start is seen not to be a jump (`_resolve_onsets`)
            self.lines.on_start(o.ball, o.anchor)
            self.pots.on_start(o.ball)
            self.onsets.append((o, n + self.D))
        # a ball just hit is moving though it has not yet left its rest by `onset_mm` (seed-127 frame_russian71:
        # 11 on a corner's lip, hit, lost a frame later into the pocket; the tracker only held it hidden)
        hit = (self.now - self.last_hit <= _HIT_MOVING_S) & (self.last_hit >= self.shot_t0)
        self._gone(self.pots.update(self.hist, n, self._moving() | hit, self.phase is ShotPhase.RUNNING))
        self._close_voids_gone()
        self._shifted(n)
        while self.analysed < n - self.D - 1:
            self.analysed += 1
            self._analyse(self.analysed, self.analysed + 1 + self.D)
        self._resolve_onsets(n, final=False)
        self.early.look(self, n)  # (after the starts judged now: a stroke judged holds nothing back)
        self._settle_moved(final=False)
        self._note4(final=False)
        self._finish_pushes(final=False)
        self._check_end(final=False)
        return self._release(final=False)

    def flush(self) -> list[Event]:
        """End of stream: settle what is pending and release every held event."""
        n = self.hist.newest
        while self.analysed < n - 1:
            self.analysed += 1
            self._analyse(self.analysed, n)
        self._resolve_onsets(n, final=True)
        self._settle_moved(final=True)
        self._note4(final=True)
        self._finish_pushes(final=True)
        running = self.phase is ShotPhase.RUNNING
        self._gone(self.pots.at_end(self.hist.time(n), self.shot_t0 if running else self.ended_t, running))
        self.lines_out(self.lines.drain(self.hist))
        self._check_end(final=True)
        return self._release(final=True)

    def _quiet_start(self, o: Onset, n: int) -> bool:
        return self.early.quiet_start(self, o, n)

    # --- analysis of one counter -----------------------------------------------------------------
    def _analyse(self, m: int, n_hi: int) -> None:
        h, s = self.hist, self.s
        if m - 1 - self.W < h.oldest:
            return
        n_lo = m - 1 - self.W
        win = Window(h, self.motion, s, m, n_lo, n_hi, self.R, self.fps, self.kinks, self.table)
        for a, b in pair_candidates(h, self.motion, m, self.R, s):
            c = verify_in(win, a, b)
            if c is not None:
                self._contact(c)
        for a, b in vanish_candidates(h, self.motion, m, self.R, s):
            c = verify_knocked(win, a, b)
            if c is not None:
                self._contact(c)
        for ball in touch_candidates(h, self.motion, self.bound, m, self.R, s):
            for tc in verify_touches(h, self.motion, self.bound, s, ball, m, n_lo, n_hi, self.R, self.fps):
                self._touch(under_cover(h, tc))
        t_m = h.time(m)
        moving = np.array([self.motion.moving_at(b, t_m) for b in range(len(self.ids))])
        moving &= h.valid[m % h.size]
        if self.voids:  # (rare: balls whose track only wandered)
            moving &= [not self._voided_at(b, t_m) for b in range(len(self.ids))]
        t_lo, t_hi = h.time(m - self.D), h.time(min(m + self.D, h.newest))
        kinks = {b: [t for t in ts if t_lo <= t <= t_hi] for b, ts in self.kinks.items()}
        self.lines_out(self.lines.update(h, m, moving, kinks))

    def _contact(self, c: Contact) -> bool:
        if self.voids and self._void_hides(c.a, c.b, c.t, c.confidence):
            return False  # read off a track that only wandered (`_void_excursion`): no state of it kept either
        key = (min(c.a, c.b), max(c.a, c.b))
        # against the pair's recent contacts, not only its last: found out of time order (seed-103 frame_free: 2-12
        # at 137.190 s, then at 137.250 s, then at 137.190 s again from a later sample, reported twice)
        recent = [t for t in self.pair_times.get(key, []) if t > self.now - 1.0]
        near = any(abs(c.t - t) < self.s.refractory_s for t in [self.last_pair.get(key, -np.inf), *recent])
        if near and not self._supersede(key, c.confidence):
            return False
        self.last_pair[key] = c.t
        self.pair_times[key] = [*recent, c.t]
        k0 = len(self.out)
        self._emit(ev := contact_event(c, self.ids, self.R, self.s))  # (not again if out early: only its state is kept)
        if len(self.out) > k0:
            self._remember_weak(key, ev)
        if c.confidence >= 0.5:
            self.last_hit[[c.a, c.b]] = np.maximum(self.last_hit[[c.a, c.b]], c.t)
            for x in (c.a, c.b):
                self._kink(x, c.t)
            if not c.knocked:  # a ball knocked from view shows no way it went: no cushion read from it
                self._frozen_push(c)
                self._nose_first(c)
            for (x, name), t2 in list(self.last_touch.items()):  # a touch read before this contact
                if x in (c.a, c.b):
                    self._returned(x, name, t2)
        return True

    def _nose_first(self, c: Contact) -> None:
        """A moving ball that hit one at rest, whose straight run could not reach it but met a nose first,
        touched that nose (`noseturn`)."""
        for x, y, piece in ((c.a, c.b, c.pieces[0]), (c.b, c.a, c.pieces[1])):
            other = self.motion.anchor_at(y, c.t - 1.0 / self.fps)
            if piece.at_rest_before or other is None or self.motion.anchor_at(x, c.t - 1.0 / self.fps) is not None:
                continue
            tc = nose_before_contact(self.hist, self.bound, self.s, x, y, other, c.t, self.R, self.fps)
            # only where no touch of that nose was read: an inferred 0.6 must not supersede a kink seen there
            if tc is not None and not any(n == tc.cushion and abs(t - tc.t) <= 2.0 / self.fps
                                          for (z, n), t in self.last_touch.items() if z == x):
                self._touch(tc)

    def _run_from(self, x: int, c: int) -> int:
        """The first counter of ball x's run up to counter c when it left its rest within the fit window before
        c (and is moving at c), else the window's start."""
        lo = c - self.W
        if self.motion.anchor_at(x, self.hist.time(c)) is not None:
            return lo
        for k in range(c - 1, lo - 1, -1):
            if self.hist.has(k) and self.motion.anchor_at(x, self.hist.time(k)) is not None:
                return k + 1
        return lo

    def _returned(self, b: int, cushion: str, t_touch: float) -> None:
        """Ball b touched a cushion at t_touch: did it come back into a ball it had just met (`returns`)?"""
        for (x, y), t1 in list(self.last_pair.items()):
            a = y if x == b else x if y == b else None
            if a is None or not 0.0 <= t_touch - t1 <= 2.0 / self.fps or (b, a, t_touch) in self.returned:
                continue
            if self.came_back.get((b, a), -np.inf) >= t1:
                continue  # its return into a was read from a's rebound (`_contact_by_rebound`)
            if t_touch == t1 and self.motion.anchor_at(a, t1 - 1.0 / self.fps) is not None:
                # a touch read at the contact itself (b frozen to the nose, driven into it): only a striker that
                # ran in has no impulse of its own in the window; one struck inside the frame has the cue's
                continue
            self.returned = {k for k in self.returned if k[2] > self.now - 1.0}
            self.returned.add((b, a, t_touch))
            n_hi = min(self.hist.newest, self.hist.counter_at(t_touch) + 1 + self.D)
            touch = (t_touch, np.asarray(self.table.cushions[cushion].normal))
            c_pre = self.hist.counter_at(t1)
            runs = (self._run_from(a, c_pre), self._run_from(b, c_pre))
            r = return_contact(self.hist, self.s, a, b, t1, touch, (self.W, n_hi), self.R, runs)
            if r is None:
                continue
            extra: dict[str, Any] = {"returned": True, "gap_mm": round(r.gap_mm, 1)}
            balls = (self.ids[r.striker], self.ids[r.struck])
            if r.z < self.s.kink_z:
                # the second impulse stands out, but by less than kink_z: reported for review, not asserted
                span = max(self.s.kink_z - self.s.kink_z_review, 1e-9)
                conf = 0.3 + 0.15 * (r.z - self.s.kink_z_review) / span
                extra |= {"review": True, "why": f"the velocities need a second impulse by {r.z:.1f} standard errors"}
                self._emit(Event(EventType.BALL_CONTACT, r.t, 0, round(conf, 4), balls=balls, extra=extra))
                continue
            self.last_pair[(x, y)] = r.t
            self.last_hit[[a, b]] = np.maximum(self.last_hit[[a, b]], r.t)
            conf = 0.75 + 0.25 * min(1.0, (r.z - self.s.kink_z) / self.s.kink_z)
            self._emit(Event(EventType.BALL_CONTACT, r.t, 0, round(conf, 4), balls=balls, extra=extra))
            for z in (a, b):
                self._kink(z, r.t)

    def _frozen_push(self, c: Contact) -> None:
        """A ball at rest frozen to a cushion, struck with an impulse into that cushion, touches it; one near
        a cushion (within 2R) struck into it touches it when seen coming back off it or sent at it fast enough
        (`driven_into`)."""
        # both at rest before: a, the striker, was struck inside the frame; the hit's reaction only slows it,
        # it pushes it into no cushion behind it (the cue ball frozen to the rear cushion, struck into 14)
        both = c.pieces[0].at_rest_before and c.pieces[1].at_rest_before
        sides = ((c.b, c.u, c.pieces[1]),) if both else ((c.b, c.u, c.pieces[1]), (c.a, -c.u, c.pieces[0]))
        for ball, direction, piece in sides:
            # at rest before the hit (the contact's own pieces may straddle a bounce off the cushion)
            anchor = piece.pre.p0 if piece.at_rest_before else None
            for dt in (1.0 / self.fps, self.s.cause_window_s):  # the start may be dated a little early
                anchor = anchor if anchor is not None else self.motion.anchor_at(ball, c.t - dt)
            if anchor is None:
                continue
            for name, conf, extra in frozen_pushed(self.table, self.s, anchor, direction, c.confidence):
                self.last_touch[(ball, name)] = c.t
                self._emit(Event(EventType.CUSHION, c.t, 0, conf, ball=self.ids[ball], cushion=name, extra=extra))
            striker = c.pieces[1] if piece is c.pieces[0] else c.pieces[0]
            # equal masses: the object takes the striker's speed along the line of centres; a striker struck
            # inside the frame had none of its own before the hit: the run this ball left with. Nor does one hit
            # a frame before (its incoming piece spans that hit: seed-73 frame_free, 4 struck by C at 2 m/s,
            # "94 mm/s" into 6): the run this ball left with, which cushions and cloth only slow, bounds it below
            along = 0.0 if striker.at_rest_before else float(np.dot(striker.pre.v, direction))
            speed = max(along, piece.post.speed)
            self._driven(ball, anchor, (c.t, direction, speed, c.confidence))

    def _driven(self, ball: int, anchor: np.ndarray, hit: tuple[float, np.ndarray, float, float]) -> None:
        """A ball at rest at `anchor`, hit (time, line of centres, speed, confidence), near a cushion (not frozen
        to it): its touch when driven into it (`driven_into`)."""
        for tc in driven_into(self.hist, self.bound, self.s, ball, anchor, hit, self.R, self.hist.newest):
            self._touch(tc)

    def _touch(self, tc: Touch) -> None:
        if self._voided_at(tc.ball, tc.t):
            return
        key = (tc.ball, tc.cushion)
        if abs(tc.t - self.last_touch.get(key, -np.inf)) < self.s.refractory_s and not self._supersede(
            key, tc.confidence
        ):
            return
        self.last_touch[key] = tc.t
        if tc.confidence >= 0.5:
            self._kink(tc.ball, tc.t)
            self._returned(tc.ball, tc.cushion, tc.t)
        k0 = len(self.out)
        self._emit(ev := touch_event(tc, self.ids, self.s))
        if len(self.out) > k0:
            self._remember_weak(key, ev)
        if tc.jaw is not None and tc.confidence >= 0.5:
            jaw_pts = self.table.pockets[tc.jaw]
            p = tc.pieces.pre.at(tc.t)
            jaw = min((jaw_pts.jaw_a, jaw_pts.jaw_b), key=lambda q: float(np.hypot(p[0] - q[0], p[1] - q[1])))
            cr = self.lines.jaw_bounce(tc.ball, tc.jaw, float(jaw[0]), tc.t)
            if cr is not None:
                self.note4.append(cr)  # judged once the crossings around it are known

    def _note4(self, final: bool) -> None:
        """Note 4: a far-jaw bounce counts as a crossing, unless the centre was seen to cross anyway."""
        keep = []
        wait = 2 * (self.D + 1) / self.fps
        for cr in self.note4:
            if not final and self.now < cr.t + wait + self.s.emit_hold_s:
                keep.append(cr)
                continue
            seen = [
                e
                for e in self.crossed
                if e.ball == self.ids[cr.ball] and e.line is cr.line and e.to is cr.to and abs(e.t - cr.t) <= wait
            ]
            if not seen:
                self.lines_out([cr])
        self.note4 = keep

    def _stopped(self, st: Stop, n: int) -> None:
        """A ball came to rest: time the stop on its approach since its last kink (a contact or cushion
        changes the way and the speed), and remember the way it was rolling."""
        t_from = max([st.since, *self.kinks.get(st.ball, [])])
        t_stop = self.motion.stop_time(st.ball, n, st.t, t_from) if t_from > st.since else st.t
        self.stop_rec[st.ball] = (t_stop, t_from)
        n_from = max(self.hist.counter_at(t_from) + 1, n - 3 * self.motion.rest_frames)
        t_back, xy_back = self.hist.track(st.ball, n_from, n)
        way = xy_back[-1] - xy_back[0] if len(t_back) >= 2 else np.zeros(2)
        # the way it was rolling when it stopped; a stop after a few mm (a crawl's own onset and stop while
        # that onset is judged) tells no way and keeps the one before
        if self.phase is ShotPhase.RUNNING and float(np.hypot(*way)) > self.s.rest_radius_mm:
            if st.ball in self.stop_dir:
                self.stop_before[st.ball] = self.stop_dir[st.ball]
            self.stop_dir[st.ball] = (t_stop, way, st.since)
            tc = stopped_at_nose(self.bound, self.s, st.ball, st.anchor, t_back, xy_back, self.R)
            if tc is not None and self.last_touch.get((st.ball, tc.cushion), -np.inf) < t_from:
                self._touch(tc)
        self.last_stops[st.ball] = st
        self._close_void(st)
        self._home_after_jump(st)
        self._moved_unseen(st)
        self.lines_out(self.lines.on_rest(self.hist, st.ball, st.anchor, n))
        self.pots.on_rest(st.ball, st.anchor)
        if self.phase is ShotPhase.RUNNING:
            self.last_stop = max(self.last_stop, t_stop)

    def _note_emitted(self, ev: Event) -> None:
        if self.phase is ShotPhase.RUNNING and ev.type is not EventType.SHOT_END:
            self.last_stop = max(self.last_stop, ev.t)
            self.last_event_t = max(self.last_event_t, ev.t)
        if ev.type is EventType.SHOT_START and not ev.extra.get("early"):
            # the shot opens when its stroke is judged, which can be after its balls met and stopped (a slow
            # stroke waits for its run): what was found and what stopped since the stroke belongs to it, or the
            # shot ends before its own contact (seed-167 frame_russian71: C rolled into 8 and stopped on it)
            since = [e.t for e in self.out if e.t >= ev.t and e.type is not EventType.SHOT_END]
            stops = [t_stop for t_stop, _ in self.stop_rec.values() if t_stop >= ev.t]
            self.last_stop = max([self.last_stop, *since, *stops])
            self.last_event_t = max([self.last_event_t, *since])

    def _kink(self, b: int, t: float) -> None:
        self.kinks[b] = [*[k for k in self.kinks.get(b, []) if k > self.now - 1.0], t]

    def _gone(self, gone: list[Gone]) -> None:
        for g in gone:
            self.motion.mark_gone(g.ball, g.t, g.kind == "pot")
            if g.kind == "pot":
                last = self.hist.counter_at(g.t)
                self.lines.gone(g.ball, last, min(self.now, g.t + 1.0 / self.fps))
                k0 = len(self.out)
                self._emit(
                    Event(
                        EventType.POT, g.t, 0, g.confidence, ball=self.ids[g.ball], pocket=g.pocket, extra=dict(g.extra)
                    )
                )
                self.early.mark_pot(self.out[k0:])
            else:
                self._emit(Event(EventType.OFF_TABLE, g.t, 0, g.confidence, ball=self.ids[g.ball], extra=dict(g.extra)))

    # --- shot end ---------------------------------------------------------------------------------
    def _moving(self) -> np.ndarray:
        seen = self.now - self.last_seen < _LOST_S
        return np.array([self.motion.status(b) is Motion.MOVING for b in range(len(self.ids))]) & seen

    def _check_end(self, final: bool) -> None:
        if self.phase is not ShotPhase.RUNNING or self.onsets or self.pushes:
            return
        if self._moving().any():
            if not final:
                return
        elif not final and self.now - self.last_stop < self.s.settle_s:
            return
        anchors = {b: a for b in range(len(self.ids)) if (a := self.motion.anchor(b)) is not None}
        for b, (t_stop, _) in self.stop_rec.items():
            # a ball called at rest while it still crept has its rest centre (a running mean) settled by now:
            # a creep over a line that only the settled centre shows (seed-227 frame_combined: 15 stopped
            # 1.6 mm past the centre line, its centre first taken 0.8 mm short of it)
            if t_stop >= self.shot_t0 and b in anchors and (since := self.motion.rest_since(b)) is not None:
                self.lines_out(self.lines.on_rest(self.hist, b, anchors[b], self.hist.newest, settled=since))
        positions, _, _ = rest_layout(self.table, self.ids, anchors, self.s)
        extra: dict[str, Any] = {"settled_at": round(self.now, 4)}
        if self.lines.crossed_axis:  # for the lag (1.7.2(1)): balls whose centre crossed the long axis
            extra["crossed_long_axis"] = sorted(self.ids[b] for b in self.lines.crossed_axis)
        t_end = self.last_stop
        if self._moving().any():
            extra["truncated"] = True
        else:
            t_end = self._end_time()
        self.ended_t = max(t_end, 0.0)
        self._emit(
            Event(
                EventType.SHOT_END,
                self.ended_t,
                0,
                1.0 if "truncated" not in extra else 0.4,
                positions=positions,
                extra=extra,
            )
        )
        self.phase = ShotPhase.IDLE

    def _end_time(self) -> float:
        """When the shot ended: the last stop, each refitted now that its rest after the stop is seen (the
        rest point is then known, not guessed from a crawl), or the shot's last event if later."""
        t_end = max(self.last_event_t, self.shot_t0)
        for b, (t_stop, t_from) in self.stop_rec.items():
            if t_stop < self.shot_t0 or self.motion.status(b) is not Motion.REST:
                continue
            if t_stop >= self.now - 0.5 * self.motion.stop_fit_s:  # its approach is still in the look-back
                t_stop = self.motion.stop_time(b, self.hist.newest, t_stop, t_from)
            t_end = max(t_end, t_stop)
        return t_end

    # --- output -----------------------------------------------------------------------------------
