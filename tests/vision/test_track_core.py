"""TrackSet on hand-made detections: identities through crossings and contacts, pot / off-table / hidden."""

from __future__ import annotations

import numpy as np
import pytest
from track_fakes import dets

from calibration.table import Table
from vision.track import TrackSet
from vision.types import BallClass, BallState

FPS = 60.0
TABLE = Table.load("pyramid-12ft")
R = TABLE.ball_radius


def run(ts: TrackSet, frames: list[list[tuple[float, float]]], occluded: bool = False) -> list:
    out = []
    for f, pts in enumerate(frames):
        out.append(ts.step(dets(pts, seed=f), f / FPS, (lambda _p: True) if occluded else None))
    return out


def test_ids_kept_through_a_close_crossing() -> None:
    a0, b0 = np.array([-600.0, -300.0]), np.array([-600.0, 300.0])
    va, vb = np.array([3000.0, 1500.0]), np.array([3000.0, -1500.0])  # paths cross at x = 0 with 20 mm to spare
    ts = TrackSet(TABLE, ("1", "2"), {"1": tuple(a0), "2": tuple(b0)})
    frames = []
    for f in range(40):
        t = f / FPS
        a = a0 + va * t if f else a0
        b = b0 + vb * t + np.array([0.0, 90.0]) * (t > 0.2) if f else b0
        frames.append([tuple(b), tuple(a)])  # detections in swapped order on purpose
    states = run(ts, frames)
    for f, st in enumerate(states[1:], 1):
        assert np.hypot(*(st.xy_mm[0] - np.asarray(frames[f][1]))) < 10, f"ball 1 lost at frame {f}"
        assert np.hypot(*(st.xy_mm[1] - np.asarray(frames[f][0]))) < 10, f"ball 2 lost at frame {f}"


def test_stun_collision_keeps_identities() -> None:
    """Cue ball C hits a resting ball 1 full and stops dead; 1 runs on at the cue ball's speed."""
    c0, o = np.array([-900.0, 0.0]), np.array([-300.0, 0.0])
    v = 6000.0
    ts = TrackSet(TABLE, ("1", "C"), {"1": tuple(o), "C": tuple(c0)})
    t_hit = (o[0] - 2 * R - c0[0]) / v
    states = []
    for f in range(30):
        t = f / FPS
        if t < t_hit:
            c, one = c0 + np.array([v * t, 0.0]), o
        else:
            c, one = o - np.array([2 * R, 0.0]), o + np.array([v * (t - t_hit), 0.0])
        d = dets([tuple(one), tuple(c)], [BallClass.IVORY, BallClass.IVORY], seed=f)  # no colour help
        st = ts.step(d, t)
        states.append((st, c, one))
    for f, (st, c, one) in enumerate(states):
        assert np.hypot(*(st.xy_mm[1] - c)) < 15, f"C off by {np.hypot(*(st.xy_mm[1] - c)):.0f} mm at frame {f}"
        assert np.hypot(*(st.xy_mm[0] - one)) < 15, f"1 off by {np.hypot(*(st.xy_mm[0] - one)):.0f} mm at frame {f}"
    assert states[-1][0].state_of("C") == BallState.STATIONARY
    assert states[-1][0].state_of("1") == BallState.MOVING


def test_ball_rolling_into_a_pocket_is_potted() -> None:
    pk = np.asarray(TABLE.pockets["rear_left"].mouth_centre)
    start = pk + np.array([-500.0, -500.0])
    v = (pk - start) / np.linalg.norm(pk - start) * 2500.0
    ts = TrackSet(TABLE, ("1", "2"), {"1": tuple(start), "2": (0.0, 0.0)})
    frames = []
    for f in range(40):
        p = start + v * f / FPS
        on = np.dot(p - pk, np.asarray(TABLE.pockets["rear_left"].outward)) < 0
        frames.append(([tuple(p)] if on else []) + [(0.0, 0.0)])
    states = run(ts, frames)
    assert states[-1].state_of("1") == BallState.POTTED
    assert states[-1].state_of("2") == BallState.STATIONARY


