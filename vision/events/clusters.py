"""Impulses through touching balls: chains (Newton's cradle) and packs (the rack at the break).

A mixin of EventDetector: the state it reads (motion, last hits and starts, reported pairs) belongs to
the detector; this module holds only the reasoning about clusters, to keep each file to one idea.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
from scipy.optimize import nnls

from calibration.table import Table
from rules.events import Event, EventType
from vision.events.disturb import left_covered
from vision.events.fit import fit_line, run_from_rest
from vision.events.history import History
from vision.events.motion import Motion, MotionTracker, Onset
from vision.events.settings import EventSettings, noise_model

Edge = tuple[int, int]
# a touching ball is behind balls that left together when their momentum points away from it within 60 degrees
# (an impulse runs along the lines of centres; a chain may bend)
_BEHIND_COS = 0.5
JUMP_MEMORY_S = 1.0  # a ball whose track jumped this recently is no striker (as causes.RESUME_S)
RUN_FROM_HIT_S = 1.0  # a pack ball starting up to this after the pack was hit may have run from it (as RESUME_S)


def pack_impulses(
    pos: Mapping[int, np.ndarray], dv: Mapping[int, tuple[np.ndarray, float]], edges: Sequence[Edge]
) -> dict[Edge, tuple[float, float]]:
    """The impulses through a pack of touching balls that explain the velocity changes seen.

    Equal masses: an impulse J >= 0 (in mm/s of velocity it gives) along an edge (i, j) adds J n to j and
    -J n to i, n the unit line of centres i -> j. `pos`: centres at the impact; `dv`: {ball: (measured
    velocity change, its standard error)}, balls without a measurement are left free. Solved by
    non-negative least squares weighted by the errors (an impulse can only push). Returns {edge: (J,
    sigma_J)}, sigma_J the error of the end balls' velocities (what J is read from).
    """
    balls = sorted({b for e in edges for b in e if b in dv})
    if not balls or not edges:
        return {}
    row = {b: k for k, b in enumerate(balls)}
    a = np.zeros((2 * len(balls), len(edges)))
    y = np.zeros(2 * len(balls))
    w = np.zeros(2 * len(balls))
    for k, (i, j) in enumerate(edges):
        n = np.asarray(pos[j], float) - np.asarray(pos[i], float)
        n = n / max(float(np.hypot(*n)), 1e-9)
        for b, sign in ((j, 1.0), (i, -1.0)):
            if b in row:
                a[2 * row[b] : 2 * row[b] + 2, k] += sign * n
    for b, r in row.items():
        y[2 * r : 2 * r + 2] = dv[b][0]
        w[2 * r : 2 * r + 2] = 1.0 / max(dv[b][1], 1e-6)
    aw = a * w[:, None]
    j_est, _ = nnls(aw, y * w)
    sig_fit = _active_errors(aw, j_est > 0)
    out: dict[Edge, tuple[float, float]] = {}
    for k, (i, j) in enumerate(edges):
        sig = [dv[b][1] for b in (i, j) if b in dv]
        crude = float(np.sqrt(np.sum(np.square(sig))))
        out[(i, j)] = (float(j_est[k]), float(sig_fit[k]) if np.isfinite(sig_fit[k]) else crude)
    return out


def _active_errors(aw: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Standard errors of the impulses the fit kept (the weighted least-squares covariance of the active
    set): an impulse through a chain is read by every ball it moved (the struck end pushed back, the far
    end sent on, the middle ones left between), so it is known better than from its two end balls alone.
    NaN for impulses at zero and for any the data cannot separate (a degenerate set), which keep the
    end balls' error."""
    out = np.full(aw.shape[1], np.nan)
    idx = np.flatnonzero(active)
    if not len(idx):
        return out
    m = aw[:, idx].T @ aw[:, idx]
    ev = np.linalg.eigvalsh(m)
    if ev[0] <= 1e-9 * max(float(ev[-1]), 1e-300):
        return out  # not all kept impulses are determined by the data
    out[idx] = np.sqrt(np.diag(np.linalg.inv(m)))
    return out


