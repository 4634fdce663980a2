"""The readings the rules engine relies on: note 3, early strokes, disturbed balls, hanging balls, a frozen
ball driven into its cushion, push geometry (1.19), and the stream's latency and frame-rate handling."""

from __future__ import annotations

import numpy as np
import pytest

from bench.events_sim import Sim, SimResult
from bench.events_tracks import NoiseModel, noisy_states
from calibration.table import Table
from rules.events import Direction, Event, EventType, Line
from vision.events import EventDetector, EventSettings, detect_events
from vision.pipeline import event_settings
from vision.types import BallState

TABLE = Table.load()
R = TABLE.ball_radius


def _run(res: SimResult, fps: float = 60.0, seed: int = 5) -> list[Event]:
    return detect_events(TABLE, fps, noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=seed)))


def _confident(events: list[Event], etype: EventType) -> list[Event]:
    return [e for e in events if e.type is etype and e.confidence >= 0.5]


def test_note3_leaving_the_centre_line_is_not_a_crossing() -> None:
    # ball 4 rests with its centre on the centre line; struck to the rear cushion, it comes back over it
    sim = Sim(TABLE).place("4", (0.0, 300.0)).place("C", (-500.0, -300.0))
    res = sim.stroke(0.3, "4", (1500.0, 0.0)).run(6.0)
    truth = [e for e in res.events if e.type is EventType.LINE_CROSS and e.line is Line.CENTRE and e.ball == "4"]
    assert truth and truth[-1].to is Direction.FRONT, "the scenario must bring ball 4 back over the line"
    events = _run(res)
    crossings = [e for e in _confident(events, EventType.LINE_CROSS) if e.line is Line.CENTRE and e.ball == "4"]
    assert [e.to for e in crossings] == [Direction.FRONT], "leaving the line is no crossing; coming back is one"
    start = _confident(events, EventType.SHOT_START)[0]
    assert start.positions is not None and abs(start.positions["4"][0]) < 1.0


def test_crossing_direction_and_subframe_time() -> None:
    sim = Sim(TABLE).place("C", (-400.0, 0.0)).stroke(0.3, "C", (1700.0, 250.0))
    res = sim.run(2.5)
    truth = [e for e in res.events if e.type is EventType.LINE_CROSS and e.line is Line.CENTRE]
    got = [e for e in _confident(_run(res), EventType.LINE_CROSS) if e.line is Line.CENTRE]
    assert [e.to for e in got] == [e.to for e in truth] and got[0].to is Direction.REAR
    assert abs(got[0].t - truth[0].t) * 60 < 0.5


def test_early_stroke_while_a_ball_still_rolls() -> None:
    sim = Sim(TABLE).place("7", (-1200.0, 600.0)).place("2", (900.0, -500.0))
    sim.stroke(0.3, "7", (900.0, 0.0)).stroke(1.2, "2", (-1800.0, 0.0))
    events = _run(sim.run(4.0))
    starts = _confident(events, EventType.SHOT_START)
    assert [(e.ball, bool(e.extra.get("early"))) for e in starts] == [("7", False), ("2", True)]
    assert abs(starts[1].t - 1.2) < 1.5 / 60


def test_ball_disturbed_slow_start_with_no_cause() -> None:
    sim = Sim(TABLE).place("C", (-1200.0, 0.0)).place("9", (800.0, 500.0))
    sim.stroke(0.3, "C", (1500.0, 0.0)).stroke(0.8, "9", (0.0, 120.0))
    events = _run(sim.run(3.0))
    disturbed = _confident(events, EventType.BALL_DISTURBED)
    assert [e.ball for e in disturbed] == ["9"]
    assert disturbed[0].extra["during_shot"] is True
    assert [e.ball for e in _confident(events, EventType.SHOT_START)] == ["C"]


def test_stroke_from_rest_between_shots_is_a_shot_not_a_disturbance() -> None:
    sim = Sim(TABLE).place("C", (-1000.0, 0.0)).stroke(0.4, "C", (400.0, 0.0))
    events = _run(sim.run(3.5))
    assert [e.ball for e in _confident(events, EventType.SHOT_START)] == ["C"]
    assert not _confident(events, EventType.BALL_DISTURBED)
    assert len(_confident(events, EventType.SHOT_END)) == 1