def test_ball_leaving_over_a_long_cushion_is_off_table() -> None:
    start = np.array([800.0, TABLE.half_width - 300.0])
    ts = TrackSet(TABLE, ("1",), {"1": tuple(start)})
    frames = []
    for f in range(30):
        p = start + np.array([0.0, 4000.0]) * f / FPS
        frames.append([tuple(p)] if p[1] < TABLE.half_width - R else [])
    states = run(ts, frames)
    assert states[-1].state_of("1") == BallState.OFF_TABLE


@pytest.mark.parametrize("occluded, expect", [(True, BallState.HIDDEN), (False, BallState.HIDDEN)])
def test_vanished_resting_ball_is_hidden_and_keeps_its_identity(occluded: bool, expect: BallState) -> None:
    ts = TrackSet(TABLE, ("1", "2"), {"1": (100.0, 100.0), "2": (-500.0, 0.0)})
    run(ts, [[(100.0, 100.0), (-500.0, 0.0)]] * 5)
    for f in range(5, 15):
        st = ts.step(dets([(-500.0, 0.0)], seed=f), f / FPS, (lambda _p: True) if occluded else None)
    assert st.state_of("1") == expect
    assert np.hypot(*(st.xy_mm[0] - (100.0, 100.0))) < 3
    st = ts.step(dets([(-500.0, 0.0), (101.0, 100.0)], seed=99), 15 / FPS)
    assert st.state_of("1") == BallState.STATIONARY
    assert np.hypot(*(st.xy_mm[0] - (101.0, 100.0))) < 3


def test_spinning_on_the_spot_counts_as_moving() -> None:
    ts = TrackSet(TABLE, ("1",), {"1": (0.0, 0.0)})
    rng = np.random.default_rng(3)
    for f in range(12):
        d = dets([(0.0, 0.0)], seed=f)
        patch = rng.integers(0, 255, (1, 12, 12)).astype(np.uint8) if f >= 4 else np.full((1, 12, 12), 200, np.uint8)
        d.data["patch"] = patch
        st = ts.step(d, f / FPS)
    assert st.state_of("1") == BallState.MOVING


def test_rack_identities_follow_the_russian_order() -> None:
    from rules.rack import RUSSIAN_RACK_ORDER

    rack = TABLE.rack_positions(list(RUSSIAN_RACK_ORDER))
    pts = [*[rack[b] for b in RUSSIAN_RACK_ORDER][::-1], (-1200.0, 50.0)]
    cls = [BallClass.IVORY] * 15 + [BallClass.COLOURED]
    ts = TrackSet(TABLE)
    st = ts.step(dets(pts, cls), 0.0)
    for b in RUSSIAN_RACK_ORDER:
        assert np.hypot(*(st.xy_mm[st.index(b)] - np.asarray(rack[b]))) < 3, b
    assert np.hypot(*(st.xy_mm[st.index("C")] - (-1200.0, 50.0))) < 3
    assert st.id_confidence.min() > 0.5


def test_potted_ball_comes_back_only_when_a_ball_stays_put() -> None:
    ts = TrackSet(TABLE, ("1", "2"), {"1": (0.0, 0.0)})  # ball 2 not on the table
    for f in range(10):  # a hand-like blob wandering around: never revives ball 2
        st = ts.step(dets([(0.0, 0.0), (300.0 + 30.0 * f, 200.0)], seed=f), f / FPS)
        assert st.state_of("2") == BallState.UNKNOWN
    for f in range(10, 40):  # a ball placed on the spot and left there
        st = ts.step(dets([(0.0, 0.0), (TABLE.rear_line_x, 0.0)], seed=f), f / FPS)
    assert st.state_of("2") == BallState.STATIONARY
    assert np.hypot(*(st.xy_mm[1] - (TABLE.rear_line_x, 0.0))) < 3
    # the tracker cannot know which ball was spotted: the id is a label, and a ball from nowhere may be one it
    # follows already, so what it does is asserted at most at the edge and flagged (below review_confidence)
    assert st.named is not None and not st.named[1]
    assert st.id_confidence[1] <= 0.5
