"""A policy player's frame stays consistent with the rules engine: nothing owed is left unanswered."""

from __future__ import annotations

from dataclasses import replace

import pytest

from calibration.table import Table
from rules.engine import judge_log
from rules.events import EventType
from rules.inputs import parse_log
from synthetic.scenarios import SCENARIOS
from synthetic.scenarios.language import PlayFrame
from synthetic.scenarios.runner import play


@pytest.mark.slow  # about 15 s of CPU: four shots, each aimed by trial simulations
def test_short_dynamic_frame_with_fouls_is_judged_without_review() -> None:
    sc = SCENARIOS["frame_dynamic"](3)
    frame = sc.steps[0]
    assert isinstance(frame, PlayFrame)
    sc.steps = [replace(frame, max_shots=4, foul_rate=0.5)]
    tl, log = play(sc, 30.0)
    assert log[0]["type"] == "match" and log[0]["game"] == "dynamic"
    starts = [e for e in tl.events if e.type is EventType.SHOT_START]
    assert len(starts) == 4
    rows = sorted([*log, *(e.to_dict() for e in tl.events)], key=lambda r: (r["t"], 1 if "frame" in r else 0))
    verdicts = [o.to_dict() for o in judge_log(parse_log(rows), table=Table.load()).outputs]
    assert len(verdicts) == 4
    assert not any((v.get("review") or {}).get("flag") for v in verdicts), [v.get("review") for v in verdicts]
    assert any(v["fouls"] for v in verdicts)  # the fouls were played and their decisions answered in the log
    assert any(r["type"] in ("penalty_ball", "choose") for r in log)
