"""Playing a Scenario: a simulator runs the steps; the result is a Timeline plus the rules-engine log."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from calibration.table import Table
from rules.events import Event, EventType
from rules.spotting import spot_balls
from synthetic.physics.sim import Simulator
from synthetic.physics.stroke import Stroke
from synthetic.physics.timeline import to_timeline
from synthetic.scenarios.aim import (
    TRIAL_DT,
    aim_point,
    ghost_angle,
    natural_speed,
    potted,
    solve_bank,
    solve_pot,
    solve_scan,
)
from synthetic.scenarios.language import (
    BankShot,
    Disturb,
    Drop,
    Lag,
    Place,
    PlayFrame,
    PotShot,
    RattleShot,
    Referee,
    Scenario,
    Shoot,
    SpotBalls,
    Step,
    Wait,
)
from synthetic.world import Timeline

PRE_STROKE_S = 0.8  # the cue and arm are over the table for 0.7 s before a stroke
POST_REST_S = 0.5


@dataclass
class Director:
    """The running state of a scenario: the world, the log and the notes."""

    sim: Simulator
    rng: np.random.Generator
    log: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    game: str = "russian71"

    def referee(self, item: dict[str, Any], ago: float = 0.0) -> None:
        """A referee/player input, stamped `ago` seconds before now (said while the player lined up)."""
        self.log.append({**item, "t": round(self.sim.t - ago, 6)})

    def wait_to_strike(self) -> None:
        """The still moment before a stroke while the player lines up (the cue is over the table)."""
        self.sim.run(PRE_STROKE_S + float(self.rng.uniform(0.0, 0.4)))

    def stroke(
        self, stroke: Stroke, extra: dict[str, Any] | None = None, settle: bool = True, wait: bool = True
    ) -> None:
        """Strike (after the lining-up wait unless the caller already waited to solve the shot)."""
        if wait:
            self.wait_to_strike()
        self.sim.strike(stroke, extra)
        if settle:
            self.settle()

    def run_spot(self, balls: dict[str, tuple[float, float]]) -> None:
        """Balls put on the bed by hand (spotting, ball in hand)."""
        run_step(self, Place(balls))

    def settle(self) -> None:
        self.sim.run_until_rest(40.0)
        self.sim.run(POST_REST_S)


def play(scenario: Scenario, fps: float) -> tuple[Timeline, list[dict[str, Any]]]:
    """Run every step of the scenario; returns the timeline and the log (match header first)."""
    table = Table.load(scenario.table)
    sim = Simulator(table, fps, seed=scenario.seed)
    d = Director(sim, np.random.default_rng(scenario.seed), game=scenario.game)
    for ball, xy in scenario.setup.items():
        sim.place(ball, xy)
    d.log.append(
        {
            "type": "match",
            "game": scenario.game,
            "players": list(scenario.players),
            "breaker": scenario.breaker,
            "t": 0.0,
        }
    )
    if scenario.phase == "lag":
        del d.log[-1]["breaker"]  # no breaker: a lag is owed
    if scenario.phase == "break_position":  # a break from a position the engine cannot assume (incomplete rack)
        d.log.append(
            {
                "type": "state",
                "balls": {b: [round(x, 2), round(y, 2)] for b, (x, y) in sim.positions().items() if b != "C"},
                "to_play": scenario.breaker,
                "phase": "break",
                "hand": "house",
                "t": 0.0,
            }
        )
    elif scenario.phase not in ("break", "lag"):
        d.log.append(
            {
                "type": "state",
                "balls": {b: [round(x, 2), round(y, 2)] for b, (x, y) in sim.positions().items()},
                "to_play": scenario.breaker,
                "phase": "play",
                "t": 0.0,
            }
        )
    sim.run(scenario.lead_in)
    for step in scenario.steps:
        run_step(d, step)
    sim.run(0.3)
    return to_timeline(sim), d.log


def run_step(d: Director, step: Step) -> None:
    sim = d.sim
    if isinstance(step, Shoot):
        d.stroke(step.stroke, step.extra, step.settle)
    elif isinstance(step, PotShot):
        if d.game in ("russian71", "classic71"):
            d.referee({"type": "nominate", "ball": step.ball, "pocket": step.pocket})
        d.wait_to_strike()  # solved at the instant of the stroke: the verifying trial is the real run
        s = solve_pot(
            sim, step.cue, step.ball, step.pocket, step.speed, step.height, step.side, step.allow_scratch, step.via
        )
        if s is None:
            d.notes.append(f"no verified stroke pots {step.ball} in {step.pocket}; played the ghost-ball aim")
            aim = aim_point(sim, step.pocket)
            phi, cut = ghost_angle(sim, step.cue, step.ball, aim)
            s = Stroke(
                step.cue, step.speed or natural_speed(sim, step.cue, step.ball, aim, cut), phi, step.height, step.side
            )
        d.stroke(s, wait=False)
    elif isinstance(step, BankShot):
        d.wait_to_strike()
        s = solve_bank(sim, step.cue, step.ball, step.pocket, step.cushion)
        if s is None:
            d.notes.append(f"no verified bank of {step.ball} off {step.cushion} into {step.pocket}")
            phi, _ = ghost_angle(sim, step.cue, step.ball, aim_point(sim, step.pocket))
            s = Stroke(step.cue, 3000.0, phi)
        d.stroke(s, wait=False)
    elif isinstance(step, RattleShot):
        sim.run(PRE_STROKE_S)  # wait first: the solve must start from the very instant of the stroke
        aim = aim_point(sim, step.pocket)
        phi, _ = ghost_angle(sim, step.cue, step.ball, aim)

        def rattled(ev: list[Event]) -> bool:
            jaws = [e for e in ev if e.type is EventType.CUSHION and e.ball == step.ball and "jaw" in e.extra]
            return bool(jaws) and not potted(ev, step.ball)

        base = Stroke(step.cue, step.speed, phi)
        s = solve_scan(sim, base, rattled, span_deg=1.0, n=9, speeds=(1.0, 1.3), exact=True)
        if s is None:
            d.notes.append(f"no stroke found that rattles {step.ball} in the {step.pocket} jaws")
            s = Stroke(step.cue, step.speed, phi)
        sim.strike(s)
        d.settle()
    elif isinstance(step, Wait):
        sim.run(step.seconds)
    elif isinstance(step, Disturb):
        sim.run(0.6)
        sim.disturb(step.ball, step.velocity)
        d.settle()
    elif isinstance(step, Place):
        for ball, xy in step.balls.items():
            sim.run(0.3)
            sim.hand(xy)
            sim.run(0.3)
            sim.place(ball, xy)
        sim.run(0.5)
    elif isinstance(step, SpotBalls):
        spots = spot_balls(sim.table, list(step.balls), sim.positions())
        run_step(d, Place(spots))
    elif isinstance(step, Drop):
        sim.drop(step.ball, step.pocket, {"hanging": True})
        sim.run(0.3)
    elif isinstance(step, Referee):
        d.referee(step.item)
    elif isinstance(step, Lag):
        play_lag(d, step)
    elif isinstance(step, PlayFrame):
        from synthetic.scenarios.frames import play_frame  # the policy player needs the runner

        play_frame(d, step)
    else:
        raise TypeError(f"unknown scenario step {step!r}")


def play_lag(d: Director, step: Lag) -> None:
    """Solve each ball's speed (bisection on trial runs) to stop near its target, then strike both at once."""
    sim = d.sim
    d.referee({"type": "lag", "balls": dict(step.balls)})
    strokes = []
    for (ball, _player), x_stop in zip(step.balls.items(), step.stops_x, strict=False):
        lo, hi = 600.0, 2500.0
        for _ in range(7):
            mid = 0.5 * (lo + hi)
            c = sim.clone(replace(sim.p, dt_max=TRIAL_DT))
            for other in step.balls:
                if other != ball:
                    c.remove(other)
            c.strike(Stroke(ball, mid, 0.0, height=0.3))
            c.run_until_rest(30.0)
            back = any(e.type is EventType.CUSHION and e.cushion == "rear" for e in c.events)
            if not back or c.pos[c.index(ball), 0] > x_stop:
                lo = mid  # too slow: it did not come back far enough
            else:
                hi = mid
        strokes.append(Stroke(ball, 0.5 * (lo + hi), 0.0, height=0.3))
    sim.run(PRE_STROKE_S)
    for s in strokes:
        sim.strike(s, {"lag": True})
    d.settle()
