"""Whole frames: a simple policy player (easiest pot by ghost-ball cut and distance, else a safe shot
that satisfies 1.20) plays Free, Combined, Dynamic or Russian 71, with fouls at a chosen rate.

The policy keeps its own rough score only to know when the frame is over; the rules engine judges it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from calibration.table import POCKETS
from rules.events import EventType
from rules.rack import full_rack
from rules.spotting import spot_balls
from synthetic.physics.stroke import Stroke
from synthetic.scenarios.aim import aim_point, ghost_angle, solve_pot
from synthetic.scenarios.language import PlayFrame

if TYPE_CHECKING:
    from synthetic.scenarios.runner import Director

TARGET = {"free": 8, "combined": 8, "dynamic": 8, "russian71": 71, "classic71": 71}
MAX_APPROACH = {"corner": math.radians(14.0), "middle": math.radians(28.0)}


def _value(game: str, ball: str) -> int:
    if game in ("russian71", "classic71"):
        return 11 if ball == "1" else int(ball)
    return 1


def _clear(p: np.ndarray, q: np.ndarray, others: list[np.ndarray], width: float) -> bool:
    """No ball centre in `others` within `width` of the segment p-q."""
    d = q - p
    L2 = float(d @ d)
    for o in others:
        s = float(np.clip((o - p) @ d / L2, 0.0, 1.0)) if L2 > 0 else 0.0
        if float(np.linalg.norm(p + s * d - o)) < width:
            return False
    return True


def candidates(d: Director, cue: str) -> list[tuple[float, str, str]]:
    """(difficulty, ball, pocket) of the pots the geometry allows, easiest first."""
    sim = d.sim
    pos = {b: np.asarray(xy) for b, xy in sim.positions().items()}
    c = pos[cue]
    out = []
    for ball, b in pos.items():
        if ball == cue:
            continue
        others = [p for k, p in pos.items() if k not in (ball, cue)]
        for pocket in POCKETS:
            pk = sim.table.pockets[pocket]
            aim = aim_point(sim, pocket)
            u = aim - b
            dist = float(np.linalg.norm(u))
            approach = math.acos(float(np.clip(u @ np.asarray(pk.outward) / dist, -1, 1)))
            if approach > MAX_APPROACH["middle" if pocket.startswith("middle") else "corner"]:
                continue
            _, cut = ghost_angle(sim, cue, ball, aim)
            if cut > math.radians(60):
                continue
            ghost = b - 2 * sim.R * u / dist
            if not (_clear(c, ghost, others, 2 * sim.R) and _clear(b, aim, others, 2 * sim.R)):
                continue
            out.append((math.degrees(cut) * 2 + dist / 50 + float(np.linalg.norm(ghost - c)) / 100, ball, pocket))
    return sorted(out)


def play_frame(d: Director, step: PlayFrame) -> None:
    sim, rng, game = d.sim, d.rng, step.game
    players = ("A", "B")
    score = {p: 0 for p in players}
    player = "A"
    if not sim.in_play() or sim.in_play() == ["C"]:
        for b, xy in full_rack(sim.table).items():
            sim.place(b, xy)
    if "C" not in sim.in_play():
        sim.place("C", (sim.table.house_line_x - 200.0, float(rng.uniform(-300, 300))))
    t0 = sim.t
    for shot in range(step.max_shots):
        objects = [b for b in sim.in_play() if b != "C"]
        if not objects or max(score.values()) >= TARGET[game] or sim.t - t0 > step.max_seconds:
            break
        n_ev = len(sim.events)
        foul = rng.random() < step.foul_rate
        if shot == 0:
            apex = sim.positions().get("4", sim.positions()[objects[0]])
            c = sim.positions()["C"]
            d.stroke(Stroke("C", float(rng.uniform(6500, 8000)), math.atan2(apex[1] - c[1], apex[0] - c[0])))
        elif foul:
            _play_foul(d, objects)
        else:
            _play_pot_or_safe(d, objects)
        new = sim.events[n_ev:]
        pots = [e.ball for e in new if e.type is EventType.POT and e.ball]
        jumped = [e.ball for e in new if e.type is EventType.OFF_TABLE and e.ball]
        cue_lost = "C" in pots or "C" in jumped
        legal_pots = [b for b in pots if b != "C"] if not (foul or cue_lost) else []
        score[player] += sum(_value(game, b) for b in legal_pots)
        respot = [b for b in jumped if b != "C"] + ([b for b in pots if b != "C"] if (foul or cue_lost) else [])
        if respot:
            d.run_spot(spot_balls(sim.table, respot, sim.positions()))
        if cue_lost:
            d.run_spot({"C": _free_house_spot(d)})
        if (foul or cue_lost) and shot > 0:
            _after_foul(d, game, player)
        if not legal_pots:
            player = "B" if player == "A" else "A"


def _after_foul(d: Director, game: str, offender: str) -> None:
    """The non-offender's side of a foul (1.6): in the 8-point games a penalty ball off the table first
    (2.7, 3.7, 4.7(1)), then he plays on."""
    sim = d.sim
    if game in ("free", "combined", "dynamic"):
        objects = [b for b in sim.in_play() if b != "C"]
        if len(objects) > 1:
            ball = objects[int(d.rng.integers(0, len(objects)))]
            if game == "dynamic":
                d.referee({"type": "choose", "option": "take_ball"})
            xy = sim.positions()[ball]
            sim.run(0.4)
            sim.hand(xy)
            sim.run(0.3)
            sim.remove(ball)
            d.referee({"type": "penalty_ball", "ball": ball})
            sim.run(0.4)
    if game != "dynamic":
        d.referee({"type": "choose", "option": "play"})


def _free_house_spot(d: Director) -> tuple[float, float]:
    sim = d.sim
    pos = list(sim.positions().values())
    for _ in range(200):
        xy = (
            float(d.rng.uniform(-sim.table.half_length + 80, sim.table.house_line_x - 30)),
            float(d.rng.uniform(-500, 500)),
        )
        if all(math.hypot(xy[0] - p[0], xy[1] - p[1]) > 2 * sim.R + 5 for p in pos):
            return xy
    return (sim.table.house_line_x - 100.0, 0.0)


def _play_pot_or_safe(d: Director, objects: list[str]) -> None:
    sim = d.sim
    for _, ball, pocket in candidates(d, "C")[:3]:
        stroke = solve_pot(sim, "C", ball, pocket, height=float(d.rng.uniform(-0.2, 0.4)))
        if stroke is not None:
            if d.game in ("russian71", "classic71"):
                d.referee({"type": "nominate", "ball": ball, "pocket": pocket})
            d.stroke(stroke)
            return
    # safe shot: a full hit on the nearest ball, firm enough to send it to a cushion (1.20)
    c = np.asarray(sim.positions()["C"])
    near = min(objects, key=lambda b: float(np.linalg.norm(np.asarray(sim.positions()[b]) - c)))
    b = np.asarray(sim.positions()[near])
    if d.game in ("russian71", "classic71"):
        d.referee({"type": "nominate", "ball": near, "pocket": POCKETS[int(d.rng.integers(0, 6))]})
    d.stroke(Stroke("C", float(d.rng.uniform(2500, 3500)), math.atan2(b[1] - c[1], b[0] - c[0]), height=0.2))


def _play_foul(d: Director, objects: list[str]) -> None:
    sim = d.sim
    kind = str(d.rng.choice(["no_contact", "soft", "hand"]))
    c = np.asarray(sim.positions()["C"])
    if kind == "hand":
        victim = objects[int(d.rng.integers(0, len(objects)))]
        sim.run(0.6)
        sim.disturb(victim, (float(d.rng.uniform(-150, 150)), float(d.rng.uniform(-150, 150))))
        d.settle()
        _play_pot_or_safe(d, objects)
        return
    if kind == "soft":
        near = min(objects, key=lambda b: float(np.linalg.norm(np.asarray(sim.positions()[b]) - c)))
        b = np.asarray(sim.positions()[near])
        dist = float(np.linalg.norm(b - c)) - 2 * sim.R
        v = math.sqrt(2 * sim.p.mu_roll * sim.p.g * dist) + 150.0  # arrives at about 150 mm/s
        d.stroke(Stroke("C", v, math.atan2(b[1] - c[1], b[0] - c[0]), height=0.4))
        return
    # no contact: the direction with the most room, gently
    best, room = 0.0, -1.0
    for a in np.linspace(-math.pi, math.pi, 24, endpoint=False):
        u = np.array([math.cos(a), math.sin(a)])
        others = [np.asarray(p) for k, p in sim.positions().items() if k != "C"]
        if _clear(c, c + u * 700.0, others, 2 * sim.R + 20):
            r = min(float(np.linalg.norm(np.asarray(p) - c)) for p in others) if others else 1e9
            if r > room:
                best, room = float(a), r
    d.stroke(Stroke("C", 500.0, best, height=0.4))
