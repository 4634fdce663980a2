"""Review matrix: every game x the common outcomes of a shot, read off the seeds (RULES.md restates them).

One row: (game, situation) -> points to A and B, who plays next, decisions owed (kind: by), hand.
A plays from a position (not a break); Russian and Classic nominate ball 7 in the rear_left pocket.
Scores start at 20-20 (3-3 in the 8-point games) so that no penalty meets a Classic 71 floor.
"""

from __future__ import annotations

from typing import Any

import pytest

from calibration.table import Table
from rules.engine import judge_log
from rules.inputs import parse_log
from rules.logbuild import play_rows
from rules.state import DecisionKind as K

TABLE = Table.load()
S: dict[str, list] = {
    "pot": [("contact", "C", "7"), ("pot", "7", "rear_left")],
    "pot_other": [("contact", "C", "3"), ("pot", "3", "rear_left")],
    "safe": [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("cushion", "7", "rear")],
    "no_chain": [("contact", "C", "7"), ("cushion", "7", "rear")],
    "miss": [("cushion", "C", "rear"), ("cushion", "C", "front")],
    "cue_pot": [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("cushion", "7", "rear"),
                ("pot", "C", "front_left")],
    "pot_and_cue_pot": [("contact", "C", "7"), ("pot", "7", "rear_left"), ("pot", "C", "front_left")],
    "cue_jump": [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("cushion", "7", "rear"), ("off", "C")],
    "pot_and_jump": [("contact", "C", "7"), ("contact", "7", "3"), ("pot", "7", "rear_left"), ("off", "3")],
}
CHOICE = (K.CHOICE_AFTER_FOUL, "B")
# (game, situation, A points, B points, next, owed {kind: by}, hand, spotted balls)
ROWS: list[tuple[str, str, int, int, str, dict[K, str], str, list[str]]] = [
    # Free (2): 1 a ball, any ball counts, a foul +1 and a penalty ball (2.6, 2.7); no hand rules
    ("free", "pot", 1, 0, "A", {K.CUE_BALL_CHOICE: "A"}, "none", []),
    ("free", "safe", 0, 0, "B", {K.CUE_BALL_CHOICE: "B"}, "none", []),
    ("free", "no_chain", 0, 1, "B", {K.PENALTY_BALL: "B", K.CHOICE_AFTER_FOUL: "B"}, "none", []),
    ("free", "miss", 0, 1, "B", {K.PENALTY_BALL: "B", K.CHOICE_AFTER_FOUL: "B"}, "none", []),
    ("free", "cue_pot", 1, 0, "A", {K.CUE_BALL_CHOICE: "A"}, "none", []),  # 2.5.4: the cue ball counts
    ("free", "cue_jump", 0, 1, "B", {K.PENALTY_BALL: "B"}, "none", ["C"]),  # 1.24.4: spotted like any ball
    ("free", "pot_and_jump", 0, 1, "B", {K.PENALTY_BALL: "B"}, "none", ["7", "3"]),
    # Combined (3): a legal cue-ball pot is a premium from the house (3.5.2); an illegal one a penalty (3.7)
    ("combined", "pot", 1, 0, "A", {}, "none", []),
    ("combined", "no_chain", 0, 1, "B", {K.PENALTY_BALL: "B", K.CHOICE_AFTER_FOUL: "B"}, "none", []),
    ("combined", "cue_pot", 1, 0, "A", {K.REMOVE_BALL: "A", K.CUE_BALL_IN_HAND: "A"}, "house", []),
    ("combined", "pot_and_cue_pot", 2, 0, "A", {K.REMOVE_BALL: "A", K.CUE_BALL_IN_HAND: "A"}, "house", []),
    ("combined", "cue_jump", 0, 1, "B", {K.PENALTY_BALL: "B", K.CUE_BALL_IN_HAND: "B"}, "house", []),
    ("combined", "pot_and_jump", 0, 1, "B", {K.PENALTY_BALL: "B"}, "none", ["7", "3"]),
    # Dynamic (4): premium from hand anywhere (4.5.2); a foul +1 at once, then 4.7's choice
    ("dynamic", "pot", 1, 0, "A", {}, "none", []),
    ("dynamic", "miss", 0, 1, "B", {K.DYNAMIC_CHOICE: "B", K.CHOICE_AFTER_FOUL: "B"}, "none", []),
    ("dynamic", "cue_pot", 1, 0, "A", {K.REMOVE_BALL: "A", K.CUE_BALL_IN_HAND: "A"}, "anywhere", []),
    ("dynamic", "cue_jump", 0, 1, "B", {K.DYNAMIC_CHOICE: "B", K.CUE_BALL_IN_HAND: "B"}, "anywhere", []),
    # Russian 71 (5): the ball's number (5.5.1), nomination (5.5.2-5.5.4), -5/+5 (5.5.6), house (5.5.5)
    ("russian71", "pot", 7, 0, "A", {K.NOMINATION: "A"}, "none", []),
    ("russian71", "pot_other", 0, 0, "B", {K.NOMINATION: "B"}, "none", ["3"]),  # 5.5.4: spotted, no foul
    ("russian71", "safe", 0, 0, "B", {K.NOMINATION: "B"}, "none", []),
    ("russian71", "no_chain", -5, 5, "B", {K.CHOICE_AFTER_FOUL: "B", K.NOMINATION: "B"}, "none", []),
    ("russian71", "cue_pot", -5, 5, "B", {K.CHOICE_AFTER_FOUL: "B", K.CUE_BALL_IN_HAND: "B"}, "house", []),
    ("russian71", "pot_and_cue_pot", -5, 5, "B", {K.CUE_BALL_IN_HAND: "B"}, "house", ["7"]),  # 1.22.3
    ("russian71", "cue_jump", -5, 5, "B", {K.CUE_BALL_IN_HAND: "B"}, "house", []),
    ("russian71", "pot_and_jump", -5, 5, "B", {K.CHOICE_AFTER_FOUL: "B"}, "none", ["7", "3"]),
    # Classic 71 (001): the same values; 5 points taken and given; house after a potted or jumped cue ball
    ("classic71", "pot", 7, 0, "A", {K.NOMINATION: "A"}, "none", []),
    ("classic71", "pot_other", 0, 0, "B", {K.NOMINATION: "B"}, "none", ["3"]),
    ("classic71", "miss", -5, 5, "B", {K.CHOICE_AFTER_FOUL: "B"}, "none", []),
    ("classic71", "cue_pot", -5, 5, "B", {K.CUE_BALL_IN_HAND: "B"}, "house", []),
    ("classic71", "pot_and_jump", -5, 5, "B", {K.CHOICE_AFTER_FOUL: "B"}, "none", ["7", "3"]),
]


@pytest.mark.parametrize("game,situation,pa,pb,nxt,owed,hand,spotted", ROWS,
                         ids=[f"{r[0]}-{r[1]}" for r in ROWS])
def test_matrix(game: str, situation: str, pa: int, pb: int, nxt: str, owed: dict[K, str], hand: str,
                spotted: list[str]) -> None:
    before: list[dict[str, Any]] = []
    start = 20 if game in ("russian71", "classic71") else 3
    if game in ("russian71", "classic71"):
        before = [{"type": "nominate", "ball": "7", "pocket": "rear_left"}]
    j = judge_log(parse_log(play_rows(game, S[situation], state={"score": {"A": start, "B": start}}, before=before)),
                  table=TABLE)
    v, st = j.verdicts[-1], j.state
    assert st is not None
    assert (v.points["A"], v.points["B"]) == (pa, pb), v.explanation
    assert v.next_player == nxt, v.explanation
    got = {d.kind: d.by for d in v.decisions_owed}
    assert {k: got.get(k) for k in owed} == owed, (got, v.explanation)
    assert st.hand.value == hand
    assert sorted(s["ball"] for s in v.spotted) == sorted(spotted)
    assert v.legal is (not v.fouls)
