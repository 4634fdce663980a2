"""Starts from rest: what a shot_start asserts (a stroke happened; which ball it struck) and starts that are none."""

from __future__ import annotations

import numpy as np
import pytest
from track_fakes import still_then

from bench.events_sim import Sim
from bench.events_tracks import NoiseModel, noisy_states
from calibration.table import Table
from rules.events import Event, EventType
from vision.events import detect_events
from vision.types import BallState

TABLE = Table.load()
R = TABLE.ball_radius
SEGMENT = (EventType.SHOT_START, EventType.BALL_DISTURBED)
REST = np.array([300.0, 200.0])


def _still_then(fps: float, after: np.ndarray, state_after: np.ndarray, id_conf: float = 1.0) -> list[Event]:
    """Ball 5 at rest at REST for 1 s, then at `after` with the tracker states `state_after` (`still_then`);
    ball 5's identity confidence is `id_conf` all along."""
    states = still_then(fps, REST, after, state_after)
    for s in states:
        s.id_confidence[1] = id_conf
    return [e for e in detect_events(TABLE, fps, states) if e.type in SEGMENT]


def _rolling(fps: float, n: int, v: tuple[float, float] = (900.0, 0.0), start: np.ndarray = REST) -> np.ndarray:
    k = np.arange(1, n + 1)[:, None] / fps
    vv = np.array(v)
    return start + vv * k - 0.5 * 0.15 * vv * k**2


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_stroke_seen_leaving_is_asserted_and_its_ball_carries_the_identity_doubt(fps: float) -> None:
    n = int(fps)
    events = _still_then(fps, _rolling(fps, n), np.full(n, BallState.MOVING), id_conf=0.4)
    start = events[0]
    assert start.type is EventType.SHOT_START and start.ball == "5"
    assert start.extra["start_confidence"] >= 0.9  # a stroke happened ...
    assert start.extra["ball_confidence"] == pytest.approx(0.4)  # ... of a ball the tracker is unsure of
    assert start.confidence == pytest.approx(start.extra["start_confidence"] * 0.4, abs=1e-3)  # 1.0's meaning


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_stroke_hidden_under_the_cue_but_rolling_away_from_its_rest_is_asserted_lower(fps: float) -> None:
    n = int(fps)
    state = np.full(n, BallState.MOVING)
    state[:6] = BallState.HIDDEN  # the first 0.1-0.2 s unseen
    events = _still_then(fps, _rolling(fps, n), state)
    start = events[0]
    assert start.type is EventType.SHOT_START and start.ball == "5"
    assert 0.5 <= start.extra["start_confidence"] < 0.9


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_ball_lost_and_found_moving_elsewhere_is_a_doubtful_start(fps: float) -> None:
    # unseen for 0.3 s, then found 400 mm away rolling across the line to its rest position: another
    # ball may have been taken for it; reported for review only
    n, hid = int(fps), int(0.3 * fps)
    after = np.vstack([np.tile(REST, (hid, 1)), _rolling(fps, n - hid, (0.0, 900.0), REST + np.array([400.0, -300.0]))])
    state = np.full(n, BallState.MOVING)
    state[:hid] = BallState.HIDDEN
    events = _still_then(fps, after, state)
    starts = [e for e in events if e.type is EventType.SHOT_START]
    assert len(starts) == 1 and starts[0].extra["start_confidence"] < 0.5


@pytest.mark.parametrize("fps", [60.0, 30.0])
@pytest.mark.parametrize("off", [(-46.0, 80.0), (60.0, 20.0)])
def test_a_centre_that_jumps_off_its_rest_and_back_in_one_frame_starts_nothing(fps: float,
                                                                              off: tuple[float, float]) -> None:
    # seed-37 cue_ball_in_hand_anywhere: the cue ball carried in a hand over 6, whose tracked centre followed
    # it 92 mm for one frame and came back: a 5.6 m/s "stroke" of 6 (then 1.4.2 / 1.5.3 on a legal shot)
    n = int(fps)
    after = np.tile(REST, (n, 1))
    after[0] += off
    state = np.full(n, BallState.STATIONARY)
    state[:3] = BallState.MOVING
    assert _still_then(fps, after, state) == []


