"""A ball struck into a cushion and straight back into the cue ball: two contacts and a cushion within a frame
or two, of which the pair search alone sees only the first (vision.events.returns)."""

from __future__ import annotations

import pytest

from bench.events_bench import match
from bench.events_sim import Sim, SimResult
from bench.events_tracks import NoiseModel, noisy_states
from calibration.table import Table
from rules.events import Event, EventType
from vision.events import detect_events

TABLE = Table.load()
R = TABLE.ball_radius
REAR_X = TABLE.cushions["rear"].a[0]


def _contacts(events: list[Event]) -> list[Event]:
    return [e for e in events if e.type is EventType.BALL_CONTACT]


def _hit_near_rear(gap_mm: float, aim_y_mm: float, fps: float, speed: float = 2500.0) -> SimResult:
    """Ball 5 resting gap_mm off the rear cushion, the cue ball struck along +x at it (aim_y_mm off its
    centre line)."""
    obj = (REAR_X - R - gap_mm, 100.0)
    sim = Sim(TABLE, fps=fps).place("5", obj).place("C", (REAR_X - 900.0, 100.0 + aim_y_mm))
    return sim.stroke(0.3, "C", (speed, 0.0)).run(2.5)


@pytest.mark.parametrize(("gap_mm", "fps", "seed"), [(8.0, 60.0, 0), (8.0, 60.0, 1), (12.0, 60.0, 2),
                                                     (15.0, 30.0, 3), (20.0, 30.0, 4)])
def test_ball_back_off_the_cushion_into_the_cue_ball_is_a_second_contact(gap_mm: float, fps: float, seed: int) -> None:
    res = _hit_near_rear(gap_mm, 0.0, fps)
    truth = [e for e in res.events if e.type in (EventType.BALL_CONTACT, EventType.CUSHION) and e.t < 1.0]
    kinds = [(str(e.type), e.ball or frozenset(e.balls or ())) for e in truth[:3]]
    assert kinds == [("ball_contact", frozenset({"C", "5"})), ("cushion", "5"), ("ball_contact", frozenset({"C", "5"}))]
    assert truth[2].t - truth[0].t < 1.5 / fps  # within the same frame or the next: one distance minimum
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=700 + seed))
    found = [e for e in detect_events(TABLE, fps, states) if e.confidence >= 0.5 and e.t < 1.0]
    pairs, missed, _ = match(_contacts(truth[:3]), _contacts(found), fps)
    assert len(pairs) == 2, (missed, found)
    second = max((f for _, f in pairs), key=lambda e: e.t)
    assert second.balls == ("5", "C")  # the ball that came back is the striker


@pytest.mark.parametrize("seed", range(4))
def test_a_cut_ball_off_the_cushion_that_misses_the_cue_ball_is_one_contact(seed: int) -> None:
    res = _hit_near_rear(8.0, 45.0, 60.0)  # half-ball hit: 5 goes off at an angle and away
    truth = _contacts([e for e in res.events if e.t < 1.0])
    assert len(truth) == 1
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=800 + seed))
    found = [e for e in _contacts(detect_events(TABLE, 60.0, states)) if e.confidence >= 0.5 and e.t < 1.0]
    assert not [e for e in found if e.extra.get("returned")], found


@pytest.mark.parametrize(("gap_mm", "aim_y_mm", "fps", "seed"), [(0.5, 0.0, 30.0, 0), (0.5, 20.0, 30.0, 1),
                                                                 (1.5, 0.0, 30.0, 2), (1.5, 20.0, 30.0, 3),
                                                                 (0.5, 0.0, 60.0, 4)])
def test_ball_frozen_to_the_cushion_back_into_the_cue_ball_is_a_second_contact(
    gap_mm: float, aim_y_mm: float, fps: float, seed: int
) -> None:
    """Ball 5 frozen to the rear cushion (its touch is read at the contact itself, `frozen`), hit straight or
    a little off centre (it slides along the nose as it is driven in: the nose's friction): 5 comes back into
    the cue ball within the frame, a second contact with 5 the striker."""
    res = _hit_near_rear(gap_mm, aim_y_mm, fps)
    truth = _contacts([e for e in res.events if e.t < 1.0])
    assert [frozenset(e.balls or ()) for e in truth[:2]] == [frozenset({"C", "5"})] * 2
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=900 + seed))
    found = [e for e in detect_events(TABLE, fps, states) if e.confidence >= 0.5 and e.t < 1.0]
    pairs, missed, _ = match(truth[:2], _contacts(found), fps)
    assert len(pairs) == 2, (missed, found)
    # the two truth contacts lie within a few ms, so the matching may pair them either way round
    assert any(f.extra.get("returned") and f.balls == ("5", "C") for _, f in pairs), pairs
