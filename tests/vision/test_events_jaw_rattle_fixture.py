"""A rattle in the rear-left corner's jaws, from recorded tracker output: both touches, two frames apart.

The fixture is 150 frames (1.50-4.00 s) of the tracker's output on a rendered shot at 60 fps (seed-41
jaw_rattle_no_pot): 4, hit by C at 2.07 s, touches the left_rear jaw at 2.52 s and the rear nose beside the
pocket at 2.56 s, then rolls back out. The second touch's closest point is the rear segment's end, so its
normal there is radial from the jaw tip and mixes the first bounce into the track projected on it: only the
segment's own normal shows the second bounce alone (before: missed, and the shot judged 1.20 for 1.20(2a)).
"""

from __future__ import annotations

from pathlib import Path

from track_fakes import recorded_states

from calibration.table import Table
from rules.events import EventType
from vision.events import detect_events
from vision.pipeline import event_settings

DATA = Path(__file__).parent / "data" / "jaw_rattle_rear_left_60fps.npz"


def test_both_touches_of_a_jaw_rattle_two_frames_apart_are_found() -> None:
    events = detect_events(Table.load("pyramid-12ft"), 60.0, recorded_states(DATA))
    touches = [(e.cushion, round(e.t, 2)) for e in events if e.type is EventType.CUSHION and e.ball == "4"]
    assert [c for c, t in touches if 2.5 <= t <= 2.6] == ["left_rear", "rear"], touches
    rear = next(e for e in events if e.type is EventType.CUSHION and e.ball == "4" and e.cushion == "rear")
    assert abs(rear.t - 2.5575) * 60 <= 1.0 and rear.confidence >= 0.5


CORNER = Path(__file__).parent / "data" / "corner_rattle_two_noses_60fps.npz"


def test_a_jaw_touch_at_the_same_sample_as_the_other_nose_is_judged_on_its_own() -> None:
    # seed-67 jaw_rattle_no_pot, 0-3.2 s of the tracker's output with the pipeline's noise model: 4 meets the
    # rear nose at 2.406 s and the left_rear jaw at 2.425 s; both distances have their minimum at one sample,
    # and the nearer nose hid the other (before: one touch, the shot judged 1.20 for 1.20(2a))
    events = detect_events(Table.load("pyramid-12ft"), 60.0, recorded_states(CORNER), event_settings())
    touches = [(e.cushion, e.t) for e in events if e.type is EventType.CUSHION and e.ball == "4" and e.t < 2.5]
    assert [c for c, _ in touches] == ["rear", "left_rear"], touches
    assert abs(touches[0][1] - 2.406) * 60 <= 1.0 and abs(touches[1][1] - 2.425) * 60 <= 1.0
