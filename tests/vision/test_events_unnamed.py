"""An ivory ball the tracker follows under a label (`BallStates.named` False): its events say so (`unnamed`)
and are as sure as those of a named ball."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from bench.events_sim import Sim
from bench.events_tracks import NoiseModel, noisy_states
from calibration.table import Table
from rules.events import Event, EventType
from vision.events import detect_events
from vision.types import BallStates

TABLE = Table.load()


def _events(unnamed: set[str]) -> list[Event]:
    sim = Sim(TABLE, fps=60.0).place("C", (-900.0, 100.0)).place("1", (-400.0, 100.0)).place("2", (500.0, -300.0))
    res = sim.stroke(0.3, "C", (2200.0, 0.0)).run(3.0)
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=3))
    named = np.array([b not in unnamed for b in res.ids])
    return detect_events(TABLE, 60.0, [replace(s, named=named) for s in states])


def _key(e: Event) -> tuple[str, tuple[str, ...], float]:
    return (str(e.type), e.agents, round(e.confidence, 4))


def test_events_of_an_unnamed_ball_say_so_and_keep_their_confidence() -> None:
    named, labelled = _events(set()), _events({"1"})
    assert [_key(e) for e in named] == [_key(e) for e in labelled]  # the number is no doubt about the event
    assert not any("unnamed" in e.extra for e in named)
    contact = next(e for e in labelled if e.type is EventType.BALL_CONTACT)
    assert contact.extra["unnamed"] == ["1"] and contact.confidence >= 0.5
    for e in labelled:
        if e.type in (EventType.SHOT_START, EventType.SHOT_END):
            assert e.extra.get("unnamed") == (["1"] if "1" in (e.positions or {}) else None), e
        elif "1" in e.agents:
            assert e.extra.get("unnamed") == ["1"], e
        else:
            assert "unnamed" not in e.extra, e
    assert Event.from_dict(contact.to_dict()).extra["unnamed"] == ["1"]  # on the wire and back


def test_states_without_the_field_are_all_named() -> None:
    s = BallStates(0, 0.0, ("1", "C"), np.zeros((2, 2)), np.zeros((2, 2)), np.zeros(2, np.int8), np.ones(2),
                   np.ones(2))
    assert s.named is not None and s.named.all()
