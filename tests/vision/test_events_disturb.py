"""Disturbances (1.17) are displacements: a covered ball's centre that wobbles and comes back, or a ball that
dropped into a pocket, was not disturbed."""

from __future__ import annotations

import numpy as np
import pytest
from track_fakes import still_then

from calibration.table import Table
from rules.events import Event, EventType
from vision.events import detect_events
from vision.types import BallState

TABLE = Table.load()
REST = np.array([300.0, 200.0])


def _events(fps: float, rest: np.ndarray, after: np.ndarray, state_after: np.ndarray) -> list[Event]:
    """Ball 5 at rest at `rest` for 1 s, then at `after` with the tracker states `state_after` (`still_then`)."""
    states = still_then(fps, rest, after, state_after)
    return [e for e in detect_events(TABLE, fps, states) if e.type is not EventType.SHOT_END]


def _drift(fps: float, legs: list[tuple[float, float]]) -> np.ndarray:
    """A centre off REST along +x: piecewise linear through (duration s, offset mm at its end) legs."""
    pts, x = [], 0.0
    for dur, to in legs:
        n = max(1, round(dur * fps))
        pts += list(np.linspace(x, to, n + 1)[1:])
        x = to
    return REST + np.array([1.0, 0.0]) * np.array(pts)[:, None]


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_covered_centre_that_drifts_off_seems_to_rest_and_drifts_back_disturbed_nothing(fps: float) -> None:
    # heldout13 frame_free at 154.5 s: a hand over ball 10; its tracked centre drifts 9 mm off at ~50 mm/s
    # (a slow start: judged on its run, a disturbance), seems still there for 0.25 s, then comes back onto its
    # spot. No ball at rest goes back where it lay by itself: nothing moved.
    after = _drift(fps, [(0.2, 9.0), (0.25, 9.0), (0.2, 0.0), (1.4, 0.0)])
    events = _events(fps, REST, after, np.full(len(after), BallState.MOVING))
    assert events == []


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_covered_centre_that_wobbles_off_and_straight_back_disturbed_nothing(fps: float) -> None:
    after = _drift(fps, [(0.25, 10.0), (0.25, 0.0), (1.4, 0.0)])
    events = _events(fps, REST, after, np.full(len(after), BallState.MOVING))
    assert events == []


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_ball_pushed_off_and_left_there_is_still_disturbed(fps: float) -> None:
    # the same slow run that stays where it went: a disturbance, reported once it is seen to stay
    after = _drift(fps, [(0.2, 9.0), (0.25, 14.0), (1.4, 14.0)])
    events = _events(fps, REST, after, np.full(len(after), BallState.MOVING))
    assert [e.type for e in events] == [EventType.BALL_DISTURBED]
    assert abs(events[0].t - 1.0) < 0.1


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_hanging_ball_that_drops_and_is_still_seen_in_the_pocket_is_potted_not_disturbed(fps: float) -> None:
    # samples hanging_ball_drops_later: ball 12 hangs 6 mm inside the middle pocket's mouth line, drops, and
    # the tracker still sees something of it 13 mm further in, still: a pot, and no ball on the bed was moved
    hang = np.array([0.5, 881.1])
    n = int(2.0 * fps)
    after = np.tile(hang + np.array([1.0, 13.0]), (n, 1))
    state = np.full(n, BallState.STATIONARY)
    state[: int(0.2 * fps)] = BallState.MOVING
    events = _events(fps, hang, after, state)
    assert [e.type for e in events] == [EventType.POT]