def test_hanging_ball_that_drops_after_the_shot_is_a_late_pot() -> None:
    pk = TABLE.pockets["middle_left"]
    hang = (0.0, TABLE.half_width - R + 12.0)  # centre past where a frozen ball could be
    sim = Sim(TABLE).place("8", hang).place("C", (-900.0, -300.0)).stroke(0.3, "C", (400.0, 0.0))
    res = sim.drop(3.8, "8", pk.name).run(4.2)
    assert [e.extra.get("late") for e in res.events if e.type is EventType.POT] == [True]
    pots = _confident(_run(res), EventType.POT)
    assert [(e.ball, e.pocket, e.extra.get("hanging"), e.extra.get("late")) for e in pots] == [
        ("8", "middle_left", True, True)
    ]


def _hanging_drop(second_stroke_at: float | None = None) -> tuple[SimResult, int, int]:
    """Ball 8 hanging in the middle_left mouth, knocked in at 1.5 s (the truth drops it there), C struck at 0.3 s
    (and again, if asked): the result, ball 8's column and the first frame the truth has it potted."""
    pk = TABLE.pockets["middle_left"]
    hang = (0.0, TABLE.half_width - R + 12.0)
    sim = Sim(TABLE).place("8", hang).place("C", (-900.0, -300.0)).stroke(0.3, "C", (400.0, 0.0))
    sim = sim.drop(1.5, "8", pk.name)
    if second_stroke_at is not None:
        sim = sim.stroke(second_stroke_at, "C", (0.0, 500.0))
    res = sim.run(4.5 if second_stroke_at is None else second_stroke_at + 2.0)
    b = res.ids.index("8")
    gone = np.nonzero(res.state[:, b] == BallState.POTTED)[0]
    assert len(gone)
    return res, b, int(gone[0])


def _pot_of_8_and_not_at_rest(events: list[Event]) -> None:
    pots = _confident(events, EventType.POT)
    assert [(e.ball, e.pocket, e.extra.get("hanging")) for e in pots] == [("8", "middle_left", True)]
    ends = [e for e in events if e.type is EventType.SHOT_END]
    assert ends and all("8" not in (e.positions or {}) for e in ends)


def test_hanging_ball_knocked_in_unseen_is_a_pot_and_leaves_the_rest_positions() -> None:
    """The ball that knocks a hanging ball in covers the mouth as it falls: the tracker sees no drop, holds the
    ball hidden, then gives it up as lifted (UNKNOWN: its place in view and empty). It was potted, and the
    shot's rest positions no longer hold it (the rules read a ball at rest at the end as back on the bed)."""
    res, b, first = _hanging_drop()
    held = first + int(res.fps)  # hidden in place for a second, then given up
    res.state[first:held, b], res.pos[first:held, b] = BallState.HIDDEN, res.pos[first - 1, b]
    res.state[held:, b], res.pos[held:, b] = BallState.UNKNOWN, np.nan
    _pot_of_8_and_not_at_rest(_run(res))


def _in_pocket(name: str, depth_mm: float = 15.0) -> np.ndarray:
    """Where a ball lies in a pocket, in view: `depth_mm` past its mouth line."""
    pk = TABLE.pockets[name]
    return np.asarray(pk.mouth_centre) + depth_mm * np.asarray(pk.outward)


def test_hanging_ball_seen_lying_past_the_mouth_stays_potted() -> None:
    """A hanging ball that drops and stays in view in the pocket, past the mouth line: potted (0.9), and though
    the tracker goes on seeing it at rest there, no rest position lists it at the shot's end (the rules would
    read it as back on the bed, 1.22.5)."""
    res, b, gone = _hanging_drop()
    res.state[gone:, b], res.pos[gone:, b] = BallState.STATIONARY, _in_pocket("middle_left")
    _pot_of_8_and_not_at_rest(_run(res))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_ball_lying_just_past_the_mouth_is_potted_once(seed: int) -> None:
    """Lying 5 mm past the mouth line, its noisy centre dips back over the line now and then: that is not a
    return to the bed (which would pot it again and again), only a centre seen clearly on the bed side is."""
    res, b, gone = _hanging_drop()
    res.state[gone:, b], res.pos[gone:, b] = BallState.STATIONARY, _in_pocket("middle_left", 5.0)
    events = _run(res, seed=seed)
    assert len([e for e in events if e.type is EventType.POT and e.ball == "8"]) == 1


