"""The verdict benchmark counts a case the pipeline cannot analyse as lost shots and goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

import service.pipeline.run as pipeline_run
from bench.verdicts_bench import run_case

CASE = Path(__file__).resolve().parents[1] / "sample_videos" / "legal_cut_pot"


def test_a_case_that_cannot_be_analysed_loses_its_shots_and_says_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def no_table(*_a: object, **_k: object) -> None:
        raise RuntimeError("automatic calibration found no table in the first frame")

    monkeypatch.setattr(pipeline_run, "analyze", no_table)
    r = run_case(CASE, tmp_path / "out")
    assert r["shots"] == 1 and r["agree"] == 0 and r["carried"] == 0
    assert r["error"].startswith("analysis failed: automatic calibration found no table")


def test_a_hands_touch_that_moved_its_ball_less_than_the_rest_noise_is_named_against_its_shot() -> None:
    """Seed 277: a hand moved 7 by 0.47 mm between shots; the truth's 1.17 foul is not in the footage. A touch that
    moved its ball 5 mm is seen, and one during a shot counts for that shot."""
    import numpy as np

    from bench.unseen import split, unseen_touches
    from rules.events import Event, EventType

    ids = ("5", "7", "C")
    pos = np.zeros((60, 3, 3))
    pos[12:, 1, 0] = 0.4  # 7 nudged at frame 10, at rest 0.4 mm on by the next stroke
    pos[32:, 0, 1] = 5.0  # 5 moved 5 mm at frame 30, during the second shot
    pos[52:, 1, 0] = 0.7  # 7 nudged 0.3 mm during the second shot
    truth = [
        Event(EventType.SHOT_END, 0.5, 5),
        Event(EventType.BALL_DISTURBED, 1.0, 10, ball="7", extra={"during_shot": False}),
        Event(EventType.SHOT_START, 2.0, 20, ball="C"),
        Event(EventType.BALL_DISTURBED, 3.0, 30, ball="5", extra={"during_shot": True}),
        Event(EventType.BALL_DISTURBED, 5.0, 50, ball="7", extra={"during_shot": True}),
        Event(EventType.SHOT_START, 4.0, 40, ball="C"),
        Event(EventType.SHOT_END, 5.5, 55),
    ]
    got = unseen_touches(truth, pos, ids)
    assert [(u.shot_t, u.ball, round(u.moved_mm, 2)) for u in got] == [(2.0, "7", 0.4), (4.0, "7", 0.3)]
    assert split(got, ["shot 1 at 2.00 s: truth foul 1.17 [A+1], pipeline legal 1.20(1) [B+1]"]) == (2, 1)
