"""Golden shots from the kinematic simulator, named by what the detector must report (table-driven).

Each case builds a shot with bench.events_sim, runs the detector on noisy tracks (seeded) and checks the
sequence of confident events of the listed types, in time order.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import pytest

from bench.events_sim import Sim, SimResult
from bench.events_tracks import NoiseModel, noisy_states
from calibration.table import Table
from rules.events import Event, EventType
from vision.events import detect_events

TABLE = Table.load()
R = TABLE.ball_radius
FPS = 60.0


def _run(res: SimResult, noise: NoiseModel | None = None) -> list[Event]:
    states = noisy_states(res.t, res.pos, res.state, res.ids, noise or NoiseModel(seed=11))
    return detect_events(TABLE, FPS, states)


def _towards(pocket: str, back_mm: float) -> tuple[np.ndarray, np.ndarray]:
    pk = TABLE.pockets[pocket]
    out = np.asarray(pk.outward)
    return np.asarray(pk.mouth_centre) - out * back_mm, out


def straight_pot() -> SimResult:
    obj, out = _towards("rear_left", 400)
    cue = obj - out * 600
    return Sim(TABLE).place("3", tuple(obj)).place("C", tuple(cue)).stroke(0.3, "C", tuple(out * 1800)).run(3.0)


def glancing_hit() -> SimResult:
    # object ball 5 sits 0.93 x 2R off the cue ball's path: a thin cut that barely deflects the cue ball
    sim = Sim(TABLE).place("C", (-800.0, 0.0)).place("5", (-200.0, 0.93 * 2 * R))
    return sim.stroke(0.3, "C", (2500.0, 0.0)).run(2.5)


def cushion_bank() -> SimResult:
    sim = Sim(TABLE).place("C", (-600.0, -300.0))
    return sim.stroke(0.3, "C", (600.0, 1500.0)).run(3.0)


@functools.lru_cache(maxsize=1)
def chain_of_three() -> SimResult:
    sim = Sim(TABLE).place("C", (-900.0, 100.0)).place("1", (-400.0, 100.0)).place("2", (200.0, 300.0))
    direction = np.array([200.0, 300.0]) - np.array([-400.0 + 0.0, 100.0])
    u = direction / np.hypot(*direction)
    ghost = np.array([200.0, 300.0]) - u * 2 * R
    # ball 1 must leave towards ghost: cue strikes 1 on the line ghost -> 1 extended
    v1 = ghost - np.array([-400.0, 100.0])
    v1 /= np.hypot(*v1)
    cue_ghost = np.array([-400.0, 100.0]) - v1 * 2 * R
    aim = cue_ghost - np.array([-900.0, 100.0])
    aim /= np.hypot(*aim)
    return sim.stroke(0.3, "C", tuple(aim * 2600)).run(4.0)


Case = tuple[str, Callable[[], SimResult], tuple[EventType, ...], list[tuple[str, ...]]]
CASES: list[Case] = [
    (
        "straight pot: shot_start, contact C-3, pot 3 rear_left, shot_end",
        straight_pot,
        (EventType.SHOT_START, EventType.BALL_CONTACT, EventType.POT, EventType.SHOT_END),
        [("shot_start", "C"), ("ball_contact", "3", "C"), ("pot", "3", "rear_left"), ("shot_end",)],
    ),
    (
        "glancing hit: the thin contact C-5 is found",
        glancing_hit,
        (EventType.SHOT_START, EventType.BALL_CONTACT),
        [("shot_start", "C"), ("ball_contact", "5", "C")],
    ),
    (
        "bank: cushion left_front then right_front... in the sim's order",
        cushion_bank,
        (EventType.CUSHION,),
        [],  # filled from the simulator's own truth below
    ),
    (
        "chain: C hits 1, 1 hits 2, in order",
        chain_of_three,
        (EventType.BALL_CONTACT,),
        [("ball_contact", "1", "C"), ("ball_contact", "1", "2")],
    ),
]


def _summary(e: Event) -> tuple[str, ...]:
    if e.type is EventType.BALL_CONTACT:
        return ("ball_contact", *sorted(e.balls or ()))
    if e.type is EventType.POT:
        return ("pot", e.ball or "", e.pocket or "")
    if e.type is EventType.CUSHION:
        return ("cushion", e.ball or "", e.cushion or "")
    if e.type is EventType.SHOT_END:
        return ("shot_end",)
    return (str(e.type), e.ball or "")


@pytest.mark.parametrize(("name", "build", "types", "expected"), CASES, ids=[c[0].split(":")[0] for c in CASES])
def test_golden_sequence(
    name: str, build: Callable[[], SimResult], types: tuple[EventType, ...], expected: list[tuple[str, ...]]
) -> None:
    res = build()
    want = expected or [_summary(e) for e in res.events if e.type in types]
    assert want, f"{name}: the simulated shot has none of {types}"
    truth = [_summary(e) for e in res.events if e.type in types]
    assert truth[: len(want)] == want, "the scenario no longer shows the case"
    got = [_summary(e) for e in _run(res) if e.type in types and e.confidence >= 0.5]
    assert got[: len(want)] == want, name
    assert len(got) == len(truth), f"{name}: {got} against the truth {truth}"


def test_contact_times_within_a_frame() -> None:
    res = chain_of_three()
    truth = [e for e in res.events if e.type is EventType.BALL_CONTACT]
    got = [e for e in _run(res) if e.type is EventType.BALL_CONTACT and e.confidence >= 0.5]
    assert len(got) == len(truth)
    for te, ge in zip(truth[:2], got[:2], strict=True):  # the fast contacts (a slow re-contact is looser)
        assert abs(te.t - ge.t) * FPS <= 1.0, (te, ge)


def test_near_miss_is_flagged_not_counted() -> None:
    # ball 5 sits 2R + 2 mm off the cue ball's path: no contact, but one that hangs on millimetres
    sim = Sim(TABLE).place("C", (-800.0, 0.0)).place("5", (-200.0, 2 * R + 2.0))
    res = sim.stroke(0.3, "C", (2000.0, 0.0)).run(2.0)
    assert not [e for e in res.events if e.type is EventType.BALL_CONTACT]
    events = _run(res, NoiseModel(sigma_rest_mm=0.5, sigma_moving_mm=1.0, p_miss=0.0, seed=3))
    contacts = [e for e in events if e.type is EventType.BALL_CONTACT]
    assert contacts, "a near miss within the review band must be reported for review"
    assert all(e.confidence < 0.5 for e in contacts)
    assert all("margin_mm" in e.extra and e.extra.get("review") for e in contacts)
    assert 0.0 <= contacts[0].extra["margin_mm"] <= 5.0


def test_clear_miss_reports_nothing() -> None:
    sim = Sim(TABLE).place("C", (-800.0, 0.0)).place("5", (-200.0, 2 * R + 25.0))
    res = sim.stroke(0.3, "C", (2000.0, 0.0)).run(2.0)
    assert not [e for e in _run(res) if e.type is EventType.BALL_CONTACT]


def test_rattle_in_the_jaw_is_not_a_pot() -> None:
    # aimed at the rear_right jaw tip itself: the ball bounces off the jaw and stays on the table
    pk = TABLE.pockets["rear_right"]
    jaw = np.asarray(pk.jaw_a)
    start = np.array([900.0, -500.0])
    aim = jaw + np.array([0.0, R * 0.9]) - start
    res = Sim(TABLE).place("C", tuple(start)).stroke(0.3, "C", tuple(aim / np.hypot(*aim) * 1500)).run(3.0)
    assert not [e for e in res.events if e.type is EventType.POT], "scenario must rattle, not pot"
    assert any(e.extra.get("jaw") for e in res.events if e.type is EventType.CUSHION)
    events = _run(res)
    assert not [e for e in events if e.type is EventType.POT]
    jaws = [e for e in events if e.type is EventType.CUSHION and e.confidence >= 0.5]
    assert any(e.extra.get("jaw") == "rear_right" for e in jaws)
