"""Rest detection and shot segmentation: a crawl is not a rest, a stop is timed where the ball stops, a
crawl that only looked still starts nothing."""

from __future__ import annotations

import numpy as np
import pytest
from track_fakes import noisy_with_a_miss

from bench.events_sim import Sim, SimResult
from bench.events_tracks import NoiseModel, noisy_states
from calibration.table import Table
from rules.events import Event, EventType
from vision.events import EventSettings, detect_events, detector
from vision.types import BallState

TABLE = Table.load()
R = TABLE.ball_radius
TRACKER = NoiseModel(sigma_rest_mm=0.7, sigma_moving_mm=1.5)  # the Kalman tracker's output is this smooth
SEGMENT = (EventType.SHOT_START, EventType.SHOT_END, EventType.BALL_DISTURBED)


def _run(res: SimResult, noise: NoiseModel, settings: EventSettings | None = None) -> list[Event]:
    states = noisy_states(res.t, res.pos, res.state, res.ids, noise)
    return [e for e in detect_events(TABLE, res.fps, states, settings) if e.type in SEGMENT and e.confidence >= 0.5]


def _truth_end(res: SimResult) -> float:
    return next(e.t for e in res.events if e.type is EventType.SHOT_END)


def _glancing_kiss(fps: float, v0: float, offset: float) -> SimResult:
    """Ball 4 clips C at `offset` of 2R: C takes most of the speed, 4 crawls off sideways to rest."""
    sim = Sim(TABLE, fps=fps, decel_mm_s2=100.0).place("4", (-800.0, 0.0)).place("C", (-600.0, offset * 2 * R))
    return sim.stroke(0.5, "4", (v0, 0.0)).run(6.0)


@pytest.mark.parametrize(("fps", "seed"), [(60.0, 0), (30.0, 1)])
def test_slow_roll_ends_the_shot_when_the_ball_stops(fps: float, seed: int) -> None:
    # a slow cloth (60 mm/s^2): the last half second is a crawl of < 30 mm/s that looks still from above
    res = Sim(TABLE, fps=fps, decel_mm_s2=60.0).place("C", (-800.0, 100.0)).stroke(0.5, "C", (450.0, 30.0)).run(9.0)
    for noise in (TRACKER, NoiseModel()):
        events = _run(res, NoiseModel(noise.sigma_rest_mm, noise.sigma_moving_mm, noise.p_miss, seed))
        assert [e.type for e in events] == [EventType.SHOT_START, EventType.SHOT_END]
        assert events[-1].t == pytest.approx(_truth_end(res), abs=0.12), "shot_end at the physical stop"


@pytest.mark.parametrize(("fps", "v0", "offset"), [(60.0, 300.0, 0.3), (30.0, 350.0, 0.5), (30.0, 300.0, 0.7)])
def test_crawl_after_a_kiss_is_timed_to_its_stop(fps: float, v0: float, offset: float) -> None:
    res = _glancing_kiss(fps, v0, offset)
    events = _run(res, NoiseModel(0.7, 1.5, 0.02, 3))
    assert [e.type for e in events] == [EventType.SHOT_START, EventType.SHOT_END]
    assert events[-1].t == pytest.approx(_truth_end(res), abs=0.12)


@pytest.mark.parametrize("seed", [0, 2])
def test_crawl_taken_for_rest_then_going_on_after_a_kink_is_no_disturbance(seed: int) -> None:
    # the bundled break: ball 4 kissed C, crawled off at 50 -> 0 mm/s in a new direction, was taken for at
    # rest (the rest test let the crawl through) and then 'started' away from that rest. Its way before
    # the stop is the way since the kiss, not the way it ran before it.
    lax = EventSettings(rest_speed_mm_s=1000.0)  # the crawl passes the rest test, as it did
    res = _glancing_kiss(60.0, 300.0, 0.3)
    events = _run(res, NoiseModel(0.7, 1.5, 0.02, seed), lax)
    assert [e.type for e in events] == [EventType.SHOT_START, EventType.SHOT_END]


def test_stop_fit_times_a_constant_deceleration() -> None:
    from vision.events.motion import stop_fit

    rng = np.random.default_rng(1)
    t = np.arange(0.0, 1.2, 1 / 30)
    a, t_s = 100.0, 0.8
    along = -0.5 * a * np.clip(t_s - t, 0.0, None) ** 2  # mm along the way, 0 at the rest point
    xy = np.outer(along, [0.6, 0.8]) + np.array([100.0, -50.0]) + rng.normal(0.0, 0.7, (len(t), 2))
    got = stop_fit(t, xy, 1.5, 1 / 30)
    assert got is not None and got == pytest.approx(t_s, abs=1 / 30)
    # only the crawl seen, not yet the rest: the stop lies ahead of the last sample
    early = t <= 0.6
    got = stop_fit(t[early], xy[early], 1.5, 1 / 30)
    assert got is not None and got == pytest.approx(t_s, abs=0.1)
    # a ball long at rest has no approach to fit
    still = np.array([100.0, -50.0]) + rng.normal(0.0, 1.5, (len(t), 2))
    assert stop_fit(t, still, 1.5, 1 / 30) is None


