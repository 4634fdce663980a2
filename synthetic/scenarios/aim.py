"""Aiming: ghost-ball geometry for a first guess, then trial simulations to make the shot really work.

A trial runs a clone of the world with coarser steps (3 ms; contacts are still found exactly on the
chords), so solving a shot costs a few trial runs of the cue ball's travel.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from rules.events import Event, EventType
from synthetic.physics.sim import Simulator
from synthetic.physics.stroke import Stroke

TRIAL_DT = 0.003


def wrap(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi


def aim_point(sim: Simulator, pocket: str) -> np.ndarray:
    """Where a ball aimed at a pocket should cross: the mouth centre."""
    return np.asarray(sim.table.pockets[pocket].mouth_centre, dtype=float)


def ghost_angle(sim: Simulator, cue: str, target: str, aim: np.ndarray) -> tuple[float, float]:
    """Stroke angle that sends the cue ball to the ghost position, and the cut angle (radians)."""
    c = sim.pos[sim.index(cue), :2]
    b = sim.pos[sim.index(target), :2]
    u = (aim - b) / np.linalg.norm(aim - b)
    ghost = b - 2 * sim.R * u
    d = ghost - c
    cut = math.acos(float(np.clip(d @ u / np.linalg.norm(d), -1, 1)))
    return math.atan2(float(d[1]), float(d[0])), cut


def natural_speed(sim: Simulator, cue: str, target: str, aim: np.ndarray, cut: float, firm: float = 1.4) -> float:
    """Cue speed (mm/s) that sends the object ball past the aim point with some pace to spare."""
    p = sim.p
    c = sim.pos[sim.index(cue), :2]
    b = sim.pos[sim.index(target), :2]
    d_ob = float(np.linalg.norm(aim - b)) + 150.0
    d_c = float(np.linalg.norm(b - c))
    v_ob = math.sqrt(2 * p.mu_roll * p.g * d_ob) * 1.4 + 250.0
    v_c = v_ob / (max(math.cos(cut), 0.2) * (1 + p.e_ball) / 2)
    v0 = math.sqrt(v_c * v_c + 2 * p.mu_roll * p.g * d_c) / 0.9
    return float(np.clip(v0 * firm, 700.0, 7500.0))


def trial(
    sim: Simulator, stroke: Stroke, until: Callable[[list[Event]], bool], timeout: float = 12.0, exact: bool = False
) -> Simulator:
    """Play a stroke on a clone until `until(events)` holds, every ball stops, or timeout seconds pass.

    `exact`: the world's own steps, so that the trial is the very run the world will make (chaotic shots).
    """
    c = sim.clone(sim.p if exact or sim.p.dt_max >= TRIAL_DT else replace(sim.p, dt_max=TRIAL_DT))
    c.strike(stroke)
    t_end = c.t + timeout
    while c.moving() and c.t < t_end and not until(c.events):
        c.run(0.05, stop_at_rest=True)
    return c


def first_contact(events: list[Event]) -> Event | None:
    return next((e for e in events if e.type is EventType.BALL_CONTACT), None)


def departure(sim: Simulator, stroke: Stroke, target: str) -> float | None:
    """Direction (rad) the target ball takes right after the cue ball first hits it; None if it is not hit first."""
    c = trial(sim, stroke, lambda ev: first_contact(ev) is not None, timeout=6.0)
    fc = first_contact(c.events)
    if fc is None or fc.balls is None or set(fc.balls) != {stroke.ball, target}:
        return None
    v = c.vel[c.index(target)]
    return math.atan2(float(v[1]), float(v[0]))


def potted(events: list[Event], ball: str, pocket: str | None = None) -> bool:
    return any(e.type is EventType.POT and e.ball == ball and (pocket is None or e.pocket == pocket) for e in events)


def solve_pot(
    sim: Simulator,
    cue: str,
    target: str,
    pocket: str,
    speed: float | None = None,
    height: float = 0.0,
    side: float = 0.0,
    allow_scratch: bool = False,
    via: str | None = None,
) -> Stroke | None:
    """A stroke that pots `target` in `pocket` off the cue ball (verified by a trial run), or None.

    With `via`, a kiss: the cue ball drives ball `via` into `target`, which goes into the pocket.
    """
    final = target
    aim = aim_point(sim, pocket)
    if via is not None:
        b = sim.pos[sim.index(target), :2]
        aim = b - 2 * sim.R * (aim - b) / np.linalg.norm(aim - b)  # where `via` must meet `target`
        target = via
    phi, cut = ghost_angle(sim, cue, target, aim)
    if cut > math.radians(80):
        return None
    v0 = speed or natural_speed(sim, cue, target, aim, cut)
    b = sim.pos[sim.index(target), :2]
    want = math.atan2(float(aim[1] - b[1]), float(aim[0] - b[0]))
    # the asked stroke first; if the cue ball follows in or the pot fails, a little softer/firmer or
    # with another tip height (what a player changes to keep the cue ball out of the pockets)
    variants = [(1.0, height), (0.85, height), (1.2, height), (1.0, height + 0.3), (1.0, height - 0.3)]
    for k, (f, h) in enumerate(variants):
        if k and speed is not None and f != 1.0:
            continue  # a scenario that fixed the speed keeps it
        stroke = _aim_on_departure(sim, Stroke(cue, v0 * f, phi, float(np.clip(h, -0.6, 0.6)), side), target, want)
        if stroke is None:
            continue
        c = trial(sim, stroke, lambda ev: potted(ev, final), exact=True)
        c.run_until_rest(10.0)
        if potted(c.events, final, pocket) and (allow_scratch or not potted(c.events, cue)):
            return stroke
    return None


def _aim_on_departure(sim: Simulator, base: Stroke, target: str, want: float) -> Stroke | None:
    """Secant on the stroke angle until `target` leaves the first contact along `want` (removes throw and
    the sag of the ghost-ball picture)."""

    def err(a: float) -> float | None:
        dep = departure(sim, replace(base, angle=a), target)
        return None if dep is None else wrap(dep - want)

    a0, e0 = base.angle, err(base.angle)
    if e0 is None:
        return None
    a1 = base.angle + 0.002
    e1 = err(a1)
    for _ in range(6):
        if e1 is None or abs(e1) < 1e-5 or e1 == e0:
            break
        a0, e0, a1 = a1, e1, a1 - e1 * (a1 - a0) / (e1 - e0)
        e1 = err(a1)
    return None if e1 is None else replace(base, angle=a1)


def mirror(sim: Simulator, point: np.ndarray, cushion: str) -> np.ndarray:
    """A point reflected in the line the ball centre touches a cushion on (nose line moved in by R)."""
    cu = sim.table.cushions[cushion]
    n = np.asarray(cu.normal)
    a = np.asarray(cu.a) + n * sim.R
    return point - 2 * float((point - a) @ n) * n


def solve_scan(
    sim: Simulator,
    base: Stroke,
    ok: Callable[[list[Event]], bool],
    span_deg: float = 2.0,
    n: int = 17,
    speeds: tuple[float, ...] = (1.0,),
    exact: bool = False,
) -> Stroke | None:
    """Scan stroke angles around `base.angle` (and speed factors); the middle of the successes (exact: the
    tried success nearest the middle, so the stroke played is one that was verified)."""
    for f in speeds:
        wins: list[float] = []
        for k in range(n):
            a = base.angle + math.radians(span_deg) * (2 * k / (n - 1) - 1)
            s = replace(base, angle=a, speed=base.speed * f)
            c = trial(sim, s, lambda ev: False, exact=exact)
            if ok(c.events):
                wins.append(a)
        if wins:
            mid = float(np.median(wins))
            pick = min(wins, key=lambda w: abs(w - mid)) if exact else mid
            return replace(base, angle=pick, speed=base.speed * f)
    return None


def solve_bank(sim: Simulator, cue: str, target: str, pocket: str, cushion: str) -> Stroke | None:
    """Pot `target` in `pocket` off `cushion` (object ball first to the cushion, then into the pocket)."""
    aim = mirror(sim, aim_point(sim, pocket), cushion)
    phi, cut = ghost_angle(sim, cue, target, aim)
    if cut > math.radians(70):
        return None
    v = natural_speed(sim, cue, target, aim, cut, firm=1.6)

    def ok(ev: list[Event]) -> bool:
        hit = [e for e in ev if e.type is EventType.CUSHION and e.ball == target]
        return bool(hit) and hit[0].cushion == cushion and potted(ev, target, pocket) and not potted(ev, cue)

    mouth = aim_point(sim, pocket)

    def miss(a: float) -> float | None:
        """Signed distance by which the object ball's path after the rebound passes the mouth centre."""
        rebound = lambda ev: any(e.type is EventType.CUSHION and e.ball == target for e in ev)  # noqa: E731
        c = trial(sim, Stroke(cue, v, a), rebound, timeout=8.0)
        hits = [e for e in c.events if e.type is EventType.CUSHION and e.ball == target]
        if not hits or hits[0].cushion != cushion or not c.moving():
            return None
        k = c.index(target)
        u = c.vel[k, :2] / np.linalg.norm(c.vel[k, :2])
        r = mouth - c.pos[k, :2]
        return float(u[0] * r[1] - u[1] * r[0])

    a0, e0 = phi, miss(phi)
    a1 = phi + 0.002
    e1 = miss(a1)
    for _ in range(6):
        if e0 is None or e1 is None or abs(e1) < 0.3 or e1 == e0:
            break
        a0, e0, a1 = a1, e1, a1 - e1 * (a1 - a0) / (e1 - e0)
        e1 = miss(a1)
    base = Stroke(cue, v, a1 if e1 is not None else phi)
    return solve_scan(sim, base, ok, span_deg=0.3, n=7, speeds=(1.0, 1.2))
