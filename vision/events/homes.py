"""Where a ball rested before a would-be disturbance, and whether it came back there: a cover (a hand, a cue)
shifts a ball's tracked centre and lets it go; a ball lifted from its place displaced nothing. A mixin of
EventDetector (the history, the motion tracker and the contact state belong to the detector)."""

from __future__ import annotations

import numpy as np

from vision.events.core import DetectorCore
from vision.events.disturb import COVER_WAIT_MAX_S, SETTLE_WAIT_S, came_back, covered_now
from vision.events.motion import Motion, Onset
from vision.types import BallState


class HomeLogic(DetectorCore):
    homes: dict[int, tuple[float, np.ndarray]]  # per ball: time of its last would-be disturbance, its rest before
    last_pair: dict[tuple[int, int], float]
    kinks: dict[int, list[float]]

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
        """When anything turned the ball from just before this start on: its cushion kinks and its contacts of any
        confidence. Only these end its run, and only these can bring a rolling ball back onto the place it left."""
        hits = [tc for pair, tc in self.last_pair.items() if o.ball in pair]
        return [k for k in [*self.kinks.get(o.ball, []), *hits] if k > o.t - self.s.cause_window_s]

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