def test_a_held_potted_ball_put_back_on_the_bed_is_in_play_again() -> None:
    """The hold ends when the ball is seen on the bed side of the mouth again (taken out and spotted, 1.25):
    the next shot's positions list it where it was put."""
    res, b, gone = _hanging_drop(second_stroke_at=4.0)
    back = int(3.0 * res.fps)
    res.state[gone:back, b], res.pos[gone:back, b] = BallState.STATIONARY, _in_pocket("middle_left")
    res.state[back:, b], res.pos[back:, b] = BallState.STATIONARY, (900.0, 300.0)
    events = _run(res)
    starts = [e for e in _confident(events, EventType.SHOT_START) if e.t > 3.5]
    assert len(starts) == 1 and "8" in (starts[0].positions or {})
    assert np.allclose(starts[0].positions["8"], (900.0, 300.0), atol=3.0)  # type: ignore[index]


def test_frozen_ball_driven_into_its_cushion_touches_it() -> None:
    y = -TABLE.half_width + R + 0.5  # frozen to the right_rear cushion, 0.5 mm off
    sim = Sim(TABLE).place("6", (700.0, y)).place("C", (400.0, y + 250.0))
    aim = np.array([700.0, y]) - np.array([400.0, y + 250.0])
    sim.stroke(0.3, "C", tuple(aim / np.hypot(*aim) * 1500))
    res = sim.run(3.0)
    events = _run(res)
    start = _confident(events, EventType.SHOT_START)[0]
    assert start.frozen is not None and {"ball": "6", "cushion": "right_rear"} in [
        {k: f[k] for k in ("ball", "cushion")} for f in start.frozen
    ]
    touches = [e for e in _confident(events, EventType.CUSHION) if e.ball == "6"]
    assert touches and touches[0].cushion == "right_rear" and touches[0].extra.get("frozen") is True
    contact = _confident(events, EventType.BALL_CONTACT)[0]
    assert abs(touches[0].t - contact.t) < 1.0 / 60


@pytest.mark.parametrize(
    ("name", "offset_deg", "want_push_like"),
    [("straight through a touching ball", 0.0, True), ("played 60 degrees off the line", 60.0, False)],
)
def test_push_geometry_for_a_touching_object_ball(name: str, offset_deg: float, want_push_like: bool) -> None:
    cue, obj = np.array([-500.0, 0.0]), np.array([-500.0 + 2 * R + 0.3, 0.0])
    a = np.radians(offset_deg)
    # restitution 0.5: the cue ball keeps a quarter of its speed along the line, as a push follows through
    sim = Sim(TABLE, ball_restitution=0.5).place("C", tuple(cue)).place("3", tuple(obj))
    res = sim.stroke(0.3, "C", (1400.0 * np.cos(a), 1400.0 * np.sin(a))).run(3.0)
    start = _confident(_run(res), EventType.SHOT_START)[0]
    push = start.extra["push_geometry"]
    assert "push" not in start.extra, "vision reports the geometry; the push verdict is the engine's"
    assert start.extra["stroke_angle_deg"] == push["angle_deg"] and start.extra["cue_follow"] == push["cue_forward"]
    assert push["object"] == "3" and push["gap_mm"] < 3.0
    assert abs(push["angle_deg"] - offset_deg) < 12.0, name
    assert push["object_moved"] is True
    assert (push["angle_deg"] < 45 and push["cue_forward"]) is want_push_like
    assert start.touching and start.touching[0]["balls"] == ["3", "C"]


