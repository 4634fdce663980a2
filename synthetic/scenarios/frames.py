"""Whole frames: a simple policy player (easiest pot by ghost-ball cut and distance, else a safe shot
that satisfies 1.20) plays Free, Combined, Dynamic or Russian 71, with fouls at a chosen rate.

After every shot the policy asks the rules engine (the referee) for its verdict: balls it spots are put back
where it says, and what it says is owed (penalty ball, choice after a foul, cue ball in hand) is answered
in the log, so the frame stays consistent with the rules; the frame ends when the engine says so.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from calibration.table import POCKETS
from rules.engine import judge_log
from rules.inputs import parse_log
from rules.rack import full_rack
from synthetic.physics.stroke import Stroke
from synthetic.scenarios.aim import aim_point, ghost_angle, solve_pot
from synthetic.scenarios.language import PlayFrame

if TYPE_CHECKING:
    from synthetic.scenarios.runner import Director

MAX_APPROACH = {"corner": math.radians(14.0), "middle": math.radians(28.0)}


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


def merged_log(d: Director) -> list[dict[str, Any]]:
    """The log so far as the rules engine reads it: referee lines and ball events in time order."""
    rows = [dict(x) for x in d.log] + [e.to_dict() for e in d.sim.events]
    rows.sort(key=lambda r: (r["t"], 1 if "frame" in r else 0))  # an input before an event of the same instant
    return rows


def referee_verdict(d: Director) -> dict[str, Any] | None:
    """The rules engine's verdict on the last shot (the policy asks the referee what is owed)."""
    out = judge_log(parse_log(merged_log(d)), table=d.sim.table).outputs
    return out[-1].to_dict() if out else None


def play_frame(d: Director, step: PlayFrame) -> None:
    sim, rng = d.sim, d.rng
    if not sim.in_play() or sim.in_play() == ["C"]:
        for b, xy in full_rack(sim.table).items():
            sim.place(b, xy)
    if "C" not in sim.in_play():
        sim.place("C", (sim.table.house_line_x - 200.0, float(rng.uniform(-300, 300))))
    t0 = sim.t
    from_hand = True
    for shot in range(step.max_shots):
        objects = [b for b in sim.in_play() if b != "C"]
        if len(objects) < 1 or sim.t - t0 > step.max_seconds:
            break
        cue = "C" if "C" in sim.in_play() else objects[int(rng.integers(0, len(objects)))]  # Free: any ball
        if shot == 0:
            apex = sim.positions().get("4", sim.positions()[objects[0]])
            c = sim.positions()["C"]
            d.stroke(Stroke("C", float(rng.uniform(6500, 8000)), math.atan2(apex[1] - c[1], apex[0] - c[0])))
        elif rng.random() < step.foul_rate:
            _play_foul(d, cue, [b for b in objects if b != cue])
        else:
            _play_pot_or_safe(d, cue, [b for b in objects if b != cue], from_hand)
        verdict = referee_verdict(d)
        if verdict is None:
            continue
        spots = {str(s["ball"]): (float(s["x"]), float(s["y"])) for s in verdict.get("spotted") or []}
        spots = {b: xy for b, xy in spots.items() if b not in sim.in_play()}
        if spots:
            d.run_spot(spots)
        if verdict.get("result") in ("frame_won", "match_won", "draw"):
            break
        from_hand = _settle_decisions(d, verdict.get("decisions_owed") or [])


def _settle_decisions(d: Director, owed: list[dict[str, Any]]) -> bool:
    """Answer what the engine says is owed before the next stroke; True when the cue ball is in hand."""
    sim, rng = d.sim, d.rng
    in_hand = False
    for dec in owed:
        kind = str(dec.get("decision"))
        objects = [b for b in sim.in_play() if b != "C"]
        if kind in ("penalty_ball", "remove_ball") and len(objects) > 1:
            ball = objects[int(rng.integers(0, len(objects)))]
            xy = sim.positions()[ball]
            sim.run(0.4)
            sim.hand(xy)
            sim.run(0.3)
            sim.remove(ball)
            d.referee({"type": kind, "ball": ball})
            sim.run(0.4)
        elif kind == "dynamic_choice":
            d.referee({"type": "choose", "option": "ball_in_hand"})
        elif kind in ("choice_after_foul", "break_choice"):
            d.referee({"type": "choose", "option": "play"})
        elif kind == "cue_ball_in_hand":
            where = str((dec.get("options") or ["house"])[0])
            d.run_spot({"C": _free_spot(d, where)})
            in_hand = where != "anywhere"
    if "C" not in sim.in_play() and d.game != "free":
        d.run_spot({"C": _free_spot(d, "house")})
        in_hand = True
    return in_hand


