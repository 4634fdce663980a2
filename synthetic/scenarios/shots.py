"""Scenarios of single legal shots and the break: what a referee sees most often."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from calibration.table import Table
from rules.rack import full_rack, incomplete_rack
from synthetic.physics.stroke import Stroke
from synthetic.scenarios.language import BankShot, PlayFrame, Point, PotShot, Scenario, Shoot, SpotBalls

TABLE = Table.load()
R = TABLE.ball_radius
HL, HW = TABLE.half_length, TABLE.half_width


def rng_of(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def house_spot(rng: np.random.Generator, table: Table = TABLE) -> Point:
    """A cue-ball position in hand in the house (1.11.3: not on the house line)."""
    x = float(rng.uniform(-table.half_length + 2 * R + 60, table.house_line_x - 40))
    y = float(rng.uniform(-table.half_width * 0.6, table.half_width * 0.6))
    return (x, y)


def behind(target: Point, towards: Point, dist: float) -> Point:
    """The point `dist` mm from target on the far side from `towards` (a straight shot's cue-ball spot)."""
    t, p = np.asarray(target), np.asarray(towards)
    u = (p - t) / np.linalg.norm(p - t)
    q = t - u * dist
    return (float(q[0]), float(q[1]))


def on_approach(pocket: str, dist: float, off_deg: float) -> Point:
    """A point `dist` mm from a pocket's mouth centre whose line to it is `off_deg` off the pocket axis.

    Corner mouths (72.5 mm for a 68 mm ball) only take balls within about 20 degrees of their axis,
    middle ones within about 34 degrees.
    """
    pk = TABLE.pockets[pocket]
    out = np.asarray(pk.outward)
    a = math.radians(off_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    q = np.asarray(pk.mouth_centre) - (rot @ out) * dist
    return (float(q[0]), float(q[1]))


def cue_for_cut(ob: Point, pocket: str, cut_deg: float, dist: float) -> Point:
    """Cue-ball spot `dist` mm from the ghost ball for a cut of `cut_deg` (sign: which side)."""
    mouth = np.asarray(TABLE.pockets[pocket].mouth_centre)
    u = (mouth - np.asarray(ob)) / np.linalg.norm(mouth - np.asarray(ob))
    a = math.radians(cut_deg)
    back = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) @ (-u)
    q = np.asarray(ob) - 2 * R * u + back * dist
    return (float(q[0]), float(q[1]))


def break_shot(seed: int) -> Scenario:
    """The opening break: full Russian rack (5.3), cue ball from hand in the house into the apex ball."""
    rng = rng_of(seed)
    setup = dict(full_rack(TABLE))
    cue = house_spot(rng)
    setup["C"] = cue
    apex = setup["4"]
    aim_y = apex[1] + float(rng.uniform(-12, 12))
    angle = math.atan2(aim_y - cue[1], apex[0] - cue[0])
    speed = float(rng.uniform(6500, 8500))
    return Scenario(
        "break",
        "Opening break from the house into a full Russian-order rack",
        setup,
        [Shoot(Stroke("C", speed, angle, height=float(rng.uniform(-0.2, 0.3))))],
        seed=seed,
        phase="break",
    )


def straight_pot(seed: int) -> Scenario:
    """A straight pot of one object ball into a corner pocket, cue ball a metre behind."""
    rng = rng_of(seed)
    pocket = str(rng.choice(["rear_left", "rear_right", "front_left", "front_right"]))
    mouth = TABLE.pockets[pocket].mouth_centre
    sx, sy = np.sign(mouth[0]), np.sign(mouth[1])
    ob = on_approach(pocket, float(rng.uniform(500, 900)), float(rng.uniform(-12, 12)))
    cue = behind(ob, mouth, float(rng.uniform(500, 800)))
    setup = {"7": ob, "C": cue, "12": (float(-sx * 800), float(-sy * 300))}
    return Scenario(
        "legal_straight_pot", f"Ball 7 potted straight into {pocket}", setup, [PotShot("7", pocket)], seed=seed
    )


def cut_pot(seed: int) -> Scenario:
    """A cut of about 30-55 degrees into a corner pocket."""
    rng = rng_of(seed)
    ob = on_approach("rear_left", float(rng.uniform(600, 1000)), float(rng.uniform(-10, 10)))
    cue = cue_for_cut(ob, "rear_left", float(rng.uniform(30, 50)), float(rng.uniform(600, 900)))
    setup = {"3": ob, "C": cue}
    return Scenario(
        "legal_cut_pot",
        "Ball 3 cut into the rear-left corner",
        setup,
        [PotShot("3", "rear_left", height=0.3)],
        seed=seed,
    )


def thin_cut(seed: int) -> Scenario:
    """A thin cut (60-70 degrees) along the long cushion into a corner."""
    rng = rng_of(seed)
    ob = on_approach("rear_right", float(rng.uniform(500, 800)), float(rng.uniform(-8, 8)))
    cue = cue_for_cut(ob, "rear_right", float(rng.uniform(58, 66)), 700.0)
    setup = {"9": ob, "C": cue, "2": (-900.0, 400.0)}
    return Scenario(
        "legal_thin_cut",
        "Ball 9 thin-cut into the rear-right corner",
        setup,
        [PotShot("9", "rear_right", speed=3500.0)],
        seed=seed,
    )


def bank_shot(seed: int) -> Scenario:
    """Ball 5 banked off the right long cushion across into the left middle pocket."""
    rng = rng_of(seed)
    ob = (float(rng.uniform(250, 450)), float(rng.uniform(-500, -350)))
    cue = (ob[0] + float(rng.uniform(-250, 50)), ob[1] + float(rng.uniform(550, 800)))
    return Scenario(
        "legal_bank_shot",
        "Ball 5 off the right-rear cushion into the left middle pocket",
        {"5": ob, "C": cue, "10": (1200.0, 500.0)},
        [BankShot("5", "middle_left", "right_rear")],
        seed=seed,
    )


def kiss_pot(seed: int) -> Scenario:
    """A kiss: the cue ball drives ball 6 into ball 11, which goes into the rear-left corner."""
    rng = rng_of(seed)
    mouth = np.asarray(TABLE.pockets["rear_left"].mouth_centre)
    b11 = np.array([float(rng.uniform(900, 1200)), float(rng.uniform(350, 550))])
    u = (mouth - b11) / np.linalg.norm(mouth - b11)
    b6 = b11 - u * float(rng.uniform(250, 400))
    ghost6 = b11 - 2 * R * u  # 6 must arrive here moving along u
    setup = {"11": (float(b11[0]), float(b11[1])), "6": (float(b6[0]), float(b6[1]))}
    setup["C"] = behind((float(b6[0]), float(b6[1])), (float(ghost6[0]), float(ghost6[1])), 600.0)
    return Scenario(
        "legal_kiss_pot",
        "Cue ball into 6, 6 into 11, 11 into the rear-left corner",
        setup,
        [PotShot("11", "rear_left", via="6", speed=3200.0)],
        seed=seed,
    )


def spotting_after_jump(seed: int) -> Scenario:
    """Two balls spotted on the spotting line after a shot (1.25), around a ball near the rear spot."""
    rng = rng_of(seed)
    setup = {"1": (TABLE.rear_line_x + 20.0, float(rng.uniform(-30, 30))), "C": (-1000.0, 0.0)}
    return Scenario(
        "spotting_two_balls",
        "Balls 8 and 14 spotted on the spotting line after a foul",
        setup,
        [SpotBalls(("8", "14"))],
        seed=seed,
    )


def incomplete_rack_break(seed: int) -> Scenario:
    """A break into an incomplete pyramid of 14 balls (a penalty ball taken, 1.8 note)."""
    rng = rng_of(seed)
    balls = [str(i) for i in range(1, 16) if i != int(rng.integers(1, 16))]
    setup = dict(incomplete_rack(TABLE, balls))
    cue = house_spot(rng)
    setup["C"] = cue
    xs = min(p[0] for p in setup.values() if p is not cue)
    front = min((p for b, p in setup.items() if b != "C" and p[0] == xs), key=lambda p: abs(p[1]))
    angle = math.atan2(front[1] - cue[1], front[0] - cue[0])
    return Scenario(
        "break_incomplete_rack",
        "Break into a 14-ball incomplete pyramid",
        setup,
        [Shoot(Stroke("C", float(rng.uniform(6500, 8000)), angle))],
        game="free",
        seed=seed,
        phase="break_position",
    )


def _frame(game: str, name: str, what: str) -> Callable[[int], Scenario]:
    def make(seed: int) -> Scenario:
        rng = rng_of(seed)
        setup = dict(full_rack(TABLE))
        setup["C"] = house_spot(rng)
        return Scenario(
            name, what, setup, [PlayFrame(game, foul_rate=0.12, max_seconds=150.0)], game=game, seed=seed, phase="break"
        )

    return make


frame_free = _frame("free", "frame_free", "A whole frame of Free pyramid by two policy players")
frame_combined = _frame("combined", "frame_combined", "A whole frame of Combined pyramid")
frame_dynamic = _frame("dynamic", "frame_dynamic", "A whole frame of Dynamic pyramid")
frame_russian71 = _frame("russian71", "frame_russian71", "A Russian 71 sequence with nominations")