def test_events_leave_within_100_ms_of_stream_time() -> None:
    sim = Sim(TABLE).place("C", (-900.0, 100.0)).place("1", (-400.0, 100.0)).place("2", (300.0, -200.0))
    res = sim.stroke(0.3, "C", (2200.0, 0.0)).run(3.0)
    det = EventDetector(TABLE, 60.0)
    late = []
    for st in noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=2)):
        for e in det.update(st):
            if e.type in (EventType.BALL_CONTACT, EventType.CUSHION, EventType.LINE_CROSS, EventType.POT):
                late.append(st.t - e.t)
    assert late and max(late) <= 0.1 + 1e-9, late


def _released_at_30_fps(start: tuple[float, float], velocity: tuple[float, float], seed: int,
                        kind: EventType) -> tuple[SimResult, list[tuple[Event, float]]]:
    """C struck from `start`, fed frame by frame at 30 fps: each event of `kind` and how long after it it came out."""
    res = Sim(TABLE, fps=30.0).place("C", start).stroke(0.3, "C", velocity).run(3.0)
    det = EventDetector(TABLE, 30.0)
    out = []
    for st in noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=seed)):
        out += [(e, st.t - e.t) for e in det.update(st) if e.type is kind]
    return res, out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_clear_cushion_touches_leave_within_100_ms_at_30_fps(seed: int) -> None:
    # the full reading needs three frames past the frame after a touch (133 ms at 30 fps); a bounce read beyond
    # doubt on three samples past it is out then, with no release hold (`vision.events.early`)
    _, out = _released_at_30_fps((-600.0, 100.0), (1500.0, 900.0), seed, EventType.CUSHION)
    late = [dt for e, dt in out if e.confidence >= 0.5]
    assert len(late) >= 2 and max(late) <= 0.1 + 1e-9, late


def test_an_early_touch_leaves_the_full_reading_of_the_frames_before_it_as_it_was() -> None:
    # an independent review (session 37): 12 rests 5 mm off the front and left cushions, C struck into it at 2.4 m/s
    # at 30 fps. A touch of C read early registered its kink before the full reading reached the contact, and the
    # contact's reading, across that kink, found none: a shot with no contact (a 1.20 foul)
    R, half_length = TABLE.ball_radius, 1775.0
    obj = np.array([-half_length + R + 5.0, TABLE.half_width - R - 4.5])
    d = np.array([np.cos(np.radians(110.0)), np.sin(np.radians(110.0))])
    sim = Sim(TABLE, fps=30.0).place("12", tuple(obj)).place("C", tuple(obj - d * (2 * R + 400.0)))
    res = sim.stroke(0.3, "C", tuple(d * 2400.0)).run(2.0)
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(0.5, 3.0, 0.0, 0))
    events = detect_events(TABLE, 30.0, states, event_settings())
    assert any(e.type is EventType.BALL_CONTACT and set(e.balls or ()) == {"C", "12"} and e.confidence >= 0.5
               for e in events)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_clear_line_crossings_leave_within_100_ms_at_30_fps(seed: int) -> None:
    # the smoothed reading needs its half window past a crossing plus the look-ahead (147 ms median at 30 fps on
    # the recorded sets); a ball two samples clear of the line, away from pockets and kinks, is out then (the
    # house line 0.4 s after the stroke: events before the stroke's shot_start is out wait for it)
    res, out = _released_at_30_fps((-1650.0, 100.0), (1800.0, 150.0), seed, EventType.LINE_CROSS)
    truth = [e.line for e in res.events if e.type is EventType.LINE_CROSS]
    assert [e.line for e, _ in out] == truth and len(truth) >= 2
    assert max(dt for _, dt in out) <= 0.1 + 1e-9, out


