"""A seeded set of kinematic shots (bench.events_sim) for the event benchmark: random shots, aimed pots,
breaks, clusters of touching balls, thin cuts and near misses."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from bench.events_sim import Sim, SimResult
from calibration.table import Table
from rules.events import BALL_IDS

KINDS = ("random", "pot", "break", "cluster", "thin")


def _free_spot(rng: np.random.Generator, table: Table, taken: list[np.ndarray], margin: float) -> np.ndarray:
    r = table.ball_radius
    for _ in range(500):
        p = np.array(
            [
                rng.uniform(-table.half_length + margin, table.half_length - margin),
                rng.uniform(-table.half_width + margin, table.half_width - margin),
            ]
        )
        if all(np.hypot(*(p - q)) > 2 * r + 8 for q in taken):
            return p
    raise RuntimeError("no free spot on the table")


def _fill(sim: Sim, rng: np.random.Generator, table: Table, taken: list[np.ndarray], k: int) -> None:
    used = {b for b in BALL_IDS if not sim.gone[BALL_IDS.index(b)]}
    free = [b for b in BALL_IDS[:15] if b not in used]
    for ball in rng.choice(free, size=min(k, len(free)), replace=False):
        p = _free_spot(rng, table, taken, table.ball_radius + 20)
        taken.append(p)
        sim.place(str(ball), (float(p[0]), float(p[1])))


def _aim(rng: np.random.Generator, cue: np.ndarray, obj: np.ndarray, r: float, cut: float) -> np.ndarray:
    """Unit direction from cue to the ghost-ball point offset sideways by `cut` (fraction of 2R)."""
    d = obj - cue
    d = d / np.hypot(*d)
    side = np.array([-d[1], d[0]])
    target = obj + side * cut * 2 * r
    a = target - cue
    return a / np.hypot(*a)


def scenario(kind: str, seed: int, table: Table, fps: float) -> tuple[str, SimResult]:
    rng = np.random.default_rng(seed)
    r = table.ball_radius
    sim = Sim(table, fps=fps, decel_mm_s2=250.0)
    taken: list[np.ndarray] = []
    speed = rng.uniform(700, 4000)
    if kind == "pot":
        pk = table.pockets[str(rng.choice(list(table.pockets)))]
        mouth, out = np.asarray(pk.mouth_centre), np.asarray(pk.outward)
        ang = np.radians(rng.uniform(-35, 35)) if pk.name.startswith("middle") else np.radians(rng.uniform(-4, 4))
        rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
        path = rot @ out
        # Through a point across the mouth, not its exact centre: a middle pocket's mouth centre lies on the
        # centre line, so aiming at it made every middle pot cross that line at the mouth line itself (a tie
        # to 0.03 mm, settled by the sim's substep order). A separate stream keeps every other draw as it was.
        side = np.array([-out[1], out[0]])
        room = max(0.0, pk.mouth_mm / 2 - (r + 2.0) / np.cos(ang))  # 2 mm clear of each jaw
        mouth = mouth + side * np.random.default_rng([seed, 0x0FF5E7]).uniform(-room, room)
        obj = mouth - path * rng.uniform(150, 700)
        ghost = obj - path * 2 * r
        cut_dir = rot @ np.array([[0.0, -1.0], [1.0, 0.0]]) @ path * rng.uniform(-0.5, 0.5)
        cue = ghost - (path + cut_dir) / np.hypot(*(path + cut_dir)) * rng.uniform(250, 700)
        if not (table.on_bed(cue, r + 5) and table.on_bed(obj, r + 5)):
            return scenario("random", seed + 7919, table, fps)
        sim.place("3", tuple(obj)).place("C", tuple(cue))
        taken += [obj, cue]
        _fill(sim, rng, table, taken, int(rng.integers(2, 8)))
        aim = (ghost - cue) / np.hypot(*(ghost - cue))
        sim.stroke(0.5, "C", tuple(aim * rng.uniform(900, 2500)))
    elif kind == "break":
        rack = table.rack_positions(gap_mm=0.05)
        for ball, p in rack.items():
            sim.place(ball, p)
            taken.append(np.asarray(p))
        cue = np.array([table.house_line_x - rng.uniform(50, 300), rng.uniform(-300, 300)])
        sim.place("C", tuple(cue))
        apex = np.asarray(rack["1"])
        sim.stroke(0.5, "C", tuple(_aim(rng, cue, apex, r, rng.uniform(-0.3, 0.3)) * rng.uniform(3000, 6000)))
    elif kind == "cluster":
        base = _free_spot(rng, table, taken, 4 * r + 60)
        ang = rng.uniform(0, 2 * np.pi)
        balls = ["1", "2", "4"]
        for i, b in enumerate(balls):
            q = base + 2 * (r + 0.05) * i * np.array([np.cos(ang), np.sin(ang)])
            sim.place(b, (float(q[0]), float(q[1])))
            taken.append(q)
        cue = _free_spot(rng, table, taken, r + 40)
        sim.place("C", tuple(cue))
        taken.append(cue)
        _fill(sim, rng, table, taken, int(rng.integers(1, 6)))
        target = taken[int(rng.integers(0, 3))]
        sim.stroke(0.5, "C", tuple(_aim(rng, cue, target, r, rng.uniform(-0.6, 0.6)) * speed))
    else:
        cue = _free_spot(rng, table, taken, r + 30)
        taken.append(cue)
        sim.place("C", tuple(cue))
        obj = _free_spot(rng, table, taken, r + 30)
        taken.append(obj)
        sim.place("5", tuple(obj))
        _fill(sim, rng, table, taken, int(rng.integers(2, 12)))
        cut = rng.uniform(0.85, 1.05) * rng.choice([-1, 1]) if kind == "thin" else rng.uniform(-0.9, 0.9)
        sim.stroke(0.5, "C", tuple(_aim(rng, cue, obj, r, cut) * speed))
    return f"{kind}-{seed}", sim.run(_duration(speed))


def _duration(speed: float) -> float:
    return 0.5 + min(12.0, speed / 250.0 + 1.5)


def kinematic_set(table: Table, fps: float, n_per_kind: int, seed: int = 0) -> Iterator[tuple[str, SimResult]]:
    for i in range(n_per_kind):
        for j, kind in enumerate(KINDS):
            yield scenario(kind, seed * 100_000 + i * 10 + j, table, fps)
