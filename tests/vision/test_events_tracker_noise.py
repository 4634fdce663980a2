"""The event layer judges the real tracker's output with the tracker's own noise model
(vision.pipeline.event_settings), not the 5 mm default meant for a tracker it knows nothing of.

The fixture is the real tracker's output (bench.replay record) on the bundled break, 0-5.3 s: ball 4, sent off
the pack, touches the right_front cushion at 4.5675 s, meets C at 4.615 s and touches right_front again at
4.666 s (the truth). Under the default noise floor neither touch stands out of a track whose pieces are a
few samples long; under the tracker's both do, and no event that is not in the truth is added.
"""

from __future__ import annotations

from pathlib import Path

from track_fakes import recorded_states

from bench.events_bench import match
from calibration.table import Table
from rules.events import Event, EventType
from synthetic.truth import GroundTruth
from vision.events import detect_events
from vision.events.settings import EventSettings
from vision.pipeline import event_settings

DATA = Path(__file__).parent / "data" / "break_double_touch_tracker_60fps.npz"
TOUCHES = (4.5675, 4.666)  # truth: ball 4 on right_front
SAMPLE = Path(__file__).parents[2] / "sample_videos" / "break"


def _found(settings: EventSettings | None) -> list[Event]:
    events = detect_events(Table.load(), 60.0, recorded_states(DATA), settings)
    return [e for e in events if e.confidence >= 0.5 and e.t <= 5.0]


def test_both_touches_of_a_double_bounce_are_found_in_the_trackers_output() -> None:
    touches = [e for e in _found(event_settings()) if e.type is EventType.CUSHION and e.ball == "4"
               and e.t > 4.0]
    assert [e.cushion for e in touches] == ["right_front", "right_front"]
    for e, t in zip(touches, TOUCHES, strict=True):
        assert abs(e.t - t) * 60 <= 1.0, (e.t, t)


def _scored(settings: EventSettings | None) -> tuple[set[tuple[str, float]], set[tuple[str, tuple[str, ...]]]]:
    """(truth events found, false events) among contacts and cushion touches up to 5 s."""
    kinds = (EventType.BALL_CONTACT, EventType.CUSHION)
    truth = [e for e in GroundTruth.load(SAMPLE).events if e.type in kinds and e.t <= 5.0]
    pairs, _, fp = match(truth, [e for e in _found(settings) if e.type in kinds], 60.0)
    return {(str(te.type), te.t) for te, _ in pairs}, {(str(e.type), tuple(sorted(e.agents))) for e in fp}


def test_the_lower_noise_floor_finds_more_and_adds_no_false_event_here() -> None:
    found_default, false_default = _scored(None)
    found, false = _scored(event_settings())
    assert found_default < found  # all the default found, and more
    assert false <= false_default, false - false_default
