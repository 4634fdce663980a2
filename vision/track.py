"""Multi-ball tracking: one Kalman track per ball id, motion-hypothesis assignment, states with hysteresis.

`TrackSet.step(dets, t, occluded)` is the pure core (no cv2, testable with hand-made Detections);
`BallTracker` in vision.tracker drives it from frames through the detector. Here: identities (initial,
stated, spotted, re-identified by colour), the frame step, misses (hidden, taken off by hand, lost) and
revivals. The track record and its per-track steps are in vision.trackstate, the motion hypotheses and
class costs in vision.hypotheses.
"""

from __future__ import annotations

import numpy as np

from calibration.table import Table
from rules.events import BALL_IDS
from vision import kalman
from vision.assign import Hypothesis, ambiguity, cost_matrix, solve
from vision.bedgeom import seen_off_bed
from vision.hands import in_hand
from vision.hypotheses import class_cost, clutter_cost, hypotheses, leave_cost, overlap_cost, owned_cost
from vision.identity import (
    COLOURED_ID,
    UNNAMED,
    ColourModel,
    foreign_readings,
    from_position_map,
    from_rack,
    learn_own_colour,
    match_positions,
    odd_one_out,
)
from vision.trackstate import Occluded, Track, TrackerConfig, hold, kf_update, motion_state
from vision.types import CLEAR_CONF, BallClass, BallState, BallStates, Detections

__all__ = ["Occluded", "Track", "TrackSet", "TrackerConfig"]  # Track, TrackerConfig: defined in vision.trackstate

# Identity confidence of an ivory ball the tracker labels without knowing its number: from the first frame it is
# as sure a track as a named one (the number is carried apart, in `Track.named`) ...
FRESH_ID_CONF = 0.9
# ... and one that appears mid-stream with no ball gone to account for it may be a followed ball found again
# (asserted, below RulesSettings.review_confidence: a verdict resting on it is marked)
APPEARED_ID_CONF = 0.5

_DEFINITE = (BallClass.COLOURED, BallClass.IVORY)


