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


def _pushed(fps: float, v0: float, hidden_s: float, covered: bool) -> tuple[np.ndarray, np.ndarray]:
    """Ball 5 set off at v0 mm/s along +y the frame after REST's second, decelerating at the cloth's ~150
    mm/s^2 until it stops; with `covered` the tracker holds it hidden at REST for the first `hidden_s`."""
    n = int(3.0 * fps)
    t = np.arange(1, n + 1) / fps
    tt = np.minimum(t, v0 / 150.0)
    y = v0 * tt - 75.0 * tt * tt
    after = REST + np.stack([np.zeros(n), y], axis=1)
    state = np.where(t < v0 / 150.0, BallState.MOVING, BallState.STATIONARY).astype(np.int8)
    if covered:
        k = round(hidden_s * fps)
        after[:k] = REST
        state[:k] = BallState.HIDDEN
    return after, state


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_ball_that_leaves_its_rest_under_a_hand_slower_than_a_stroke_was_disturbed_for_review(fps: float) -> None:
    # heldout37 frame_russian71 at 57.96 s: a hand covers ball 5 and sets it rolling at 177 mm/s; it shows again
    # 0.17 s later, rolling and slowing as a struck ball does. Above the stroke speed between shots (100 mm/s)
    # its run alone reads as a stroke of ball 5 (before: a shot_start, judged 1.4.2 for 1.17)
    after, state = _pushed(fps, 177.0, 0.17, covered=True)
    events = _events(fps, REST, after, state)
    assert [e.type for e in events] == [EventType.BALL_DISTURBED]
    assert events[0].extra.get("review") and events[0].extra.get("covered")


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_ball_read_weakly_under_a_hand_as_it_leaves_was_disturbed_for_review(fps: float) -> None:
    # heldout41 foul_ball_touched_by_hand: hidden under the hand for seconds, ball 5 is read inside the hand's
    # blob (confidence 0.28) on the frame before it leaves its rest at 150 mm/s (before: a stroke of 5)
    after, state = _pushed(fps, 150.0, 0.0, covered=False)
    states = still_then(fps, REST, after, state)
    n0 = int(fps)
    for s in states[n0 - int(0.5 * fps) : n0 - 1]:  # under the hand from 0.5 s before: held hidden at its rest
        s.state[1], s.xy_mm[1] = BallState.HIDDEN, REST
    for s in states[n0 - 1 : n0 + 2]:  # then read inside the hand's blob as it leaves
        s.confidence[1] = 0.28
    events = [e for e in detect_events(TABLE, fps, states) if e.type is not EventType.SHOT_END]
    assert [e.type for e in events] == [EventType.BALL_DISTURBED]
    assert events[0].extra.get("covered")


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_the_same_run_seen_leaving_or_as_fast_as_a_stroke_is_a_stroke(fps: float) -> None:
    after, state = _pushed(fps, 177.0, 0.0, covered=False)  # in view as it leaves: the cue struck it
    assert [e.type for e in _events(fps, REST, after, state)][:1] == [EventType.SHOT_START]
    after, state = _pushed(fps, 900.0, 0.1, covered=True)  # covered, but at a stroke's speed
    assert [e.type for e in _events(fps, REST, after, state)][:1] == [EventType.SHOT_START]


@pytest.mark.parametrize("fps,v0", [(30.0, 300.0), (30.0, 500.0), (60.0, 500.0)])
def test_a_ball_missed_for_a_frame_or_read_weakly_as_the_cue_strikes_it_is_struck(fps: float, v0: float) -> None:
    # the cue's tip touching the ball's blob as it strikes: one weak reading (or a missed frame, coasted at half
    # the confidence) on the frame before it leaves, never the ball lost under it: a stroke, not a disturbance
    after, state = _pushed(fps, v0, 0.0, covered=False)
    states = still_then(fps, REST, after, state)
    states[int(fps) - 1].confidence[1] = 0.45
    events = [e for e in detect_events(TABLE, fps, states) if e.type is not EventType.SHOT_END]
    assert [e.type for e in events][:1] == [EventType.SHOT_START]


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_ball_pulled_off_its_spot_then_struck_away_is_still_a_stroke(fps: float) -> None:
    # a hand pulls the centre 16 mm off its spot (a would-be disturbance), then a stroke on along +x at 500 mm/s:
    # a start soon after a would-be disturbance waits to see where the ball rests, and this one rests far away
    # (the snap-back reading, test_events_cover_fixtures, must not take it)
    v0, n = 500.0, round(3.0 * fps)
    t = np.arange(1, n + 1) / fps
    tt = np.minimum(t, v0 / 150.0)
    run = REST + np.array([16.0, 0.0]) + np.stack([v0 * tt - 75.0 * tt * tt, np.zeros(n)], axis=1)
    after = np.concatenate([_drift(fps, [(0.1, 12.0), (0.25, 16.0)]), run])
    events = _events(fps, REST, after, np.full(len(after), BallState.MOVING))
    assert EventType.SHOT_START in [e.type for e in events]


def _read_weakly(fps: float, v0: float, before_s: float, after_s: float) -> list[EventType]:
    """Ball 5 pushed off at v0 (as `_pushed`), read inside an occluder's blob (0.3) from `before_s` before it
    leaves to `after_s` after, never lost: the event types found."""
    after, state = _pushed(fps, v0, 0.0, covered=False)
    states = still_then(fps, REST, after, state)
    n0 = int(fps)
    for s in states[n0 - round(before_s * fps) : n0 + round(after_s * fps)]:
        s.confidence[1] = 0.3
    return [e.type for e in detect_events(TABLE, fps, states) if e.type is not EventType.SHOT_END]


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_ball_read_weakly_under_a_hand_before_and_as_it_leaves_was_disturbed_though_never_lost(fps: float) -> None:
    # seed-89 frame_free at 139.74 s: a hand over ball 2, read at 0.3 for 0.3 s, pushes it off at 148 mm/s; it is
    # read weakly 0.2 s more as it leaves, never lost (before: a stroke of 2)
    assert _read_weakly(fps, 150.0, 0.3, 0.2) == [EventType.BALL_DISTURBED]


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_ball_read_weakly_only_as_the_tip_reaches_it_is_struck(fps: float) -> None:
    # the tip merges with the ball's blob for the last tenth of a second of a slow stroke and as it leaves
    assert _read_weakly(fps, 150.0, 0.1, 0.1)[:1] == [EventType.SHOT_START]
