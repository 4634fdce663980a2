"""Touching and nearly touching balls struck (1.19): pushes and the strokes that are not, for the event set.

Each varies what tells the struck ball and the push apart from above: which ball the cue struck (any ball in
Free pyramid), follow against draw, a small gap, a stroke at an angle, a ball played straight away from a
touching one (the struck ball is then in doubt from above, docs/event-schema.md).
"""

from __future__ import annotations

import math

from synthetic.physics.stroke import Stroke
from synthetic.scenarios.language import Scenario, Shoot
from synthetic.scenarios.shots import TABLE, R, behind, on_approach, rng_of


def _pair(seed: int, gap: float) -> tuple[str, tuple[float, float], tuple[float, float], float]:
    """An object ball on the approach to a rear corner and the struck ball behind it at `gap` mm, on the
    line to the mouth: (pocket, object, struck ball, heading of the line of centres in radians)."""
    rng = rng_of(seed)
    pocket = str(rng.choice(["rear_left", "rear_right"]))
    mouth = TABLE.pockets[pocket].mouth_centre
    ob = on_approach(pocket, float(rng.uniform(500, 800)), float(rng.uniform(-5, 5)))
    cue = behind(ob, mouth, 2 * R + gap)
    return pocket, ob, cue, math.atan2(ob[1] - cue[1], ob[0] - cue[0])


def push_free_ivory(seed: int) -> Scenario:
    """Free pyramid: ivory ball 5 touching ball 9, struck with follow a little off the line of centres;
    9 runs to the pocket and 5 travels on after it: a push by ball 5 (1.19), any ball may be the cue ball
    (1.4.3)."""
    rng = rng_of(seed + 101)
    pocket, ob, cue, a = _pair(seed, float(rng.uniform(0.0, 1.0)))
    off = math.radians(float(rng.uniform(-25, 25)))
    return Scenario(
        "push_free_ivory",
        f"Free: ball 5 pushed through touching ball 9 towards {pocket}",
        {"9": ob, "5": cue, "C": (-900.0, 400.0), "12": (-1200.0, -500.0)},
        [Shoot(Stroke("5", float(rng.uniform(900, 1300)), a + off, height=0.35))],
        game="free",
        seed=seed,
    )


def touching_draw(seed: int) -> Scenario:
    """Cue ball touching ball 2, struck straight with draw: 2 drops, the cue ball comes back; it did not
    travel forward after 2, so not a push (1.19.2(2)): a legal pot."""
    rng = rng_of(seed + 202)
    pocket, ob, cue, a = _pair(seed, float(rng.uniform(0.0, 1.0)))
    return Scenario(
        "touching_draw_not_push",
        f"Cue ball touching ball 2, drawn back; 2 drops in {pocket}",
        {"2": ob, "C": cue, "13": (-900.0, -500.0)},
        [Shoot(Stroke("C", float(rng.uniform(1300, 1700)), a, height=-0.55))],
        seed=seed,
    )


def near_push_gap(seed: int) -> Scenario:
    """Cue ball 2-4 mm from ball 2 (tip, cue ball and object ball touch at once), struck 15-35 degrees off
    the line of centres with follow: the cue ball runs on past 2: a push (1.19.2, neither exception)."""
    rng = rng_of(seed + 303)
    pocket, ob, cue, a = _pair(seed, float(rng.uniform(2.0, 4.0)))
    off = math.radians(float(rng.uniform(15, 35)) * float(rng.choice([-1.0, 1.0])))
    return Scenario(
        "near_push_gap",
        f"Cue ball a few mm from ball 2, struck at an angle with follow; 2 towards {pocket}",
        {"2": ob, "C": cue, "13": (-900.0, -500.0)},
        [Shoot(Stroke("C", float(rng.uniform(900, 1300)), a + off, height=0.4))],
        seed=seed,
    )


def touching_straight_away(seed: int) -> Scenario:
    """Cue ball touching ball 2, played straight away from it to ball 7 (1.19 note: no contact with 2);
    the cue ball then hits 7: legal as far as the camera can tell, but from above ball 2 struck dead into
    the cue ball would look the same (the struck ball is flagged for review)."""
    rng = rng_of(seed + 404)
    ob = (float(rng.uniform(300, 600)), float(rng.uniform(-250, 250)))
    cue = (ob[0] - 2 * R - float(rng.uniform(0.0, 1.0)), ob[1])
    b7 = (cue[0] - float(rng.uniform(500, 800)), cue[1] + float(rng.uniform(-10, 10)))
    return Scenario(
        "touching_straight_away",
        "Cue ball played straight away from touching ball 2, onto ball 7",
        {"2": ob, "C": cue, "7": b7, "13": (1300.0, -600.0)},
        [Shoot(Stroke("C", float(rng.uniform(1500, 2000)), math.pi, height=0.2))],
        seed=seed,
    )
