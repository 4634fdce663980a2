"""Where a ball rested before a would-be disturbance, and whether it came back there: a cover (a hand, a cue)
shifts a ball's tracked centre and lets it go; a ball lifted from its place displaced nothing. Balls moved under
a cover: found at rest elsewhere after a jump of the track (`_moved_unseen`), or found back a few mm off their
place (`_shifted`). A mixin of EventDetector (the history, the motion tracker and the contact state belong to
the detector)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rules.events import Event, EventType
from vision.events.causes import RESUME_S
from vision.events.core import DetectorCore
from vision.events.covershift import SHIFT_CONF, CoverShiftWatcher
from vision.events.disturb import COVER_WAIT_MAX_S, SETTLE_WAIT_S, came_back, covered_now, left_covered
from vision.events.motion import Motion, Onset, Stop
from vision.events.pots import PotWatcher
from vision.events.settings import frames
from vision.events.shots import ShotPhase
from vision.types import BallState

# A ball moved while covered by a hand or a sleeve stays within the palm's reach of where it rested (~10 cm);
# a centre come to rest farther off after a jump is another ball's, or a track re-found elsewhere.
_HAND_REACH_MM = 100.0
_MOVED_CONF = 0.6  # a ball found at rest elsewhere with no rolling seen: reported, and flagged for review
# a slow start straight back along the way a ball stopped from that left at once (`_resumed`): its speed on
# leaving within this factor of what a steady pull from the moment it stopped gives over `onset_mm`
_SPIN_TURN_SLACK = 1.5
# ... and only a ball that met a ball or a nose this long before it stopped: spin against the run comes from a
# collision and lasts while the ball slides (v / (mu g): 0.5 s from 1 m/s at mu 0.2)
_SPIN_SLIDE_S = 0.5


class HomeLogic(DetectorCore):
    homes: dict[int, tuple[float, np.ndarray]]  # per ball: time of its last would-be disturbance, its rest before
    last_pair: dict[tuple[int, int], float]
    kinks: dict[int, list[float]]
    shifts: CoverShiftWatcher
    phase: ShotPhase
    pots: PotWatcher
    jumps: dict[int, float]
    shot_t0: float
    now: float
    moved: list[tuple[Stop, np.ndarray]]
    moved_home: dict[int, tuple[float, np.ndarray]]
    stop_dir: dict[int, tuple[float, np.ndarray, float]]  # per ball: stop time, way, start of that run
    stop_before: dict[int, tuple[float, np.ndarray, float]]  # per ball: the stop_dir entry before the last

    if TYPE_CHECKING:

        def _emit(self, ev: Event) -> None: ...

    def _shifted(self, n: int) -> None:
        """Balls found back clear at rest off their place after a cover between shots, by less than a start
        (`vision.events.covershift`): `ball_disturbed` for review (seed-113 frame_free: a hand moved 11 by 3 mm,
        an unflagged legal shot for a 1.17 foul)."""
        if self.phase is not ShotPhase.IDLE:
            self.shifts.shot_running()
            return
        at_rest = np.array([self.motion.status(b) is Motion.REST for b in range(len(self.ids))])
        for sh in self.shifts.update(self.hist, n, at_rest):
            why = f"found at rest {sh.moved_mm:.1f} mm from where it rested, after a hand or an arm covered it"
            info = {"speed_mm_s": 0.0, "during_shot": False, "moved_mm": round(sh.moved_mm, 1), "covered": True,
                    "review": True, "why": why}
            self._emit(Event(EventType.BALL_DISTURBED, sh.t, 0, SHIFT_CONF, ball=self.ids[sh.ball], extra=info))

    def _note_home(self, o: Onset) -> None:
        """Where the ball rested before a would-be disturbance: its rest anchor, or, when it follows another
        one of the same ball within `SETTLE_WAIT_S` (a covered centre drifts off, seems to stop, then drifts
        back: two slow starts), the rest position before the first of them."""
        t_prev, home = self.homes.get(o.ball, (-np.inf, o.anchor))
        self.homes[o.ball] = (o.t, home if o.t - t_prev <= SETTLE_WAIT_S else o.anchor)

    def _settled(self, o: Onset) -> bool:
        """Has the ball of a would-be disturbance had time to show where it rests: gone, or `SETTLE_WAIT_S`
        after its start and no longer under a cover (`covered_now`; a centre shifted under a cover may seem to
        rest off its place until it is uncovered: seed-107 hanging_ball_drops_later, an arm over a ball for a
        second, found back on its place a frame too late), or `COVER_WAIT_MAX_S` after it whatever covers it?"""
        if self.motion.status(o.ball) is Motion.GONE:
            return True
        waited = self.hist.time(self.hist.newest) - o.t
        if waited >= COVER_WAIT_MAX_S:
            return True
        return waited >= SETTLE_WAIT_S and not covered_now(self.hist, o.ball, self.s, self.fps)

    def _after_cover(self, o: Onset) -> bool:
        """Does this start leave from off the ball's place, within `SETTLE_WAIT_S` of a would-be disturbance
        that took it there? A hand over a ball pulls its centre off and, as they part, snaps it back at stroke
        speed (seed-53 frame_free: a penalty ball about to be lifted, "struck" at 111 mm/s back onto its place);
        such a start is judged like the disturbance, on where the ball rests."""
        t_prev, home = self.homes.get(o.ball, (-np.inf, o.anchor))
        return 0 < o.t - t_prev <= SETTLE_WAIT_S and float(np.hypot(*(o.anchor - home))) > self.s.onset_mm

    def _turns(self, o: Onset) -> list[float]:
        """When anything turned the ball from just before this start on (`_turns_of`). Only these end its run, and
        only these can bring a rolling ball back onto the place it left."""
        return [k for k in self._turns_of(o.ball) if k > o.t - self.s.cause_window_s]

    def _turns_of(self, b: int) -> list[float]:
        """When ball b was turned: its cushion kinks and its contacts of any confidence."""
        return [*self.kinks.get(b, []), *(tc for pair, tc in self.last_pair.items() if b in pair)]

    def _back_home(self, o: Onset, homes: list[np.ndarray], final: bool) -> bool | None:
        """Did the ball of this start come back onto one of `homes` (`came_back`, or at rest again there)?
        None while it has not yet shown where it rests (`_settled`)."""
        back = came_back(self.hist, o, homes, self.s, self.fps) or self._rests_home(o, homes)
        back = back or self._lifted_home(o, homes)
        if not (final or back or self._settled(o)):
            return None
        return back

    def _lifted_home(self, o: Onset, homes: list[np.ndarray]) -> bool:
        """Was the ball taken off the table (the tracker's UNKNOWN: lifted by hand, or taken off on the referee's
        word; never a pot) from no farther than `onset_mm` from where it rested? The hand that lifted it pulled
        its centre about first; nothing was displaced (seed-73 frame_free: penalty ball 11 drifted 14 mm under
        the hand and back, then lifted: two disturbances and a 1.17 on the next shot)."""
        h = self.hist
        if not self._settled(o):
            return False  # judged once it has had time to show where it rests, as any would-be disturbance
        k = h.idx(o.n_first, h.newest)
        seen = np.flatnonzero(h.valid[k, o.ball])
        if len(seen) == 0:
            return False
        after = k[int(seen[-1]) + 1 :]  # every frame since its last sample: taken off, not a moment's doubt
        if len(after) == 0 or not bool(np.all(h.state[after, o.ball] == BallState.UNKNOWN)):
            return False
        return min(float(np.hypot(*(h.xy[k[int(seen[-1])], o.ball] - p))) for p in homes) <= self.s.onset_mm

    def _rests_home(self, o: Onset, homes: list[np.ndarray]) -> bool:
        """Is the ball at rest again no farther than `onset_mm` (the least move the motion tracker calls a
        start) from where it rested before: then nothing was displaced."""
        anchor = self.motion.anchor(o.ball)
        return anchor is not None and min(float(np.hypot(*(anchor - h))) for h in homes) <= self.s.onset_mm

    def _moved_unseen(self, st: Stop) -> None:
        """A ball whose start was a jump of its tracked centre (no rolling seen: covered by a hand as it moved)
        and that comes to rest again between shots more than `onset_mm` from where it rested, within a hand's
        reach, with no other ball now at its old place (an identity swap), was moved: `ball_disturbed`, for
        review. A centre that came back to its old place (an occluder shifted it) moved nothing."""
        b = st.ball
        if self.jumps.get(b) != st.since or self.phase is not ShotPhase.IDLE or st.since < self.shot_t0 < np.inf:
            return
        if self.pots.gone[b]:
            return  # potted (a hanging ball that dropped, still seen in the pocket): it rests on no bed
        old = self.motion.anchor_at(b, st.since - 1.0 / self.fps)
        if old is None:
            return
        moved = float(np.hypot(*(st.anchor - old)))
        if not self.s.onset_mm < moved <= _HAND_REACH_MM:
            return
        for x in range(len(self.ids)):
            a = self.motion.anchor(x)
            if x != b and a is not None and float(np.hypot(*(a - old))) <= 2 * self.R:
                return  # another ball rests where this one was: an identity swap, not a move
        # a centre pulled off by a cover jumps back when uncovered: the rest before the first jump is its home
        t_prev, home = self.moved_home.get(b, (-np.inf, old))
        home = home if st.since - t_prev <= SETTLE_WAIT_S else old
        self.moved_home[b] = (st.t, home)
        self.moved.append((st, np.stack([old, home])))  # judged once it has shown where it stays (`_settle_moved`)

    def _settle_moved(self, final: bool) -> None:
        """A ball found at rest elsewhere after a jump (`_moved_unseen`) is judged `SETTLE_WAIT_S` after the jump
        (sooner when gone): a hand or arm beside a ball merges with it in the image and shifts its centre, which
        may rest off its place while they touch and come back when they part. No event when its centre came back
        onto where it rested (before this jump or the one before it, within `SETTLE_WAIT_S`), or it now rests
        within `onset_mm` of either; else moved as far as it now rests."""
        keep = []
        for st, homes in self.moved:
            b = st.ball
            gone = self.motion.status(b) is Motion.GONE or bool(self.pots.gone[b])
            if not (final or gone or self.now - st.since >= SETTLE_WAIT_S):
                keep.append((st, homes))
                continue
            if gone:
                continue
            t, xy = self.hist.track(b, self.hist.counter_at(st.since) + 1, self.hist.newest)
            need = frames(0.5 * self.s.rest_window_s, self.fps, 3)
            off = np.min(np.linalg.norm(xy[:, None, :] - homes[None, :, :], axis=2), axis=1) if len(t) else []
            home = np.asarray(off) <= self.s.rest_radius_mm
            if len(t) >= need and bool(np.any(np.convolve(home, np.ones(need), "valid") >= need)):
                continue  # back on its spot
            now = self.motion.anchor(b)
            rest = now if now is not None else st.anchor
            moved = float(np.min(np.hypot(*(rest - homes).T)))
            if not self.s.onset_mm < moved <= _HAND_REACH_MM:
                continue
            speed = moved / max(st.t - st.since, 1.0 / self.fps)  # its mean speed from rest to rest
            info = {"speed_mm_s": round(speed, 1), "during_shot": False, "moved_mm": round(moved, 1), "unseen": True,
                    "review": True, "why": f"found at rest {moved:.0f} mm from its rest position, no rolling seen"}
            self._emit(Event(EventType.BALL_DISTURBED, st.since, 0, _MOVED_CONF, ball=self.ids[b], extra=info))
        self.moved = keep

    def _seen_home(self, o: Onset) -> bool:
        """Is o's ball seen back on its rest (its newest sample within `onset_mm` of it)?"""
        _, xy = self.hist.track(o.ball, o.n_first, self.hist.newest)
        return bool(len(xy)) and float(np.hypot(*(xy[-1] - o.anchor))) <= self.s.onset_mm

    def _rests_on_anchor(self, o: Onset) -> bool:
        """Is o's ball at rest back on its rest position: its last three samples, the newest among them, within
        `onset_mm` of it and within the rest radius of each other (a ball rolling back over its spot is not)?"""
        t, xy = self.hist.track(o.ball, self.hist.newest - 2, self.hist.newest)
        if len(t) < 3 or not self.hist.valid[self.hist.newest % self.hist.size, o.ball]:
            return False
        near = np.hypot(*(xy - o.anchor).T) <= self.s.onset_mm
        return bool(near.all()) and float(np.max(np.hypot(*(xy - xy.mean(axis=0)).T))) <= self.s.rest_radius_mm

    def _resumed(self, o: Onset) -> bool:
        """A slow start, soon after the ball came to rest, on along the way it was rolling, or straight back
        along it from the moment it stopped, or back off the cushion nose it rolled into: a crawl that only looked
        still, or a ball its spin turned round, so the ball is taken as moving all along."""
        none = (-np.inf, np.zeros(2), -np.inf)
        t_stop, d, since = self.stop_dir.get(o.ball, none)
        if since >= o.t - 1.0 / self.fps:
            # the stop of a run that began with this start (its own, while it waits to be judged) is no stop it
            # resumed from, but the one before may be; a stop's fitted time may fall a little after the start of
            # a crawl that went on
            t_stop, d, since = self.stop_before.get(o.ball, none)
        if since >= o.t - 1.0 / self.fps or o.t - t_stop > RESUME_S or float(np.hypot(*d)) <= self.s.rest_radius_mm:
            return False
        away = o.fit.p0 - o.anchor  # where its first moving samples lie from its rest position
        cos = float(np.dot(d, away)) / max(float(np.hypot(*d)) * float(np.hypot(*away)), 1e-9)
        if cos >= 0.5:
            return True
        # straight back the way it came, at once: a ball still spinning against its run (a follow shot rebounding
        # off a pack, a draw) is turned round by the cloth's friction alone, its speed passing through nought, and
        # leaves as a steady pull from the stop would have it (2 onset_mm / the time since: seed 263, C back 44 mm
        # off the rack after the break, still for four frames, then forward at 42 mm/s 0.275 s after its stop,
        # 44 mm/s by that pull, called a 1.17 disturbance in every frame variant); a touch after a pause leaves
        # faster than that, uncovered as it left (a hand nudging it hides it), and with a collision before the stop
        dt = o.t - t_stop
        at_once = dt > 0.0 and o.speed <= _SPIN_TURN_SLACK * 2.0 * self.s.onset_mm / dt
        slid = any(t_stop - _SPIN_SLIDE_S <= k <= t_stop for k in self.kinks.get(o.ball, []))
        if cos <= -0.5 and at_once and slid and not left_covered(self.hist, o, self.fps):
            return True
        # a slow ball that rolled into a cushion nose looks still for the frames of the touch, then leaves
        # it the other way: a rebound, not a stop (the nose within the frozen tolerance plus the rest radius
        # of its rest centre, or within the frozen tolerance of its nearest sample while it looked still: the
        # centre of an in-and-out is up to a rest radius and more off the nose it reached)
        _, xy = self.hist.track(o.ball, self.hist.counter_at(t_stop - self.s.rest_window_s), o.n_first - 1)
        near = {n for p in xy for n, _ in self.table.frozen_cushions(p, self.s.frozen_tol_mm)}
        near |= {n for n, _ in self.table.frozen_cushions(o.anchor, self.s.frozen_tol_mm + self.s.rest_radius_mm)}
        for name in sorted(near):
            normal = np.asarray(self.table.cushions[name].normal)  # into the bed
            if float(np.dot(d, normal)) < 0 and float(np.dot(away, normal)) > 0:
                return True
        return False