@pytest.mark.parametrize("fps", [60.0, 30.0])
@pytest.mark.parametrize("touching", [False, True])
def test_a_centre_pulled_off_its_rest_and_back_sooner_than_a_ball_turns_starts_nothing(fps: float,
                                                                                     touching: bool) -> None:
    # seed-59 frame_dynamic: an arm lifting off 15 pulled its tracked centre 25 mm out, back onto its rest in
    # 0.1 s (20 m/s^2 of turning, ten times sliding friction), beside 5 touching it and never moving: a shot
    n0, n = int(fps), int(fps)
    out = round(0.1 * fps) - 1  # 0.1 s from its last sample at rest
    pos = np.zeros((n0 + n, 3, 2))
    pos[:, 0] = (-800.0, 0.0)
    pos[:, 1] = REST
    pos[:, 2] = REST + np.array([-2 * R - (0.0 if touching else 300.0), 0.0])
    back = np.linspace(25.0, 0.0, out + 1)  # 25 mm off on the first frame, home `out` frames later
    pos[n0 : n0 + out + 1, 1, 0] += back * 0.8
    pos[n0 : n0 + out + 1, 1, 1] += back * 0.6
    state = np.full(pos.shape[:2], BallState.STATIONARY, dtype=np.int8)
    state[n0 : n0 + out + 2, 1] = BallState.MOVING
    states = noisy_states(np.arange(len(pos)) / fps, pos, state, ("C", "15", "5"), NoiseModel(0.7, 1.5, 0.0, 4))
    assert [e for e in detect_events(TABLE, fps, states) if e.type in SEGMENT] == []


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_ball_seen_twice_after_it_was_lost_starts_nothing(fps: float) -> None:
    n, hid = int(fps), int(0.3 * fps)
    after = np.tile(REST + np.array([500.0, 100.0]), (n, 1))
    after[hid + 1] += (0.0, 150.0)
    state = np.full(n, BallState.HIDDEN)
    state[[hid, hid + 1]] = BallState.MOVING  # two sightings of something, then lost again
    assert _still_then(fps, after, state) == []


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_ball_hidden_by_a_hand_and_back_on_its_spot_starts_nothing(fps: float) -> None:
    # a hand over the ball: the tracker takes the hand for it a few times, then sees the ball where it lay
    n = int(fps)
    after = np.tile(REST, (n, 1))
    state = np.full(n, BallState.STATIONARY)
    state[1 : int(0.4 * fps)] = BallState.HIDDEN
    after[0] += (8.0, 0.0)  # a partial detection under the hand
    after[int(0.4 * fps)] += (-60.0, -160.0)  # the hand
    after[int(0.4 * fps) + 1] += (-50.0, -70.0)
    state[int(0.4 * fps) : int(0.4 * fps) + 2] = BallState.MOVING
    assert _still_then(fps, after, state) == []


def test_a_cue_ball_that_hits_a_ball_inside_the_first_frame_is_the_struck_one() -> None:
    # 30 fps: C runs 40 mm to 12 in 13 ms and gives it nearly all its speed; both leave their rest in the
    # same frame. C struck 12, not the other way round, and there is one stroke.
    sim = Sim(TABLE, fps=30.0).place("C", (0.0, 0.0)).place("12", (0.0, 2 * R + 40.0)).place("9", (900.0, -500.0))
    sim.stroke(0.5, "C", (0.0, 3000.0))
    res = sim.run(3.0)
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=3))
    starts = [e for e in detect_events(TABLE, 30.0, states) if e.type is EventType.SHOT_START]
    assert [e.ball for e in starts] == ["C"]


