"""Scenarios of each foul the camera can see, the lag, and a ball that hangs in a pocket and drops later."""

from __future__ import annotations

import math

from synthetic.physics.stroke import Stroke
from synthetic.scenarios.language import (
    Disturb,
    Drop,
    Lag,
    Place,
    PotShot,
    RattleShot,
    Referee,
    Scenario,
    Shoot,
    SpotBalls,
    Wait,
)
from synthetic.scenarios.shots import HW, TABLE, R, behind, house_spot, on_approach, rng_of


def no_contact(seed: int) -> Scenario:
    """The cue ball touches no object ball (1.5.3): played to the front cushion, away from every ball."""
    rng = rng_of(seed)
    setup = {
        "1": (float(rng.uniform(700, 1000)), 400.0),
        "2": (900.0, -300.0),
        "C": (-400.0, float(rng.uniform(-200, 200))),
    }
    return Scenario(
        "foul_no_contact",
        "Cue ball misses every object ball",
        setup,
        [Shoot(Stroke("C", float(rng.uniform(900, 1300)), math.pi + float(rng.uniform(-0.2, 0.2))))],
        seed=seed,
    )


def fails_120(seed: int) -> Scenario:
    """A soft touch: the object ball rolls a little, no cushion, no centre-line crossing (1.20 fails)."""
    rng = rng_of(seed)
    ob = (float(rng.uniform(600, 900)), float(rng.uniform(-200, 200)))
    cue = behind(ob, (ob[0] + 100.0, ob[1] + float(rng.uniform(-40, 40))), 250.0)
    a = math.atan2(ob[1] - cue[1], ob[0] - cue[0])
    return Scenario(
        "foul_shot_fails_1_20",
        "Soft contact, no cushion and no crossing after it (1.20)",
        {"6": ob, "C": cue, "11": (-900.0, 500.0)},
        [Shoot(Stroke("C", 450.0, a, height=0.2))],
        seed=seed,
    )


def cue_ball_potted(seed: int) -> Scenario:
    """Straight pot with heavy follow: the object ball drops and the cue ball follows it in."""
    rng = rng_of(seed)
    pocket = str(rng.choice(["rear_left", "rear_right"]))
    ob = on_approach(pocket, float(rng.uniform(180, 260)), float(rng.uniform(-3, 3)))
    cue = behind(ob, TABLE.pockets[pocket].mouth_centre, float(rng.uniform(350, 500)))
    return Scenario(
        "foul_cue_ball_potted",
        f"Ball 10 and then the cue ball into {pocket}",
        {"10": ob, "C": cue, "4": (-800.0, -300.0)},
        [
            PotShot("10", pocket, height=0.6, speed=2600.0, allow_scratch=True),
            SpotBalls(("10",)),  # potted on a foul: spotted (1.22.3, 1.25)
            Place({"C": house_spot(rng)}),  # the opponent plays from the house (5.5.5)
        ],
        seed=seed,
        notes="the cue ball follows the object ball into the pocket; 10 is spotted, the cue ball goes to the house",
    )


def jumped_ball(seed: int) -> Scenario:
    """A jump stroke: the airborne cue ball clips ball 3, flies on over the rear cushion and off the table
    (1.24; the contact came first, so 1.5 is met)."""
    rng = rng_of(seed)
    cue = (float(rng.uniform(950, 1100)), float(rng.uniform(-300, 300)))
    side = float(rng.choice([-1.0, 1.0]))
    ob = (cue[0] + float(rng.uniform(110, 140)), cue[1] + side * float(rng.uniform(45, 52)))
    return Scenario(
        "foul_jumped_ball",
        "The cue ball clips ball 3 in the air and jumps the rear cushion",
        {"C": cue, "3": ob, "12": (-600.0, 250.0)},
        [
            Shoot(Stroke("C", float(rng.uniform(4800, 5600)), 0.0, lift=float(rng.uniform(1700, 1900)))),
            Place({"C": house_spot(rng)}),  # the opponent plays from the house
        ],
        seed=seed,
    )


