"""A cue ball struck into a ball 15 mm away, no frame between stroke and hit: the contact is read from the
line the object ball left along.

The fixture is 108 frames (97.2-99.0 s) of noisy truth tracks (the physics bench's noise) of physics
frame_free-1: C, struck at 98.532 s at 2.75 m/s, hits 14 5 ms later; C's first sample is 4.5 mm off its rest,
then it rolls on at 0.4 m/s, so its start is dated after 14's and no piece of its track shows the run in.
14 touches the left_front cushion at 98.57 s and meets C again at 98.62 s, which came out as the first contact.
"""

from __future__ import annotations

from pathlib import Path

from track_fakes import recorded_states

from calibration.table import Table
from rules.events import EventType
from vision.events import detect_events

DATA = Path(__file__).parent / "data" / "near_hit_no_frame_60fps.npz"


def test_the_hit_of_a_ball_a_few_mm_away_is_the_first_contact() -> None:
    events = [e for e in detect_events(Table.load(), 60.0, recorded_states(DATA)) if e.confidence >= 0.5]
    start = next(e for e in events if e.type is EventType.SHOT_START and e.t > 98.4)
    first = next(e for e in events if e.type is EventType.BALL_CONTACT and e.t >= start.t)
    assert start.ball == "C"
    assert set(first.balls or ()) == {"C", "14"}
    assert abs(first.t - 98.5369) * 60 <= 1.0  # the truth's hit
    assert first.extra.get("review") and "no frame shows the hit" in first.extra.get("why", "")
    cushion = next(e for e in events if e.type is EventType.CUSHION and e.ball == "14")
    assert first.t < cushion.t  # before it, not the return after it