@pytest.mark.parametrize(("off_mm", "back_mm"), [(0.0, 9.0), (15.0, 9.0), (30.0, 9.0), (15.0, 0.0)])
def test_a_stroke_that_hits_a_ball_apart_within_the_frame_is_one_stroke_of_the_cue_ball(
    off_mm: float, back_mm: float
) -> None:
    # physics frame_free-0: C 13 mm from 12, struck at it at 2.9 m/s, meets it just before a frame; 12's
    # first sample shows 2-3 mm of motion, which the noise pointed back at C (back_mm). The contact the pair
    # search finds must not make each start the other's cause (there was no shot_start): one stroke, of C.
    fps = 60.0
    d = np.array([-0.9, -0.44]) / np.hypot(0.9, 0.44)
    c = np.array([1344.0, 57.0])
    obj = c + d * (2 * R + 13.0) + np.array([-d[1], d[0]]) * off_mm
    sim = Sim(TABLE, fps=fps).place("C", tuple(c)).place("12", tuple(obj)).place("9", (-900.0, -500.0))
    t_hit = 31 / fps - 0.07 / fps
    sim.stroke(t_hit - 13.0 / 2900.0, "C", tuple(d * 2900.0))
    res = sim.run(3.0)
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(1.5, 5.0, 0.0, seed=5))
    u = (obj - c) / np.hypot(*(obj - c))
    states[31].xy_mm[res.ids.index("12")] -= u * back_mm
    starts = [e for e in detect_events(TABLE, fps, states) if e.type is EventType.SHOT_START]
    assert [e.ball for e in starts] == ["C"]


def _pushed(fps: float, n: int, accel: float, v0: float = 0.0) -> np.ndarray:
    """A ball run off REST along +x from rest speed v0 speeding up at `accel` mm/s^2 (a hand pushing it)."""
    k = np.arange(1, n + 1)[:, None] / fps
    return REST + np.array([1.0, 0.0]) * (v0 * k + 0.5 * accel * k**2)


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_slow_creep_off_its_rest_between_shots_is_a_disturbance_timed_at_its_start(fps: float) -> None:
    # a ball nudged to 70 mm/s rolls to rest within ~2 cm: it creeps past the onset distance over many
    # frames and may look still for a few frames after; no stroke, and the start is timed where it left
    n = int(1.2 * fps)
    after = _rolling(fps, n, (70.0, 0.0))
    after = np.where((np.arange(n) / fps < 0.55)[:, None], after, after[int(0.55 * fps) - 1])  # stops
    events = _still_then(fps, after, np.full(n, BallState.MOVING))
    assert [e.type for e in events] == [EventType.BALL_DISTURBED]
    assert events[0].confidence >= 0.5 and events[0].extra["speed_mm_s"] < 100.0
    assert abs(events[0].t - 1.0) * fps <= 2.0


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_run_that_speeds_up_over_many_frames_is_a_push_not_a_stroke(fps: float) -> None:
    # a hand takes a ball from rest to ~750 mm/s over half a second: faster than a stroke needs, but a cue's
    # impulse gives a ball its speed at once; friction then only slows it
    n = int(1.0 * fps)
    after = _pushed(fps, n, 1500.0)
    events = _still_then(fps, after, np.full(n, BallState.MOVING))
    assert events and events[0].type is EventType.BALL_DISTURBED
    assert events[0].extra.get("accelerating") is True


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_soft_stroke_is_a_stroke_with_its_launch_speed(fps: float) -> None:
    n = int(1.5 * fps)
    events = _still_then(fps, _rolling(fps, n, (250.0, 0.0)), np.full(n, BallState.MOVING))
    assert [e.type for e in events] == [EventType.SHOT_START]
    assert 180.0 <= events[0].extra["speed_mm_s"] <= 320.0
    assert not events[0].extra.get("review")


