"""A small kinematic billiards simulator with exact events: golden tracks for the event detector's tests
and a scenario set for its benchmark while the full physics (synthetic.physics) is not at hand.

Model: balls slide/roll in straight lines with constant deceleration; ball-ball collisions are
frictionless and nearly elastic (the normal components are exchanged); cushions are the nose segments of
calibration.table and the jaw tips their ends, with restitution; a ball whose centre passes a pocket's
mouth line is potted. Substeps of a fraction of a frame; event times are interpolated within a substep.
Test/demo support only: product code never imports this.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from calibration.table import Table
from rules.events import BALL_IDS, Direction, Event, EventType, Line
from vision.types import BallState

_SUB = 16  # substeps per frame (about 1 ms at 60 fps: a fast ball moves a few mm per substep)


@dataclass
class SimResult:
    """Per-frame centres (F, B, 2) (NaN once gone), states (F, B) and the exact events in time order."""

    fps: float
    ids: tuple[str, ...]
    t: np.ndarray
    pos: np.ndarray
    state: np.ndarray
    events: list[Event]


@dataclass
class Sim:
    table: Table
    fps: float = 60.0
    decel_mm_s2: float = 180.0
    ball_restitution: float = 0.95
    cushion_restitution: float = 0.75
    ids: tuple[str, ...] = BALL_IDS
    pos: np.ndarray = field(init=False)
    vel: np.ndarray = field(init=False)
    gone: np.ndarray = field(init=False)
    strokes: list[tuple[float, str, np.ndarray]] = field(default_factory=list)
    drops: list[tuple[float, str, str]] = field(default_factory=list)  # (t, ball, pocket): hanging drops

    def __post_init__(self) -> None:
        b = len(self.ids)
        self.pos = np.full((b, 2), np.nan)
        self.vel = np.zeros((b, 2))
        self.gone = np.ones(b, dtype=bool)

    def place(self, ball: str, xy: tuple[float, float]) -> Sim:
        i = self.ids.index(ball)
        self.pos[i] = xy
        self.gone[i] = False
        return self

    def stroke(self, t: float, ball: str, velocity: tuple[float, float]) -> Sim:
        self.strokes.append((t, ball, np.asarray(velocity, dtype=float)))
        return self

    def drop(self, t: float, ball: str, pocket: str) -> Sim:
        """A ball hanging in a mouth falls by itself at time t."""
        self.drops.append((t, ball, pocket))
        return self

    def run(self, duration: float) -> SimResult:
        tb = self.table
        r = tb.ball_radius
        n_frames = round(duration * self.fps) + 1
        h = 1.0 / (self.fps * _SUB)
        b = len(self.ids)
        out_pos = np.full((n_frames, b, 2), np.nan)
        out_state = np.zeros((n_frames, b), dtype=np.int8)
        events: list[Event] = []
        ca = np.array([c.a for c in tb.cushions.values()])
        cb = np.array([c.b for c in tb.cushions.values()])
        cnames = list(tb.cushions)
        jaw_of = {}
        for i, (a_pt, b_pt) in enumerate(zip(ca, cb, strict=True)):
            for end, pt in ((0, a_pt), (1, b_pt)):
                for pk in tb.pockets.values():
                    if min(np.hypot(*(pt - pk.jaw_a)), np.hypot(*(pt - pk.jaw_b))) < 1:
                        jaw_of[(i, end)] = pk.name
        strokes = sorted(self.strokes, key=lambda s: s[0])
        drops = sorted(self.drops)
        moving_any = False
        shot_open = False
        ended_at: float | None = None
        last = n_frames
        for f in range(n_frames):
            t_f = f / self.fps
            out_pos[f] = np.where(self.gone[:, None], np.nan, self.pos)
            speed = np.hypot(*self.vel.T)
            out_state[f] = np.where(
                self.gone, BallState.POTTED, np.where(speed > 0, BallState.MOVING, BallState.STATIONARY)
            )
            if f == n_frames - 1:
                break
            if ended_at is not None and not strokes and not drops and t_f > ended_at + 0.8:
                last = f + 1
                break
            for k in range(_SUB):
                t0 = t_f + k * h
                while strokes and strokes[0][0] < t0 + h:
                    ts, ball, v = strokes.pop(0)
                    i = self.ids.index(ball)
                    events.append(self._start_event(ts, ball))
                    self.vel[i] = v
                    moving_any = shot_open = True
                while drops and drops[0][0] < t0 + h:
                    td, ball, pocket = drops.pop(0)
                    i = self.ids.index(ball)
                    self.gone[i] = True
                    self.vel[i] = 0
                    events.append(
                        Event(
                            EventType.POT,
                            td,
                            0,
                            ball=ball,
                            pocket=pocket,
                            extra={"hanging": True, "late": not shot_open},
                        )
                    )
                if not moving_any:
                    continue
                events.extend(self._step(t0, h, r, ca, cb, cnames, jaw_of))
                moving_any = bool((np.hypot(*self.vel.T) > 0).any())
                if moving_any:
                    ended_at = None
                elif shot_open:
                    shot_open = False
                    events.append(self._end_event(t0 + h))
                    ended_at = t0 + h
        events.sort(key=lambda e: e.t)
        for e_i, e in enumerate(events):
            events[e_i] = Event.from_dict({**e.to_dict(), "frame": int(np.ceil(e.t * self.fps - 1e-9))})
        t = np.arange(last) / self.fps
        return SimResult(self.fps, self.ids, t, out_pos[:last], out_state[:last], events)

    # --- one substep ---------------------------------------------------------------------------
    def _step(
        self,
        t0: float,
        h: float,
        r: float,
        ca: np.ndarray,
        cb: np.ndarray,
        cnames: list[str],
        jaw_of: dict[tuple[int, int], str],
    ) -> list[Event]:
        ev: list[Event] = []
        live = ~self.gone
        old = self.pos.copy()
        self.pos[live] += self.vel[live] * h
        # ball-ball: earliest overlapping approaching pairs, in order
        idx = np.nonzero(live)[0]
        floor = np.zeros(len(self.ids))  # a ball's next collision in this substep comes after its last one
        for _ in range(8):
            best = None
            pos, vel = self.pos[idx], self.vel[idx]
            d = pos[None, :, :] - pos[:, None, :]
            dist = np.hypot(d[..., 0], d[..., 1])
            vrel = vel[None, :, :] - vel[:, None, :]
            closing = np.sum(vrel * d, axis=-1) < 0
            hit = np.triu((dist < 2 * r) & closing, 1)
            for ia, ib in zip(*np.nonzero(hit), strict=True):
                a, bb = int(idx[ia]), int(idx[ib])
                vr = self.vel[bb] - self.vel[a]
                p0 = old[bb] - old[a]
                qa, qb, qc = float(vr @ vr), 2 * float(p0 @ vr), float(p0 @ p0) - 4 * r * r
                disc = qb * qb - 4 * qa * qc
                tau = (-qb - np.sqrt(max(disc, 0.0))) / (2 * qa) if qa > 0 else 0.0
                tau = float(np.clip(max(tau, floor[a], floor[bb]), 0.0, h))
                if best is None or tau < best[0]:
                    best = (tau, a, bb)
            if best is None:
                break
            tau, a, bb = best
            floor[a] = floor[bb] = tau
            pa, pb = old[a] + self.vel[a] * tau, old[bb] + self.vel[bb] * tau
            u = (pb - pa) / max(float(np.hypot(*(pb - pa))), 1e-9)
            va, vb = float(self.vel[a] @ u), float(self.vel[bb] @ u)
            e = self.ball_restitution
            na, nb = (va + vb - e * (va - vb)) / 2, (va + vb + e * (va - vb)) / 2
            self.vel[a] += (na - va) * u
            self.vel[bb] += (nb - vb) * u
            self.pos[a] = pa + self.vel[a] * (h - tau)
            self.pos[bb] = pb + self.vel[bb] * (h - tau)
            # the straight motion of the rest of the substep, as if from its start (for later times)
            old[a], old[bb] = pa - self.vel[a] * tau, pb - self.vel[bb] * tau
            first, second = (a, bb) if abs(va) >= abs(vb) else (bb, a)
            ev.append(Event(EventType.BALL_CONTACT, t0 + tau, 0, balls=(self.ids[first], self.ids[second])))
        # cushions and jaws
        ab = cb - ca
        rel = self.pos[idx][:, None, :] - ca[None]
        spar = np.clip(np.sum(rel * ab, axis=-1) / np.sum(ab * ab, axis=-1), 0, 1)
        pts = ca[None] + spar[..., None] * ab[None]
        dist_c = np.linalg.norm(self.pos[idx][:, None, :] - pts, axis=-1)
        for row in np.nonzero(dist_c.min(axis=1) < r)[0]:
            i = int(idx[row])
            k = int(np.argmin(dist_c[row]))
            p = self.pos[i]
            n = (p - pts[row, k]) / max(float(dist_c[row, k]), 1e-9)
            vn = float(self.vel[i] @ n)
            if vn >= 0:
                continue
            d_old = float(np.hypot(*(old[i] - pts[row, k])))
            frac = (d_old - r) / max(d_old - float(dist_c[row, k]), 1e-9)
            tau = float(np.clip(frac, 0, 1)) * h
            self.vel[i] -= (1 + self.cushion_restitution) * vn * n
            self.pos[i] = old[i] + (self.pos[i] - old[i]) * (tau / h) + self.vel[i] * (h - tau)
            end = 0 if spar[row, k] <= 1e-9 else 1 if spar[row, k] >= 1 - 1e-9 else -1
            extra = {"jaw": jaw_of[(k, end)]} if (k, end) in jaw_of else {}
            ev.append(Event(EventType.CUSHION, t0 + tau, 0, ball=self.ids[i], cushion=cnames[k], extra=extra))
        # pots, lines
        moved = idx[np.any(old[idx] != self.pos[idx], axis=1)]
        for line, xl in ((Line.CENTRE, 0.0), (Line.HOUSE, self.table.house_line_x)):
            a0, a1 = old[moved, 0] - xl, self.pos[moved, 0] - xl
            for j in np.nonzero(a0 * a1 < 0)[0]:
                tau = h * a0[j] / (a0[j] - a1[j])
                to = Direction.REAR if a1[j] > 0 else Direction.FRONT
                ev.append(Event(EventType.LINE_CROSS, t0 + tau, 0, ball=self.ids[moved[j]], line=line, to=to))
        for pk in self.table.pockets.values():
            c, out = np.asarray(pk.mouth_centre), np.asarray(pk.outward)
            d0, d1 = (old[moved] - c) @ out, (self.pos[moved] - c) @ out
            near = np.hypot(*(self.pos[moved] - c).T) < pk.mouth_mm
            for j in np.nonzero((d0 <= 0) & (d1 > 0) & near)[0]:
                i = int(moved[j])
                tau = h * (-d0[j]) / (d1[j] - d0[j])
                ev.append(Event(EventType.POT, t0 + tau, 0, ball=self.ids[i], pocket=pk.name))
                self.gone[i] = True
                self.vel[i] = 0
        # rolling resistance
        sp = np.hypot(*self.vel.T)
        slow = np.maximum(sp - self.decel_mm_s2 * h, 0.0)
        scale = np.divide(slow, sp, out=np.zeros_like(sp), where=sp > 0)
        self.vel *= scale[:, None]
        return ev

    def _start_event(self, t: float, ball: str) -> Event:
        positions = {self.ids[i]: (float(p[0]), float(p[1])) for i, p in enumerate(self.pos) if not self.gone[i]}
        return Event(EventType.SHOT_START, t, 0, ball=ball, positions=positions)

    def _end_event(self, t: float) -> Event:
        positions = {self.ids[i]: (float(p[0]), float(p[1])) for i, p in enumerate(self.pos) if not self.gone[i]}
        return Event(EventType.SHOT_END, t, 0, positions=positions)
