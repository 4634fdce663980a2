"""bench.latency: when the event layer releases each event, measured frame by frame as analyze feeds it."""

from __future__ import annotations

import math

import pytest

from bench.events_sim import Sim
from bench.events_tracks import NoiseModel, noisy_states
from bench.latency import LIMIT_S, Latencies, headline, release_latencies, summary
from calibration.table import Table
from rules.events import Event, EventType
from vision.events import EventDetector, detect_events
from vision.types import BallStates

TABLE = Table.load()


def _states(fps: float) -> list[BallStates]:
    sim = Sim(TABLE, fps=fps).place("C", (-900.0, 100.0)).place("1", (-400.0, 100.0))
    res = sim.stroke(0.3, "C", (2200.0, 0.0)).run(3.0)
    return noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=2))


def test_release_latencies_are_stream_time_minus_event_time() -> None:
    states = _states(60.0)
    found, lat = release_latencies(EventDetector(TABLE, 60.0), states)
    # the same events as the whole-stream driver, in the same order
    assert [(e.type, e.t) for e in found] == [(e.type, e.t) for e in detect_events(TABLE, 60.0, states)]
    contacts = lat.released[EventType.BALL_CONTACT]
    assert contacts and all(0.0 < x <= 0.2 for x in contacts)
    # an event is never released before the stream reached it plus the look-ahead (3 frames at 60 fps; the early
    # reading, `vision.events.early`, is for frame rates where the full reading comes out after the release hold)
    assert min(x for v in lat.released.values() for x in v) >= 3 / 60.0 - 1e-9
    assert sum(len(v) for v in lat.released.values()) + sum(lat.at_end.values()) == len(found)


def test_lower_frame_rate_waits_longer() -> None:
    # a touch read short of sure (0.89 here) waits for the full reading's look-ahead of at least three frames: at
    # 30 fps that alone is 100 ms, so it comes out later
    lat60 = release_latencies(EventDetector(TABLE, 60.0), _states(60.0))[1]
    lat30 = release_latencies(EventDetector(TABLE, 30.0), _states(30.0))[1]
    c60, c30 = lat60.released[EventType.CUSHION], lat30.released[EventType.CUSHION]
    assert max(c60) <= LIMIT_S + 1e-9
    assert min(c30) > max(c60)
    assert min(c30) >= 3 / 30.0


def test_summary_and_headline_count_what_they_say() -> None:
    lat = Latencies()
    ev = Event(EventType.CUSHION, 1.0, 60, ball="C", cushion="rear")
    for x in (0.05, 0.09, 0.2):
        lat.add(ev, x)
    lat.add(Event(EventType.SHOT_END, 2.0, 120), None)
    lat.add(Event(EventType.SHOT_END, 3.0, 180), 0.3)
    s = summary(lat)
    assert s["cushion"]["n"] == 3 and s["cushion"]["median_ms"] == pytest.approx(90.0)
    assert s["cushion"]["within"] == pytest.approx(2 / 3) and s["cushion"]["max_ms"] == pytest.approx(200.0)
    assert s["shot_end"]["at_end"] == 1 and s["shot_end"]["n"] == 1
    assert headline(lat) == pytest.approx(2 / 3)  # shot_end is not a moment event
    assert math.isnan(headline(Latencies()))
    # a contact passed on inside a pack waits for its cause by design: counted in its type, not in the headline
    lat.add(Event(EventType.BALL_CONTACT, 1.0, 60, balls=("3", "7"), extra={"cluster": True}), 0.4)
    lat.add(Event(EventType.BALL_CONTACT, 1.0, 60, balls=("C", "3")), 0.4)
    assert summary(lat)["ball_contact"]["n"] == 2 and len(lat.pack) == 1
    assert headline(lat) == pytest.approx(2 / 4)
