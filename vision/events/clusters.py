"""Impulses through touching balls: chains (Newton's cradle) and packs (the rack at the break).

A mixin of EventDetector: the state it reads (motion, last hits and starts, reported pairs) belongs to
the detector; this module holds only the reasoning about clusters, to keep each file to one idea.
"""

from __future__ import annotations

import itertools

import numpy as np

from calibration.table import Table
from rules.events import Event, EventType
from vision.events.motion import MotionTracker, Onset
from vision.events.settings import EventSettings


class ClusterLogic:
    table: Table
    s: EventSettings
    fps: float
    ids: tuple[str, ...]
    motion: MotionTracker
    last_hit: np.ndarray
    started: np.ndarray
    last_pair: dict[tuple[int, int], float]

    def _emit(self, ev: Event) -> None:
        raise NotImplementedError

    def _contact_from_start(self, a: int, o: Onset) -> bool:
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
        """A ball joined to this one by touching balls (outside its own group) was hit or started."""
        return any(self._recent(x, o.t) for x in self._cluster(o) if x not in members)

    def _contacts_in_cluster(self, o: Onset) -> None:
        """The chain of contacts that carried an impulse through touching balls to this one: the first
        link proven by this ball's start, the links through balls that stayed still (Newton's cradle)
        reported at the start time with confidence 0.75 and extra {"cluster": true}."""
        parent = self._cluster(o)
        sources = [x for x in parent if self._recent(x, o.t)]
        if not sources:
            return
        depth = {x: self._depth(parent, x) for x in sources}
        x = min(sources, key=lambda y: depth[y])
        recent_hit = abs(self.last_hit[x] - o.t) <= 2 * self.s.cause_window_s
        t_src = float(self.last_hit[x]) if recent_hit else float(self.started[x])
        path = [x]
        while path[-1] in parent:
            path.append(parent[path[-1]])  # ends with the starting ball
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
        """An impulse through a pack of touching balls (the rack at the break): every touching pair of
        which both balls were hit or started within the cause window exchanged it. Reported at the
        earliest hit of the pack, confidence 0.6, extra {"cluster": true}."""
        t0 = min(o.t for o in group)
        recent = [x for x in range(len(self.ids)) if self._recent(x, t0)]
        anchors = {o.ball: o.anchor for o in group}
        for x in recent:
            rest_at = self.motion.anchor_at(x, t0 - 1.0 / self.fps)
            if x not in anchors and rest_at is not None:
                anchors[x] = rest_at
        w = 2 * self.s.cause_window_s
        hits = [float(self.last_hit[x]) for x in recent if abs(self.last_hit[x] - t0) <= w]
        starts = [float(self.started[x]) for x in recent if abs(self.started[x] - t0) <= w]
        t_src = min(hits) if hits else min(starts, default=t0)  # contacts are timed better than starts
        keys = sorted(anchors)
        for i, x in enumerate(keys):
            for y in keys[i + 1 :]:
                if self.table.ball_gap(anchors[x], anchors[y]) > self.s.touch_tol_mm:
                    continue
                key = (x, y)
                if abs(t_src - self.last_pair.get(key, -np.inf)) < 2 * self.s.cause_window_s:
                    continue
                self.last_pair[key] = t_src
                ev = Event(
                    EventType.BALL_CONTACT, t_src, 0, 0.6, balls=(self.ids[x], self.ids[y]), extra={"cluster": True}
                )
                self._emit(ev)

    @staticmethod
    def _depth(parent: dict[int, int], x: int) -> int:
        d = 0
        while x in parent:
            x, d = parent[x], d + 1
        return d