@pytest.mark.parametrize(("moved", "want"), [((9.0, 6.0), True), ((1.5, 0.5), False), ((400.0, -300.0), False)])
@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_ball_covered_and_found_at_rest_a_little_away_was_moved(fps: float, moved: tuple[float, float],
                                                                 want: bool) -> None:
    # a hand over the ball for 0.3 s; the ball is then seen at rest `moved` mm from where it lay: a few mm
    # to a hand's reach is a disturbance (1.17, for review); back on its spot, or far off, it is not
    n, hid = int(1.2 * fps), int(0.3 * fps)
    after = np.tile(REST + np.array(moved), (n, 1))
    state = np.full(n, BallState.STATIONARY)
    state[:hid] = BallState.HIDDEN
    events = _still_then(fps, after, state)
    if want:
        assert [e.type for e in events] == [EventType.BALL_DISTURBED]
        assert events[0].extra["unseen"] is True and events[0].extra["review"] is True
        assert 0.5 <= events[0].confidence < 0.9
        assert events[0].extra["moved_mm"] == pytest.approx(float(np.hypot(*moved)), abs=2.0)
    else:
        assert events == []


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_covered_ball_whose_centre_comes_back_onto_its_spot_was_not_moved(fps: float) -> None:
    # a hand beside the ball merges with it in the image: its tracked centre is hidden for 0.2 s, then seen
    # at rest 11 mm off (the hand's blob pulling it) for 0.4 s, then back on its spot once the hand has gone.
    # Nothing was displaced: no ball_disturbed (before: 'moved' was called the moment it seemed to rest off)
    hid, off, back = int(0.2 * fps), int(0.4 * fps), int(1.5 * fps)
    after = np.concatenate([np.tile(REST + np.array((9.0, 6.0)), (hid + off, 1)), np.tile(REST, (back, 1))])
    state = np.full(len(after), BallState.STATIONARY)
    state[:hid] = BallState.HIDDEN
    assert _still_then(fps, after, state) == []


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_covered_ball_found_off_its_spot_is_called_once_it_stays_there(fps: float) -> None:
    # the same cover, but the ball stays 11 mm off: moved (1.17, for review), dated when it was seen again
    hid, off = int(0.2 * fps), int(2.0 * fps)
    after = np.tile(REST + np.array((9.0, 6.0)), (hid + off, 1))
    state = np.full(len(after), BallState.STATIONARY)
    state[:hid] = BallState.HIDDEN
    events = _still_then(fps, after, state)
    assert [e.type for e in events] == [EventType.BALL_DISTURBED]
    assert 1.0 <= events[0].t <= 1.2 + 1.5 / fps and events[0].extra["unseen"] is True


def _struck_into_with_its_next_sample_lost(seed: int) -> tuple[list[Event], list[Event]]:
    """As physics frame_combined-1 at 98.53 s (there by a cushion): C, 16 mm from touching 14, struck at
    2.76 m/s, hits it 6 ms later inside the stroke's frame and nearly stops; C's sample after the stroke is
    lost (held at its rest, as under the cue), so 14 is the first ball seen moving and C only a frame later."""
    r = TABLE.ball_radius
    sim = Sim(TABLE).place("14", (-600.0, 200.0)).place("C", (-600.0, 200.0 - 2 * r - 16.0))
    res = sim.stroke(0.5 + 0.3 / 60.0, "C", (0.0, 2760.0)).run(1.5)
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=800 + seed, p_miss=0.0))
    c = states[0].ids.index("C")
    f = int(np.ceil(res.t.searchsorted(0.5 + 0.3 / 60.0)))  # the first frame after the stroke
    states[f].state[c] = int(BallState.HIDDEN)
    states[f].xy_mm[c] = states[f - 1].xy_mm[c]
    return res.events, detect_events(TABLE, 60.0, states)


@pytest.mark.parametrize("seed", range(3))
def test_cue_ball_unseen_after_its_stroke_into_a_near_ball_is_still_the_striker(seed: int) -> None:
    """14 must not be taken for the struck ball: a cause's track is read past its missing sample (fails before
    on every seed: the shot's struck ball was 14), and the stroke is dated no later than the hit it made
    (else the shot's first contact falls before its shot_start and is outside the shot; found by a review)."""
    truth, found = _struck_into_with_its_next_sample_lost(seed)
    starts = [e for e in found if e.type is EventType.SHOT_START]
    assert [e.agents for e in starts] == [("C",)]
    contacts = [e for e in found if e.type is EventType.BALL_CONTACT]
    true_first = next(e for e in truth if e.type is EventType.BALL_CONTACT)
    assert contacts and set(contacts[0].balls or ()) == {"C", "14"}
    assert abs(contacts[0].t - true_first.t) * 60 <= 2 and contacts[0].confidence >= 0.5
    assert starts[0].t <= contacts[0].t
