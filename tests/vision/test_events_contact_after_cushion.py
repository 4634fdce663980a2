"""A ball off a cushion into a moving ball a frame or two later: the incoming line must start after the bounce.

The pair search finds the candidate; a line fitted across the bounce makes the striker look kinked against
the impulse (physics break-0: C off the rear cushion into the rolling 3, 1.8 frames later, was missed).
"""

from __future__ import annotations

import numpy as np
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


def _off_cushion_into_rolling_ball(after_s: float, angle_deg: float, speed: float = 1300.0) -> SimResult:
    """C rolls into the rear cushion at angle_deg off its normal and, after_s after the bounce, meets ball 3
    head on, 3 rolling slowly across its path."""
    sim = Sim(TABLE, fps=60.0)
    a = np.radians(angle_deg)
    bounce = np.array([REAR_X - R, 0.0])
    v_in = speed * np.array([np.cos(a), np.sin(a)])
    v_out = np.array([-sim.cushion_restitution * v_in[0], v_in[1]])
    t_bounce = 0.55  # a short run in, so rolling resistance barely moves the meeting point
    t_hit = t_bounce + after_s
    c_start = bounce - v_in * (t_bounce - 0.3)  # struck at 0.3 s (deceleration ignored: it is small)
    meet = bounce + v_out * after_s
    v3 = 250.0 * np.array([-v_out[1], v_out[0]]) / np.hypot(*v_out)
    p3 = meet + 2 * R * v_out / np.hypot(*v_out) - v3 * (t_hit - 0.3)
    sim.place("C", (float(c_start[0]), float(c_start[1]))).place("3", (float(p3[0]), float(p3[1])))
    sim.stroke(0.3, "C", (float(v_in[0]), float(v_in[1]))).stroke(0.3, "3", (float(v3[0]), float(v3[1])))
    return sim.run(2.5)


def _contacts(events: list[Event]) -> list[Event]:
    return [e for e in events if e.type is EventType.BALL_CONTACT]


@pytest.mark.parametrize(("after_frames", "angle", "seed"), [(1.8, 25.0, 0), (1.8, 35.0, 1), (1.4, 30.0, 2),
                                                             (2.2, 30.0, 3)])
def test_contact_a_frame_or_two_after_a_cushion_is_found(after_frames: float, angle: float, seed: int) -> None:
    res = _off_cushion_into_rolling_ball(after_frames / 60.0, angle)
    truth = [e for e in res.events if e.type in (EventType.BALL_CONTACT, EventType.CUSHION) and 0.4 < e.t < 0.8]
    assert [(str(e.type), e.ball or frozenset(e.balls or ())) for e in truth] == [
        ("cushion", "C"), ("ball_contact", frozenset({"C", "3"}))]
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=900 + seed))
    found = [e for e in detect_events(TABLE, 60.0, states) if e.confidence >= 0.5]
    pairs, missed, _ = match(_contacts(truth), _contacts(found), 60.0)
    assert len(pairs) == 1, (missed, _contacts(found))
