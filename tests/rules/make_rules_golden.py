"""Writes the golden logs of tests/rules/golden/: each named by the verdict its last shot must get.

Name: <game>_<what>_<legal|foul>[_<clause>].jsonl. Run from the repository root:
    python tests/rules/make_rules_golden.py
test_rules_golden.py checks that the files match this script and that the engine gives the named verdict.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rules.logbuild import BREAK_THREE_CUSHIONS, BREAK_TWO_CUSHIONS, NO_CHAIN, SAFE_2A, SAFE_2B, LogBuilder

GOLDEN = Path(__file__).parent / "golden"
PLAY = {"phase": "play", "to_play": "A", "hand": "none"}


def _played(game: str, steps: list, before: list[dict[str, Any]] | None = None, state: dict | None = None,
            **shot: Any) -> LogBuilder:
    lb = LogBuilder(game, players=("Ivanov", "Petrov"), breaker="Ivanov")
    lb.shot(BREAK_THREE_CUSHIONS)
    lb.state(**{**PLAY, "to_play": "Ivanov", **(state or {})})
    for row in before or []:
        lb.add(row["type"], **{k: v for k, v in row.items() if k != "type"})
    return lb.shot(steps, **shot)


def _nom(ball: str, pocket: str = "rear_left", **kw: Any) -> dict[str, Any]:
    return {"type": "nominate", "ball": ball, "pocket": pocket, **kw}


POT7 = [("contact", "C", "7"), ("pot", "7", "rear_left")]
HAND_POS = {"C": (-1500.0, 0.0), "7": (-1200.0, 100.0), "3": (800.0, 300.0)}

CASES: dict[str, Callable[[], LogBuilder]] = {
    "free_break_three_cushions_legal": lambda: LogBuilder("free").shot(BREAK_THREE_CUSHIONS),
    "free_break_two_cushions_foul_1.12.1": lambda: LogBuilder("free").shot(BREAK_TWO_CUSHIONS),
    "free_break_two_cushions_and_crossing_legal": lambda: LogBuilder("free").shot(
        [*BREAK_TWO_CUSHIONS, ("cross", "9", "front")]),
    "free_other_cue_ball_pot_legal": lambda: _played("free", [("contact", "5", "7"), ("pot", "7", "rear_left")],
                                                     struck="5"),
    "combined_cue_ball_potted_premium_legal": lambda: _played(
        "combined", [("contact", "C", "7"), ("cushion", "7", "rear"), ("cushion", "7", "front"),
                     ("pot", "C", "front_left")]),
    "combined_wrong_ball_foul_1.4.2": lambda: _played(
        "combined", [("contact", "5", "7"), ("cushion", "7", "left_rear"), ("cushion", "7", "rear")], struck="5"),
    "dynamic_premium_shot_cue_ball_potted_legal": lambda: _played(
        "dynamic", [("contact", "C", "7"), ("pot", "7", "rear_left"), ("pot", "C", "front_left")],
        state={"hand": "anywhere", "premium": True}),
    "dynamic_one_cushion_foul_1.20": lambda: _played("dynamic", NO_CHAIN),
    "russian71_nominated_pot_legal": lambda: _played("russian71", POT7, [_nom("7")]),
    "russian71_rebound_two_cushions_legal": lambda: _played("russian71", SAFE_2A),
    "russian71_rebound_drives_ball_to_cushion_legal": lambda: _played("russian71", SAFE_2B),
    "russian71_rebound_hits_frozen_ball_legal": lambda: _played(
        "russian71", [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("contact", "7", "3")],
        frozen=[{"ball": "3", "cushion": "rear", "gap_mm": 0.3}]),
    "russian71_cross_then_cushion_legal": lambda: _played(
        "russian71", [("contact", "C", "7"), ("cross", "7"), ("cushion", "7", "rear")]),
    "russian71_cushion_then_cross_legal": lambda: _played(
        "russian71", [("contact", "C", "7"), ("cushion", "7", "rear"), ("cross", "7", "front")]),
    "russian71_one_cushion_foul_1.20": lambda: _played("russian71", NO_CHAIN),
    "russian71_miss_foul_1.5.3": lambda: _played("russian71", [("cushion", "C", "rear")]),
    "russian71_cue_ball_potted_foul_5.5.5": lambda: _played("russian71", [*SAFE_2B, ("pot", "C", "front_left")]),
    "russian71_ball_jumped_foul_1.24.3": lambda: _played("russian71", [*SAFE_2B, ("off", "3")]),
    "russian71_push_foul_1.19": lambda: _played(
        "russian71", SAFE_2B, touching=[{"balls": ["C", "7"], "gap_mm": 0.0}], stroke_angle_deg=20.0,
        cue_follow=True),
    "russian71_early_stroke_foul_1.14.2": lambda: _played("russian71", SAFE_2B, early=True),
    "russian71_ball_disturbed_foul_1.17": lambda: _played("russian71", [*SAFE_2B, ("disturbed", "11")]),
    "russian71_hand_shot_first_contact_in_house_foul_1.21.2": lambda: _played(
        "russian71", SAFE_2B, state={"hand": "house"}, positions=HAND_POS),
    "russian71_no_foot_on_floor_foul_1.16": lambda: _played("russian71", SAFE_2B, [{"type": "foul",
                                                                                    "clause": "1.16"}]),
    "classic71_clean_designation_legal": lambda: _played(
        "classic71",
        [("contact", "C", "7"), ("contact", "7", "3"), ("pot", "3", "rear_left"), ("pot", "7", "rear_left")],
        [_nom("3", mode="clean", how="off ball 7")]),
    "classic71_ball_and_pocket_legal": lambda: _played("classic71", POT7, [_nom("7", mode="ball_pocket")]),
    "classic71_double_hit_foul_1.18": lambda: _played("classic71", SAFE_2B, double_hit=True),
    # Review findings (see test_rules_review_*.py)
    "free_break_pot_and_jumped_ball_foul_1.12.1": lambda: LogBuilder("free").shot(
        [("contact", "C", "4"), ("cushion", "5", "left_rear"), ("pot", "6", "rear_left"), ("off", "3")]),
    "russian71_winning_pot_then_touch_not_penalised_legal": lambda: _played(
        "russian71", POT7, [_nom("7")], state={"score": {"Ivanov": 64, "Petrov": 20}}).add(
        "foul", clause="1.17", reason="touched ball 3 with the sleeve after the shot"),
    "russian71_interference_by_the_opponent_legal": lambda: _played(
        "russian71", POT7, [_nom("7")], during=[{"type": "foul", "clause": "1.28",
                                                 "reason": "Petrov moved ball 12 during the shot"}]),
    "classic71_last_ball_seventy_all_draw_legal": lambda: _played(
        "classic71", [("contact", "C", "5"), ("pot", "5", "rear_left")], [_nom("5")],
        state={"score": {"Ivanov": 55, "Petrov": 70}, "balls": {"C": [-900.0, 0.0], "5": [900.0, 0.0]}}),
}


def render(name: str) -> str:
    return "".join(json.dumps(row, sort_keys=True) + "\n" for row in CASES[name]().rows)


def main() -> int:
    GOLDEN.mkdir(exist_ok=True)
    for name in CASES:
        (GOLDEN / f"{name}.jsonl").write_text(render(name))
    print(f"wrote {len(CASES)} golden logs to {GOLDEN}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
