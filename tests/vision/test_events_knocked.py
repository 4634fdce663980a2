"""A ball at rest in a pocket mouth knocked in within one frame: no frame shows it move, so its contact is proven
by the striker's kink at touching distance of where it rested (vision.events.knocked)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.events_bench import match
from bench.events_sim import Sim, SimResult
from bench.events_tracks import NoiseModel, noisy_states
from calibration.table import Table
from rules.events import Event, EventType
from vision.events import detect_events
from vision.types import BallState

TABLE = Table.load()
HANGING = (1744.0, -857.0)  # ball 5 in the rear-right mouth, its centre a few mm on the bed side of the mouth line


def _knock_in(aim_y_mm: float, speed: float, fps: float) -> SimResult:
    """C rolls along +x at ball 5 hanging in the rear-right mouth, aim_y_mm off its centre line: 5 drops."""
    sim = Sim(TABLE, fps=fps).place("5", HANGING).place("C", (HANGING[0] - 400.0, HANGING[1] + aim_y_mm))
    return sim.stroke(0.3, "C", (speed, 0.0)).run(2.0)


def _contacts(events: list[Event]) -> list[Event]:
    return [e for e in events if e.type is EventType.BALL_CONTACT]


@pytest.mark.parametrize(("aim_y_mm", "speed", "fps", "seed"), [(17.0, 650.0, 30.0, 0), (25.0, 1200.0, 30.0, 1),
                                                                (10.0, 400.0, 30.0, 2), (25.0, 1200.0, 60.0, 3)])
def test_ball_knocked_into_the_pocket_within_a_frame_is_one_contact(
    aim_y_mm: float, speed: float, fps: float, seed: int
) -> None:
    res = _knock_in(aim_y_mm, speed, fps)
    truth = _contacts(res.events)
    assert len(truth) == 1 and any(e.type is EventType.POT and e.ball == "5" for e in res.events)
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=990 + seed))
    found = [e for e in _contacts(detect_events(TABLE, fps, states)) if e.confidence >= 0.5]
    pairs, missed, extra = match(truth, found, fps)
    assert len(pairs) == 1 and not extra, (missed, found)
    assert pairs[0][1].balls == ("C", "5")


def test_ball_hidden_as_another_rolls_past_clear_of_it_is_no_contact() -> None:
    """C rolls past ball 5 with 5 mm to spare while 5 is hidden (an arm over it) from that frame on: C does not
    turn, so nothing proves a touch."""
    fps = 30.0
    sim = Sim(TABLE, fps=fps).place("5", (0.0, 0.0)).place("C", (-400.0, 2 * TABLE.ball_radius + 5.0))
    res = sim.stroke(0.3, "C", (800.0, 0.0)).run(1.5)
    assert not _contacts(res.events)
    state = res.state.copy()
    k = int(np.argmin(np.abs(res.pos[:, res.ids.index("C"), 0])))  # C abreast of 5
    state[k + 1 :, res.ids.index("5")] = BallState.HIDDEN
    states = noisy_states(res.t, res.pos, state, res.ids, NoiseModel(seed=5))
    assert not [e for e in _contacts(detect_events(TABLE, fps, states)) if e.confidence >= 0.5]
