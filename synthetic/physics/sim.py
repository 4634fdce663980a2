"""The shot simulator: a world of balls on one table, stepped in time, writing exact events and frames.

Free motion is closed-form (motion.py); steps are at most `dt_max` long and end exactly at every motion
transition, frame time and contact, so event times are exact to the chord approximation (< 1 um).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.table import CUSHIONS, POCKETS, Table
from rules.events import BALL_IDS, Direction, Event, EventType, Line
from synthetic.physics.annotate import PUSH_WINDOW_S, PushWatch, frozen_items, push_watch, touching_items
from synthetic.physics.collide import Kind, find_first, resolve_ball_ball, resolve_wall
from synthetic.physics.geometry import TableGeometry
from synthetic.physics.motion import advance, classify, transition_times
from synthetic.physics.params import MOVING, OUT_OF_PLAY, Motion, PhysicsParams
from synthetic.physics.stroke import Stroke

_FIRST_MOVING, _LAST_MOVING = int(min(MOVING)), int(max(MOVING))
_FIRST_OUT = int(min(OUT_OF_PLAY))


def _moving(mode: np.ndarray) -> np.ndarray:
    return (mode >= _FIRST_MOVING) & (mode <= _LAST_MOVING)


def _out(mode: np.ndarray) -> np.ndarray:
    return mode >= _FIRST_OUT


@dataclass
class Frames:
    """Per-frame samples collected while the world runs."""

    t: list[float] = field(default_factory=list)
    pos: list[np.ndarray] = field(default_factory=list)
    vel: list[np.ndarray] = field(default_factory=list)
    rot: list[np.ndarray] = field(default_factory=list)
    mode: list[np.ndarray] = field(default_factory=list)


@dataclass(frozen=True)
class Action:
    """Something a person did at time t, for the occluders: a stroke or a hand on the table."""

    kind: str  # "stroke" | "hand"
    t: float
    xy: tuple[float, float]
    angle: float = 0.0
    speed: float = 0.0


def rodrigues(rv: np.ndarray) -> np.ndarray:
    """Rotation matrices (k, 3, 3) for rotation vectors (k, 3)."""
    th = np.linalg.norm(rv, axis=1)
    out = np.repeat(np.eye(3)[None], len(rv), axis=0)
    m = th > 1e-12
    if m.any():
        k = rv[m] / th[m, None]
        K = np.zeros((m.sum(), 3, 3))
        K[:, 0, 1], K[:, 0, 2], K[:, 1, 2] = -k[:, 2], k[:, 1], -k[:, 0]
        K[:, 1, 0], K[:, 2, 0], K[:, 2, 1] = k[:, 2], -k[:, 1], k[:, 0]
        s, c = np.sin(th[m])[:, None, None], np.cos(th[m])[:, None, None]
        out[m] = np.eye(3)[None] + s * K + (1 - c) * (K @ K)
    return out


class Simulator:
    """Balls on a table. Call place/strike/disturb/run; events and frames accumulate from t = 0."""

    def __init__(
        self,
        table: Table,
        fps: float,
        params: PhysicsParams | None = None,
        ids: tuple[str, ...] = BALL_IDS,
        seed: int = 0,
    ) -> None:
        if fps <= 0:
            raise ValueError(f"fps must be positive, got {fps!r}")
        self.table = table
        self.geo = TableGeometry.of(table)
        self.p = params or PhysicsParams()
        self.fps = float(fps)
        self.ids = ids
        self.rng = np.random.default_rng(seed)
        b = len(ids)
        self.R = table.ball_radius
        self.pos = np.full((b, 3), np.nan)
        self.vel = np.zeros((b, 3))
        self.w = np.zeros((b, 3))
        self.rot = rodrigues(self.rng.normal(size=(b, 3)) * 3.0)
        self._rv = np.zeros((b, 3))
        self.mode = np.full(b, Motion.ABSENT, dtype=np.int8)
        self.t = 0.0
        self.events: list[Event] = []
        self.frames = Frames()
        self.actions: list[Action] = []
        self.shot_active = False
        self._next_frame = 0
        self._pi, self._pj = (a.astype(int) for a in np.triu_indices(b, 1))
        self._pairs_in_contact: set[tuple[int, int]] = set()
        self._walls_in_contact: set[tuple[int, str]] = set()
        self._lines = {Line.CENTRE: 0.0, Line.HOUSE: table.house_line_x}
        self._side: dict[Line, np.ndarray] = {ln: np.zeros(b) for ln in self._lines}
        self.record = True  # False: trial runs for aiming keep no frames
        self._first_pending: int | None = None  # the struck ball, until its first contact
        self._push: PushWatch | None = None
        self._start_rest: dict[int, tuple[str, float]] = {}  # frozen balls at the stroke: cushion, gap
        self._start_pos = self.pos.copy()
        self._start_touching: set[frozenset[int]] = set()
        # balls that left the bed, drawn in flight until they rest on the rail or drop below it
        self._flying: dict[int, tuple[float, np.ndarray, np.ndarray]] = {}

    def clone(self, params: PhysicsParams | None = None) -> Simulator:
        """A copy of the current ball state and time with no events or frames, for trial shots."""
        c = Simulator(self.table, self.fps, params or self.p, self.ids)
        c.pos, c.vel, c.w, c.mode = self.pos.copy(), self.vel.copy(), self.w.copy(), self.mode.copy()
        c._side = {ln: v.copy() for ln, v in self._side.items()}
        c.t, c._next_frame = self.t, self._next_frame  # same step boundaries: a trial with the same
        c.record = False  # parameters reproduces the real run bit for bit
        return c

    # --- setup ------------------------------------------------------------------------------------
    def index(self, ball: str) -> int:
        try:
            return self.ids.index(ball)
        except ValueError as exc:
            raise ValueError(f"unknown ball id {ball!r}; ids: {self.ids}") from exc

    def place(self, ball: str, xy: tuple[float, float]) -> None:
        """Put a ball at rest on the bed (a rack, a spot, ball in hand)."""
        i = self.index(ball)
        hanging = self.table.on_bed(xy) and self.table.pocket_at(xy, reach_mm=self.R) is not None
        if not (self.table.on_bed(xy, margin_mm=self.R - 1e-6) or hanging):
            raise ValueError(f"ball {ball!r} at {xy} is not on the bed")
        self.pos[i] = (float(xy[0]), float(xy[1]), self.R)
        self.vel[i] = 0.0
        self.w[i] = 0.0
        self.mode[i] = Motion.STATIONARY
        for ln, x in self._lines.items():
            self._side[ln][i] = np.sign(round(xy[0] - x, 9))

    def remove(self, ball: str, mode: Motion = Motion.ABSENT) -> None:
        i = self.index(ball)
        if mode is not Motion.OFF_TABLE:
            self._flying.pop(i, None)
        self.pos[i] = np.nan
        self.vel[i] = 0.0
        self.w[i] = 0.0
        self.mode[i] = mode

    def in_play(self) -> list[str]:
        return [b for b, m in zip(self.ids, self.mode, strict=True) if m < _FIRST_OUT]

    def positions(self) -> dict[str, tuple[float, float]]:
        return {b: (float(self.pos[i, 0]), float(self.pos[i, 1])) for i, b in enumerate(self.ids) if self._live(i)}

    def moving(self) -> bool:
        return bool(_moving(self.mode).any())

    def _live(self, i: int) -> bool:
        return int(self.mode[i]) not in OUT_OF_PLAY

    # --- actions ----------------------------------------------------------------------------------
    def strike(self, stroke: Stroke, extra: dict[str, Any] | None = None) -> None:
        """The tip meets the ball now: shot_start with the position (and frozen/touching gaps)."""
        i = self.index(stroke.ball)
        if not self._live(i):
            raise ValueError(f"cannot strike ball {stroke.ball!r}: it is not on the table")
        ex = dict(extra or {})
        if self.moving():
            ex["early"] = True
            ex["moving"] = [self.ids[k] for k in np.flatnonzero(_moving(self.mode))]
        pos = self.positions()
        ex["speed_mm_s"] = round(float(np.hypot(stroke.speed, stroke.lift)), 1)
        frozen, touching = frozen_items(self.table, pos), touching_items(self.table, pos)
        self._emit(EventType.SHOT_START, ball=stroke.ball, positions=pos, frozen=frozen, touching=touching, extra=ex)
        self._start_rest = {self.index(f["ball"]): (f["cushion"], f["gap_mm"]) for f in frozen}
        self._start_pos = self.pos.copy()
        self._start_touching = {frozenset(self.index(b) for b in item["balls"]) for item in touching}
        live = ~_out(self.mode)
        self._push = push_watch(self.table, self.ids, self.pos, live, i, stroke.angle, self.t, ex)
        v, w = stroke.initial_state(self.R)
        self.vel[i] = v
        self.w[i] = w
        self.mode[i] = Motion.SLIDING
        classify(self.pos, self.vel, self.w, self.mode, self.R)
        self.shot_active = True
        self._first_pending = i
        xy = (float(self.pos[i, 0]), float(self.pos[i, 1]))
        self.actions.append(Action("stroke", self.t, xy, stroke.angle, stroke.speed))

    def disturb(self, ball: str, vxy: tuple[float, float]) -> None:
        """A hand or sleeve moves a ball (1.17): no stroke, the ball starts to move."""
        i = self.index(ball)
        extra = {"speed_mm_s": round(float(np.hypot(*vxy)), 1), "during_shot": self.shot_active}
        self._emit(EventType.BALL_DISTURBED, ball=ball, extra=extra)
        self.vel[i, :2] = vxy
        self.mode[i] = Motion.SLIDING
        classify(self.pos, self.vel, self.w, self.mode, self.R)
        self.actions.append(Action("hand", self.t, (float(self.pos[i, 0]), float(self.pos[i, 1]))))

    def drop(self, ball: str, pocket: str, extra: dict[str, Any] | None = None) -> None:
        """A ball hanging over a pocket falls by itself (1.23)."""
        i = self.index(ball)
        ex = dict(extra or {})
        if not self.shot_active:
            ex["late"] = True
        self._emit(EventType.POT, ball=ball, pocket=pocket, extra=ex)
        self.remove(ball, Motion.POTTED)
        self._forget(i)

    def hand(self, xy: tuple[float, float]) -> None:
        """A hand over the table now (placing or spotting a ball): an occluder only."""
        self.actions.append(Action("hand", self.t, xy))

    # --- running ----------------------------------------------------------------------------------
    def run_until_rest(self, timeout: float = 30.0) -> float:
        """Run until every ball has stopped (shot_end) or timeout seconds passed; returns the time."""
        t_end = self.t + timeout
        while self.moving() and self.t < t_end - 1e-12:
            self.run(min(t_end, self.t + 1.0) - self.t, stop_at_rest=True)
        return self.t

    def run(self, duration: float, stop_at_rest: bool = False, stop_after: int | None = None) -> None:
        """Advance `duration` seconds (frames are sampled on the way); `stop_after`: stop once the event
        list has grown past that many events (trial shots)."""
        t_end = self.t + duration
        stuck = 0
        while self.t < t_end - 1e-12:
            if stop_after is not None and len(self.events) > stop_after:
                return
            moving = _moving(self.mode)
            if not moving.any():
                if stop_at_rest:
                    return
                self._idle_until(t_end)
                return
            h = self._step_length(t_end, moving)
            t_before = self.t
            self._step(h, moving)
            stuck = stuck + 1 if self.t - t_before < 1e-7 else 0
            if stuck > 5000:
                self._unstick()
                stuck = 0
            if self._push is not None and (self.t >= self._push.t0 + PUSH_WINDOW_S - 1e-9 or not self.moving()):
                self._push.finish(self.pos)
                self._push = None
            if self.shot_active and not self.moving():
                self.shot_active = False
                self._emit(EventType.SHOT_END, positions=self.positions())

    def _step_length(self, t_end: float, moving: np.ndarray) -> float:
        tt = transition_times(self.pos, self.vel, self.w, self.mode, self.R, self.p)
        t_frame = self._next_frame / self.fps
        h = min(self.p.dt_max, t_end - self.t, t_frame - self.t, float(tt[moving].min()))
        if self._push is not None and self._push.t0 + PUSH_WINDOW_S > self.t:
            h = min(h, self._push.t0 + PUSH_WINDOW_S - self.t)
        return float(max(h, 0.0))

    def _step(self, h: float, moving: np.ndarray) -> None:
        live = ~_out(self.mode)
        pos1, vel1, w1 = advance(self.pos, self.vel, self.w, self.mode, h, self.R, self.p)
        pos0 = np.where(live[:, None], self.pos, 1e9)
        hit = find_first(self.geo, pos0, np.where(live[:, None], pos1, 1e9), self.vel, live, moving, self._pi, self._pj)
        if hit is not None and hit.s < 1.0:
            h = hit.s * h
            pos1, vel1, w1 = advance(self.pos, self.vel, self.w, self.mode, h, self.R, self.p)
        self._commit(h, pos1, vel1, w1, live)
        if hit is not None:
            self._resolve(hit.kind, hit.i, hit.j)
        self._land()
        classify(self.pos, self.vel, self.w, self.mode, self.R)
        self._release_contacts()
        if abs(self.t - self._next_frame / self.fps) < 1e-9:
            self._sample()

    def _commit(self, h: float, pos1: np.ndarray, vel1: np.ndarray, w1: np.ndarray, live: np.ndarray) -> None:
        t0 = self.t
        for ln, x in self._lines.items():
            side = self._side[ln]
            x1 = pos1[:, 0] - x
            new = np.where(live, np.sign(np.round(x1, 9)), 0.0)
            crossed = live & (side != 0) & (new != 0) & (new != side)
            for i in np.flatnonzero(crossed):
                x0 = self.pos[i, 0] - x
                frac = x0 / (x0 - x1[i]) if x0 != x1[i] else 1.0
                to = Direction.REAR if new[i] > 0 else Direction.FRONT
                self._emit(EventType.LINE_CROSS, ball=self.ids[i], line=ln, to=to, t=t0 + frac * h)
            upd = live & (new != 0)
            side[upd] = new[upd]
        self._rv += 0.5 * (self.w + w1) * h
        self.pos, self.vel, self.w = pos1, vel1, w1
        self.t = t0 + h

    def _resolve(self, kind: Kind, i: int, j: int) -> None:
        ms = self.p.min_event_speed
        if kind is Kind.BALL:
            # the hitter (the faster ball before the impulse) is named first
            a, b = (i, j) if np.linalg.norm(self.vel[i]) >= np.linalg.norm(self.vel[j]) else (j, i)
            speed = resolve_ball_ball(self.pos, self.vel, self.w, i, j, self.R, self.p)
            key = (min(i, j), max(i, j))
            if speed > ms and key not in self._pairs_in_contact:
                extra: dict[str, Any] = {"speed_mm_s": round(speed, 1)}
                if self._first_pending is not None and self._first_pending in (i, j):
                    extra["first"] = True  # the struck ball's first contact of the shot
                    self._first_pending = None
                if frozenset((i, j)) in self._start_touching:
                    extra["cluster"] = True  # the pair touched at the stroke
                self._emit(EventType.BALL_CONTACT, balls=(self.ids[a], self.ids[b]), extra=extra)
            if speed > 0:
                self._pairs_in_contact.add(key)
            self._wake(i)
            self._wake(j)
        elif kind in (Kind.CUSHION, Kind.JAW):
            wall_extra: dict[str, Any] = {}
            if kind is Kind.CUSHION:
                name, n_in = CUSHIONS[j], self.geo.seg_n[j]
            else:
                name = self.geo.jaw_cushion[j]
                d = self.pos[i, :2] - self.geo.jaw_xy[j]
                n_in = d / np.linalg.norm(d)
                wall_extra = {"jaw": self.geo.jaw_pocket[j]}
                self._note4(i, j)
            at_rest = i in self._start_rest and float(np.linalg.norm(self.pos[i] - self._start_pos[i])) < 1e-3
            if at_rest and self._start_rest[i][0] == name:
                wall_extra = {**wall_extra, "frozen": True, "gap_mm": self._start_rest[i][1]}
            speed = resolve_wall(self.pos, self.vel, self.w, i, n_in, self.geo, self.p, jaw=kind is Kind.JAW)
            if speed > ms and (i, name) not in self._walls_in_contact:
                self._emit(
                    EventType.CUSHION,
                    ball=self.ids[i],
                    cushion=name,
                    extra={**wall_extra, "speed_mm_s": round(speed, 1)},
                )
            if speed > 0:
                self._walls_in_contact.add((i, name))
            self._wake(i)
        elif kind is Kind.POT:
            self._emit(EventType.POT, ball=self.ids[i], pocket=POCKETS[j])
            self.remove(self.ids[i], Motion.POTTED)
            self._forget(i)
        elif kind is Kind.OFF:
            self._emit(EventType.OFF_TABLE, ball=self.ids[i])
            self._flying[i] = (self.t, self.pos[i].copy(), self.vel[i].copy())
            self.remove(self.ids[i], Motion.OFF_TABLE)
            self._forget(i)

    def _note4(self, i: int, jaw: int) -> None:
        """1.20 note 4: a touch on a middle-pocket jaw in the other half counts as crossing into it."""
        if not self.geo.jaw_pocket[jaw].startswith("middle"):
            return
        jx, x = float(self.geo.jaw_xy[jaw, 0]), float(self.pos[i, 0])
        if jx * x < 0:
            to = Direction.REAR if jx > 0 else Direction.FRONT
            extra = {"jaw": self.geo.jaw_pocket[jaw], "note4": True}
            self._emit(EventType.LINE_CROSS, ball=self.ids[i], line=Line.CENTRE, to=to, extra=extra)

    def _wake(self, i: int) -> None:
        if self.mode[i] in (Motion.STATIONARY, Motion.SPINNING, Motion.ROLLING):
            self.mode[i] = Motion.SLIDING

    def _forget(self, i: int) -> None:
        self._pairs_in_contact = {p for p in self._pairs_in_contact if i not in p}
        self._walls_in_contact = {p for p in self._walls_in_contact if p[0] != i}

    def _unstick(self) -> None:
        """Thousands of contacts within microseconds (a Zeno chatter): settle low hops, damp the rest."""
        air = (self.mode == Motion.AIRBORNE) & (self.pos[:, 2] < self.R + 2.0)
        self.pos[air, 2] = self.R
        self.vel[air, 2] = 0.0
        mov = _moving(self.mode)
        self.vel[mov] *= 0.9
        classify(self.pos, self.vel, self.w, self.mode, self.R)

    def _land(self) -> None:
        """Airborne balls that reach the bed bounce (restitution e_bed) or settle."""
        air = np.flatnonzero((self.mode == Motion.AIRBORNE) & (self.pos[:, 2] <= self.R + 1e-6) & (self.vel[:, 2] <= 0))
        for i in air:
            self.pos[i, 2] = self.R
            vz = -self.p.e_bed * self.vel[i, 2]
            self.vel[i, 2] = vz if vz > self.p.settle_vz else 0.0

    def _release_contacts(self) -> None:
        # A pair (or ball and wall) stays "in contact" only while it moves: the set is there to silence the
        # chatter of balls rolling together, not to hide a later impulse through balls that came to rest
        # touching (a Newton's cradle through a settled cluster, a ball left frozen on a cushion and hit
        # in the next shot). Those contacts happen and are logged.
        rest = self.mode == Motion.STATIONARY
        if self._pairs_in_contact:
            keep = set()
            for i, j in self._pairs_in_contact:
                if rest[i] and rest[j]:
                    continue
                if self._live(i) and self._live(j) and np.linalg.norm(self.pos[i] - self.pos[j]) < 2 * self.R + 0.05:
                    keep.add((i, j))
            self._pairs_in_contact = keep
        if self._walls_in_contact:
            keep_w = set()
            for i, name in self._walls_in_contact:
                if rest[i]:
                    continue
                if self._live(i):
                    d = self.table.cushion_distance(self.pos[i, :2], name)
                    near_jaw = np.min(np.linalg.norm(self.geo.jaw_xy - self.pos[i, :2], axis=1)) < self.R + 0.05
                    if (math.isfinite(d) and d < self.R + 0.05) or near_jaw:
                        keep_w.add((i, name))
            self._walls_in_contact = keep_w

    # --- frames and events --------------------------------------------------------------------------
    def _sample(self) -> None:
        moved = np.linalg.norm(self._rv, axis=1) > 0
        if moved.any():
            self.rot[moved] = rodrigues(self._rv[moved]) @ self.rot[moved]
            self._rv[moved] = 0.0
        f = self.frames
        if not self.record:
            self._next_frame += 1
            return
        f.t.append(self._next_frame / self.fps)
        f.pos.append(self._with_flight(self._next_frame / self.fps))
        f.vel.append(self.vel.copy())
        f.rot.append(self.rot.copy())
        f.mode.append(self.mode.copy())
        self._next_frame += 1

    def _with_flight(self, t: float) -> np.ndarray:
        """Positions with the balls that jumped off the bed placed on their flight (or on the rail)."""
        pos = self.pos.copy()
        rail_in = self.geo.outer
        rail_out = self.geo.outer + self.table.spec.rail_width_mm
        rest_z = self.geo.nose_h + self.R  # the rail top is taken level with the cushion nose
        for i, (t0, p0, v0) in list(self._flying.items()):
            dt = t - t0
            p = p0 + v0 * dt
            p[2] -= 0.5 * self.p.g * dt * dt
            beyond = max(abs(p[0]) - self.table.half_length, abs(p[1]) - self.table.half_width)
            if rail_in <= beyond <= rail_out and p[2] <= rest_z:
                p[2] = rest_z  # landed on the rail: stays there
                self._flying[i] = (t, p.copy(), np.zeros(3))
            if p[2] < -400.0:
                del self._flying[i]  # on the floor, out of view
                continue
            pos[i] = p
        return pos

    def _idle_until(self, t_end: float) -> None:
        while self._next_frame / self.fps <= t_end + 1e-12:
            self.t = self._next_frame / self.fps
            self._sample()
        self.t = t_end

    def _emit(self, etype: EventType, t: float | None = None, **kw: Any) -> None:
        tt = float(self.t if t is None else t)
        self.events.append(Event(type=etype, t=tt, frame=math.floor(tt * self.fps + 1e-9), **kw))
