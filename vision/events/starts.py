"""Starts from rest: a collision, a stroke or a disturbance, and whether the start was a start at all.

A mixin of EventDetector (the onsets, the shot state and the output belong to the detector). A ball that
left its rest position is judged once `lookahead_s` has shown whether a collision caused it; a start the
tracker did not see (the ball unseen as it left) is judged later, on what the track shows after it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rules.events import Event, EventType
from vision.events.causes import CauseLogic
from vision.events.contacts import Contact
from vision.events.disturb import covered_push, covered_wobble, impulse_or_push, launched_covered, left_covered
from vision.events.early import EarlyLook
from vision.events.fit import point_segment_distance
from vision.events.homes import HomeLogic
from vision.events.lines import LineWatcher
from vision.events.motion import Motion, Onset, Stop, jumps_midway, track_jump
from vision.events.pots import PotWatcher
from vision.events.settings import MAX_SPEED_MM_S, frames
from vision.events.shots import ShotPhase, choose_striker, start_order
from vision.events.strokes import KICK_POST_S, RunFit, crept, run_fit
from vision.events.unseen import out_and_back, ran_off, runs_back, seen_leaving, unseen_jump

# Existence confidence of a stroke from rest (`start_confidence`): seen leaving its rest position with no
# cause, or found moving after it was unseen as it left (no motion off the rest position was seen: a ball
# re-found elsewhere may be another ball, so the stroke is reported for review, not asserted).
SEEN_START_CONF = 0.95
RUNS_BACK_CONF = 0.6  # unseen as it left, but found rolling straight away from its rest position
UNSEEN_START_CONF = 0.3

class StartLogic(HomeLogic, CauseLogic):  # the settings, history, motion, table and contact state: see CauseLogic
    lines: LineWatcher
    pots: PotWatcher
    now: float
    phase: ShotPhase
    onsets: list[tuple[Onset, int]]
    out: list[Event]
    early: EarlyLook
    pushes: list[tuple[Event, Onset, dict[str, Any], float]]
    _jump_memo: dict[tuple[int, int], bool]
    stop_dir: dict[int, tuple[float, np.ndarray, float]]  # per ball: stop time, way, start of that run
    shot_t0: float
    shot_anchors: dict[int, np.ndarray]
    analysed: int
    last_stops: dict[int, Stop]
    calls: dict[tuple[int, int], Event | None]
    behind: set[int]  # ids of pending onsets judged with a group as its struck ball
    wobbled: set[int]  # ids of onsets judged just now as a cover's drag, no cause of another

    if TYPE_CHECKING:  # provided by the other mixins (before this one in no MRO: declared for the checker)

        def _kicks(self, m: int) -> None: ...

        def _pack_moved(self, o: Onset) -> bool: ...

        def _after_jump(self, o: Onset, stop: Stop | None) -> None: ...

        def _moved_unseen(self, st: Stop) -> None: ...

        def _contact(self, c: Contact) -> bool: ...

        def _emit(self, ev: Event) -> None: ...

        def _contacts_in_cluster(self, o: Onset) -> None: ...

        def _cluster_pairs(self, group: list[Onset]) -> None: ...

        def _cluster_hit(self, o: Onset, members: set[int]) -> bool: ...

        def _struck_behind(self, group: list[Onset], pending: Sequence[Onset]) -> tuple[Onset | None, bool]: ...

        def _stroke_behind(self, struck: Onset, group: list[Onset]) -> None: ...

        def _stroke(self, b: int, t: float, speed: float, anchors: dict[int, np.ndarray], existence: float,
                    extra: dict[str, Any]) -> Event: ...

    def _quiet_start(self, o: Onset, n: int) -> bool:
        """May o be judged before its look-ahead has passed (`EarlyLook.quiet_start`)?"""
        raise NotImplementedError

    def _resolve_onsets(self, n: int, final: bool) -> None:
        if not final:
            self._kicks(n - frames(KICK_POST_S, self.fps, 3) - 1)
        verdicts = {id(o): self._jumped(o, final) for o, _ in self.onsets}
        for o, _ in self.onsets:
            if self.jumps.get(o.ball) == o.t:
                continue
            if verdicts[id(o)] is True:
                # the tracked centre jumped (an identity swap, a hidden ball re-found elsewhere): no start,
                # and no cause of another ball's start
                self.jumps[o.ball] = o.t
                # where it rested before is its place: a start from where the centre jumped to, back onto it, is
                # the centre coming back (seed-293 frame_russian71: 7 under an arm read 17 mm off for 0.7 s, then
                # found home at once: a 1.17 foul for a ball that never moved)
                self.homes[o.ball] = (self.now, o.anchor)
                if self.started[o.ball] == o.t:
                    self.started[o.ball] = -np.inf
                stop = self.last_stops.get(o.ball)
                self._after_jump(o, stop)  # back home: no motion; on its way: held until it rests
                if stop is not None and stop.since == o.t:
                    self._moved_unseen(stop)  # at rest again before the jump was judged
            elif final or len(self.hist.track(o.ball, o.n_first, self.hist.newest)[0]) >= 2:
                self.started[o.ball] = o.t  # moving on: a start from rest (a cause for touching balls)
        self.onsets = [(o, due) for o, due in self.onsets if self.jumps.get(o.ball) != o.t]
        self._jump_memo = {k: v for k, v in self._jump_memo.items() if any(k == (o.ball, o.n_first)
                                                                           for o, _ in self.onsets)}
        ready = [o for o, due in self.onsets if final or (verdicts.get(id(o)) is not None and (
            due <= n or self._quiet_start(o, n)))]  # (a stroke on a quiet table needs no look-ahead)
        if not ready:
            return
        dues = {id(o): due for o, due in self.onsets}
        waiting = [(o, due) for o, due in self.onsets if all(o is not r for r in ready)]
        # an onset touching a waiting one waits with it, so that a group is judged together
        held = [o for o in ready if any(self._together(o, w) for w, _ in waiting)]
        ready = [o for o in ready if o not in held]
        order = {id(o): start_order(self.hist, self.motion, o, self.s.rest_radius_mm) for o in ready}
        ready.sort(key=lambda o: order[id(o)])
        done: set[int] = set()
        for o in ready:
            if id(o) in done | self.behind:
                continue
            group = [g for g in ready if id(g) not in done | self.behind and self._together(o, g)]
            done.update(id(g) for g in group)
            k0 = len(self.out)
            if not self._judge_group(group, n, final):
                held.extend(group)
                continue
            if not final and dues[id(o)] > n:
                self.early.mark_stroke(self.out[k0:])  # judged early: its shot_start is out at once
            judged = [g for g in group if id(g) not in self.wobbled]  # a start that moved nothing is no cause
            self.judged[[g.ball for g in judged]] = [g.t for g in judged]
        self.wobbled.clear()
        if self.behind:  # struck balls judged with the group they pushed (`_struck_behind`)
            for o, _ in self.onsets:
                if id(o) in self.behind:
                    self.judged[o.ball] = o.t
        # (one judged early and held waits for its look-ahead, as if it had not been judged)
        held_due = [(h, max(n + 1, dues[id(h)])) for h in held]
        self.onsets = [(o, due) for o, due in waiting + held_due if id(o) not in self.behind]
        self.behind.clear()

    def _reached(self, x: int, p: np.ndarray, o: Onset) -> bool:
        """Did a rolling ball (not x, not o's) close in to within `cause_gap_mm` of x, resting at p, by o's start
        (over the rest window), with o leaving away from x and uncovered (a hand nudging it hides it)? Rolling: its
        samples there span more than `onset_mm` (a crawl the motion record already calls at rest still pushes: seed
        263, 13 at 30 mm/s)."""
        if float(np.dot(o.fit.v, o.anchor - p)) <= 0.0 or left_covered(self.hist, o, self.fps):
            return False
        c = self.hist.counter_at(o.t)
        c0 = self.hist.counter_at(o.t - self.s.rest_window_s)
        for a in range(len(self.ids)):
            if a in (x, o.ball):
                continue
            _, xy = self.hist.track(a, c0, c)
            if len(xy) < 2 or float(np.max(np.hypot(*(xy - xy[0]).T))) <= self.s.onset_mm:
                continue
            gaps = np.array([self.table.ball_gap(q, p) for q in xy])
            k = int(np.argmin(gaps))
            # closing in on x and still against it at the start (a ball rolling past x pushes nothing through it)
            closing = k >= len(gaps) - 2 and float(gaps[0] - gaps[k]) > 2.0 * self.s.noise_rest_mm
            if closing and float(gaps[k]) <= self.s.cause_gap_mm:
                return True
        return False

    def _together(self, a: Onset, b: Onset) -> bool:
        if a is b:
            return True
        close = self.table.ball_gap(a.anchor, b.anchor) <= self.s.cause_gap_mm
        return close and abs(a.t - b.t) <= self.s.cause_window_s

    def _jumped(self, o: Onset, final: bool = False) -> bool | None:
        """Is this start a jump of the tracked centre (see `motion.track_jump`)? None while undecided. A start
        seen leaving that the tracker keeps losing is judged as it is after three look-aheads; one not seen
        leaving is always judged then, on the track after it (`unseen_jump`). Decided answers are kept (the
        question is asked every frame while the onset waits), but for a jump of the track after a start seen
        leaving (`jumps_midway`), looked for on every new sample until the start is judged."""
        key = (o.ball, o.n_first)
        late = final or self.hist.newest - o.n_first > 3 * self.D
        bed = (self.table.half_length - self.R, self.table.half_width - self.R)
        verdict = self._jump_memo[key] if key in self._jump_memo else self._jump_verdict(o, late, bed)
        if verdict is False and jumps_midway(self.hist, o, self.s.rest_radius_mm, bed):
            # seen leaving, then the track jumped (asked again as samples come in, up to the judgement): back at
            # rest on its rest position, it never left; a stroke runs on (it may pass back over its spot)
            if self._rests_on_anchor(o):
                self._jump_memo[key] = True
                return True
            return False if late else None
        return verdict

    def _jump_verdict(self, o: Onset, late: bool, bed: tuple[float, float]) -> bool | None:
        key = (o.ball, o.n_first)
        verdict = track_jump(self.hist, o, self.fps, self.D, self.s.rest_radius_mm, bed)
        back = out_and_back(self.hist, self.table, self.s, self.fps, o) if verdict is not True else False
        if back:
            verdict = True
        elif back is None and not late:
            verdict = None  # on its way back onto its rest: a few frames tell whether it got there too soon
        if verdict is True and self._hit_at_once(o):
            verdict = False  # it passed its speed on to a ball it hit inside its first step
        if verdict is True and crept(self.hist, o, self.s, self.fps, 2 * self.D) and not self._too_fast(o):
            verdict = False  # a slow ball crept off its rest: a few still-looking frames after are its slow run
        if verdict is not True and not seen_leaving(self.hist, o, self.s.start_seen_s):
            verdict = unseen_jump(self.hist, o, self.s.rest_radius_mm, self.s.onset_mm) if late else None
        if verdict is not False and self._fell(o):
            verdict = False  # seen too few times because it dropped into a pocket on its way: it moved
        if verdict is None and late:
            verdict = False
        if verdict is not None:
            self._jump_memo[key] = verdict
        return verdict

    def _fell(self, o: Onset) -> bool:
        """Did the ball of this start leave the bed after it, seen last off its rest on the way (a ball hanging in
        a mouth, hit, drops within two frames: seed-73 frame_dynamic, 6 seen twice and potted, its start taken
        for a jump, so C's hit on it was never sought and C's stroke was called a disturbance)? The pot watcher
        follows its track over the mouth line, which no jump of the tracked centre onto something else does."""
        b = o.ball
        if b not in self.pots.beyond or not float(self.pots.last_t[b]) >= o.t:
            return False  # not followed over a pocket's mouth line (off the table, lifted, lost: not read here)
        if float(np.hypot(*(self.pots.last_xy[b] - o.anchor))) <= self.s.onset_mm:
            return False
        # and a ball ran into touching distance of its rest to knock it in: a hanging ball whose centre jumps off
        # with nothing near it (seed-67 hanging_ball_drops_later, read off the table at 1 m/s before any stroke)
        # did not move, nor does one that drops by itself as a ball passes it by
        c = self.hist.counter_at(o.t)
        for x in range(len(self.ids)):
            if x == b or not self.motion.moving_at(x, o.t):
                continue
            _, xy = self.hist.track(x, c - 1, c + 1)
            steps = itertools.pairwise(xy)
            if any(point_segment_distance(o.anchor, p, q) <= 2 * self.R + self.s.cause_gap_mm for p, q in steps):
                return True
        return False

    def _too_fast(self, o: Onset) -> bool:
        """Does the track step faster than any ball runs from the frame before the start on?"""
        t, xy = self.hist.track(o.ball, o.n_first - 1, self.hist.newest)
        if len(t) < 2:
            return False
        steps = np.hypot(*np.diff(xy, axis=0).T) / np.maximum(np.diff(t), 1e-9)
        return bool(float(np.max(steps)) > MAX_SPEED_MM_S)

    def _stroke_floor(self) -> float:
        """The least speed of an uncaused start that is a stroke: from rest between shots, or early (1.14.2)."""
        running = self.phase is ShotPhase.RUNNING
        return self.s.early_stroke_min_speed_mm_s if running else self.s.stroke_min_speed_mm_s

    def _maybe_slow(self, o: Onset) -> bool:
        """May this start be below the stroke speed? Its speed from the samples that showed it is a coarse
        reading (two samples: ~200 mm/s of error), so such a start is judged on its run (`_run`); so is one not
        seen leaving (its first samples' speed spans the time it was unseen: a hand moving a covered ball), or
        one that left covered (`left_covered`: its centre snaps out of the hand's blob as they part, seed-59
        foul_ball_touched_by_hand "launched" at 830 mm/s, then rolled at 90 mm/s)."""
        if not seen_leaving(self.hist, o, self.s.start_seen_s) or left_covered(self.hist, o, self.fps):
            return True
        return o.speed - self.s.push_z * o.fit.sigma_v < self._stroke_floor()

    def _run(self, o: Onset, final: bool) -> tuple[bool, RunFit | None]:
        """The ball's run off its rest position over `run_fit_s`, up to its first contact or cushion, or its
        stop (`strokes.run_fit`); (ready, fit). Not ready while the run is still coming in."""
        h, s = self.hist, self.s
        # a contact or cushion ends the run (one at its start: the ball passed its speed on, so its run after
        # tells nothing of the stroke)
        t_end = min([o.t + s.run_fit_s, *self._turns(o)])
        stopped = self.motion.status(o.ball) is not Motion.MOVING
        ready = final or stopped or h.time(max(self.analysed, h.oldest)) >= t_end
        if not ready:
            return False, None
        if t_end - o.t < 0.5 * s.run_fit_s:
            return True, None  # too short a run to tell more than the first samples did
        n_rest = frames(s.rest_window_s, self.fps, 3)
        t, xy = h.track(o.ball, o.n_first - n_rest, h.counter_at(t_end))
        keep = t <= t_end
        t_lo = h.time(max(o.n_first - n_rest, h.oldest))
        fit = run_fit(t[keep], xy[keep], o.anchor, t_lo, h.time(o.n_first), s.noise_rest_mm, 1.0 / self.fps)
        if fit is None or fit.t_s > o.t + 0.5 * s.run_fit_s or fit.v > MAX_SPEED_MM_S:
            return True, None
        return True, fit

    def _hit_at_once(self, o: Onset) -> bool:
        """The first step off the rest position outran the ball's later run, but within ball speeds, and
        passed within touching distance of a ball that started at the same time: a stroke that hit that
        ball inside the first frame and gave it its speed (friction alone never slows a ball so fast)."""
        t, xy = self.hist.track(o.ball, o.n_first, o.n_first)
        if len(t) == 0:
            return False
        step = xy[0] - o.anchor
        before, _ = self.hist.track(o.ball, o.n_first - 3, o.n_first - 1)
        dt = float(t[0] - before[-1]) if len(before) else 1.0 / self.fps
        if float(np.hypot(*step)) / max(dt, 1e-9) > MAX_SPEED_MM_S:
            return False
        others = [(w.ball, w.anchor, w.t) for w, _ in self.onsets if w.ball != o.ball]
        others += [(x, a, float(self.started[x])) for x in range(len(self.ids))
                   if x != o.ball and (a := self.motion.anchor_at(x, o.t)) is not None]
        v = float(np.hypot(*step)) / max(dt, 1e-9)
        for x, anchor, t_x in others:
            if abs(t_x - o.t) > self.s.cause_window_s + dt:
                continue
            if ran_off(self.hist, x, t_x) > 2.0 * v:
                continue  # faster than this ball could make it (seed-127 frame_free: C struck beside 5)
            if point_segment_distance(anchor, o.anchor, o.anchor + step) <= 2 * self.R + self.s.cause_gap_mm:
                return True
        return False

    def _judge_group(self, group: list[Onset], n: int, final: bool) -> bool:
        """Judge balls that started together; False to wait a little longer for a cause to show."""
        wobbles = [covered_wobble(self.hist, o, self.s, self.fps) for o in group]
        if any(wb is None for wb in wobbles) and not final and not any(wb is False for wb in wobbles):
            return False  # left their rest under a cover: wait for their first clear samples
        if all(wobbles):  # found back on their places as soon as seen: the cover dragged their centres
            for o in group:  # (a group with a start seen is judged whole: a ball of it may be the stroke's)
                self.started[o.ball] = -np.inf
                self.wobbled.add(id(o))
            return True
        caused = [self._caused(o, group) or self._pack_moved(o) for o in group]
        if all(caused):
            if len(group) > 1:
                # touching balls set moving together from outside: the links between them are contacts too (a
                # pack resolves them by momentum), but of two, one proven hit from outside took nothing from the
                # other (two balls in a V, each hit by the striker, passed nothing on)
                members = {o.ball for o in group}
                w = 2 * self.s.cause_window_s
                for o in group:
                    if len(group) > 2 or not any(abs(tc - o.t) <= w and o.ball in pair and not set(pair) <= members
                                                 for pair, tc in self.last_pair.items()):
                        self._contacts_in_cluster(o)
            return True
        members = {o.ball for o in group}
        if not any(caused):
            pending = [w for w, _ in self.onsets if all(w is not g for g in group) and id(w) not in self.behind
                       and self.judged[w.ball] != w.t and self.jumps.get(w.ball) != w.t]
            struck, may_show = self._struck_behind(group, pending)
            wait = frames(self.s.push_window_s, self.fps, 1) + self.D
            if may_show and not final and n < min(o.n_first for o in group) + wait:
                return False  # a touching ball behind them, still at rest, may be the struck one seen late
            if struck is not None:
                self.behind.add(id(struck))
                self._stroke_behind(struck, group)
                return True
        if any(caused) or any(self._cluster_hit(o, members) for o in group):
            # set moving through touching balls: report the contacts the starts themselves prove
            for o in group:
                self._contacts_in_cluster(o)
            if len(group) > 1:
                self._cluster_pairs(group)
            return True
        first = min(o.n_first for o in group)
        running = self.phase is ShotPhase.RUNNING
        if running and not final and n < first + 2 * self.D:
            return False  # a start during a shot: let a slow chain through touching balls show itself
        if all(o.speed < self.s.early_stroke_min_speed_mm_s and self._resumed(o) for o in group):
            for o in group:  # a crawl that only looked still for a moment: it never stopped
                self.motion.resume(o.ball)
            return True
        if running and all(o.speed < self.s.early_stroke_min_speed_mm_s for o in group):
            # a slow creep of a ball touching one that was hit in this shot: pushed on, not disturbed
            reach = self.s.cause_gap_mm + self.s.onset_mm  # its rest centre may have crept a little
            for o in group:
                for x, p in self.shot_anchors.items():
                    if x == o.ball or self.table.ball_gap(p, o.anchor) > reach:
                        continue
                    # hit in this shot, or reached by a moving ball as this one left: a push through the touching
                    # ball, which may not move at all (seed 263 frame_dynamic: 13 rolled into 15 at 77 mm/s, 15
                    # stayed, 7 touching it left at 55 mm/s: no kink showed 13-15, and 7 was called disturbed)
                    if max(self.last_hit[x], self.started[x]) >= self.shot_t0 or self._reached(x, p, o):
                        return True
        if len(group) == 1 and not final and self._maybe_slow(group[0]) and not self._run(group[0], final)[0]:
            return False  # stroke or disturbance: wait for its run to tell
        striker = choose_striker(group)
        self.calls = {k: v for k, v in self.calls.items() if k[1] >= self.hist.oldest}
        key = (striker.ball, striker.n_first)
        if len(group) == 1 and key not in self.calls:  # read once: the shot's phase may change while it waits
            self.calls[key] = self._disturbance(striker)
            if self.calls[key] is not None:
                self._note_home(striker)
        disturbed = self.calls.get(key)
        if disturbed is not None:
            back = self._back_home(striker, [striker.anchor, self.homes[striker.ball][1]], final)
            if back is None:
                return False  # a disturbance is a displacement: wait to see where the ball rests
            if back:  # its centre came back onto its rest position: a cover shifted it, nothing moved
                self.started[striker.ball] = -np.inf
                return True
            self.last_hit[striker.ball] = max(self.last_hit[striker.ball], striker.t)
            self._emit(disturbed)
            return True
        if len(group) == 1 and self._after_cover(striker):
            back = self._back_home(striker, [self.homes[striker.ball][1]], final)
            if back is None:
                return False
            if back and not self._turns(striker):  # snapped back onto its place: the cover let it go
                self.started[striker.ball] = -np.inf
                return True
        covered_launch = launched_covered(self.hist, striker, self.fps) if len(group) == 1 else False
        if covered_launch is None and not final:
            return False  # covered so far: its launch may be all under the cover
        if covered_launch:
            back = self._back_home(striker, [striker.anchor], final)
            if back is None:
                return False  # launched under a cover all through: wait to see where the ball rests
            if back and not self._turns(striker):  # found back on its place: the cover dragged its centre
                self.started[striker.ball] = -np.inf
                return True
        t0 = min(g.t for g in group)  # the stroke: when the first of the balls it set moving left its rest
        self.last_hit[striker.ball] = max(self.last_hit[striker.ball], t0)
        for o in group:
            if o is not striker and not self._contact_from_start(striker.ball, o):
                self._struck_from_near(striker.ball, o)
        self._uncaused_start(striker, group)
        return True

    def _disturbance(self, o: Onset) -> Event | None:
        """The ball_disturbed of a lone uncaused start slower than a stroke (judged on its run when it may be
        slow), or None when the start is a stroke."""
        s, b = self.s, o.ball
        running = self.phase is ShotPhase.RUNNING
        fit = self._run(o, True)[1] if self._maybe_slow(o) else None
        covered = covered_push(fit, o.speed, s) if left_covered(self.hist, o, self.fps) else None
        if fit is not None:
            disturbed, conf, extra = impulse_or_push(fit, self._stroke_floor(), s)
            if disturbed and not extra.get("accelerating") and self._speed_into_hit(o) >= self._stroke_floor():
                disturbed = False  # it hit a ball at rest before its run could show its speed
            if not disturbed:
                if covered is None:
                    return None
                conf, extra = covered
            info = {"speed_mm_s": round(fit.v, 1), "during_shot": running, **extra}
            return Event(EventType.BALL_DISTURBED, fit.t_s, 0, conf, ball=self.ids[b], extra=info)
        if covered is not None and o.speed >= self._stroke_floor():
            info = {"speed_mm_s": round(o.speed, 1), "during_shot": running, **covered[1]}
            return Event(EventType.BALL_DISTURBED, o.t, 0, covered[0], ball=self.ids[b], extra=info)
        if o.speed < self._stroke_floor() and self._speed_into_hit(o) < self._stroke_floor():
            info = {"speed_mm_s": round(o.speed, 1), "during_shot": running}
            return Event(EventType.BALL_DISTURBED, o.t, 0, 0.9, ball=self.ids[b], extra=info)
        return None

    def _pushed_first(self, o: Onset) -> float:
        """When a stroke on this ball began: the start of a ball touching it that left within the push window
        before it (the stroke went through it; the struck ball, pushed on, is often seen to start frames
        later), or of a ball it set moving in that window (and that hit: struck inside the frame of the hit,
        its own start is dated after it), else its own start."""
        t_ref = o.t
        for x in range(len(self.ids)):
            if x != o.ball and o.t - self.s.push_window_s <= self.started[x] < o.t:
                a = self.motion.anchor_at(x, float(self.started[x]) - 1.0 / self.fps)
                if a is not None and self.table.ball_gap(o.anchor, a) <= self.s.push_gap_mm:
                    t_ref = min(t_ref, float(self.started[x]))
                    continue
                # it set x moving (its hit proven, or taken as the cause): the stroke came before that start and hit
                t_hit = float(self.hit_from.get((o.ball, x), -np.inf))
                hit_x = abs(t_hit - float(self.started[x])) <= 2 * self.s.cause_window_s
                if hit_x or self.caused_by.get((o.ball, x)) == self.started[x]:
                    t_ref = min(t_ref, float(self.started[x]), t_hit if hit_x else np.inf)
        return t_ref

    def _uncaused_start(self, o: Onset, group: list[Onset], witnesses: Sequence[Onset] = ()) -> bool:
        """The stroke (or the disturbance, when too slow) on o's ball, which set `group` moving; `witnesses`: other
        starts that show it happened (the balls pushed by a struck ball seen to leave late). True for a stroke."""
        s, b = self.s, o.ball
        # the stroke's speed: the group's momentum (equal masses), as a touching ball takes the stroke at once
        speed = float(np.hypot(*sum((g.fit.v for g in group), np.zeros(2)))) if len(group) > 1 else o.speed
        fit = self._run(o, True)[1] if len(group) == 1 and self._maybe_slow(o) else None
        call = impulse_or_push(fit, self._stroke_floor(), s) if fit is not None else None
        if call is not None and fit is not None:
            speed = fit.v
        elif len(group) > 1 and speed < self._stroke_floor():  # a lone one was judged in `_judge_group`
            info = {"speed_mm_s": round(o.speed, 1), "during_shot": self.phase is ShotPhase.RUNNING}
            self._emit(Event(EventType.BALL_DISTURBED, o.t, 0, 0.9, ball=self.ids[b], extra=info))
            return False
        t_ref = self._pushed_first(o)
        t_at = o.t if t_ref == o.t else t_ref - 1.0 / self.fps
        anchors = {x: a for x in range(len(self.ids)) if (a := self.motion.anchor_at(x, t_at)) is not None}
        for g in group:
            anchors[g.ball] = g.anchor
        if any(seen_leaving(self.hist, g, s.start_seen_s) for g in (o, *witnesses)):
            existence = SEEN_START_CONF
        else:
            existence = RUNS_BACK_CONF if runs_back(self.hist, o, s) else UNSEEN_START_CONF
        t0 = min(t_ref, *(g.t for g in group))
        ev = self._stroke(b, t0, speed if call is not None else o.speed, anchors, existence,
                          call[2] if call is not None else {})
        near = [(self.table.ball_gap(o.anchor, p), x) for x, p in anchors.items() if x != b]
        near = [(gap, x) for gap, x in near if gap <= s.push_gap_mm]
        if not near:
            self._emit(ev)
            return True
        gap, obj = min(near)
        self.pushes.append((ev, o, {"object": obj, "gap": gap, "anchor": anchors[obj]}, t0 + s.push_window_s))
        return True

