"""Physics laws of the synthetic world: rolling distance, stun to roll, full-ball stop, restitution, energy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.table import Table
from rules.events import EventType, Line
from synthetic.physics import PhysicsParams, Simulator, Stroke

TABLE = Table.load()
R = TABLE.ball_radius
P = PhysicsParams()
M = TABLE.spec.ball_mass_kg


def sim_with(balls: dict[str, tuple[float, float]], fps: float = 60.0) -> Simulator:
    s = Simulator(TABLE, fps)
    for b, xy in balls.items():
        s.place(b, xy)
    return s


def energy(s: Simulator) -> float:
    """Kinetic energy (arbitrary units, mm^2/s^2 * kg) of the balls in play."""
    live = np.isfinite(s.pos[:, 0])
    v2 = (s.vel[live] ** 2).sum()
    w2 = (s.w[live] ** 2).sum()
    return 0.5 * M * v2 + 0.5 * M * 0.4 * R * R * w2


@pytest.mark.parametrize("v0", [300.0, 500.0, 700.0])
def test_rolling_ball_stops_at_theoretical_distance(v0: float) -> None:
    s = sim_with({"C": (-1500.0, 0.0)})
    s.strike(Stroke("C", v0, 0.0, height=0.4))  # natural roll: no sliding phase
    s.run_until_rest(60.0)
    travelled = s.pos[s.index("C"), 0] + 1500.0
    assert travelled == pytest.approx(v0 * v0 / (2 * P.mu_roll * P.g), abs=0.05)


def test_stunned_ball_rolls_at_five_sevenths_after_sliding() -> None:
    v0 = 2000.0
    s = sim_with({"C": (-1500.0, 0.0)})
    s.strike(Stroke("C", v0, 0.0))
    t_slide = 2 * v0 / (7 * P.mu_slide * P.g)
    s.run(t_slide + 0.05)
    speed = float(np.linalg.norm(s.vel[s.index("C")]))
    assert speed == pytest.approx(5 / 7 * v0 - P.mu_roll * P.g * 0.05, rel=1e-6)
    x_slide = v0 * t_slide - 0.5 * P.mu_slide * P.g * t_slide**2
    x = x_slide + 5 / 7 * v0 * 0.05 - 0.5 * P.mu_roll * P.g * 0.05**2
    assert s.pos[s.index("C"), 0] + 1500.0 == pytest.approx(x, abs=1e-3)


def test_straight_full_ball_hit_stops_a_stunned_cue_ball() -> None:
    s = sim_with({"C": (-500.0, 0.0), "5": (-400.0, 0.0)})  # 32 mm apart: still sliding, barely any spin
    s.strike(Stroke("C", 3000.0, 0.0))
    s.run(1.0, stop_after=1)  # up to the contact
    contact = s.events[-1]
    assert contact.type is EventType.BALL_CONTACT and set(contact.balls or ()) == {"C", "5"}
    assert float(np.linalg.norm(s.vel[s.index("C")])) < (1 - P.e_ball) / 2 * 3000.0 + 1e-6
    s.run(0.6)  # the object ball is still on its way to the rear cushion
    cue_x = s.pos[s.index("C"), 0]
    assert abs(cue_x - (-400.0 - 2 * R)) < 25.0  # the cue ball stays (almost) where it met the object ball
    assert s.vel[s.index("5"), 0] > 1500.0  # the object ball took the pace


def test_ball_ball_restitution() -> None:
    s = sim_with({"C": (-800.0, 0.0), "5": (-500.0, 0.0)})
    s.strike(Stroke("C", 2000.0, 0.0))
    n = len(s.events)
    s.run(1.0, stop_after=n)  # stop right after the contact
    v_cue = float(s.vel[s.index("C"), 0])
    v_ob = float(s.vel[s.index("5"), 0])
    closing = v_ob + v_cue  # momentum is shared: before the contact the cue ball moved at this speed
    assert (v_ob - v_cue) / closing == pytest.approx(P.e_ball, abs=1e-9)


def test_cushion_rebound_loses_pace_and_reverses() -> None:
    s = sim_with({"C": (2000.0 - 700.0 - 1000.0, 0.0)})
    s.strike(Stroke("C", 1500.0, 0.0, height=0.4))
    n = len(s.events)
    s.run(5.0, stop_after=n)
    ev = s.events[-1]
    assert ev.type is EventType.CUSHION and ev.cushion == "rear"
    vx_after = float(s.vel[s.index("C"), 0])
    v_in = float(ev.extra["speed_mm_s"])
    assert vx_after < 0 and -vx_after < v_in


def test_energy_never_grows_in_a_break() -> None:
    from rules.rack import full_rack

    s = sim_with({**full_rack(TABLE), "C": (-1100.0, 20.0)}, fps=200.0)
    s.strike(Stroke("C", 7000.0, math.atan2(-20.0, TABLE.rear_line_x + 1100.0), height=0.2))
    last = energy(s)
    for _ in range(60):
        s.run(1 / 200.0)
        e = energy(s)
        assert e <= last * (1 + 1e-9) + 1e-9
        last = e


def test_ball_starting_on_the_centre_line_has_not_crossed_by_leaving_it() -> None:
    s = sim_with({"C": (0.0, 300.0), "3": (400.0, -300.0)})
    s.strike(Stroke("C", 800.0, math.pi, height=0.4))  # leaves the line towards the front
    s.run_until_rest(20.0)
    crosses = [e for e in s.events if e.type is EventType.LINE_CROSS and e.line is Line.CENTRE]
    assert crosses == []
    s.strike(Stroke("C", 1500.0, 0.0, height=0.4))  # now it does cross, to the rear
    s.run(2.0)
    crosses = [e for e in s.events if e.type is EventType.LINE_CROSS and e.line is Line.CENTRE]
    assert crosses and crosses[0].to == "rear" and crosses[0].ball == "C"


def test_jump_stroke_leaves_the_bed_over_the_cushion() -> None:
    s = sim_with({"C": (1200.0, 0.0)})
    s.strike(Stroke("C", 5000.0, 0.0, lift=1800.0))
    s.run_until_rest(10.0)
    kinds = [e.type for e in s.events]
    assert EventType.OFF_TABLE in kinds
    assert s.mode[s.index("C")] == 6  # Motion.OFF_TABLE