def wrong_ball(seed: int) -> Scenario:
    """Russian 71: the player strikes ball 7 (not the coloured ball) and pots ball 11 with it (1.4)."""
    rng = rng_of(seed)
    b11 = on_approach("rear_left", float(rng.uniform(300, 500)), float(rng.uniform(-8, 8)))
    b7 = behind(b11, TABLE.pockets["rear_left"].mouth_centre, float(rng.uniform(400, 600)))
    return Scenario(
        "foul_wrong_ball_struck",
        "Ball 7 struck instead of the cue ball",
        {"11": b11, "7": b7, "C": (-1000.0, 200.0)},
        [PotShot("11", "rear_left", cue="7")],
        seed=seed,
    )


def push(seed: int) -> Scenario:
    """Cue ball touching ball 2 on the line to a corner, struck along the centres with follow: ball 2 drops
    and the cue ball travels on after it (1.19: a push, the only fault of the shot)."""
    rng = rng_of(seed)
    pocket = str(rng.choice(["rear_left", "rear_right"]))
    mouth = TABLE.pockets[pocket].mouth_centre
    ob = on_approach(pocket, float(rng.uniform(550, 750)), float(rng.uniform(-5, 5)))
    cue = behind(ob, mouth, 2 * R)
    a = math.atan2(mouth[1] - ob[1], mouth[0] - ob[0])
    return Scenario(
        "foul_push_touching_balls",
        f"Push: cue ball frozen to ball 2, followed through along the centres; 2 drops in {pocket}",
        {"2": ob, "C": cue, "13": (-900.0, -500.0)},
        [Shoot(Stroke("C", float(rng.uniform(1050, 1250)), a, height=0.3))],
        seed=seed,
    )


def touching_played_away(seed: int) -> Scenario:
    """Legal: cue ball touching ball 2, played at 60 degrees away from the line of centres (1.19 (1))."""
    rng = rng_of(seed)
    ob = (float(rng.uniform(200, 500)), float(rng.uniform(-200, 200)))
    cue = (ob[0] - 2 * R, ob[1])
    return Scenario(
        "legal_touching_balls_played_away",
        "Touching balls, cue ball played 60 degrees away",
        {"2": ob, "C": cue, "13": (1200.0, -600.0)},
        [Shoot(Stroke("C", 2500.0, math.radians(-60.0 - float(rng.uniform(0, 10)))))],
        seed=seed,
    )


def hand_touch(seed: int) -> Scenario:
    """A sleeve brushes ball 5 before the stroke (1.17: ball_disturbed), then the shot is played."""
    rng = rng_of(seed)
    ob = on_approach("rear_right", float(rng.uniform(500, 700)), 0.0)
    cue = behind(ob, TABLE.pockets["rear_right"].mouth_centre, 600.0)
    return Scenario(
        "foul_ball_touched_by_hand",
        "Ball 5 moved by the player's sleeve, then 8 potted",
        {"8": ob, "C": cue, "5": (float(rng.uniform(-600, -300)), float(rng.uniform(200, 500)))},
        [Disturb("5", (float(rng.uniform(80, 160)), float(rng.uniform(-60, 60)))), PotShot("8", "rear_right")],
        seed=seed,
    )


def early_strike(seed: int) -> Scenario:
    """Striking before every ball stopped (1.14.2): the second stroke comes while ball 9 still rolls."""
    rng = rng_of(seed)
    setup = {"9": (-200.0, float(rng.uniform(-100, 100))), "C": (-700.0, 0.0), "14": (900.0, 600.0)}
    a = math.atan2(setup["9"][1], 500.0)
    return Scenario(
        "foul_strike_before_balls_stopped",
        "Second stroke while ball 9 is still rolling",
        setup,
        [Shoot(Stroke("C", 2200.0, a), settle=False), Wait(1.0), Shoot(Stroke("C", 800.0, math.pi / 2 + 0.3))],
        seed=seed,
    )


def hanging_ball(seed: int) -> Scenario:
    """Ball 12 hangs over the left middle pocket, a shot is played elsewhere, then 12 falls by itself (1.23)."""
    rng = rng_of(seed)
    hang = (float(rng.uniform(-8, 8)), HW - float(rng.uniform(2, 6)))
    ob = on_approach("rear_right", 600.0, float(rng.uniform(-6, 6)))
    cue = behind(ob, TABLE.pockets["rear_right"].mouth_centre, 500.0)
    return Scenario(
        "hanging_ball_drops_later",
        "Ball 12 on the lip of the left middle pocket drops after a shot",
        {"12": hang, "1": ob, "C": cue},
        [PotShot("1", "rear_right"), Wait(float(rng.uniform(1.0, 2.5))), Drop("12", "middle_left")],
        seed=seed,
    )