class TrackSet:
    """Tracks for a fixed set of ball ids. Identities come from `initial_positions` or from the rack."""

    def __init__(
        self,
        table: Table,
        ids: tuple[str, ...] = BALL_IDS,
        initial_positions: dict[str, tuple[float, float]] | None = None,
        config: TrackerConfig | None = None,
    ) -> None:
        self.table = table
        self.ids = ids
        self.config = config or TrackerConfig()
        bad = [b for b in initial_positions or {} if b not in ids]
        if bad:
            raise ValueError(f"initial_positions: unknown ball id(s) {bad}; known ids {ids}")
        self.initial_positions = initial_positions
        self.tracks = {b: Track(b, kalman.make_filter(np.zeros(2))) for b in ids}
        self.t: float | None = None
        self.frame = -1
        self.R = table.ball_radius
        self._pending: list[tuple[np.ndarray, int]] = []  # unclaimed detections: position, frames seen
        self._clutter = np.zeros((0, 2))  # the last frame's detections no track took, of any confidence
        self._expected: dict[str, np.ndarray] = {}  # spotted balls not yet seen on their spot: id -> mm
        self.colours = ColourModel()  # coloured vs ivory, learnt from the balls under this light
        self._cls: np.ndarray | None = None  # this frame's classes by the colour model
        self._foreign_now: np.ndarray | None = None  # and which readings are of no ball of the set

    # --- identity ---------------------------------------------------------------------------
    def _initialise(self, dets: Detections) -> None:
        if self.initial_positions is not None:
            got = from_position_map(self.initial_positions, dets, gate_mm=3 * self.R)
            for b, xy in self.initial_positions.items():
                if b in self.tracks and b not in got:
                    tr = self.tracks[b]
                    tr.kf = kalman.make_filter(np.asarray(xy, float))
                    tr.state, tr.id_conf, tr.rest_xy = BallState.HIDDEN, 0.8, np.asarray(xy, float)
                    tr.named = True
            got.update(self._coloured_by_class(dets, got))
        else:
            got = from_rack(self.table, dets, self.ids)
        for b, (k, idc) in got.items():
            tr = self.tracks[b]
            tr.kf = kalman.make_filter(dets.xy_mm[k])
            # a detection no rack slot names: an ivory ball under a label, followed from here as surely as any
            tr.named = idc > UNNAMED or b == COLOURED_ID
            idc = idc if tr.named else FRESH_ID_CONF
            tr.state, tr.id_conf, tr.conf = BallState.STATIONARY, idc, float(dets.confidence[k])
            tr.rest_xy = dets.xy_mm[k].copy()
            tr.history.append(dets.xy_mm[k].copy())
            tr.patch = dets.data["patch"][k] if "patch" in dets.data else None
            self._learn_colour(tr, dets, k)

    def _coloured_by_class(self, dets: Detections, got: dict[str, tuple[int, float]]) -> dict[str, tuple[int, float]]:
        """A position map without the coloured ball (in hand): the one coloured detection the map left."""
        if COLOURED_ID not in self.ids or COLOURED_ID in got or COLOURED_ID in (self.initial_positions or {}):
            return {}
        used = {k for k, _ in got.values()}
        col = [k for k in range(len(dets)) if k not in used and dets.cls[k] == BallClass.COLOURED]
        if len(col) >= 2:  # the light tints the ivory balls too: the set itself may name it (none: C in hand)
            odd = odd_one_out(dets)
            if odd is not None and odd[0] not in used:
                return {COLOURED_ID: odd}
        if not col:
            return {}
        best = max(col, key=lambda k: float(dets.confidence[k]))
        return {COLOURED_ID: (best, 0.95 if len(col) == 1 else 0.5)}

    def set_positions(self, positions: dict[str, tuple[float, float]], id_conf: float = 0.9) -> None:
        """Identities stated by the rules engine or the referee (spotted balls, re-racks): a resting track
        within `spot_tol_mm` of a stated place takes that id (the tracks swap identities); a stated ball with
        no track there jumps there."""
        unknown = [b for b in positions if b not in self.tracks]
        if unknown:
            raise ValueError(f"set_positions: unknown ball id(s) {unknown}; known ids {self.ids}")
        placed = self.relabel(positions, id_conf)
        for b, xy in positions.items():
            if b in placed:
                continue
            tr = self.tracks[b]
            tr.kf = kalman.make_filter(np.asarray(xy, float))
            tr.state, tr.id_conf, tr.misses, tr.removed = BallState.STATIONARY, id_conf, 0, False
            tr.rest_xy, tr.named = np.asarray(xy, float), True
            tr.history.clear()
            self._expected.pop(b, None)

    def take_off(self, balls: list[str]) -> None:
        """Balls the referee takes off the table (a penalty ball): each leaves play (UNKNOWN, silent for the
        event layer) now if it is out of view, else at its first miss (the hand lifting it), and is never
        revived by a detection; only a stated position or a spot brings it back."""
        unknown = [b for b in balls if b not in self.tracks]
        if unknown:
            raise ValueError(f"take_off: unknown ball id(s) {unknown}; known ids {self.ids}")
        for b in balls:
            tr = self.tracks[b]
            tr.removed = True
            if tr.state == BallState.HIDDEN:
                tr.state = BallState.UNKNOWN

    def expect_spotted(self, positions: dict[str, tuple[float, float]], id_conf: float = 0.9) -> None:
        """Balls the rules engine spots (1.25): the ball resting on its spot takes its id, now if it is
        already there, else when it appears (checked only while something is expected)."""
        want = {b: xy for b, xy in positions.items() if b in self.tracks}
        placed = self.relabel(want, id_conf)
        self._expected.update({b: np.asarray(xy, float) for b, xy in want.items() if b not in placed})

    def clear_expected(self) -> None:
        """A new shot began: spots not filled by now will not be (the referee did not spot there)."""
        self._expected.clear()

    @property
    def expected(self) -> dict[str, tuple[float, float]]:
        return {b: (float(p[0]), float(p[1])) for b, p in self._expected.items()}

    def relabel(self, positions: dict[str, tuple[float, float]], id_conf: float) -> set[str]:
        """Give stated ids to the resting tracks nearest the stated places (within `spot_tol_mm`, one track
        per place, minimum total distance). Tracks swap contents, so no ball is duplicated: a ball in play
        whose id was taken keeps its track under a freed id, which is a label, not its number (`named` False;
        the track still follows that ball, so its identity confidence is kept); a freed id with no ball for it
        is UNKNOWN (never POTTED: the event layer would read a ball leaving the bed as a pot).
        Returns the ids placed."""
        ids = [b for b in positions if b in self.tracks]
        live = [tr for tr in self.tracks.values() if tr.in_play and tr.state != BallState.MOVING]
        if not ids or not live:
            return set()
        where = np.asarray([positions[b] for b in ids], dtype=float).reshape(-1, 2)
        m = match_positions(ids, where, np.array([tr.xy for tr in live]), self.config.spot_tol_mm)
        moves = {b: live[k].ball for b, k in m.items()}  # new id <- the id the track has now
        old = {b: self.tracks[b] for b in {*moves, *moves.values()}}
        vacated = [s for s in moves.values() if s not in moves]
        displaced = [t for t in moves if t not in moves.values()]
        for t, s in moves.items():
            self.tracks[t] = old[s]
            self.tracks[t].ball, self.tracks[t].removed, self.tracks[t].named = t, False, True
            self.tracks[t].id_conf = max(id_conf, self.tracks[t].id_conf if s == t else 0.0)
        for s, t in zip(vacated, displaced, strict=True):  # equal lengths: moves is one-to-one
            if not old[t].in_play:
                self.tracks[s] = Track(s, kalman.make_filter(np.zeros(2)))
                continue
            self.tracks[s] = old[t]
            self.tracks[s].ball = s
            self.tracks[s].named = s == COLOURED_ID  # the one coloured ball is named by its colour
        for b in moves:
            self._expected.pop(b, None)
        return set(moves)

    # --- one frame ---------------------------------------------------------------------------
    def step(self, dets: Detections, t: float, occluded: Occluded | None = None) -> BallStates:
        self.frame += 1
        if self.t is None:
            self.t = t
            self._initialise(dets)
            return self.publish(t)
        dt = max(t - self.t, 1e-3)
        self.t = t
        active = [tr for tr in self.tracks.values() if tr.in_play]
        held, taken = self._repeated(active, dets)
        active = [tr for tr in active if tr.ball not in held]
        free = np.array([k for k in range(len(dets)) if k not in taken], dtype=int)
        for tr in active:
            tr.prev_xy, tr.prev_v = tr.xy, tr.v
            kalman.predict(tr.kf, dt, moving=tr.state == BallState.MOVING)
        hyps = hypotheses(active, dt, self.t, self.table, self.config)
        cls = self.colours.classes(dets)  # once a frame: the assignment and the revivals read it
        self._cls = cls
        foreign = foreign_readings(self.colours, dets, active, self.R)  # no ball of this set: a hand, a cue tip
        self._foreign_now = foreign
        smeared = self._may_smear(active, dets, dt, occluded) if foreign[free].any() else None
        extra = class_cost(active, dets.xy_mm[free], cls[free], foreign[free], smeared, self.table, self.config)
        extra += owned_cost(active, dets.xy_mm[free], self.R)  # a resting ball in view keeps its own detection
        extra += clutter_cost(active, dets.xy_mm[free], self._clutter, self.R)  # nor jumps onto what lay elsewhere
        held_xy = np.array([self.tracks[b].xy for b in held]).reshape(-1, 2)
        extra += overlap_cost(active, dets.xy_mm[free], dets.xy_mm, self.R, held_xy)  # nor onto a disc inside a ball
        if occluded is not None:  # weak detections under an occluder: see `leave_cost`
            weak = np.array([dets.confidence[k] < 0.5 and occluded(dets.xy_mm[k]) for k in free], dtype=bool)
            extra += leave_cost(active, dets.xy_mm[free], weak, self.R)
        cost, which = cost_matrix(hyps, dets.xy_mm[free], extra)
        pairs = solve(cost, self.config.miss_cost)
        amb = ambiguity(cost, pairs, self.config.miss_cost)
        assigned = set()
        for i, k in pairs:
            tr = active[i]
            if not self._covered_at_rest(tr, dets, int(free[k]), occluded):
                self._apply(tr, hyps[i][which[i, k]], which[i, k] == 0, dets, int(free[k]), dt, amb[i])
            assigned.add(i)
        for i, tr in enumerate(active):
            if i not in assigned:
                self._missed(tr, dt, occluded)
        self._recolour([(active[i], int(free[k])) for i, k in pairs], cls, t)
        odd = set(np.nonzero(foreign)[0].tolist())
        # a reading of the coloured ball's class that the learnt model calls foreign, while the coloured ball is
        # out of play: the model learnt the ball's colour where it has been, and the light differs across the
        # bed (a lost coloured ball at rest by a cushion read 5+ deviations off): offered, on a longer wait
        c = self.tracks.get(COLOURED_ID)
        lost = c is not None and not c.in_play and not c.removed
        slow = {k for k in odd if lost and cls[k] == BallClass.COLOURED}
        claimed = taken | {int(free[k]) for _, k in pairs}
        claimed |= self._revive(dets, cls, claimed | (odd - slow), occluded, slow)
        self._clutter = dets.xy_mm[[k for k in range(len(dets)) if k not in claimed]].reshape(-1, 2)
        if self._expected:  # rare: only between a verdict that spots a ball and the ball's arrival
            self.relabel(self.expected, 0.9)
        return self.publish(t)

    def _may_smear(self, active: list[Track], dets: Detections, dt: float, occluded: Occluded | None) -> np.ndarray:
        """Per track: may its ball be seen smeared over the cloth this frame (so that its colour reads foreign)?
        A ball moving more than half a radius a frame (the longest exposure is the frame time) or seen moving once
        only, a quarter radius or more (struck inside the frame of its first step, its speed is not known yet: a
        cue ball seen 17 mm off its rest at 30 fps was on its next frame a 2.9 m/s streak), or a ball at rest in
        clear view whose place is bare (just struck); never a ball held hidden or covered, nor one whose place
        still holds a reading: those read their own colour, and a foreign reading near them is the hand."""
        blur = 0.5 * self.R / dt  # mm/s
        # any reading over a resting ball's place, of its colour or not: a struck ball leaves its place bare, so
        # one still covered is the ball or a hand over it (seed-199 frame_free: a warm-lit hand laid over 11 by a
        # corner came out as three discs, one on 11's place; 11 followed the one 58 mm off as a stroke). The cost: a
        # disc-sized reading left on the place of a ball just struck away holds it a frame or two (its start is
        # then read late); a cue's tip following through is too thin to fill a disc (`DetectorConfig.min_fill`)
        seen = dets.xy_mm
        out = np.zeros(len(active), dtype=bool)
        for i, tr in enumerate(active):
            if tr.state == BallState.MOVING:
                speed = float(np.hypot(*tr.prev_v))
                # a first step of a quarter radius a frame or more (a hand's nudge is a few mm) may be a stroke
                # struck late in the frame
                out[i] = speed > blur or (tr.moving_seen <= 1 and speed > 0.5 * blur)
            elif tr.state == BallState.STATIONARY:
                in_place = bool(len(seen)) and float(np.min(np.hypot(*(seen - tr.xy).T))) < 0.5 * self.R
                out[i] = not in_place and not (occluded is not None and occluded(tr.xy))
        return out

    def _repeated(self, active: list[Track], dets: Detections) -> tuple[set[str], set[int]]:
        """Resting balls whose detection is repeated bit for bit (the detector reused an unchanged blob):
        no new information, so no predict and no update, and they leave the assignment problem."""
        held: set[str] = set()
        taken: set[int] = set()
        if len(dets) == 0:
            return held, taken
        where: dict[tuple[float, float], int] = {}
        for k, (x, y) in enumerate(dets.xy_mm.tolist()):
            where[(x, y)] = -1 if (x, y) in where else k  # -1: repeated within the frame, not unique
        for tr in active:
            if tr.state != BallState.STATIONARY or tr.last_z is None:
                continue
            k = where.get((float(tr.last_z[0]), float(tr.last_z[1])), -1)
            if k >= 0 and k not in taken:
                held.add(tr.ball)
                taken.add(k)
                tr.misses = 0
        return held, taken

    def _learn_colour(self, tr: Track, dets: Detections, k: int) -> None:
        """Teach the colour model with a detection a confidently named track took."""
        col = dets.data.get("colour")
        if col is None or len(col) <= k or tr.id_conf < 0.5:
            return
        if self._cls is not None and self._cls[k] in _DEFINITE and (self._cls[k] == BallClass.COLOURED) != (
                tr.ball == COLOURED_ID):
            return  # the model reads it as the other class: a swapped identity must not teach it
        self.colours.learn(tr.ball == COLOURED_ID, col[k])

    def _recolour(self, taken: list[tuple[Track, int]], cls: np.ndarray, t: float) -> None:
        """Re-identify the coloured ball by colour: an ivory id whose detections have read as coloured for
        `recolour_s` holds the coloured ball; it swaps ids with the coloured id when that id has no ball in
        view of its own colour (not in play, hidden, or itself holding an ivory ball that long)."""
        if not self.colours.ready or COLOURED_ID not in self.tracks:
            return
        for tr, k in taken:
            if cls[k] not in _DEFINITE:
                continue
            if (cls[k] == BallClass.COLOURED) == (tr.ball == COLOURED_ID):
                tr.off_colour_since = None
            elif tr.off_colour_since is None:
                tr.off_colour_since = t
        wait = self.config.recolour_s
        col = self.tracks[COLOURED_ID]
        col_off = col.off_colour_since is not None and t - col.off_colour_since >= wait
        for tr, _ in taken:
            if tr.ball == COLOURED_ID or tr.off_colour_since is None or t - tr.off_colour_since < wait:
                continue
            if col.in_play and col.state != BallState.HIDDEN and not col_off:
                return  # the coloured id holds a coloured ball too: one of the two reads is wrong; leave both
            self._swap(tr.ball, COLOURED_ID)
            return

    def _swap(self, a: str, b: str) -> None:
        """Exchange the identities of two tracks; an id left with no ball in play is UNKNOWN (never POTTED:
        the event layer would read it as a pot)."""
        ta, tb = self.tracks[a], self.tracks[b]
        self.tracks[a], self.tracks[b] = tb, ta
        for name, tr in ((a, tb), (b, ta)):
            tr.ball, tr.off_colour_since = name, None
            if not tr.in_play:
                self.tracks[name] = Track(name, kalman.make_filter(np.zeros(2)))
        ta.id_conf, ta.named = max(ta.id_conf, 0.8), True  # the colour names it: one coloured ball in the set
        tb.id_conf = min(tb.id_conf, 0.3)

    def _covered_at_rest(self, tr: Track, dets: Detections, k: int, occluded: Occluded | None) -> bool:
        """A ball at rest (or held unseen at rest) measured under or next to an arm, a hand or a cue, within the
        shift that covering part of it gives the centre of what is left in view: it is still at rest where it
        was. The measurement neither moves it nor starts it (an arm passing over a ball is no stroke); a
        detection beyond that shift, or clear of the occluder, is news as usual."""
        if occluded is None or self.config.covered_shift_r <= 0.0 or not (
                tr.state == BallState.STATIONARY or (tr.state == BallState.HIDDEN
                                                                     and tr.hid_speed == 0.0)):
            return False
        z = dets.xy_mm[k]
        rest = tr.rest_xy if tr.state == BallState.STATIONARY and np.isfinite(tr.rest_xy).all() else tr.xy
        if float(np.hypot(*(z - rest))) > self.config.covered_shift_r * self.R or not occluded(z):
            return False
        if tr.state == BallState.HIDDEN:
            tr.state, tr.rest_xy, tr.still = BallState.STATIONARY, rest.copy(), 0
        tr.last_z = z.copy()
        tr.misses, tr.clear_since, tr.conf = 0, None, float(dets.confidence[k])
        if self.t is not None:
            tr.seen_t = self.t
        return True

    def _apply(self, tr: Track, h: Hypothesis, is_cv: bool, dets: Detections, k: int, dt: float, margin: float) -> None:
        z = dets.xy_mm[k]
        tr.last_z = z.copy()
        innov = float(np.hypot(*(z - tr.xy)))
        if is_cv and innov <= 4.0 * max(kalman.innovation_std(tr.kf), 2.0):
            kf_update(tr.kf, z)
        else:
            vel = (z - h.origin) / max(h.dt_from_origin, 1e-3)
            sp = float(np.hypot(*vel))
            if sp > self.config.vmax_mm_s:
                vel *= self.config.vmax_mm_s / sp
            kalman.reseed(tr.kf, z, vel, vel_std=max(0.3 * sp, 200.0))
            tr.state = BallState.MOVING if sp > self.config.move_speed_mm_s else tr.state
            tr.still = 0
        if margin < 2.0:
            tr.id_conf *= 0.85  # another track could have taken this detection almost as cheaply
        if tr.state == BallState.HIDDEN and tr.misses > 30:
            tr.id_conf *= 0.9
        tr.misses, tr.clear_since = 0, None
        if self.t is not None:
            tr.seen_t = self.t
        tr.conf = float(dets.confidence[k])
        new_patch = dets.data["patch"][k] if "patch" in dets.data else None
        spinning = False
        # spin on the spot only matters where the ball is not travelling (1.14.1); a travelling ball's
        # patch changes anyway
        calm = new_patch is not None and tr.patch is not None and innov < 0.2 * self.R
        if calm and new_patch is not None and tr.patch is not None and new_patch.any() and tr.patch.any():
            diff = np.abs(new_patch.astype(np.int16) - tr.patch)
            spinning = float(diff.sum()) / diff.size > self.config.spin_diff
        tr.patch = new_patch
        if margin >= 2.0:  # an unambiguous assignment teaches the colour model
            self._learn_colour(tr, dets, k)
        tr.history.append(tr.xy)
        motion_state(tr, spinning, self.config)
        tr.moving_seen = tr.moving_seen + 1 if tr.state == BallState.MOVING else 0
        if tr.state == BallState.STATIONARY and margin >= 2.0 and tr.id_conf >= 0.5:
            learn_own_colour(self.colours, tr, dets, k, self._foreign_now, self._cls)

    def _missed(self, tr: Track, dt: float, occluded: Occluded | None) -> None:
        cfg = self.config
        tr.misses += 1
        p = tr.prev_xy
        if tr.removed:
            tr.state = BallState.UNKNOWN  # the referee took it off: the hand has it now
            return
        if tr.state == BallState.MOVING and tr.last_z is not None and seen_off_bed(self.table, tr.last_z):
            # last seen reaching into a cushion, where no ball on the bed can be: it is in the air over the
            # cushion (a jump) and gone from view; its blob over the rail may well look like an occluder
            if tr.misses >= cfg.lost_frames:
                tr.state = BallState.OFF_TABLE
                tr.left_t = self.t if self.t is not None else tr.left_t
            return
        if occluded is not None and occluded(p):
            if tr.state != BallState.HIDDEN:
                tr.hid_speed = float(np.hypot(*tr.prev_v)) if tr.state == BallState.MOVING else 0.0
            tr.state, tr.clear_since = BallState.HIDDEN, None
            hold(tr, p)
            return
        if tr.state == BallState.HIDDEN and occluded is not None and self.t is not None:
            tr.clear_since = self.t if tr.clear_since is None else tr.clear_since
            if self.t - tr.clear_since >= cfg.lift_s:
                # its place is in view and empty: taken off by hand. UNKNOWN, not POTTED (a ball lifted by a
                # mouth is no pot); a ball put down again comes back through _revive
                tr.state, tr.left_t, tr.clear_since = BallState.UNKNOWN, self.t, None
                return
        if tr.state == BallState.MOVING and tr.misses <= cfg.lost_frames:
            # coast along the prediction; a centre predicted past a cushion nose can only have left the bed
            pocket = self.table.pocket_at(tr.xy) or self.table.pocket_at(p)  # rare: only when a ball vanishes
            gone = pocket is not None or not self.table.on_bed(tr.xy)
            if gone and tr.misses >= cfg.lost_frames:
                tr.state = BallState.POTTED if pocket is not None else BallState.OFF_TABLE
                tr.left_t = self.t if self.t is not None else tr.left_t
            if gone or tr.misses < cfg.lost_frames:
                return
        hold(tr, p)
        if tr.misses >= cfg.lost_frames and tr.state != BallState.HIDDEN:
            tr.hid_speed = float(np.hypot(*tr.prev_v)) if tr.state == BallState.MOVING else 0.0
            tr.state = BallState.HIDDEN
            tr.rest_xy = p.copy()

    def _revive(self, dets: Detections, cls: np.ndarray, used: set[int], occluded: Occluded | None = None,
                slow: set[int] | None = None) -> set[int]:
        """A detection no track took: a ball back in play (spotted after a pot) or one never seen. Only once
        it has stayed put for `revive_frames` frames with no occluder next to it: a passing cue tip moves, and
        a bridge hand resting on the bed for seconds belongs to an arm, while a ball put down stays when the
        hand has gone; nor while it is one of a hand's overlapping discs or in that hand's reach (vision.hands:
        under a dim or warm light the arm's sleeve may be no foreground, so no occluder marks the hand)."""
        # nothing that reaches into a cushion is a ball at rest (a hand or a cue tip on the rail)
        free = [k for k in range(len(dets))
                if k not in used and dets.confidence[k] >= CLEAR_CONF and not seen_off_bed(self.table, dets.xy_mm[k])]
        held = in_hand(dets.xy_mm, self.R) if free else None  # by shape: a hand's discs, or in its reach
        pending: list[tuple[np.ndarray, int]] = []
        ready: list[int] = []
        for k in free:
            xy = dets.xy_mm[k]
            count = 1 + max((n for p, n in self._pending if np.hypot(*(p - xy)) < 5.0), default=0)
            if (occluded is not None and occluded(xy)) or (held is not None and held[k]):
                count = 0
            pending.append((xy.copy(), count))
            wait = 2 * self.config.revive_frames if slow and k in slow else self.config.revive_frames
            if count >= wait or (count >= self.config.spot_frames and self._on_spot(xy)):
                ready.append(k)
        self._pending = pending
        revived: set[int] = set()
        for k in ready:
            if self._expected and self._revive_expected(dets.xy_mm[k]):
                revived.add(k)
                continue
            want_col = cls[k] == BallClass.COLOURED
            cands = [
                tr
                for tr in self.tracks.values()
                if not tr.in_play and not tr.removed and (tr.ball == COLOURED_ID) == want_col
            ]
            if not cands:
                continue
            revived.add(k)
            order = {BallState.UNKNOWN: 0, BallState.OFF_TABLE: 1, BallState.POTTED: 2}
            # of each kind, the ball that left play last is the likeliest to come back: the ball in hand just
            # lifted, the ball potted or jumped off in the shot the referee now spots again
            tr = min(cands, key=lambda c: (order.get(c.state, 3), -c.left_t))
            if tr.state != BallState.UNKNOWN or np.isfinite(tr.left_t):
                tr.id_conf, tr.named = 0.3, True  # of the balls that left play, the likeliest: a guess among few
            else:
                # a ball never tracked: its id is a label; a ball seen nowhere before may be one followed already
                tr.id_conf, tr.named = APPEARED_ID_CONF, False
            if want_col:
                tr.id_conf, tr.named = 0.8, True  # the colour names it: the set has one coloured ball (as `_swap`)
            tr.odd_colour_xy = dets.xy_mm[k].copy() if slow and k in slow else None
            tr.kf = kalman.make_filter(dets.xy_mm[k])
            tr.state, tr.misses, tr.still = BallState.STATIONARY, 0, 0
            tr.rest_xy = dets.xy_mm[k].copy()
            tr.history.clear()
            tr.history.append(tr.xy)
        return revived

    def _on_spot(self, xy: np.ndarray) -> bool:
        """Is xy on the spot of a spotted ball still off the table?"""
        tol = self.config.spot_tol_mm
        return any(float(np.hypot(*(p - xy))) <= tol and not self.tracks[b].in_play for b, p in self._expected.items())

    def _revive_expected(self, xy: np.ndarray) -> bool:
        """A ball appearing on the spot of a spotted ball that is off the table is that ball."""
        near = [(float(np.hypot(*(p - xy))), b) for b, p in self._expected.items() if not self.tracks[b].in_play]
        d, b = min(near, default=(np.inf, ""))
        if d > self.config.spot_tol_mm:
            return False
        tr = self.tracks[b]
        tr.kf = kalman.make_filter(xy)
        tr.state, tr.misses, tr.still, tr.id_conf, tr.removed = BallState.STATIONARY, 0, 0, 0.9, False
        tr.named = True
        tr.rest_xy = xy.copy()
        tr.history.clear()
        tr.history.append(tr.xy)
        del self._expected[b]
        return True

    # --- output ------------------------------------------------------------------------------
    def publish(self, t: float) -> BallStates:
        trs = [self.tracks[b] for b in self.ids]
        return BallStates(
            frame=self.frame,
            t=t,
            ids=self.ids,
            xy_mm=np.array([tr.xy if tr.state != BallState.UNKNOWN else (np.nan, np.nan) for tr in trs]),
            vel_mm_s=np.array([tr.v if tr.state == BallState.MOVING else (0.0, 0.0) for tr in trs]),
            state=np.array([int(tr.state) for tr in trs], dtype=np.int8),
            confidence=np.array([tr.conf if tr.misses == 0 else tr.conf * 0.5 for tr in trs]),
            id_confidence=np.array([tr.id_conf for tr in trs]),
            named=np.array([tr.named for tr in trs], dtype=bool),
        )