@pytest.mark.parametrize("fps", [30.0, 50.0, 120.0])
def test_other_frame_rates(fps: float) -> None:
    sim = Sim(TABLE, fps=fps).place("C", (-900.0, 100.0)).place("1", (-400.0, 100.0))
    res = sim.stroke(0.3, "C", (2000.0, 0.0)).run(2.5)
    truth = [e for e in res.events if e.type in (EventType.BALL_CONTACT, EventType.CUSHION)]
    got = [e for e in _run(res, fps) if e.type in (EventType.BALL_CONTACT, EventType.CUSHION) and e.confidence >= 0.5]
    assert [(e.type, e.balls or e.ball) for e in got] == [(e.type, e.balls or e.ball) for e in truth]
    assert all(abs(g.t - t.t) * fps <= 1.0 for g, t in zip(got, truth, strict=True))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"onset_mm": -1.0}, "onset_mm"), ({"kink_z_review": 5.0, "kink_z": 4.0}, "kink_z_review")],
)
def test_settings_reject_bad_values(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        EventSettings(**kwargs)


def test_detector_rejects_changed_ids() -> None:
    res = Sim(TABLE).place("C", (0.0, 0.0)).run(0.1)
    states = noisy_states(res.t, res.pos, res.state, res.ids)
    det = EventDetector(TABLE, 60.0, ids=("C",))
    with pytest.raises(ValueError, match="ids"):
        det.update(states[0])


def test_far_middle_jaw_bounce_counts_as_crossed() -> None:
    # 1.20 note 4: ball 7 comes from the front half, touches the rear-side jaw of middle_left and comes back
    pk = TABLE.pockets["middle_left"]
    jaw = np.array(max(pk.jaw_a, pk.jaw_b))
    start = np.array([-350.0, TABLE.half_width - 250.0])
    target = jaw + np.array([-R * 0.8, -R * 0.6])
    aim = (target - start) / np.hypot(*(target - start))
    res = Sim(TABLE).place("7", tuple(start)).stroke(0.3, "7", tuple(aim * 900)).run(2.0)
    assert any(e.extra.get("jaw") == "middle_left" for e in res.events if e.type is EventType.CUSHION)
    events = _run(res)
    centre = [e for e in events if e.type is EventType.LINE_CROSS and e.line is Line.CENTRE and e.ball == "7"]
    assert centre and centre[0].to is Direction.REAR, "the ball counts as having crossed into the rear half"
    jaws = [e for e in _confident(events, EventType.CUSHION) if e.extra.get("jaw") == "middle_left"]
    assert jaws and jaws[0].cushion == "left_rear"


@pytest.mark.parametrize(("name", "vy", "crossed"), [("straight up its own side", 0.0, []), ("across", -260.0, ["C"])])
def test_shot_end_lists_balls_that_crossed_the_long_axis(name: str, vy: float, crossed: list[str]) -> None:
    sim = Sim(TABLE).place("C", (-1200.0, 200.0)).stroke(0.3, "C", (700.0, vy))
    ends = _confident(_run(sim.run(5.0)), EventType.SHOT_END)
    assert len(ends) == 1 and ends[0].extra.get("crossed_long_axis", []) == crossed, name


def _lifted_and_set_down(offset_mm: float) -> SimResult:
    """Ball 9 at rest between shots, taken off by hand (the tracker gives it up: UNKNOWN) for two seconds, then set
    down `offset_mm` from where it rested; 5 rests touching 9's place all along."""
    res = Sim(TABLE).place("9", (600.0, 200.0)).place("5", (668.5, 200.0)).place("C", (-900.0, 0.0)).run(6.0)
    b = res.ids.index("9")
    off, back = int(1.5 * res.fps), int(3.5 * res.fps)
    res.state[off:back, b], res.pos[off:back, b] = BallState.UNKNOWN, np.nan
    res.pos[back:, b] = res.pos[0, b]
    res.pos[back:, b, 0] += offset_mm
    return res


def test_a_ball_taken_off_and_set_down_elsewhere_was_moved() -> None:
    """Given up while it is off the bed (no rest position, no neighbour), it is back at rest where it was taken
    off once it is seen again: set down 40 mm away, it moved with no rolling seen (for review, 1.17 is the
    referee's call); set down on its place, nothing moved."""
    moved = [e for e in _run(_lifted_and_set_down(-40.0)) if e.type is EventType.BALL_DISTURBED]
    assert [e.ball for e in moved] == ["9"] and moved[0].extra.get("review")
    assert not [e for e in _run(_lifted_and_set_down(0.0)) if e.type is EventType.BALL_DISTURBED]
