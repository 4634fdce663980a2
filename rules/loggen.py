"""Random but plausible match logs, built shot by shot against the engine's own state.

For property tests and the benchmark. Each shot is chosen from what the state allows (balls on the table,
a break due, decisions owed), so the log exercises every path: pots, misses, fouls, choices, penalty balls,
frames. Seeded: the same seed gives the same log.
"""

from __future__ import annotations

import math
import random
from typing import Any

from calibration.table import Table
from rules.engine import play_shot
from rules.frames import initial_state
from rules.inputs import parse_log
from rules.logbuild import LogBuilder, Step
from rules.records import ShotRecord, group_log
from rules.settings import RulesSettings
from rules.state import DecisionKind, Game, MatchState, Phase

POCKETS = ("front_left", "front_right", "middle_left", "middle_right", "rear_left", "rear_right")
CUSHIONS = ("front", "rear", "left_front", "left_rear", "right_front", "right_rear")
KINDS = ("pot", "pot2", "safe", "nochain", "miss", "cuepot", "jump", "disturbed", "cross")
WEIGHTS = (30, 8, 25, 8, 5, 6, 4, 2, 12)


def random_positions(rng: random.Random, table: Table, balls: list[str]) -> dict[str, tuple[float, float]]:
    """Non-overlapping rest positions on the bed for `balls`."""
    r = table.ball_radius
    out: dict[str, tuple[float, float]] = {}
    for b in balls:
        for _ in range(200):
            x = rng.uniform(-table.half_length + r, table.half_length - r)
            y = rng.uniform(-table.half_width + r, table.half_width - r)
            if all(math.hypot(x - px, y - py) > 2 * r + 1.0 for px, py in out.values()):
                out[b] = (round(x, 1), round(y, 1))
                break
    return out


def _shot_steps(rng: random.Random, kind: str, cue: str, objects: list[str]) -> list[Step]:
    a = rng.choice(objects)
    others = [b for b in objects if b != a] or [a]
    b = rng.choice(others)
    c1, c2 = rng.sample(CUSHIONS, 2)
    pocket = rng.choice(POCKETS)
    if kind == "pot":
        return [("contact", cue, a), ("pot", a, pocket)]
    if kind == "pot2":
        steps: list[Step] = [("contact", cue, a), ("contact", a, b), ("pot", a, pocket)]
        return steps + ([("pot", b, rng.choice(POCKETS))] if b != a else [])
    if kind == "safe":
        return [("contact", cue, a), ("cushion", a, c1), ("contact", a, b), ("cushion", b, c2)]
    if kind == "cross":
        return [("contact", cue, a), ("cross", a), ("cushion", a, c1)]
    if kind == "nochain":
        return [("contact", cue, a), ("cushion", a, c1)]
    if kind == "miss":
        return [("cushion", cue, c1), ("cushion", cue, c2)]
    if kind == "cuepot":
        return [("contact", cue, a), ("cushion", a, c1), ("cushion", a, c2), ("pot", cue, pocket)]
    if kind == "jump":
        return [("contact", cue, a), ("cushion", a, c1), ("off", a)]
    return [("contact", cue, a), ("cushion", a, c1), ("cushion", a, c2), ("disturbed", b)]


def _inputs(rng: random.Random, st: MatchState, lb: LogBuilder) -> None:
    """Settle some of the owed decisions (leave others to the engine's defaults)."""
    objects = [b for b in st.balls if b != "C"]
    for d in st.decisions:
        if rng.random() < 0.2:
            continue
        if d.kind in (DecisionKind.PENALTY_BALL, DecisionKind.REMOVE_BALL) and objects:
            ball = rng.choice(objects)
            objects.remove(ball)
            lb.add(d.kind.value, ball=ball)
        elif d.kind is DecisionKind.CHOICE_AFTER_FOUL:
            lb.add("choose", option=rng.choice(("play", "hand_over")))
        elif d.kind is DecisionKind.BREAK_CHOICE:
            lb.add("choose", option=rng.choice(d.options))
        elif d.kind is DecisionKind.DYNAMIC_CHOICE:
            lb.add("choose", option=rng.choice(("take_ball", "ball_in_hand")))
    if st.game in (Game.RUSSIAN71, Game.CLASSIC71) and objects and rng.random() < 0.9:
        lb.add("nominate", ball=rng.choice(objects), pocket=rng.choice(POCKETS))


def random_match(seed: int, game: Game, n_shots: int, *, table: Table,
                 positions: bool = True) -> list[dict[str, Any]]:
    """A log of `n_shots` shots of `game` (rows as dicts), many frames long."""
    rng = random.Random(seed)
    tbl = table
    cfg = RulesSettings()
    lb = LogBuilder(game.value, frames_to_win=10_000)
    st = initial_state(game, ("A", "B"), "A", table=tbl, frames_to_win=10_000)
    for _ in range(n_shots):
        mark = len(lb.rows)
        _inputs(rng, st, lb)
        objects = [b for b in st.balls if b != "C"]
        if not objects:
            break
        cue = "C"
        if st.game is Game.FREE and st.phase is not Phase.BREAK and rng.random() < 0.3:
            cue = rng.choice([b for b in st.balls if b != "C"] or ["C"])
        if st.phase is Phase.BREAK:
            steps: list[Step] = [("contact", "C", objects[0])]
            steps += [("cushion", b, rng.choice(CUSHIONS)) for b in rng.sample(objects, min(len(objects),
                                                                                    rng.choice((2, 3, 4))))]
        else:
            kind = rng.choices(KINDS, WEIGHTS)[0]
            steps = _shot_steps(rng, kind, cue, [b for b in objects if b != cue] or objects)
        end = None
        if positions:
            potted = {s[1] for s in steps if s[0] in ("pot", "off")}
            end = random_positions(rng, tbl, [b for b in [*st.balls, "C"] if b not in potted])
        lb.shot(steps, struck=cue, end_positions=end, wait_s=rng.uniform(2.0, 20.0))
        rec = next(s for s in group_log(parse_log(lb.rows[mark:])) if isinstance(s, ShotRecord))
        st, _v = play_shot(st, rec, tbl, cfg)
    return lb.rows
