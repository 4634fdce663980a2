"""A stroke with an object ball within `push_gap_mm`: which of the two the cue struck, the 1.19 geometry,
and the contact the pushed ball's start proves. A mixin of EventDetector (the history, the motion tracker
and the output buffer belong to the detector); the geometry itself is in `vision.events.shots`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from calibration.table import Table
from rules.events import Event, EventType
from vision.events.history import History
from vision.events.motion import MotionTracker, Onset
from vision.events.settings import EventSettings
from vision.events.shots import StrikerCall, call_striker, end_point, push_geometry, start_record, until_jump

_PROVEN = 0.9  # a contact proven by the start of a ball at rest along the line of centres (docs/event-schema.md)
_FLAGGED = 0.7  # the cap on an asserted event that the referee should check

Push = tuple[Event, Onset, dict[str, Any], float]


class PushLogic:
    s: EventSettings
    table: Table
    hist: History
    motion: MotionTracker
    ids: tuple[str, ...]
    fps: float
    now: float
    out: list[Event]
    onsets: list[tuple[Onset, int]]
    pushes: list[Push]
    claims: dict[int, tuple[float, float]]
    last_pair: dict[tuple[int, int], float]
    last_hit: np.ndarray
    started: np.ndarray
    first_hit_t: float
    analysed: int
    last_touch: dict[tuple[int, str], float]

    def _emit(self, ev: Event) -> None:  # provided by OutputLogic
        raise NotImplementedError

    def _finish_pushes(self, final: bool) -> None:
        """Judge each held stroke once its push window has run (or the stream ended) and emit it."""
        keep = []
        for ev, o, info, due in self.pushes:
            # judged once the frames to the window's end are analysed: a touch of a nose inside it voids the
            # momentum reading (`_met_cushion`)
            waiting = self.now < due or self.hist.time(max(self.analysed, 0)) < due
            if not final and (waiting or self._drawn_back_pending(ev, o, info, due)):
                keep.append((ev, o, info, due))
                continue
            self._emit(self._judge_push(ev, o, info, due))
        self.pushes = keep
        self._drop_claimed()

    def _window(self, ev: Event, o: Onset, info: dict[str, Any], t_end: float) -> tuple[StrikerCall, dict[int, Any]]:
        """The striker call from both balls' travel from the stroke to `t_end`, and the ends it used."""
        obj = int(info["object"])
        anchors = {o.ball: np.asarray(o.anchor, dtype=float), obj: np.asarray(info["anchor"], dtype=float)}
        h = self.hist
        n0 = h.counter_at(ev.t) + 1  # the first frame after the stroke (the struck ball may start late)
        reach = 2.0 * self.table.ball_radius
        tracks = {b: until_jump(*h.track(b, n0, h.newest), anchors[b], h.time(n0 - 1), reach) for b in anchors}
        ends = {b: (*end_point(*tracks[b], anchors[b], t_end, self.s), anchors[b], tracks[b]) for b in anchors}
        moved = self.motion.anchor_at(obj, min(t_end, self.now)) is None
        (ea, sa, *_), (eb, sb, *_) = ends[o.ball], ends[obj]
        return call_striker(o.ball, obj, anchors[o.ball], anchors[obj], ea, eb, sa, sb, moved, self.s), ends

    def _met_cushion(self, balls: tuple[int, int], t0: float, t1: float) -> tuple[int, str] | None:
        """A ball of the pair whose touch of a cushion (or jaw) nose was found in (t0, t1], and which nose."""
        for (b, name), t in self.last_touch.items():
            if b in balls and t0 < t <= t1:
                return b, name
        return None

    def _drawn_back_pending(self, ev: Event, o: Onset, info: dict[str, Any], due: float) -> bool:
        """Wait (up to `draw_wait_s`) while the ball that left went straight away from a touching ball that
        stayed: if that one starts within the wait (drawn back), it was the struck one."""
        obj = int(info["object"])
        if self.now >= due + self.s.draw_wait_s or self.motion.anchor_at(obj, self.now) is None:
            return False
        call, _ = self._window(ev, o, info, due)
        return call.review is not None and call.striker == o.ball and not call.both_moved

    def _judge_push(self, ev: Event, o: Onset, info: dict[str, Any], due: float) -> Event:
        s, h = self.s, self.hist
        obj = int(info["object"])
        moved_late = self.now > due and self.motion.anchor_at(obj, due) is not None
        moved_late = moved_late and self.motion.anchor_at(obj, self.now) is None
        call, ends = self._window(ev, o, info, self.now if moved_late else due)
        if moved_late:  # the geometry is still read over the push window
            _, ends = self._window(ev, o, info, due)
        met = self._met_cushion((o.ball, obj), ev.t, due) if call.both_moved else None
        if met is not None and call.review is None:
            # the pair's momentum is the cue's only until a nose pushes one of them (seed-223 frame_dynamic: C
            # struck dead into 9, touching it 2 cm off the front cushion; 9 was off the nose and back within
            # 7 ms, the pair's travel pointed from 9 to C and 9 was named the struck ball)
            call = replace(call, review=f"ball {self.ids[met[0]]} touched the {met[1]} cushion inside the push "
                                        "window: the pair's momentum there is not the cue's alone")
        cue_b, obj_b = call.striker, call.other
        moved = call.both_moved
        end_c, se_c, anchor_c, (t_c, xy_c) = ends[cue_b]
        _, _, anchor_o, (t_o, xy_o) = ends[obj_b]
        t_c, xy_c, t_o, xy_o = t_c[t_c <= due], xy_c[t_c <= due], t_o[t_o <= due], xy_o[t_o <= due]
        # both starts refitted over the whole push window: a steadier stroke direction
        cue = start_record(o, cue_b, anchor_c, t_c, xy_c, s)
        if cue is None:
            cue = o if cue_b == o.ball else Onset(cue_b, o.t, o.n_first, anchor_c, o.fit)
        obj_fit = start_record(o, obj_b, anchor_o, t_o, xy_o, s) if moved else None
        geo = push_geometry(cue, obj_b, anchor_o, float(info["gap"]), obj_fit, end_c, s, se_c)
        geo["object"] = self.ids[obj_b]
        geo.update(self._striker_evidence(o, obj, call))
        # the rules engine reads stroke_angle_deg and cue_follow (1.19); the whole geometry rides along
        extra: dict[str, Any] = {**ev.extra, "stroke_angle_deg": geo["angle_deg"], "cue_follow": geo["cue_forward"]}
        extra["push_geometry"] = geo
        idc = float(h.id_conf[o.n_first % h.size, cue_b])
        confidence = round(0.95 * idc, 4)
        if obj_fit is not None:  # the pushed ball took the stroke at once: the pair's momentum is the cue's
            extra["speed_mm_s"] = round(float(np.hypot(*(cue.fit.v + obj_fit.fit.v))), 1)
        if call.review is not None:
            extra["striker_review"] = call.review
        if call.review is not None or geo.get("review"):
            extra["review"] = True
            confidence = min(confidence, _FLAGGED)
        if moved:
            self._push_contact(ev.t, cue_b, obj_b, max(due, self.now))
        self.last_hit[cue_b] = max(self.last_hit[cue_b], ev.t)
        # the struck ball's own start, seen late (it kept little speed, or its draw took hold), is this stroke
        self.claims[cue_b] = (ev.t - s.cause_window_s, max(due, self.now) + s.draw_wait_s)
        return replace(ev, ball=self.ids[cue_b], confidence=confidence, extra=extra)

    def _drop_claimed(self) -> None:
        """Pending starts of a struck ball within its claim belong to its stroke: not judged again."""
        if not self.claims:
            return
        self.claims = {b: c for b, c in self.claims.items() if c[1] >= self.now - self.s.history_s}

        def claimed(o: Onset) -> bool:
            lo, hi = self.claims.get(o.ball, (np.inf, -np.inf))
            return lo <= o.t <= hi

        self.onsets = [(o, due) for o, due in self.onsets if not claimed(o)]

    def _striker_evidence(self, o: Onset, obj: int, call: StrikerCall) -> dict[str, Any]:
        """What the call rests on, for the report: the momentum reading, and which ball was seen to move
        first (evidence only: the pushed ball is normally seen first)."""
        # the struck ball may be seen to leave up to the push window after the ball it pushed (`_struck_behind`)
        t_obj = float(self.started[obj]) if self.started[obj] >= o.t - self.s.push_window_s - 1.0 / self.fps else np.inf
        frame = 1.0 / self.fps
        first = None
        if t_obj < o.t - frame:
            first = self.ids[obj]
        elif t_obj > o.t + frame:
            first = self.ids[o.ball]
        return {
            "striker_momentum_mm": round(call.momentum_mm, 1),
            "striker_tol_mm": round(call.tol_mm, 1),
            "first_moved": first,
        }

    def _push_contact(self, t: float, cue_b: int, obj_b: int, until: float) -> None:
        """The contact of the struck ball with the touching ball it set moving, at the stroke: replaces any
        contact of the pair still held from the starts (its order may name the other ball first)."""
        key = (min(cue_b, obj_b), max(cue_b, obj_b))
        pair = {self.ids[cue_b], self.ids[obj_b]}
        lo = t - self.s.cause_window_s

        def of_pair(e: Event) -> bool:
            return e.type is EventType.BALL_CONTACT and set(e.balls or ()) == pair and lo <= e.t <= until

        if abs(self.last_pair.get(key, -np.inf) - t) <= self.s.cause_window_s and not any(map(of_pair, self.out)):
            return  # already released
        self.out = [e for e in self.out if not of_pair(e)]
        balls = (self.ids[cue_b], self.ids[obj_b])  # the swap risk is stamped apart (`_stamp_swap`, schema 1.8)
        ev = Event(EventType.BALL_CONTACT, t, 0, _PROVEN, balls=balls, extra={"cluster": True})
        self._emit(ev)
        self.last_pair[key] = t
        self.last_hit[[cue_b, obj_b]] = np.maximum(self.last_hit[[cue_b, obj_b]], t)
        self.first_hit_t = min(self.first_hit_t, t)  # the shot's first contact: later passed-on ones follow it
