"""A ball that creeps a few millimetres after it was called at rest is laid out where it came to lie, not at
the running mean of its rest (`vision.events.shots.settled`)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.events_tracks import NoiseModel, noisy_states
from calibration.table import Table
from rules.events import EventType
from vision.events import detect_events
from vision.types import BallState, BallStates

TABLE = Table.load()
R = TABLE.ball_radius
FPS = 60.0


def _frames(creep_to_mm: float, seed: int) -> list[BallStates]:
    """Ball 5 rests 5.5 mm off the top cushion for 2 s, creeps to `creep_to_mm` off it over 0.3 s (less than
    the onset distance: never called moving) and stays; C is struck along the table at 3.5 s."""
    t = np.arange(0.0, 4.5, 1.0 / FPS)
    y_top = TABLE.half_width - R
    gap = np.interp(t, [0.0, 2.0, 2.3, 10.0], [5.5, 5.5, creep_to_mm, creep_to_mm])
    five = np.stack([np.full_like(t, -200.0), y_top - gap], axis=1)
    run = np.clip(t - 3.5, 0.0, None)
    cue = np.stack([-700.0 + 1500.0 * run - 300.0 * run**2, np.full_like(t, -100.0)], axis=1)
    pos = np.stack([five, cue], axis=1)
    state = np.full(pos.shape[:2], BallState.STATIONARY, dtype=np.int8)
    state[t > 3.5, 1] = BallState.MOVING
    return noisy_states(t, pos, state, ("5", "C"), NoiseModel(seed=seed, p_miss=0.0))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_ball_that_crept_against_its_cushion_is_listed_frozen_at_the_next_stroke(seed: int) -> None:
    events = detect_events(TABLE, FPS, _frames(1.5, seed))
    start = next(e for e in events if e.type is EventType.SHOT_START)
    assert start.ball == "C"
    frozen = {str(d["ball"]): float(d["gap_mm"]) for d in start.frozen or ()}
    assert "5" in frozen, start.to_json()  # the running mean of its rest lies ~3.6 mm off: not listed
    assert abs(frozen["5"] - 1.5) < 1.0
    assert start.positions is not None and abs(start.positions["5"][1] - (TABLE.half_width - R - 1.5)) < 1.0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_ball_that_did_not_creep_keeps_its_whole_rest_mean(seed: int) -> None:
    events = detect_events(TABLE, FPS, _frames(5.5, seed))
    start = next(e for e in events if e.type is EventType.SHOT_START)
    assert not start.frozen
    # the mean of ~200 samples of 1.5 mm noise, not of the last 0.5 s's 30
    assert start.positions is not None and abs(start.positions["5"][1] - (TABLE.half_width - R - 5.5)) < 0.35