def lag(seed: int) -> Scenario:
    """The lag for the break (1.7): both players at once from the house, to the rear cushion and back."""
    rng = rng_of(seed)
    x0 = TABLE.house_line_x - float(rng.uniform(100, 300))
    setup = {"C": (x0, 300.0), "1": (x0, -300.0)}
    stops = (float(rng.uniform(-1600, -1300)), float(rng.uniform(-1600, -1300)))
    return Scenario(
        "lag_for_break",
        "Lag: coloured ball (A) and ball 1 (B) to the rear cushion and back",
        setup,
        [Lag({"C": "A", "1": "B"}, stops)],
        phase="lag",
        seed=seed,
    )


def frozen_on_cushion(seed: int) -> Scenario:
    """Ball 14 frozen to the left-rear cushion (declared, 1.20 note 2) driven along and off it by the cue ball."""
    rng = rng_of(seed)
    ob = (float(rng.uniform(500, 900)), HW - R)
    a = math.radians(float(rng.uniform(25, 40)))
    cue = (ob[0] - 2 * R * math.cos(a) - 500 * math.cos(a), ob[1] - 2 * R * math.sin(a) - 500 * math.sin(a))
    return Scenario(
        "frozen_ball_on_cushion",
        "Cue ball into ball 14, which is frozen to the left-rear cushion",
        {"14": ob, "C": cue, "3": (-700.0, -400.0)},
        [
            Referee({"type": "declare_frozen", "ball": "14", "cushion": "left_rear"}),
            Shoot(Stroke("C", float(rng.uniform(1800, 2600)), a, height=0.2)),
        ],
        seed=seed,
    )


def cluster_split(seed: int) -> Scenario:
    """Three touching balls in a row, struck full by the cue ball: the impulse runs through the cluster."""
    rng = rng_of(seed)
    y = float(rng.uniform(-300, 300))
    x0 = float(rng.uniform(-100, 200))
    setup = {
        "2": (x0, y),
        "9": (x0 + 2 * R, y),
        "12": (x0 + 4 * R, y),
        "C": (x0 - 700.0, y + float(rng.uniform(-20, 20))),
    }
    a = math.atan2(y - setup["C"][1], x0 - setup["C"][0])
    return Scenario(
        "touching_cluster_hit",
        "Cue ball into a row of three touching balls (2, 9, 12)",
        setup,
        [Shoot(Stroke("C", float(rng.uniform(2500, 3500)), a))],
        seed=seed,
    )


def jaw_rattle(seed: int) -> Scenario:
    """Ball 4 sent at a corner from 25 degrees off its axis: it hits the jaws and stays out (1.22.5)."""
    rng = rng_of(seed)
    pocket = "rear_left"
    ob = on_approach(pocket, float(rng.uniform(450, 650)), float(rng.choice([-1.0, 1.0]) * rng.uniform(24, 28)))
    cue = behind(ob, TABLE.pockets[pocket].mouth_centre, float(rng.uniform(450, 650)))
    return Scenario(
        "jaw_rattle_no_pot",
        "Ball 4 rattles in the rear-left jaws and stays on the bed",
        {"4": ob, "C": cue, "15": (-700.0, -350.0)},
        [RattleShot("4", pocket, speed=float(rng.uniform(1800, 2400)))],
        seed=seed,
    )


def cue_ball_anywhere(seed: int) -> Scenario:
    """Dynamic: after the opponent's foul the cue ball is placed by hand anywhere (4.7(2)), then a pot."""
    rng = rng_of(seed)
    ob = on_approach("middle_right", float(rng.uniform(300, 500)), float(rng.uniform(-10, 10)))
    cue = behind(ob, TABLE.pockets["middle_right"].mouth_centre, float(rng.uniform(400, 600)))
    return Scenario(
        "cue_ball_in_hand_anywhere",
        "Cue ball placed by hand next to ball 6, which is potted in the right middle pocket",
        {"6": ob, "11": (1100.0, 300.0)},
        [Place({"C": cue}), PotShot("6", "middle_right")],
        game="dynamic",
        seed=seed,
    )