def _free_spot(d: Director, where: str) -> tuple[float, float]:
    """A free cue-ball spot in the house, in the rear house (1.21) or anywhere."""
    sim = d.sim
    t = sim.table
    lo, hi = {
        "house": (-t.half_length + 2 * sim.R, t.house_line_x - 30),
        "rear_house": (t.rear_line_x + 30, t.half_length - 2 * sim.R),
    }.get(where, (-t.half_length + 2 * sim.R, t.half_length - 2 * sim.R))
    pos = [p for b, p in sim.positions().items() if b != "C"]
    for _ in range(300):
        xy = (float(d.rng.uniform(lo, hi)), float(d.rng.uniform(-t.half_width + 80, t.half_width - 80)))
        if all(math.hypot(xy[0] - p[0], xy[1] - p[1]) > 2 * sim.R + 5 for p in pos):
            return xy
    return ((lo + hi) / 2, 0.0)


def _play_pot_or_safe(d: Director, cue: str, objects: list[str], from_hand: bool = False) -> None:
    sim = d.sim
    house = sim.table.house_line_x
    d.wait_to_strike()  # solve at the instant of the stroke, so the verified trial is the real run
    for _, ball, pocket in candidates(d, cue)[:3]:
        if from_hand and sim.positions()[ball][0] < house:
            continue  # from hand, the first contact must be a ball outside the house (1.21)
        stroke = solve_pot(sim, cue, ball, pocket, height=float(d.rng.uniform(-0.2, 0.4)))
        if stroke is not None:
            if d.game in ("russian71", "classic71"):
                d.referee({"type": "nominate", "ball": ball, "pocket": pocket}, ago=0.4)
            d.stroke(stroke, wait=False)
            return
    # safe shot: a full hit on the nearest ball, firm enough to send it to a cushion (1.20)
    c = np.asarray(sim.positions()[cue])
    allowed = [b for b in objects if not (from_hand and sim.positions()[b][0] < house)] or objects
    near = min(allowed, key=lambda b: float(np.linalg.norm(np.asarray(sim.positions()[b]) - c)))
    b = np.asarray(sim.positions()[near])
    if d.game in ("russian71", "classic71"):
        d.referee({"type": "nominate", "ball": near, "pocket": POCKETS[int(d.rng.integers(0, 6))]}, ago=0.4)
    d.stroke(
        Stroke(cue, float(d.rng.uniform(2500, 3500)), math.atan2(b[1] - c[1], b[0] - c[0]), height=0.2), wait=False
    )


def _play_foul(d: Director, cue: str, objects: list[str]) -> None:
    sim = d.sim
    kind = str(d.rng.choice(["no_contact", "soft", "hand"]))
    c = np.asarray(sim.positions()[cue])
    if kind == "hand":
        victim = objects[int(d.rng.integers(0, len(objects)))]
        sim.run(0.6)
        sim.disturb(victim, (float(d.rng.uniform(-150, 150)), float(d.rng.uniform(-150, 150))))
        d.settle()
        _play_pot_or_safe(d, cue, objects)
        return
    if kind == "soft":
        near = min(objects, key=lambda b: float(np.linalg.norm(np.asarray(sim.positions()[b]) - c)))
        b = np.asarray(sim.positions()[near])
        dist = float(np.linalg.norm(b - c)) - 2 * sim.R
        v = math.sqrt(2 * sim.p.mu_roll * sim.p.g * dist) + 150.0  # arrives at about 150 mm/s
        d.stroke(Stroke(cue, v, math.atan2(b[1] - c[1], b[0] - c[0]), height=0.4))
        return
    # no contact: the direction with the most room, gently
    best, room = 0.0, -1.0
    for a in np.linspace(-math.pi, math.pi, 24, endpoint=False):
        u = np.array([math.cos(a), math.sin(a)])
        others = [np.asarray(p) for k, p in sim.positions().items() if k != cue]
        if _clear(c, c + u * 700.0, others, 2 * sim.R + 20):
            r = min(float(np.linalg.norm(np.asarray(p) - c)) for p in others) if others else 1e9
            if r > room:
                best, room = float(a), r
    d.stroke(Stroke(cue, 500.0, best, height=0.4))
