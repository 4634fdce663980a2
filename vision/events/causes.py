"""What explains a ball's start from rest: a collision with a ball that ran into it (proven by the tracks,
or taken from where the balls were when the samples around the hit are missing), or nothing (a stroke or a
disturbance, judged in `starts`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from rules.events import Event, EventType
from vision.events.contacts import Contact, Window, verify_in
from vision.events.core import DetectorCore
from vision.events.cushions import Boundary
from vision.events.fit import LineFit, fit_line
from vision.events.motion import Motion, Onset
from vision.events.rebound import came_back_into, ran_into_and_back
from vision.events.settings import noise_model

if TYPE_CHECKING:
    from vision.events.strokes import RunFit

RESUME_S = 1.0  # a slow start this soon after a stop, on the same way, is a crawl that went on
# how much farther than its rest gap a ball may have run to meet another on the line that one left along: a
# straight hit runs the gap exactly; the departure's direction is known to a few degrees at the onset
_LINE_TOL_MM = 6.0


class CauseLogic(DetectorCore):
    D: int
    W: int
    last_pair: dict[tuple[int, int], float]
    last_hit: np.ndarray
    started: np.ndarray
    judged: np.ndarray
    hit_from: dict[tuple[int, int], float]
    caused_by: dict[tuple[int, int], float]  # (cause, started ball): start time, when no contact was proven
    jumps: dict[int, float]
    kinks: dict[int, list[float]]
    bound: Boundary
    stop_dir: dict[int, tuple[float, np.ndarray, float]]  # per ball: stop time, way, start of that run
    came_back: dict[tuple[int, int], float]

    if TYPE_CHECKING:  # provided by the detector and the other mixins

        def _contact(self, c: Contact) -> bool: ...

        def _emit(self, ev: Event) -> None: ...

        def _turns_of(self, b: int) -> list[float]: ...

        def _driven(self, ball: int, anchor: np.ndarray, hit: tuple[float, np.ndarray, float, float]) -> None: ...

        def _set_moving_by(self, members: set[int], x: int, t: float) -> bool: ...

        def _run(self, o: Onset, final: bool) -> tuple[bool, RunFit | None]: ...

        def _cause_at_home(self, a: int, o: Onset) -> bool | None: ...

    def _contact_by_overlap(self, a: int, o: Onset, gap: float) -> None:
        """A ball that set off at o's ball as it started and whose sample lies within touching distance of it
        hit it, though neither track proves when (its samples around the hit were missed): a contact at o's
        start, for review. No later than the start of a ball that touched o's at rest (the push went through
        o's ball by then), nor earlier than a's own hit or start. Seed-191 touching_cluster_hit: 12 into 9, touching 2,
        touching C; C was seen to start 28 ms before 2, and 9-2 came out at 2's start, after 2-C (from the pack,
        at 12-9's time): C passed on 2's tokens before 2 had 9's, a 1.20 foul for a 4b."""
        w = self.s.cause_window_s
        t = o.t
        for x in range(len(self.ids)):
            if x in (a, o.ball) or not o.t - w <= self.started[x] < t:
                continue
            rest = self.motion.anchor_at(x, float(self.started[x]) - 1.0 / self.fps)
            if rest is not None and self.table.ball_gap(o.anchor, rest) <= self.s.touch_tol_mm:
                t = float(self.started[x])
        for t_a in (float(self.last_hit[a]), float(self.started[a])):  # a was hit, or struck, no later
            if o.t - w <= t_a <= o.t:
                t = max(t, t_a)
        why = f"{self.ids[a]} ran at {self.ids[o.ball]} as it started and was seen {-gap:.0f} mm into touching it"
        if self._review_contact(a, o.ball, t, 0.55, {"overlap_mm": round(-gap, 1), "why": why}):
            self._driven_by_overlap(a, o, t)

    def _driven_by_overlap(self, a: int, o: Onset, t: float) -> None:
        """o's ball, hit by a at t, may have been driven into a cushion nose near it (`driven_into`): the line of
        centres from a's sample nearest o's rest, the speed a brought along it (equal masses: o's ball leaves
        with it) or o's own. Its run seen off its rest does not tell the way: a bounce in the first frame turns
        it (seed-211 frame_free: 4, 55 mm off the right_rear nose, hit by C at 3 m/s, was seen first on its way
        back, and the touch, 20 ms after the hit, went unsaid)."""
        c = self.hist.counter_at(o.t)
        tk, xy = self.hist.track(a, c - 1, c + 2)  # (as far as the overlap was sought: a missed sample moves it on)
        if len(tk) == 0:
            return
        k = int(np.argmin(np.hypot(*(xy - o.anchor).T)))
        u = o.anchor - xy[k]
        if float(np.hypot(*u)) < 1e-6:
            return
        u = u / float(np.hypot(*u))
        along = 0.0
        tp, xp = self.hist.track(a, self.hist.counter_at(float(tk[k])) - 1, self.hist.counter_at(float(tk[k])) - 1)
        if len(tp) and float(tk[k] - tp[0]) > 0.0:
            along = float(np.dot((xy[k] - xp[0]) / float(tk[k] - tp[0]), u))
        self._driven(o.ball, o.anchor, (t, u, max(along, o.speed), 0.55))

    def _review_contact(self, a: int, b: int, t: float, conf: float, extra: dict[str, object]) -> bool:
        """Report a's hit on b at t, read from where the balls went rather than from a kink: for review. Once
        per pair within the refractory time (another reading may have reported it): False then."""
        key = (min(a, b), max(a, b))
        if abs(t - self.last_pair.get(key, -np.inf)) < self.s.refractory_s:
            return False
        self.last_pair[key] = t
        self.last_hit[[a, b]] = np.maximum(self.last_hit[[a, b]], t)
        self.hit_from[(a, b)] = t
        self._emit(Event(EventType.BALL_CONTACT, t, 0, conf, balls=(self.ids[a], self.ids[b]),
                         extra={"review": True, **extra}))
        return True

    def _contact_by_rebound(self, a: int, o: Onset) -> bool:
        """Ball a ran from its rest straight at o's ball and came straight back (`rebound`): the hit, at o's start
        (no earlier than a's own), for review. True when reported."""
        found = ran_into_and_back(self.hist, self.motion, self.table, self.bound, self.s, a, o, self.R, self.fps,
                                  float(self.started[a]))
        if found is None:
            return False
        t = max(o.t, float(self.started[a])) if o.t - float(self.started[a]) <= self.s.cause_window_s else o.t
        why = (f"{self.ids[a]} ran from its rest straight at {self.ids[o.ball]}, {found.gap:.0f} mm away, and came "
               "straight back; nothing else lay on its way")
        if self._review_contact(a, o.ball, t, 0.6, {"rest_gap_mm": round(found.gap, 1), "why": why}):
            # (seed-233: 11, 6 mm off the rear nose, was driven into it and back into C); a review contact's touch
            # stays below 0.6
            self._driven(o.ball, o.anchor, (t, found.u, o.speed, 0.55))
            t2 = came_back_into(self.hist, self.s, a, t, found)
            if t2 is not None:  # (not asked again of the momentum test, `_returned`)
                self.came_back = {k: v for k, v in self.came_back.items() if v > t2 - 1.0}  # bounded
                self.came_back[(o.ball, a)] = t2
                why = f"{self.ids[a]} came back faster than its spin turns it: {self.ids[o.ball]} came back into it"
                self._emit(Event(EventType.BALL_CONTACT, t2, 0, 0.6, balls=(self.ids[o.ball], self.ids[a]),
                                 extra={"review": True, "returned": True, "why": why}))
        return True

    def _contact_by_line(self, a: int, o: Onset) -> bool:
        """Ball a, at rest a few mm from o's ball until it set off in the same frames, caused o's start, but no
        frame shows its run in (struck from 12 mm away at 2.7 m/s it hits within 5 ms): a ball leaves its rest
        along the line of centres, so where a met it lies 2R back along o's way; when a's rest is that close to
        it (a ran straight there), that is the contact, at o's start (no earlier than a's own hit), for review
        (physics frame_free-1 at 98.54 s: C into 14, whose first contact came out as the second one, after
        14's cushion). A ball touching others passes the impulse on: its way is then that of the momentum it
        and the touching balls that left with it carried off (`_pack_way`). True when the contact is (or
        already was) reported."""
        anchor = self.motion.anchor_at(a, o.t - 1.0 / self.fps)
        way, with_it = self._pack_way(a, o)
        speed = float(np.hypot(*way))
        if anchor is None or speed <= 0.0:
            return False
        gap = float(np.hypot(*(anchor - o.anchor))) - 2 * self.R
        if not (self.s.touch_tol_mm < gap <= 2 * self.R):
            return False  # touching (the pack's and the push's business) or far enough for the frames to show it
        meet = o.anchor - 2 * self.R * way / speed
        run = float(np.hypot(*(meet - anchor)))
        if run > gap + _LINE_TOL_MM:
            return False  # o did not leave along the line from where a rested: a cut from elsewhere, not read here
        # the onset may be dated up to a frame early: no earlier than the hit that set a moving (a pack
        # spread by its striker passes impulses on after it)
        t = float(self.last_hit[a]) if 0.0 < self.last_hit[a] - o.t <= 2 * self.s.cause_window_s else o.t
        who = " and ".join(self.ids[x] for x in [o.ball, *with_it]) + (" (touching)" if with_it else "")
        why = (f"{who} left along the line from {self.ids[a]}'s rest {gap:.0f} mm away "
               f"({run - gap:.1f} mm off it); no frame shows the hit")
        self._review_contact(a, o.ball, t, 0.6, {"rest_gap_mm": round(gap, 1), "why": why})
        return True

    def _struck_from_near(self, a: int, o: Onset) -> None:
        """The striker a of a group that left together, a few mm from o's ball, is on it before any frame shows
        its run in and no track proves the hit: the way o's ball left tells (`_contact_by_line`), or a's first
        sample after o's start, a step at least its rest gap off its rest, lying inside touching distance of o's
        rest while o's own sample is clear of it (a ran through where o rested; the two centres are apart, so
        neither was pulled by the other's image). Not for touching balls, nor a striker already running.
        Seed-197 frame_free: C struck at 2.5 m/s 6 mm from 15, which touched 14 and hit 7 and 5 within a frame:
        15's way was turned, and C was seen 1.3 mm into 15's rest; the shot had no first contact, a 1.20 foul."""
        key = (min(a, o.ball), max(a, o.ball))
        if abs(self.last_pair.get(key, -np.inf) - o.t) <= self.s.cause_window_s:
            return  # reported already (a weak reading of the tracks, for review): once is enough
        if self._contact_by_line(a, o):
            return
        anchor = self.motion.anchor_at(a, o.t - 1.0 / self.fps)
        c = self.hist.counter_at(o.t) + 1
        ta, xa = self.hist.track(a, c, c)
        to, xo = self.hist.track(o.ball, c, c)
        if anchor is None or len(ta) == 0 or len(to) == 0:
            return  # a already running before o's start (its run in shows), or a sample missing
        rest_gap = self.table.ball_gap(anchor, o.anchor)
        if rest_gap <= self.s.touch_tol_mm or float(np.hypot(*(xa[0] - anchor))) < rest_gap:
            return  # touching (the pack's and the push's business), or not on o within its first frame
        gap = float(np.hypot(*(xa[0] - o.anchor))) - 2 * self.R
        if gap <= 0.0 and float(np.hypot(*(xa[0] - xo[0]))) >= 2 * self.R:
            self._contact_by_overlap(a, o, gap)

    def _pack_way(self, a: int, o: Onset) -> tuple[np.ndarray, list[int]]:
        """The momentum (equal masses: the summed velocity) that o's ball and the balls touching it that left
        with it carried off: the impulse a gave it, along their line of centres. A ball touching another
        passes the impulse on (Newton's cradle) and leaves along no line from a itself (seed-71 frame_free:
        7 struck from 14 mm into 14 at 3 m/s; 9, touching 14, flew off, 14 crept aside and 7-14 was lost)."""
        way = np.asarray(o.fit.v, dtype=float)
        t0 = o.t - 1.0 / self.fps
        with_it = []
        for x in range(len(self.ids)):
            if x in (a, o.ball) or abs(self.started[x] - o.t) > self.s.cause_window_s:
                continue
            rest = self.motion.anchor_at(x, min(t0, float(self.started[x]) - 1.0 / self.fps))
            if rest is None or self.table.ball_gap(rest, o.anchor) > self.s.touch_tol_mm:
                continue
            n = self.hist.counter_at(float(self.started[x]))  # its last frame at rest: its run is from the next
            tk, xy = self.hist.track(x, n + 1, n + 3)
            if len(tk) >= 2 and tk[-1] > tk[0]:
                way = way + (xy[-1] - xy[0]) / float(tk[-1] - tk[0])
                with_it.append(x)
        return way, with_it

    def _caused(self, o: Onset, group: list[Onset]) -> bool:
        """True when a collision explains the start: a contact found already, or a moving, just-hit or
        just-started ball outside the group within `cause_gap_mm` (its contact is then verified and reported)."""
        b, s, t = o.ball, self.s, o.t
        # a slow ball is seen to start only once it has crept onset_mm: a contact that long before explains it,
        # with the same slack as after the start (its first speed is read off a few noisy samples: seed-67
        # frame_free, 10 kissed by C at 91 mm/s, 0.103 s before its onset at 66 mm/s, was called disturbed)
        back = min(s.onset_mm / max(o.speed, 1e-9), RESUME_S) + s.cause_window_s
        for (x, y), tc in self.last_pair.items():
            other = y if x == b else x
            own_hit = self.hit_from.get((b, other), -np.inf) == tc  # its own hit on a ball judged before it
            # a contact with a ball at rest apart from it that started after it explains nothing unless that
            # ball ran into it (else this ball is the striker)
            if b not in (x, y) or not t - max(back, RESUME_S) <= tc <= t + s.cause_window_s or own_hit:
                continue
            if self._left_resting(other, o, tc):
                continue
            if (t - back <= tc or self._left_after(o, tc)) and self._ran_at(other, o):
                self._stopped_on(o, group)
                return True
        if self._kissed(o, back):
            return True
        members = {g.ball for g in group}
        caused = False
        c_here = self.hist.counter_at(t)
        for a in range(len(self.ids)):
            if a in members or self.motion.status(a) is Motion.GONE:
                continue
            if (home := self._cause_at_home(a, o)) is not None:
                caused = caused or home  # its track only wandered off its rest, where it stood all along
                continue
            if t - self.jumps.get(a, -np.inf) <= RESUME_S and self.motion.anchor_at(a, t) is None:
                continue  # its track jumped: it is no ball running into this one
            if self._set_moving_by({b}, a, t):
                continue  # this ball set that one moving (proven, or taken as its cause): that one is no cause of it
            hi = c_here + 1
            if self.hist.has(hi + 1) and not self.hist.valid[hi % self.hist.size, a]:
                hi += 1  # its sample after the start is missing (under the cue at its own stroke): the next one
            tk, xy = self.hist.track(a, c_here - 1, hi)
            if len(tk) == 0:
                continue
            speed = float(np.hypot(*(xy[-1] - xy[0]))) / max(float(tk[-1] - tk[0]), 1.0 / self.fps)
            gap = float(np.min(np.hypot(*(xy - o.anchor).T))) - 2 * self.R
            if gap > s.cause_gap_mm + speed / self.fps:
                continue  # not near enough to have caused it
            # a ball whose start was judged before this one counts, even in the same frame (a chain run
            # through inside one frame); the starts are judged in time order, so two never cause each other
            recent = min(abs(self.last_hit[a] - t), abs(self.judged[a] - t)) <= s.cause_window_s
            # one that left its rest in the same frame as this one: a cause only if it ran at this ball
            ran_at = abs(self.started[a] - t) <= s.cause_window_s and self._ran_at(a, o, frame_way=True)
            # one running into the frame of this start and stopped there ran in and stopped against it (a stun
            # hit: seed-163 frame_free, C struck late in a frame into 6 and dead on it a frame later); a creep or a
            # covered ball's drift is no run (seed-157 frame_dynamic: 14 and 15 found again beside each other)
            ran_in = self._ran_in(a, t)
            if self._ran_away(a, o):
                # at rest apart from it, started after it and away from it: its hits on others are no cause of
                # this start (seed-233 frame_free: C struck from 9 mm into 15 and dead on it was "caused" by 15's
                # hits on 5 and 6 a few ms later: no stroke, and the shot vanished)
                continue
            if not (self.motion.anchor_at(a, t) is None or ran_in or recent or ran_at):
                continue
            caused = True
            if self._contact_from_start(a, o):
                continue
            if not (ran_at and self._later_apart(a, o) is not None):
                # o's way off its rest may be turned inside the first frame (a cushion a few mm off: seed-53
                # frame_russian71, C into 11 by the rear cushion), so it need not point back at a; a sample
                # of a inside touching distance of o's rest still proves the hit, when o rested alone (in a
                # pack the centres of neighbours merge and overlap, and the pack's solve owns its contacts), or
                # when a ran in from outside the pack and stopped on it (`ran_in`: no neighbour's centre)
                overlap_ok = self._alone(o, a) or (ran_in and self._from_outside(a, o))
                if not self._contact_by_line(a, o) and not self._contact_by_rebound(a, o) and gap <= 0.0 \
                        and overlap_ok:
                    self._contact_by_overlap(a, o, gap)
                continue
            # a ball at rest apart from this one, seen to start after it, ran in: it is taken as the cause,
            # so this one is none of its start (touching balls pass impulses on: the pack judges those)
            self.caused_by = {k: v for k, v in self.caused_by.items() if v > t - 1.0}
            self.caused_by[(a, b)] = t
            if gap <= 0.0:
                self._contact_by_overlap(a, o, gap)
            else:
                self._contact_by_line(a, o)
        return caused

    def _kissed(self, o: Onset, back: float) -> bool:
        """A ball that rolled at o's ball and came to rest touching its rest place, first touching it no longer
        before o's start than a slow start takes to show (`back`), kissed it: its momentum passed on, and o crept
        off later. The contact, at the first sample touching it, is reported for review (the kiss is read from
        where the striker ran and stopped); of two such balls, the one that touched first. Seed-191
        frame_dynamic: 5 rolled at 75 mm/s into 1 and crept on against it; 1 was seen to start 0.14 s later at
        24 mm/s and was called disturbed, a 1.17 for a legal shot."""
        h, tol = self.hist, self.s.touch_tol_mm
        found: list[tuple[float, int, float]] = []
        for a in range(len(self.ids)):
            t_stop, way, since = self.stop_dir.get(a, (-np.inf, np.zeros(2), -np.inf))
            if a == o.ball or not (since < o.t and o.t - back <= t_stop <= o.t + back):
                continue
            if self.motion.status(a) is Motion.GONE or self.jumps.get(a, -np.inf) >= since:
                continue  # its track jumped on the way: where it stopped says nothing of a roll at o's ball
            rest = self.motion.anchor_at(a, h.time(h.newest))
            if rest is None or self.table.ball_gap(rest, o.anchor) > tol:
                continue  # not at rest touching its place now
            at = o.anchor - rest
            if float(np.dot(way, at)) < 0.5 * float(np.hypot(*way)) * float(np.hypot(*at)):
                continue  # not rolling at it (within 60 degrees) when it stopped
            tk, xy = h.track(a, h.counter_at(since), h.counter_at(min(t_stop, o.t)) + 1)
            touching = [float(tk[k]) for k in range(len(tk)) if self.table.ball_gap(xy[k], o.anchor) <= tol]
            if touching and o.t - back <= touching[0] <= o.t + self.s.cause_window_s:
                found.append((touching[0], a, self.table.ball_gap(rest, o.anchor)))
        if not found:
            return False
        t_c, a, gap = min(found)
        why = (f"{self.ids[a]} rolled at {self.ids[o.ball]} and came to rest {gap:.1f} mm from touching it; "
               f"{self.ids[o.ball]} crept off {o.t - t_c:.2f} s after it first touched")
        self._review_contact(a, o.ball, t_c, 0.55, {"rest_gap_mm": round(gap, 1), "why": why})
        return True

    def _speed_into_hit(self, o: Onset) -> float:
        """The least speed at which o's ball ran into a ball at rest that it hit before its run could be fitted
        (0 when it hit none): the gap between their rest centres, less what it had run by its last sample before
        its onset and two rest noises, over the time from that sample to the hit. Its first moving samples then
        straddle the hit, so their speed is the speed it kept (seed-71 frame_free: C struck at 212 mm/s into 5,
        17 mm off, hit it within 80 ms, read at 87 mm/s and called disturbed, a 1.17 for a 1.20 foul)."""
        h, s = self.hist, self.s
        t_last, xy = h.track(o.ball, o.n_first - 1, o.n_first - 1)
        if len(t_last) == 0:
            return 0.0
        ran = float(np.hypot(*(xy[-1] - o.anchor)))
        best = 0.0
        for pair, tc in self.last_pair.items():
            if o.ball not in pair or not float(t_last[-1]) <= tc <= o.t + 0.5 * s.run_fit_s:
                continue
            other = pair[1] if pair[0] == o.ball else pair[0]
            rest = self.motion.anchor_at(other, o.t - 1.0 / self.fps)
            if rest is None:
                continue  # the other ball ran in too: the gap says nothing of this one's speed
            gap = self.table.ball_gap(o.anchor, rest) - ran - 2.0 * s.noise_rest_mm
            # no less than a frame: a contact time fitted a few ms early must not make a nudge a stroke
            best = max(best, gap / max(tc - float(t_last[-1]), 1.0 / self.fps))
            best = max(best, self._speed_given(o.ball, other, tc))
        return best

    def _speed_given(self, a: int, x: int, tc: float) -> float:
        """The least speed at which ball a hit ball x, at rest, at tc: x's speed from the hit on (equal masses: it
        leaves at (1 + e) / 2 of the closing speed, never faster) and, when the two part, the momentum they carry
        away together; each less `push_z` standard errors, read up to either ball's next turn (the cloth only
        slows them). A hand pushing a on into x moves both at its own speed: they do not part, and x's speed is
        the bound. Seed-191 frame_dynamic: C struck at 189 mm/s 6 mm off 1 was read at 40 mm/s and called
        disturbed, and the shot was lost; C and 1 carried away 158 mm/s between them."""
        end = min([tc + self.s.run_fit_s, *(k for b in (a, x) for k in self._turns_of(b) if k > tc + 1e-6)])
        fa, fx = self._run_after(a, tc, end), self._run_after(x, tc, end)
        if fx is None:
            return 0.0
        best = fx.speed - self.s.push_z * fx.sigma_v
        if fa is not None:
            sigma = float(np.hypot(fa.sigma_v, fx.sigma_v))
            if float(np.hypot(*(fx.v - fa.v))) > self.s.push_z * sigma:  # they part: an impulse, not a push
                best = max(best, float(np.hypot(*(fa.v + fx.v))) - self.s.push_z * sigma)
        return max(best, 0.0)

    def _run_after(self, b: int, t0: float, t1: float) -> LineFit | None:
        """Ball b's run between times t0 and t1 (three samples at least)."""
        t, xy = self.hist.track(b, self.hist.counter_at(t0), self.hist.newest)
        keep = (t > t0) & (t <= t1)
        return fit_line(t[keep], xy[keep], noise_model(self.s)) if int(keep.sum()) >= 3 else None

    def _stopped_on(self, o: Onset, group: list[Onset]) -> None:
        """A start already explained by a contact inside its pack (the pack's solve ran on a neighbour's earlier
        start) may still have been set off from outside: a ball that ran in and stopped on it as it started, its
        sample within touching distance, hit it (seed-163 frame_russian71: C into 6 as in frame_free, but 14, two
        balls on, was seen to start first and the pack's contacts explained 6)."""
        members = {g.ball for g in group}
        c = self.hist.counter_at(o.t)
        for a in range(len(self.ids)):
            if a in members or self.motion.status(a) is Motion.GONE:
                continue
            if not self._ran_in(a, o.t) or not self._from_outside(a, o):
                continue
            key = (min(a, o.ball), max(a, o.ball))
            if abs(o.t - self.last_pair.get(key, -np.inf)) < self.s.refractory_s:
                continue
            tk, xy = self.hist.track(a, c - 1, c + 1)
            gap = float(np.min(np.hypot(*(xy - o.anchor).T))) - 2 * self.R if len(tk) else np.inf
            if gap <= 0.0:
                self._contact_by_overlap(a, o, gap)

    def _ran_in(self, a: int, t: float) -> bool:
        """Did ball a run into the frame of t and stop there: moving a frame before, its last step in more than
        `onset_mm`, its next one less than half that (a creep or a covered ball's drift is no run, a jump of its
        tracked centre neither, and a ball running on through a place just left hit nothing there)?"""
        if self.motion.anchor_at(a, t - 1.0 / self.fps) is not None or t - self.jumps.get(a, -np.inf) <= RESUME_S:
            return False
        c = self.hist.counter_at(t)
        tk, xy = self.hist.track(a, c - 1, c + 1)
        if len(tk) != 3:
            return False
        step_in, step_on = (float(np.hypot(*d)) for d in np.diff(xy, axis=0))
        return step_in > self.s.onset_mm and step_on < 0.5 * step_in

    def _from_outside(self, a: int, o: Onset) -> bool:
        """Was ball a, two frames before o's start, clear of o's rest (beyond `cause_gap_mm`): no neighbour of
        it in a pack, whose centre may merge with it, but a ball that ran in?"""
        c = self.hist.counter_at(o.t) - 2
        tk, xy = self.hist.track(a, c, c)
        return len(tk) == 1 and self.table.ball_gap(xy[0], o.anchor) > self.s.cause_gap_mm

    def _alone(self, o: Onset, a: int) -> bool:
        """Did o's ball rest apart from every ball but a (none at rest within `cause_gap_mm` of it)?"""
        t = o.t - 1.0 / self.fps
        for x in range(len(self.ids)):
            if x in (a, o.ball):
                continue
            anchor = self.motion.anchor_at(x, t)
            if anchor is not None and self.table.ball_gap(anchor, o.anchor) <= self.s.cause_gap_mm:
                return False
        return True

    def _later_apart(self, a: int, o: Onset) -> np.ndarray | None:
        """Ball a's rest centre if it was at rest apart from o's ball just before o's start and started after
        it (so it can have caused that start only by running into it), else None."""
        anchor = self.motion.anchor_at(a, o.t - 1.0 / self.fps)
        if anchor is None or self.table.ball_gap(anchor, o.anchor) <= self.s.cause_gap_mm:
            return None
        return anchor if self.started[a] > o.t and abs(self.judged[a] - o.t) > self.s.cause_window_s else None

    def _left_resting(self, a: int, o: Onset, tc: float) -> bool:
        """Is a contact of o's ball with ball a at tc only o's ball leaving a where it touched it: a at rest through
        it and hit by no other ball about then (a push through a still ball has that ball's own hit)? Sent off
        square to the line of centres, a ball leaving a touching one grazes it, and that reads as a contact at
        review level (the third review's late nudge of a cradle ball at 200 mm/s: no start was reported)."""
        w = self.s.cause_window_s
        rest = self.motion.anchor_at(a, tc)
        if tc < o.t - w or rest is None or self.motion.anchor_at(a, tc + w) is None:
            return False
        if self.table.ball_gap(rest, o.anchor) > self.s.cause_gap_mm:
            return False
        hits = self.last_pair.items()
        return not any(a in pair and o.ball not in pair and abs(t2 - tc) <= 2 * w for pair, t2 in hits)

    def _left_after(self, o: Onset, tc: float) -> bool:
        """Did o's ball leave its rest, read back along its run (`_run`), within `cause_window_s` of a contact at
        tc? A slow onset comes late (seed-263 frame_free: 3, driven into the rear cushion and back into C, crept off
        20 ms after that contact, seen off its rest 0.104 s after it: called disturbed, a 1.17 foul)."""
        ready, fit = self._run(o, False)  # asked again while a slow start waits for its run (`_judge_group`)
        return ready and fit is not None and tc >= fit.t_s - self.s.cause_window_s

    def _ran_at(self, a: int, o: Onset, frame_way: bool = False) -> bool:
        """Did ball a set off towards o's ball? A ball at rest apart from it that started after it is read off
        where it is a few frames on against its rest centre: its first sample may show a millimetre or two of
        motion, which the noise can point anywhere (physics frame_free-0: C struck into 12, 13 mm away, 12's
        first sample pointed back at C, so each start was taken for the other's cause and the shot had no
        shot_start); a move within the onset distance tells nothing. Any other ball: True, or with
        `frame_way` the way it ran over the frames around o's start."""
        c_here = self.hist.counter_at(o.t)
        anchor = self._later_apart(a, o)
        if anchor is None:
            if not frame_way:
                return True
            tk, xy = self.hist.track(a, c_here - 1, c_here + 1)
            return len(tk) >= 2 and float(np.dot(xy[-1] - xy[0], o.anchor - xy[0])) > 0
        tk, xy = self.hist.track(a, c_here + 1, c_here + 3)
        away = xy[-1] - anchor if len(tk) else np.zeros(2)
        if float(np.hypot(*away)) <= self.s.onset_mm:
            return True
        return float(np.dot(away, o.anchor - anchor)) > 0

    def _ran_away(self, a: int, o: Onset) -> bool:
        """Did ball a, at rest apart from o's ball and started after it, leave away from it: its first sample
        after o's start more than the onset distance back from its rest centre along the line to o's? Its
        first step is the one that shows it: a few frames on, a ball that hit two others at once (a V) runs
        off sideways, whichever it struck."""
        anchor = self._later_apart(a, o)
        if anchor is None:
            return False
        c = self.hist.counter_at(o.t)
        _, xy = self.hist.track(a, c + 1, c + 1)
        to_o = o.anchor - anchor
        if not len(xy) or float(np.hypot(*to_o)) < 1e-9:
            return False
        return float(np.dot(xy[0] - anchor, to_o)) / float(np.hypot(*to_o)) < -self.s.onset_mm

    def _contact_from_start(self, a: int, o: Onset) -> bool:
        m = o.n_first - 1
        n_hi = min(self.hist.newest, o.n_first + self.D)
        c = verify_in(
            Window(self.hist, self.motion, self.s, m, m - 1 - self.W, n_hi, self.R, self.fps, self.kinks, self.table),
            a, o.ball
        )
        if c is not None and self.motion.anchor_at(a, o.t - 1.0 / self.fps) is not None:
            # two balls at rest: an impulse passed on, no earlier than the hit that brought it
            w = 2 * self.s.cause_window_s
            t_src = [float(self.last_hit[a])] if abs(self.last_hit[a] - o.t) <= w else []
            # a ball seen to start after the one it set moving was at rest when the impulse passed through
            # it (a pushed ball's follow spin holds it a few frames): its own start dates nothing
            t_src = t_src or ([float(self.started[a])] if 0.0 <= o.t - self.started[a] <= w else [])
            if t_src and c.t < min(t_src):
                c = replace(c, t=min(t_src))
        if c is None or not self._contact(c):
            return False
        self.hit_from[(a, o.ball)] = c.t
        self.last_hit[o.ball] = max(self.last_hit[o.ball], c.t)
        return c.confidence >= 0.5