def _hops(members: set[int], edges: Sequence[Edge], start: set[int]) -> tuple[dict[int, int], dict[int, int]]:
    """Edges between members from each member to the nearest of `start` (unreached: the pack's size), and
    each reached member's neighbour one hop nearer (breadth first)."""
    hops = dict.fromkeys(start, 0)
    parent: dict[int, int] = {}
    todo = list(start)
    while todo:
        x = todo.pop(0)
        for a, b in edges:
            for u, v in ((a, b), (b, a)):
                if u == x and v in members and v not in hops:
                    hops[v], parent[v] = hops[x] + 1, x
                    todo.append(v)
    return {b: hops.get(b, len(members)) for b in members}, parent


class ClusterLogic:
    table: Table
    s: EventSettings
    fps: float
    ids: tuple[str, ...]
    motion: MotionTracker
    last_hit: np.ndarray
    started: np.ndarray
    last_pair: dict[tuple[int, int], float]
    hist: History
    now: float
    D: int  # frames of look-ahead
    W: int  # frames of the fit before an event
    R: float  # ball radius, mm
    jumps: dict[int, float]  # per ball: time of its last start that was a jump of the track
    hit_from: dict[tuple[int, int], float]  # (striker, ball it set moving): contact time
    caused_by: dict[tuple[int, int], float]  # (cause, started ball): start time, when no contact was proven
    first_hit_t: float
    behind: set[int]  # ids of pending onsets taken as the struck ball behind a group (`_struck_behind`)
    pack_hit: dict[int, tuple[float, np.ndarray]]  # per ball: when a pack's solve proved it hit, its rest then

    def _emit(self, ev: Event) -> None:
        raise NotImplementedError

    def _contact_from_start(self, a: int, o: Onset) -> bool:
        raise NotImplementedError

    def _uncaused_start(self, o: Onset, group: list[Onset], witnesses: Sequence[Onset] = ()) -> bool:
        raise NotImplementedError

    def _cluster(self, o: Onset) -> dict[int, int]:
        """Balls at rest joined to the starting ball by a chain of touching balls: {ball: the next ball
        on the chain towards the starting one} (breadth first, so chains are shortest)."""
        t0 = o.t - 1.0 / self.fps
        pts = {x: a for x in range(len(self.ids)) if x != o.ball and (a := self.motion.anchor_at(x, t0)) is not None}
        pts[o.ball] = o.anchor
        parent = {o.ball: o.ball}
        todo = [o.ball]
        while todo:
            x = todo.pop(0)
            for y, p in pts.items():
                if y not in parent and self.table.ball_gap(pts[x], p) <= self.s.cause_gap_mm:
                    parent[y] = x
                    todo.append(y)
        del parent[o.ball]
        return parent

    def _recent(self, x: int, t: float) -> bool:
        w = 2 * self.s.cause_window_s
        return bool(abs(self.last_hit[x] - t) <= w or abs(self.started[x] - t) <= w)

    def _cluster_hit(self, o: Onset, members: set[int]) -> bool:
        """A ball joined to this one by touching balls (outside its own group) was hit or started, or a
        moving ball was touching one of them when this one started."""
        parent = self._cluster(o)
        return any(self._came_in(x, o.t) and not self._set_moving_by(members, x, o.t) for x in parent
                   if x not in members) or self._striker_at(o, parent, members) is not None

    def _came_in(self, x: int, t: float) -> bool:
        """Can ball x have passed an impulse into its cluster for a start at t: hit about then, or started before
        it or with it? One seen to start only later was set moving by the start, if by anything (seed-97
        frame_free: a hand pushed 15 into 5, 5 into 6; 6, seen to leave 0.1 s after them, was taken for the
        impulse that moved them, and the disturbance vanished); a struck ball seen to leave late is
        `_struck_behind`'s."""
        w = 2 * self.s.cause_window_s
        return bool(abs(self.last_hit[x] - t) <= w or -w <= self.started[x] - t <= self.s.cause_window_s)

    def _struck_behind(self, group: list[Onset], pending: Sequence[Onset]) -> tuple[Onset | None, bool]:
        """The ball the cue struck, when it is a touching ball behind balls that started with no cause: the
        struck ball of a push through touching balls passes its speed on at once and may be seen to creep off
        only frames after the balls it pushed (seed-83 frame_free: C pushed through 6 into 8; 8 flew off at
        2 m/s, C was seen to leave 0.1 s later and was taken for the impulse into their cluster, and its own
        start for one they caused: no stroke). (its pending onset, started within the push window after the
        group; whether one may still show: a touching ball behind the group that is still at rest). The balls
        left away from it (their momentum points away from its rest), nothing ran into their cluster and none
        of it was hit."""
        s = self.s
        t_g = min(o.t for o in group)
        members = {o.ball for o in group}
        momentum = sum((o.fit.v for o in group), np.zeros(2))
        late = t_g + s.push_window_s + 1.0 / self.fps  # an onset is dated to within a frame
        best: tuple[float, Onset] | None = None
        behind_at_rest = False
        for o in group:
            parent = self._cluster(o)
            pack = members | set(parent)
            if any(t_g - 2 * s.cause_window_s <= tc <= t_g + s.cause_window_s and len(set(pair) & pack) == 1
                   for pair, tc in self.last_pair.items()):
                return None, False  # a ball from outside hit the pack (not one the pack hit later)
            if self._striker_at(o, parent, members) is not None:
                return None, False
            for x in parent:
                anchor = self.motion.anchor_at(x, t_g - 1.0 / self.fps)
                if x in members or anchor is None:
                    continue
                way = o.anchor - anchor
                cos = float(np.dot(momentum, way)) / max(float(np.hypot(*momentum) * np.hypot(*way)), 1e-9)
                if cos < _BEHIND_COS:
                    continue  # the group did not leave away from it: pushed by them, if anything
                behind_at_rest |= self.motion.anchor_at(x, self.now) is not None
                for w in pending:
                    # it followed them on (a struck ball pushed through them leaves their way), in view: a
                    # centre shifted under a cover or a hand is no struck ball
                    if w.ball != x or not t_g < w.t <= late or float(np.dot(w.fit.v, momentum)) <= 0.0:
                        continue
                    if left_covered(self.hist, w, self.fps):
                        continue
                    if best is None or cos > best[0]:
                        best = (cos, w)
        return (best[1] if best else None), behind_at_rest and best is None

    def _stroke_behind(self, struck: Onset, group: list[Onset]) -> None:
        """The stroke on `struck`, a touching ball behind `group` (`_struck_behind`), at the group's start, and the
        contacts along the touching chain from it to each ball of the group, at that instant."""
        t0 = min(o.t for o in group)
        self.started[struck.ball] = struck.t
        self.last_hit[struck.ball] = max(self.last_hit[struck.ball], t0)
        if not self._uncaused_start(struck, [struck, *group], group):
            return  # too slow for a stroke: a disturbance, which proves no contact
        for o in group:
            parent = self._cluster(o)
            path = [struck.ball]
            while path[-1] in parent:
                path.append(parent[path[-1]])
            for a, b in itertools.pairwise(path):
                key = (min(a, b), max(a, b))
                if abs(t0 - self.last_pair.get(key, -np.inf)) < self.s.refractory_s:
                    continue
                self.last_pair[key] = t0
                self.hit_from[(a, b)] = t0
                self.last_hit[[a, b]] = np.maximum(self.last_hit[[a, b]], t0)
                balls = (self.ids[a], self.ids[b])
                self._emit(Event(EventType.BALL_CONTACT, t0, 0, 0.75, balls=balls, extra={"cluster": True}))
        self.first_hit_t = min(self.first_hit_t, t0)  # the struck ball's contact: the shot's first

    def _set_moving_by(self, members: set[int], x: int, t: float) -> bool:
        """Was ball x set moving by one of `members` about time t (its hit proven, or taken as its cause)? Then
        its start is no impulse into their cluster (seed-79 frame_russian71: C struck into 15 beside touching 12;
        12, already judged set moving by 15, was taken for the hit that moved C and 15: no stroke, a lost shot
        and every later turn shifted)."""
        w = 2 * self.s.cause_window_s
        return any(abs(by.get((m, x), -np.inf) - t) <= w for m in members for by in (self.hit_from, self.caused_by))

    def _striker_at(self, o: Onset, parent: dict[int, int], members: set[int]) -> tuple[int, int] | None:
        """(moving ball, chain member) when a moving ball, not yet known to have hit anything, was within
        touching distance (plus a frame's run) of a resting ball of this one's chain when this one started:
        the hit on a line of touching balls (Newton's cradle) whose far end flew off while the balls between
        stayed still, and whose striker, slowed rather than stopped, shows too weak a kink to prove it.
        `members`: the balls that started with this one (its own among them), none a striker from outside."""
        c = self.hist.counter_at(o.t)
        best: tuple[float, int, int] | None = None
        for m in range(len(self.ids)):
            if m in members or m in parent or self.motion.status(m) is Motion.GONE:
                continue  # a ball of the group that started with this one is no striker from outside
            # a ball set moving in the same frame (hit in the same instant) strikes the chain too, if it ran at it
            same_time = abs(self.started[m] - o.t) <= self.s.cause_window_s
            if self.motion.anchor_at(m, o.t) is not None and not same_time:
                continue  # at rest: no striker
            if o.t - self.jumps.get(m, -np.inf) <= JUMP_MEMORY_S:
                continue  # its track jumped: no ball running into the chain
            tk, xy = self.hist.track(m, c - 1, c + 1)
            if len(tk) < 2:
                continue
            speed = float(np.hypot(*(xy[-1] - xy[0]))) / max(float(tk[-1] - tk[0]), 1.0 / self.fps)
            t0 = o.t - 1.0 / self.fps
            for y in parent:
                a = self.motion.anchor_at(y, t0)
                if a is None or (same_time and float(np.dot(xy[-1] - xy[0], a - xy[0])) <= 0):
                    continue
                gap = float(np.min(np.hypot(*(xy - a).T))) - 2 * self.R
                if gap <= self.s.cause_gap_mm + speed / self.fps and (best is None or gap < best[0]):
                    best = (gap, m, y)
        return None if best is None else (best[1], best[2])

    def _contacts_in_cluster(self, o: Onset) -> None:
        """The chain of contacts that carried an impulse through touching balls to this one: the first
        link proven by this ball's start, the links through balls that stayed still (Newton's cradle)
        reported at the start time with confidence 0.75 and extra {"cluster": true}. In a pack of three
        or more touching balls the impulses are resolved by momentum instead (`_pack_contacts`)."""
        proven = self._pack_contacts({o.ball: o.anchor}, o.t)
        if proven is not None and o.ball in proven:
            return
        parent = self._cluster(o)
        sources = [x for x in parent if self._recent(x, o.t)]
        path: list[int] = []
        if sources:
            depth = {x: self._depth(parent, x) for x in sources}
            x = min(sources, key=lambda y: depth[y])
            recent_hit = abs(self.last_hit[x] - o.t) <= 2 * self.s.cause_window_s
            t_src = float(self.last_hit[x]) if recent_hit else float(self.started[x])
        elif (hit := self._striker_at(o, parent, {o.ball})) is not None:
            striker, x = hit
            path, t_src = [striker], o.t  # the impulse passes through a still chain at once
            # a moving ball's contact: the shot's first, if none came before (seed-73 touching_cluster_hit: C
            # struck into 2-9-12, all its contacts passed on, so the shot had no first contact, and 12's
            # return into the line at 4.34 s was moved to 12's follow-push 60 ms later, after C's crossing)
            self.first_hit_t = min(self.first_hit_t, t_src)
        else:
            return
        path.append(x)
        while path[-1] in parent:
            path.append(parent[path[-1]])  # ends with the starting ball
        if proven is not None and not self._forced(o, path):
            return  # a pack whose impulses to this ball are too weak to read, with more than one way in
        for a, b in itertools.pairwise(path):
            key = (min(a, b), max(a, b))
            if abs(t_src - self.last_pair.get(key, -np.inf)) < self.s.refractory_s:
                continue
            if b == o.ball and self._contact_from_start(a, o):
                continue
            self.last_pair[key] = t_src
            self.last_hit[[a, b]] = np.maximum(self.last_hit[[a, b]], t_src)
            ev = Event(
                EventType.BALL_CONTACT, t_src, 0, 0.75, balls=(self.ids[a], self.ids[b]), extra={"cluster": True}
            )
            self._emit(ev)

    def _cluster_pairs(self, group: list[Onset]) -> None:
        """An impulse through a pack of touching balls (the rack at the break), resolved by momentum."""
        self._pack_contacts({o.ball: o.anchor for o in group}, min(o.t for o in group))

    def _forced(self, o: Onset, path: list[int]) -> bool:
        """Is the chain from the hit ball to the starting one the only way an impulse could have come (a
        line of touching balls, Newton's cradle)? Each ball after the first touches no resting ball but
        its two neighbours on the path, so the start proves every link even where the pack's impulses are
        too weak to read (a slow push through a line)."""
        t0 = o.t - 1.0 / self.fps
        pts = {x: a for x in range(len(self.ids)) if x != o.ball and (a := self.motion.anchor_at(x, t0)) is not None}
        pts[o.ball] = o.anchor
        for y in path[1:]:
            if y not in pts:
                return False
            near = [z for z, p in pts.items() if z != y and self.table.ball_gap(pts[y], p) <= self.s.cause_gap_mm]
            if len(near) > 2 or any(z not in path for z in near):
                return False
        return True

    def _pack_contacts(self, seeds: dict[int, np.ndarray], t0: float) -> set[int] | None:
        """The contacts inside the pack of touching balls around `seeds` (balls that started at about t0).

        At the impact every ball of the pack is at rest, so its velocity a few frames later is the sum of
        the impulses it received along its lines of centres (equal masses); the strikers' velocity changes
        add the impulses from outside. `pack_impulses` finds the impulses that explain what is seen; an
        impulse of at least `kink_z` standard errors (and `kink_min_mm_s`) is a contact, reported at the
        earliest hit of the pack (the physics passes the rack's impulse on at one instant), confidence
        0.6..0.75, extra {"cluster": true, "pack": [its balls]}. An impulse passed through a ball that
        barely moved is seen through the balls beyond it; one too weak to stand out of the velocity noise
        is not reported (a camera cannot tell it from none). Returns the balls with a contact proven in
        the pack (reported now or before), None when there is no pack (fewer than 3 balls or nothing
        measured), to let the caller fall back to a plain chain.
        """
        s, h, dt = self.s, self.hist, 1.0 / self.fps
        w = 2 * s.cause_window_s
        recent = [x for x in range(len(self.ids)) if self._recent(x, t0)]
        hits = [float(self.last_hit[x]) for x in recent if abs(self.last_hit[x] - t0) <= w]
        starts = [float(self.started[x]) for x in recent if abs(self.started[x] - t0) <= w]
        t_src = min(hits) if hits else min(starts, default=t0)  # contacts are timed better than starts
        anchors = dict(seeds)
        for x in range(len(self.ids)):
            p = self.motion.anchor_at(x, min(t0, t_src) - dt)
            if x not in anchors and p is not None:
                anchors[x] = p
        members = set(seeds)
        todo = list(seeds)
        while todo:  # the pack: resting balls joined to the seeds by touching balls
            x = todo.pop()
            for y, p in anchors.items():
                if y not in members and self.table.ball_gap(anchors[x], p) <= s.cause_gap_mm:
                    members.add(y)
                    todo.append(y)
        if len(members) < 3:
            return None
        c_src = h.counter_at(t_src)
        c_hi = min(h.newest, c_src + self.D + 1)
        nm = noise_model(s)
        pos: dict[int, np.ndarray] = {x: anchors[x] for x in members}
        dv: dict[int, tuple[np.ndarray, float]] = {}
        for x in members:
            t, xy = h.track(x, c_src + 1, c_hi)
            f = fit_line(t, xy, nm)
            if f is not None:
                dv[x] = (f.v, f.sigma_v)
        edges: list[Edge] = [
            (x, y) for x, y in itertools.combinations(sorted(members), 2)
            if self.table.ball_gap(anchors[x], anchors[y]) <= s.cause_gap_mm
        ]
        for x in range(len(self.ids)):  # strikers: moving balls at the pack at the impact
            if x in members or self.motion.status(x) is Motion.GONE:
                continue
            if x in anchors:
                self._struck_late(x, members, anchors, t_src, pos, edges)
                continue
            t_pre, xy_pre = h.track(x, c_src - self.W, c_src)
            t_post, xy_post = h.track(x, c_src + 1, c_hi)
            f_pre, f_post = fit_line(t_pre, xy_pre, nm), fit_line(t_post, xy_post, nm)
            if f_pre is None or f_post is None:
                self._struck_late(x, members, anchors, t_src, pos, edges)
                continue
            # where its incoming line first reaches a ball of the pack (t_src may be a frame off: from starts)
            ts = np.linspace(t_src - 2 * dt, t_src + 2 * dt, 81)
            line = f_pre.at(ts)
            first = [
                (int(np.argmax(ok)), y) for y in members
                if (ok := np.hypot(*(line - anchors[y]).T) - 2 * self.R <= s.touch_tol_mm).any()
            ]
            p = line[min(first)[0]] if first else None
            near = [y for y in members if p is not None and self.table.ball_gap(p, anchors[y]) <= s.touch_tol_mm]
            if p is None or not near:
                self._struck_late(x, members, anchors, t_src, pos, edges)
            else:
                pos[x] = p
                dv[x] = (f_post.v - f_pre.v, float(np.hypot(f_pre.sigma_v, f_post.sigma_v)))
                edges.extend((x, y) for y in near)
        if len(dv) < 2:
            return None
        pack = sorted(self.ids[x] for x in members)
        proven: set[int] = set()
        # passed on in order: from the balls the strikers met outwards (one instant, but the rules read the
        # log in order: 12 into 9, then 9 into 2, then 2 into C)
        entry = {y for x, y in edges if x not in members}
        hops, parent = _hops(members, edges, entry)
        found: dict[Edge, float] = {}  # edge -> z of its impulse
        for (x, y), (j, sig) in pack_impulses(pos, dv, edges).items():
            z = j / max(sig, 1e-9)
            if z >= s.kink_z and j >= s.kink_min_mm_s:
                found[(x, y)] = z
        inner = [(x, y) for x, y in edges if x in members and y in members]
        degree = [sum(b in e for e in inner) for b in members]
        is_line = bool(entry) and len(inner) == len(members) - 1 and max(degree) <= 2
        if is_line:
            # a line of touching balls: an impulse proven beyond a link passed through it, however little
            # the balls on the way moved (a slow push through a line is too weak to read link by link)
            for x, y in list(found):
                if x in members and y in members:
                    b = x if hops[x] > hops[y] else y
                    while b in parent:
                        link = (min(b, parent[b]), max(b, parent[b]))
                        if link not in found and (link[1], link[0]) not in found:
                            found[link] = s.kink_z
                        b = parent[b]
        for (x, y), z in sorted(found.items(), key=lambda kv: min(hops.get(b, -1) for b in kv[0])):
            key = (min(x, y), max(x, y))
            if x not in members or y not in members:
                # a striker's own contact is found from its track; when its track showed none confidently (a
                # striker slowed, not stopped, by a still line of balls) the pack's momentum proves it
                striker = x if x not in members else y
                if not is_line or abs(self.last_hit[striker] - t_src) <= 2 * s.cause_window_s:
                    continue
                self.first_hit_t = min(self.first_hit_t, t_src)  # a moving ball's contact (as `_striker_at`)
            else:
                proven.update(key)
                if abs(t_src - self.last_pair.get(key, -np.inf)) < 2 * s.cause_window_s:
                    continue
            self.last_pair[key] = t_src
            self.last_hit[[x, y]] = np.maximum(self.last_hit[[x, y]], t_src)
            conf = 0.6 + 0.15 * min(1.0, (z - s.kink_z) / s.kink_z)
            extra = {"cluster": True, "pack": pack}
            balls = (self.ids[x], self.ids[y])
            self._emit(Event(EventType.BALL_CONTACT, t_src, 0, round(conf, 4), balls=balls, extra=extra))
        self.pack_hit.update({x: (t_src, anchors[x]) for x in proven})
        return proven

    def _pack_moved(self, o: Onset) -> bool:
        """Did a pack's momentum solve prove an impulse on o's ball, and has the ball run off its rest since that hit
        at one speed, from the hit on: its samples since lie on a straight run from its rest (within twice the noise
        at that speed), along its start? A slow ball is seen to leave only once `onset_mm` off (blue cloth, seed-287
        break: 8 crept off at 60 mm/s, seen 0.1 s after the rack was hit, so 5 behind it was taken for a second
        stroke, 1.14.2). A ball that stood still after the hit and left later (struck, touched) is no such run."""
        t_hit, rest = self.pack_hit.get(o.ball, (np.inf, None))
        if rest is None or not t_hit <= o.t <= t_hit + RUN_FROM_HIT_S:
            return False
        t, xy = self.hist.track(o.ball, self.hist.counter_at(t_hit), o.n_first + self.D)
        v = run_from_rest(t - t_hit, xy - rest, noise_model(self.s), 3.0 / self.fps)
        return v is not None and float(np.dot(v, o.fit.v)) > 0.0

    def _struck_late(self, x: int, members: set[int], anchors: dict[int, np.ndarray], t_src: float,
                     pos: dict[int, np.ndarray], edges: list[Edge]) -> None:
        """A ball outside the pack whose incoming line does not reach it, with a contact already proven on a member
        about then: struck within a frame or two of its hit (seed-163 frame_free: C struck late in a frame into 6,
        dead on it the next), it has no incoming line to read its impulse from. It joins the solve as a striker
        where its track met the member, its impulse left free (no velocity change given)."""
        w = 2 * self.s.cause_window_s
        hit = [y for y in members if abs(self.last_pair.get((min(x, y), max(x, y)), -np.inf) - t_src) <= w]
        if not hit or (x in anchors and any(self.table.ball_gap(anchors[x], anchors[y]) <= self.s.cause_gap_mm
                                            for y in hit)):
            return  # one resting touching the pack is a member's business, not a striker
        c = self.hist.counter_at(t_src)
        t, xy = self.hist.track(x, c, c + 2)
        if len(t) == 0:
            return
        gaps = [min(self.table.ball_gap(p, anchors[y]) for y in hit) for p in xy]
        k = int(np.argmin(gaps))
        if gaps[k] > self.s.cause_gap_mm:
            return
        pos[x] = xy[k]
        edges.extend((x, y) for y in hit)

    @staticmethod
    def _depth(parent: dict[int, int], x: int) -> int:
        d = 0
        while x in parent:
            x, d = parent[x], d + 1
        return d
