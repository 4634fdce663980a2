"""Scenarios: named situations played by the physics into a Timeline plus the rules-engine log.

`SCENARIOS` maps a name (what the scenario shows) to a builder `seed -> Scenario`; `build` plays one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from synthetic.scenarios import fouls, pushes, shots
from synthetic.scenarios.language import Scenario
from synthetic.scenarios.runner import play
from synthetic.world import Timeline

SCENARIOS: dict[str, Callable[[int], Scenario]] = {
    "break": shots.break_shot,
    "break_incomplete_rack": shots.incomplete_rack_break,
    "legal_straight_pot": shots.straight_pot,
    "legal_cut_pot": shots.cut_pot,
    "legal_thin_cut": shots.thin_cut,
    "legal_bank_shot": shots.bank_shot,
    "legal_kiss_pot": shots.kiss_pot,
    "spotting_two_balls": shots.spotting_after_jump,
    "lag_for_break": fouls.lag,
    "legal_touching_balls_played_away": fouls.touching_played_away,
    "foul_no_contact": fouls.no_contact,
    "foul_shot_fails_1_20": fouls.fails_120,
    "foul_cue_ball_potted": fouls.cue_ball_potted,
    "foul_jumped_ball": fouls.jumped_ball,
    "foul_wrong_ball_struck": fouls.wrong_ball,
    "foul_push_touching_balls": fouls.push,
    "foul_ball_touched_by_hand": fouls.hand_touch,
    "foul_strike_before_balls_stopped": fouls.early_strike,
    "hanging_ball_drops_later": fouls.hanging_ball,
    "frozen_ball_on_cushion": fouls.frozen_on_cushion,
    "touching_cluster_hit": fouls.cluster_split,
    "push_free_ivory": pushes.push_free_ivory,
    "touching_draw_not_push": pushes.touching_draw,
    "near_push_gap": pushes.near_push_gap,
    "touching_straight_away": pushes.touching_straight_away,
    "jaw_rattle_no_pot": fouls.jaw_rattle,
    "cue_ball_in_hand_anywhere": fouls.cue_ball_anywhere,
    "frame_free": shots.frame_free,
    "frame_combined": shots.frame_combined,
    "frame_dynamic": shots.frame_dynamic,
    "frame_russian71": shots.frame_russian71,
}


def build(name: str, seed: int, fps: float) -> tuple[Timeline, list[dict[str, Any]]]:
    """Play scenario `name` with `seed` at `fps`: the Timeline and the rules-engine log items."""
    try:
        maker = SCENARIOS[name]
    except KeyError as exc:
        raise ValueError(f"unknown scenario {name!r}; known: {', '.join(sorted(SCENARIOS))}") from exc
    return play(maker(seed), fps)


__all__ = ["SCENARIOS", "Scenario", "build"]