def _still_then(fps: float, after: np.ndarray, hidden: slice | None = None, moving: bool = False) -> list[Event]:
    """Ball 5 at rest for 1 s, then at the positions `after` (one per frame); ball C at rest throughout."""
    n0 = int(fps)
    pos = np.zeros((n0 + len(after), 2, 2))
    pos[:, 0] = (-800.0, 0.0)
    pos[:n0, 1] = (300.0, 200.0)
    pos[n0:, 1] = after
    state = np.full(pos.shape[:2], BallState.STATIONARY, dtype=np.int8)
    state[n0:, 1] = BallState.MOVING if moving else BallState.STATIONARY
    if hidden is not None:
        state[hidden, 1] = BallState.HIDDEN  # under the arm
    t = np.arange(len(pos)) / fps
    states = noisy_states(t, pos, state, ("C", "5"), NoiseModel(0.7, 1.5, 0.0, 4))
    return [e for e in detect_events(TABLE, fps, states) if e.type in SEGMENT]


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_jump_of_the_tracked_centre_starts_nothing(fps: float) -> None:
    # an identity swap: ball 5's track jumps 230 mm in a frame and sits still there
    assert _still_then(fps, np.tile([[100.0, 110.0]], (int(fps), 1))) == []


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_ball_found_still_elsewhere_after_the_arm_hid_it_starts_nothing(fps: float) -> None:
    # the referee's hand put it down 400 mm away while the arm hid it: no motion was seen
    n = int(fps)
    assert _still_then(fps, np.tile([[-100.0, 100.0]], (n, 1)), slice(n - 5, n + 10)) == []


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_ball_struck_under_the_cue_is_still_a_stroke(fps: float) -> None:
    # hidden at the stroke, seen again rolling away: a shot starts
    n = int(fps)
    k = np.arange(1, n + 1)[:, None] / fps
    rolling = np.array([300.0, 200.0]) + np.array([900.0, 0.0]) * k - 0.5 * np.array([150.0, 0.0]) * k**2
    events = _still_then(fps, rolling, slice(n - 2, n + 3), moving=True)
    assert [e.type for e in events][:1] == [EventType.SHOT_START] and events[0].ball == "5"


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_jump_next_to_a_cluster_does_not_explain_a_stroke(fps: float) -> None:
    # C touches 6; the tracker swaps 12 onto the far side of 6 a frame before C is struck away from 6.
    # The swap is no start, so it did not pass an impulse through 6 to C: C's start is the stroke.
    n, d = int(fps), 2 * R + 1.0
    ids = ("C", "6", "12")
    t = np.arange(2 * n) / fps
    pos = np.zeros((len(t), 3, 2))
    pos[:, 0], pos[:, 1], pos[:, 2] = (0.0, 0.0), (d, 0.0), (800.0, 300.0)
    pos[n:, 2] = (2 * d, 0.0)
    k = np.arange(len(t) - n - 2)[:, None] / fps
    pos[n + 2 :, 0] = np.array([-1000.0, 0.0]) * k - 0.5 * np.array([-150.0, 0.0]) * k**2
    state = np.full(pos.shape[:2], BallState.STATIONARY, dtype=np.int8)
    state[n + 2 :, 0] = BallState.MOVING
    states = noisy_states(t, pos, state, ids, NoiseModel(0.7, 1.5, 0.0, 4))
    events = [e for e in detect_events(TABLE, fps, states) if e.type in SEGMENT]
    assert [(e.type, e.ball) for e in events][:1] == [(EventType.SHOT_START, "C")]
    assert all(e.ball != "12" for e in events)


@pytest.mark.parametrize("fps", [60.0, 30.0])
def test_a_ball_struck_while_still_rolling_starts_an_early_shot(fps: float) -> None:
    # 1.14.2: the cue ball is struck again while it still rolls from the first stroke
    sim = Sim(TABLE, fps=fps, decel_mm_s2=100.0).place("C", (-700.0, 0.0)).place("9", (900.0, 500.0))
    res = sim.stroke(0.5, "C", (400.0, 0.0)).stroke(2.0, "C", (-200.0, 900.0)).run(5.0)
    events = _run(res, NoiseModel(0.7, 1.5, 0.02, 2))
    starts = [e for e in events if e.type is EventType.SHOT_START]
    assert [(e.ball, e.extra.get("early", False)) for e in starts] == [("C", False), ("C", True)]
    assert starts[1].t == pytest.approx(2.0, abs=1.5 / fps)
    assert not [e for e in events if e.type is EventType.BALL_DISTURBED]


@pytest.mark.parametrize(("fps", "speed"), [(60.0, 1400.0), (30.0, 1400.0), (30.0, 2000.0)])
def test_a_bounce_whose_touch_frame_is_missed_is_no_stroke_on_a_moving_ball(
    fps: float, speed: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    # physics frame_combined-1 at 113.53 s: 4 ran into a cushion at 1.4 m/s, its first sample after the touch
    # was missed, and the 0.15 s line before the next frames, bent by the bounce, averaged to a slow ball that
    # then "sped up": a 1.14.2 stroke (a foul) with no cue near. Samples at the noise of the physics bench. The
    # touch itself is not looked for (a touch found excuses the kink anyway): the stroke test alone must hold.
    monkeypatch.setattr(detector, "verify_touches", lambda *args: [])
    res = Sim(TABLE, fps=fps).place("5", (TABLE.half_length - 400.0, -200.0)).stroke(0.3, "5", (speed, 0.0)).run(2.0)
    touch = next(e for e in res.events if e.type is EventType.CUSHION)
    f = int(np.ceil(touch.t * fps))
    early = 0
    for seed in range(1, 9):
        states = noisy_with_a_miss(res.t, res.pos, res.state, res.ids, seed, f, "5")
        events = detect_events(TABLE, fps, states)
        early += sum(1 for e in events if e.type is EventType.SHOT_START and e.extra.get("early"))
    assert early == 0  # 3, 2 and 2 of 8 noise seeds when a bent window was compared
