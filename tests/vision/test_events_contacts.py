"""Ball-ball contacts: impulses through packs of touching balls (the rack), two kinks close together, slow
touches. Unit tests of the pure pieces, and the detector on physics timelines with tracker-like noise."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from bench.events_bench import ball_segment_key, match, merge_repeats
from bench.events_sim import Sim, SimResult
from bench.events_tracks import NoiseModel, noisy_states
from calibration.table import Table
from rules.events import Event, EventType
from vision.events import detect_events
from vision.events.clusters import pack_impulses

make = pytest.importorskip("synthetic.make")
TABLE = Table.load()
R = 34.0


def _velocities(pos: dict[int, np.ndarray], impulses: dict[tuple[int, int], float]) -> dict[int, np.ndarray]:
    """Equal masses at rest: the velocity each ball gets from impulses J along the lines of centres."""
    v = {b: np.zeros(2) for b in pos}
    for (i, j), jj in impulses.items():
        n = (pos[j] - pos[i]) / np.hypot(*(pos[j] - pos[i]))
        v[j] = v[j] + jj * n
        v[i] = v[i] - jj * n
    return v


def test_pack_impulses_newtons_cradle_passes_the_impulse_along_the_line() -> None:
    # striker 0 hits 1; 1, 2, 3 touch in a line: 3 leaves, 1 and 2 stay (the impulse went through them)
    pos = {0: np.array([-2 * R, 0.0]), 1: np.zeros(2), 2: np.array([2 * R, 0.0]), 3: np.array([4 * R, 0.0])}
    dv = {0: (np.array([-2000.0, 0.0]), 60.0), 1: (np.zeros(2), 60.0), 2: (np.zeros(2), 60.0),
          3: (np.array([2000.0, 0.0]), 60.0)}
    got = pack_impulses(pos, dv, [(0, 1), (1, 2), (2, 3)])
    for edge in ((0, 1), (1, 2), (2, 3)):
        assert got[edge][0] == pytest.approx(2000.0, abs=1.0)
        assert 0 < got[edge][1] < 200.0


def test_pack_impulses_recovers_known_impulses_in_a_triangle() -> None:
    # a triangle of touching balls struck at its apex: the impulses are unique and must come back
    h = np.sqrt(3.0) * R
    pos = {1: np.zeros(2), 2: np.array([h, R]), 3: np.array([h, -R]), 0: np.array([-2 * R, 0.0])}
    truth = {(0, 1): 3000.0, (1, 2): 1500.0, (1, 3): 1200.0, (2, 3): 0.0}
    v = _velocities(pos, truth)
    rng = np.random.default_rng(3)
    dv = {b: (v[b] + rng.normal(0, 20.0, 2), 20.0) for b in pos}
    got = pack_impulses(pos, dv, list(truth))
    for edge, want in truth.items():
        assert got[edge][0] == pytest.approx(want, abs=120.0)


def test_pack_impulses_only_pushes() -> None:
    # two touching balls moving towards each other afterwards cannot be explained by a push: no impulse
    pos = {1: np.zeros(2), 2: np.array([2 * R, 0.0])}
    dv = {1: (np.array([300.0, 0.0]), 30.0), 2: (np.array([-300.0, 0.0]), 30.0)}
    assert pack_impulses(pos, dv, [(1, 2)])[(1, 2)][0] == 0.0


@functools.lru_cache(maxsize=2)
def _physics(name: str, seed: int) -> tuple[list[Event], list[Event]]:
    timeline, _, table, _ = make.load_scenario(name, seed, 60.0)
    states = noisy_states(timeline.t, timeline.pos_mm, timeline.state, timeline.ids, NoiseModel(seed=7 + seed))
    found = [e for e in detect_events(table, 60.0, states) if e.confidence >= 0.5]
    return timeline.events, found


def _contacts(events: list[Event]) -> list[Event]:
    return [e for e in events if e.type is EventType.BALL_CONTACT]


def test_break_pack_contacts_are_the_impulses_the_balls_show() -> None:
    """At the break the rack passes the cue ball's impulse on at one instant. The detector reports the
    impulses the balls' velocities prove (momentum), not every touching pair: most of the strong ones
    (the physics' approach speed >= 1 m/s) are found and few pairs that exchanged nothing are reported."""
    truth, found = _physics("break", 0)
    t_hit = next(e.t for e in truth if e.type is EventType.BALL_CONTACT)
    pack_t = [e for e in _contacts(truth) if e.extra.get("cluster") and abs(e.t - t_hit) < 1e-3]
    strong = [e for e in pack_t if float(e.extra["speed_mm_s"]) >= 1000.0]
    pack_f = [e for e in _contacts(found) if e.extra.get("cluster") and abs(e.t - t_hit) * 60 <= 2]
    assert len(strong) >= 5
    pairs, missed, _ = match(strong, pack_f, 60.0)
    assert len(pairs) >= 0.9 * len(strong), missed
    _, _, extra = match(pack_t, pack_f, 60.0)
    assert len(extra) <= 0.15 * max(len(pack_f), 1), extra
    for e in pack_f:  # the honest form: which pack the impulse was resolved in
        assert set(e.balls or ()) <= set(e.extra["pack"])


def _slow_meeting(offset_mm: float, speed_mm_s: float) -> SimResult:
    """C and 4 roll towards each other from 800 mm apart and meet in the middle at about 150 mm/s each."""
    sim = Sim(TABLE).place("C", (-400.0, 0.0)).place("4", (400.0, offset_mm))
    return sim.stroke(0.3, "C", (speed_mm_s, 0.0)).stroke(0.3, "4", (-speed_mm_s, 0.0)).run(4.0)


@pytest.mark.parametrize("seed", range(4))
def test_slow_touch_of_two_moving_balls_is_found(seed: int) -> None:
    """Two balls meeting at ~150 mm/s each: neither kink alone stands out of a 3-frame fit's noise, but the
    impulse is one (equal and opposite along the line of centres), and both balls measure it."""
    res = _slow_meeting(10.0, 395.0)
    truth = _contacts(res.events)
    assert len(truth) == 1
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=100 + seed))
    found = [e for e in _contacts(detect_events(TABLE, 60.0, states)) if e.confidence >= 0.5]
    pairs, missed, extra = match(truth, found, 60.0)
    assert len(pairs) == 1 and not extra, (missed, extra)


def test_newtons_cradle_first_contact_is_the_cue_balls() -> None:
    """The cue ball hits a ball that touches others: the hit ball hardly moves (the impulse goes on), so its
    start cannot prove the contact; the cue ball's own kink does, and it is the shot's first contact."""
    truth, found = _physics("touching_cluster_hit", 0)
    first_truth = _contacts(truth)[0]
    first_found = _contacts(found)[0]
    assert set(first_found.balls or ()) == set(first_truth.balls or ())
    assert abs(first_found.t - first_truth.t) * 60 <= 2


def _line_of_three(speed_mm_s: float, aim_y_mm: float) -> SimResult:
    """Balls 4, 2, 1 touching in a line along +x from the origin; C comes from the left along y = aim_y_mm."""
    sim = Sim(TABLE).place("4", (0.0, 0.0)).place("2", (2 * R + 0.05, 0.0)).place("1", (4 * R + 0.1, 0.0))
    return sim.place("C", (-500.0, aim_y_mm)).stroke(0.3, "C", (speed_mm_s, 0.0)).run(3.0)


@pytest.mark.parametrize("seed", range(3))
def test_slow_push_through_a_line_of_touching_balls_reports_every_link(seed: int) -> None:
    """A slow hit on the end of a line of touching balls (Newton's cradle): the far ball's start is the only
    motion that stands out of the noise, but the line is the only way the impulse could have gone, so each
    link is a contact even where the pack's momentum reading is too weak."""
    res = _line_of_three(700.0, 0.0)
    truth = _contacts(res.events)
    links = {frozenset(("4", "2")), frozenset(("2", "1"))}
    assert {frozenset(e.balls or ()) for e in truth} >= links | {frozenset(("C", "4"))}
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=200 + seed))
    found = [e for e in _contacts(detect_events(TABLE, 60.0, states)) if e.confidence >= 0.5]
    pairs, missed, extra = match(truth, found, 60.0)
    assert not extra, extra
    assert {frozenset(e.balls or ()) for e, _ in pairs} >= links, missed



@pytest.mark.parametrize("seed", range(3))
def test_object_ball_near_a_cushion_hit_at_30_fps_is_a_contact(seed: int) -> None:
    """Ball 1 lies 20 mm off the rear nose; C drives it into the cushion at 30 fps, so it is back off the
    cushion before its second sample and its fitted start points away from C (and C, struck two frames
    before, has too short a run for its own kink). Its first step off the rest centre still runs along the
    line of centres, and C's run-in reaches 2R just before it: a contact (fails before 34623a8)."""
    obj = (1775.0 - R - 20.0, 200.0)
    aim = np.array(obj) - 2 * R * np.array([np.cos(np.radians(-55)), np.sin(np.radians(-55))])
    cue = aim - 200.0 * np.array([np.cos(np.radians(-55)), np.sin(np.radians(-55))])  # struck 2 frames before
    v = 2500.0 * np.array([np.cos(np.radians(-55)), np.sin(np.radians(-55))])
    sim = Sim(TABLE, fps=30.0).place("1", obj).place("C", (float(cue[0]), float(cue[1])))
    res = sim.stroke(0.3, "C", (float(v[0]), float(v[1]))).run(2.0)
    truth = _contacts(res.events)
    assert truth and set(truth[0].balls or ()) == {"C", "1"}
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=400 + seed))
    found = [e for e in _contacts(detect_events(TABLE, 30.0, states)) if e.confidence >= 0.5]
    pairs, missed, extra = match(truth[:1], found, 30.0)
    assert len(pairs) == 1 and not extra, (missed, extra)


@pytest.mark.parametrize("seed", range(6))
def test_fast_hit_on_the_apex_of_a_pack_is_the_first_contact(seed: int) -> None:
    """C at 7 m/s hits ball 4, which touches 5 and 6 behind it and is thrown back off them, so 4's start
    cannot date the hit; C's kink must. C closes ~120 mm a frame, so a kink time 1.5 ms off (the tracker's
    noise) puts C's line 10 mm short of 4: the gap at the kink is judged with its timing error (fails
    before the kink-time error was taken into account, on 2 of these 6 noise seeds)."""
    h = np.sqrt(3.0) * (R + 0.02)
    sim = Sim(TABLE).place("4", (0.0, 0.0)).place("5", (h, R + 0.02)).place("6", (h, -R - 0.02))
    res = sim.place("C", (-900.0, -8.0)).stroke(0.3, "C", (7000.0, 0.0)).run(1.5)
    truth = _contacts(res.events)
    assert set(truth[0].balls or ()) == {"C", "4"}
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=500 + seed))
    found = [e for e in _contacts(detect_events(TABLE, 60.0, states)) if e.confidence >= 0.5]
    assert found and set(found[0].balls or ()) == {"C", "4"}, found
    assert abs(found[0].t - truth[0].t) * 60 <= 2


def test_bench_merges_a_pairs_repeats_within_one_frame_period() -> None:
    """The bench's observable-contact figure: a pair's truth contacts less than 1/fps after its previous one
    are that one contact (chained); other pairs, and a repeat a frame period or more later, stay."""
    def contact(t: float, a: str, b: str) -> Event:
        return Event(EventType.BALL_CONTACT, t, 0, balls=(a, b))

    truth = [contact(1.0, "1", "2"), contact(1.005, "2", "1"), contact(1.012, "1", "2"), contact(1.004, "2", "3"),
             contact(1.05, "1", "2")]
    kept = merge_repeats(truth, 60.0)
    assert [(e.t, set(e.balls or ())) for e in kept] == [(1.0, {"1", "2"}), (1.004, {"2", "3"}), (1.05, {"1", "2"})]


def test_bench_merges_a_balls_jaw_rattle_on_one_segment_within_one_frame_period() -> None:
    """The cushion figure's merge: a ball's repeats on one segment within 1/fps are one touch; its touch of
    the other nose of the jaw in between, and another ball's, stay."""
    def touch(t: float, ball: str, seg: str) -> Event:
        return Event(EventType.CUSHION, t, 0, ball=ball, cushion=seg)

    truth = [touch(2.807, "3", "rear"), touch(2.821, "3", "right_rear"), touch(2.832, "3", "rear"),
             touch(2.81, "4", "rear")]
    kept = merge_repeats(truth, 30.0, ball_segment_key)
    assert [(e.t, e.ball, e.cushion) for e in kept] == [(2.807, "3", "rear"), (2.81, "4", "rear"),
                                                        (2.821, "3", "right_rear")]


@functools.lru_cache(maxsize=1)
def _push_free_ivory() -> tuple[list[Event], Table, tuple[np.ndarray, np.ndarray, np.ndarray, tuple[str, ...]]]:
    timeline, _, table, _ = make.load_scenario("push_free_ivory", 1, 60.0)
    return timeline.events, table, (timeline.t, timeline.pos_mm, timeline.state, timeline.ids)


@pytest.mark.parametrize("seed", range(8))
def test_push_contact_is_dated_by_the_pushed_balls_start(seed: int) -> None:
    """The cue strikes 5, which touches 9: 5 passes its momentum on at once and crawls off 3-4 frames later
    (its follow spin), 9 leaves at ~1.2 m/s. The 5-9 contact is when 9 left, not when 5 was seen to start: a
    ball seen to start after the one it set moving was at rest when the impulse passed through it (fails
    before on noise seed 2: dated at 5's start, 3.7 frames late)."""
    events, table, (t, pos, state, ids) = _push_free_ivory()
    want = [e for e in _contacts(events) if set(e.balls or ()) == {"5", "9"}]
    assert len(want) == 1
    states = noisy_states(t, pos, state, ids, NoiseModel(seed=seed))
    got = [e for e in _contacts(detect_events(table, 60.0, states)) if set(e.balls or ()) == {"5", "9"}]
    got = [e for e in got if e.confidence >= 0.5]
    pairs, missed, extra = match(want, got, 60.0)
    assert len(pairs) == 1 and not extra, (missed, extra)


@pytest.mark.parametrize("seed", [0, 1])
def test_stroke_and_hit_within_one_frame_is_the_first_contact(seed: int) -> None:
    """C lies 12 mm behind 12 and is struck at 2.9 m/s: it hits 12 within the frame of the stroke, so both
    balls are at rest on the samples before the contact. They did not touch at rest, so no impulse was passed
    on through touching balls: the contact keeps its time and is the shot's first (12 goes on into 8). Fails
    before on both seeds (C-12 moved after 12-8 as a passed-on contact). (Noise seed 2 is left out: there C's
    13 mm run is lost in the noise and 12's start is called the stroke, a striker call, not this.)"""
    sim = Sim(TABLE).place("12", (0.0, 0.0)).place("8", (300.0, 0.0)).place("C", (-2 * R - 12.0, 0.0))
    res = sim.stroke(0.3 + 0.2 / 60.0, "C", (2900.0, 0.0)).run(1.5)
    truth = _contacts(res.events)
    assert [set(e.balls or ()) for e in truth[:2]] == [{"C", "12"}, {"12", "8"}]
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=600 + seed))
    found = [e for e in _contacts(detect_events(TABLE, 60.0, states)) if e.confidence >= 0.5]
    assert found and set(found[0].balls or ()) == {"C", "12"}, found
    assert abs(found[0].t - truth[0].t) * 60 <= 2, (found[0].t * 60, truth[0].t * 60)


@pytest.mark.parametrize("seed", range(4))
def test_a_slow_ball_into_a_still_line_of_touching_balls_sends_the_far_one_off(seed: int) -> None:
    """12 rolls at 0.55 m/s into the line 9-2-C (touching, 0.5-1 mm apart): 12 is slowed, not stopped (it
    meets 9 a little off the line), 9 and 2 barely move, C flies off. The chain 12-9, 9-2, 2-C is reported in
    that order with confidence: the rules need 12 (off a cushion) to have hit 9 before C crosses a line.
    Fails before: no ball was moving near C when it started, so its start proved nothing (heldout13
    touching_cluster_hit, its shot judged a 1.20 foul)."""
    x0 = -400.0
    sim = Sim(TABLE).place("9", (x0, 0.0)).place("2", (x0 - 2 * R - 0.5, 0.0)).place("C", (x0 - 4 * R - 1.5, 0.0))
    res = sim.place("12", (x0 + 400.0, 8.0)).stroke(0.3, "12", (-550.0, 0.0)).run(2.5)
    want = [set(e.balls or ()) for e in _contacts(res.events)]
    assert want == [{"12", "9"}, {"9", "2"}, {"2", "C"}]
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=700 + seed))
    found = [set(e.balls or ()) for e in _contacts(detect_events(TABLE, 60.0, states)) if e.confidence >= 0.5]
    assert [p for p in found if p in want][:3] == want, found


@pytest.mark.parametrize("seed", [0, 1, 18, 26, 27])
def test_a_push_whose_struck_ball_is_seen_to_start_late_is_dated_by_the_pushed_ball(seed: int) -> None:
    """The cue strikes 5, which touches 9: 9 leaves at once, 5 crawls off frames later (follow). The stroke is
    when 9 left, so the 5-9 contact falls inside the shot (it is the shot's first contact) and the shot_start
    carries the push geometry with 9 as the object ball (before: dated at 5's late start, after the contact,
    with no touching ball at rest left to measure it against: noise seeds 18, 26, 27 of 0-39 failed; 2, 24 and 39
    still fail, other readings)."""
    _, table, (t, pos, state, ids) = _push_free_ivory()
    states = noisy_states(t, pos, state, ids, NoiseModel(seed=seed))
    found = detect_events(table, 60.0, states)
    start = next(e for e in found if e.type is EventType.SHOT_START)
    first = next(e for e in _contacts(found) if e.confidence >= 0.5)
    assert set(first.balls or ()) == {"5", "9"} and start.t <= first.t, (start.t, first.t)
    assert start.ball == "5" and start.extra["push_geometry"]["object"] == "9"


@pytest.mark.parametrize(("gap_mm", "nose_mm", "seed"),
                         [(30.0, 2.7, 0), (30.0, 10.0, 1), (50.0, 2.7, 2), (50.0, 10.0, 0)])
def test_a_stroke_into_a_ball_inside_one_frame_is_a_contact(gap_mm: float, nose_mm: float, seed: int) -> None:
    # seed-37 frame_dynamic shot 3 at 30 fps: C struck at 2.9 m/s at 1, 53 mm away and 3 mm off the left
    # cushion; C hits 1, 1 the cushion, all before the next frame. Neither ball has a line to fit (the
    # striker was at rest too), so the first contact was lost and the shot judged 1.5.3.
    table = Table.load()
    r = table.ball_radius
    p1 = np.array([-1381.5, 887.5 - r - nose_mm])
    d = np.array([0.875, 0.485]) / np.hypot(0.875, 0.485)
    c = p1 - d * (2 * r + gap_mm)
    sim = Sim(table, fps=30.0).place("C", tuple(c)).place("1", tuple(p1)).place("9", (900.0, -500.0))
    sim.stroke(0.5 + seed * 0.007, "C", tuple(d * 2900.0))
    res = sim.run(3.0)
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=70 + seed))
    found = [e for e in detect_events(table, 30.0, states) if e.confidence >= 0.5]
    assert {"C", "1"} in [set(e.balls or ()) for e in found if e.type is EventType.BALL_CONTACT]


@pytest.mark.parametrize("seed", range(4))
def test_a_stroke_that_hits_a_ball_in_its_second_frame_at_30_fps_is_a_stroke_and_the_first_contact(seed: int) -> None:
    """C struck at 3.2 m/s at 30 fps runs ~107 mm a frame; 11 lies 152 mm beyond contact, so C hits it inside
    its second frame interval: C's first step is its full speed, its second a part of it, then it crawls on.
    That first step outruns the rest of its run like a jumping centre, but it handed its speed on to 11 over
    those two steps: C's start is the stroke and C-11 the first contact (heldout41 frame_combined shot 4:
    before, C's start was taken for a jump, 11's for the stroke, judged 1.4.2)."""
    sim = Sim(TABLE, fps=30.0).place("11", (0.0, 0.0)).place("C", (0.0, -220.0))
    res = sim.stroke(1.0 + 0.08 / 30.0, "C", (0.0, 3200.0)).run(2.0)
    truth = _contacts(res.events)
    assert truth and set(truth[0].balls or ()) == {"C", "11"}
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=700 + seed))
    events = detect_events(TABLE, 30.0, states)
    starts = [e for e in events if e.type is EventType.SHOT_START]
    assert [e.agents for e in starts] == [("C",)], starts
    found = [e for e in _contacts(events) if e.confidence >= 0.5]
    assert found and set(found[0].balls or ()) == {"C", "11"}, found
    assert abs(found[0].t - truth[0].t) * 30 <= 2


@pytest.mark.parametrize("seed", range(4))
def test_a_ball_10_mm_off_a_cushion_hit_by_a_ball_struck_a_frame_before_at_30_fps_is_a_contact(seed: int) -> None:
    """1 lies 10 mm off the front nose; C, 117 mm away on a diagonal, is struck at 2.4 m/s at 30 fps and hits
    1 inside its second frame, which goes into the cushion and comes back off it before its first sample: 1's
    first step runs along the line of centres mirrored in the nose. C-1 is the first contact (heldout41
    frame_russian71 shot 10: no contact found, judged 1.5.3)."""
    obj = np.array([-TABLE.half_length + R + 10.0, 642.7])
    cue = np.array([-1583.6, 754.6])
    u = (obj - cue) / np.hypot(*(obj - cue))
    sim = Sim(TABLE, fps=30.0).place("1", (float(obj[0]), float(obj[1]))).place("C", (float(cue[0]), float(cue[1])))
    res = sim.stroke(1.0 + 0.1 / 30.0, "C", (float(2400.0 * u[0]), float(2400.0 * u[1]))).run(2.0)
    truth = _contacts(res.events)
    assert truth and set(truth[0].balls or ()) == {"C", "1"}
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=800 + seed))
    found = [e for e in _contacts(detect_events(TABLE, 30.0, states)) if e.confidence >= 0.5]
    pairs, missed, extra = match(truth[:1], found[:1], 30.0)
    assert len(pairs) == 1, (missed, extra)


def _glance_into_a_touching_pair() -> SimResult:
    """Seed-43 frame_dynamic shot 11: C drives 6 (touching 5) on to a thin hit on 15, 14 mm from 6; 15 touches
    14, passes its speed on to it and hardly moves itself."""
    sim = Sim(TABLE, fps=30.0).place("6", (946.3, -32.8)).place("5", (946.0, 37.6))
    sim = sim.place("15", (1016.5, 5.7)).place("14", (1074.5, 41.2)).place("C", (693.2, -198.2))
    return sim.stroke(0.3, "C", (2470.0, 1615.0)).run(2.5)


@pytest.mark.parametrize("seed", range(3))
def test_ball_set_moving_through_a_still_touching_ball_is_no_stroke(seed: int) -> None:
    """At 30 fps 14 flies off in the frame 6 and 5 leave their rest: the ball between (15) barely moves, so no
    moving ball was near 14 or 15 the frame before; 6, set moving in the same frame and running at 15, struck
    the pair. One shot, not a second stroke (fails before 6 counted as a striker), with C-6 (C struck 2.4
    frames before: its incoming line starts where it left its rest), 6-5 and 15-14 found. The thin 6-15
    link itself, 15 creeping off two frames later, is not proven."""
    res = _glance_into_a_touching_pair()
    truth = _contacts(res.events)
    assert {frozenset(("6", "15")), frozenset(("15", "14"))} <= {frozenset(e.balls or ()) for e in truth}
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=500 + seed))
    events = detect_events(TABLE, 30.0, states)
    assert [e.agents for e in events if e.type is EventType.SHOT_START] == [("C",)]
    found = [e for e in _contacts(events) if e.confidence >= 0.5]
    pairs, _, _ = match(truth, found, 30.0)
    got = {frozenset(e.balls or ()) for e, _ in pairs}
    assert {frozenset(("C", "6")), frozenset(("6", "5")), frozenset(("15", "14"))} <= got, got
    first = next(e for e in found if "C" in (e.balls or ()))
    assert set(first.balls or ()) == {"C", "6"}


_MISSED_FIRST = pytest.mark.xfail(strict=True, reason="11's first moving sample is missed (held), so it is first "
                                  "seen moving a frame after C: no proof in one frame; not handled")


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=_MISSED_FIRST), 2, 3])
def test_ball_frozen_to_a_cushion_hit_a_frame_after_the_stroke_is_a_contact_and_a_touch(seed: int) -> None:
    """Physics frame_russian71-1 at 29.43 s: 11 lies 2 mm off the rear cushion; C, struck 34 mm from touching
    it at 2.8 m/s, hits it 12 ms later, inside the stroke's frame. 11 goes into the rubber, straight back into
    C and off along the nose, so its first sample shows no run along the line of centres and the next runs
    along a way off the nose. C-11 is the first contact and 11 touched the rear cushion
    (fails before: the shot had no contact at all)."""
    u = np.array([0.81, 0.59]) / np.hypot(0.81, 0.59)
    obj = np.array([TABLE.half_length - R - 2.0, -605.0])
    cue = obj - (2 * R + 34.0) * u
    v = 2780.0 * u
    sim = Sim(TABLE).place("11", (float(obj[0]), float(obj[1]))).place("C", (float(cue[0]), float(cue[1])))
    res = sim.stroke(0.5 + 0.2 / 60.0, "C", (float(v[0]), float(v[1]))).run(2.0)
    truth = [e for e in res.events if e.type in (EventType.BALL_CONTACT, EventType.CUSHION)]
    assert {(e.type, frozenset(e.agents)) for e in truth} >= {
        (EventType.BALL_CONTACT, frozenset(("C", "11"))), (EventType.CUSHION, frozenset(("11",)))}
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=600 + seed))
    found = [e for e in detect_events(TABLE, 60.0, states) if e.confidence >= 0.5]
    contacts = _contacts(found)
    assert contacts and set(contacts[0].balls or ()) == {"C", "11"}
    assert abs(contacts[0].t - _contacts(truth)[0].t) * 60 <= 2
    touches = [e for e in found if e.type is EventType.CUSHION and e.agents == ("11",)]
    assert touches and touches[0].cushion == "rear"


_V_CASES = [(f, g, k) for f in (60.0, 30.0) for g in (1.0, 3.0) for k in range(2)]


@pytest.mark.parametrize(("fps", "gap", "seed"), _V_CASES)
def test_two_touching_balls_hit_in_their_v_pass_nothing_to_each_other(fps: float, gap: float, seed: int) -> None:
    """C rolls into the V between touching 5 and 6 and hits both: each is proven hit from outside, so no 5-6
    link is reported (fails before: the links of a group set moving from outside were all reported; found
    by an independent review)."""
    sim = Sim(TABLE, fps=fps).place("5", (200.0, R + gap / 2)).place("6", (200.0, -R - gap / 2))
    res = sim.place("C", (-300.0, 0.0)).stroke(0.5, "C", (2500.0, 0.0)).run(2.0)
    assert {frozenset(e.balls or ()) for e in _contacts(res.events)} == {frozenset(("C", "5")), frozenset(("C", "6"))}
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=900 + seed))
    found = {frozenset(e.balls or ()) for e in _contacts(detect_events(TABLE, fps, states)) if e.confidence >= 0.5}
    assert frozenset(("5", "6")) not in found, found
    assert found >= {frozenset(("C", "5")), frozenset(("C", "6"))}, found


@pytest.mark.parametrize("seed", range(3))
def test_a_near_miss_that_leaves_the_ball_still_is_not_asserted(seed: int) -> None:
    sim = Sim(TABLE).place("C", (-900.0, 2 * R + 1.5)).place("3", (0.0, 0.0))
    res = sim.stroke(0.3, "C", (1500.0, 0.0)).run(2.5)
    assert not _contacts(res.events)
    states = noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=300 + seed))
    assert all(e.confidence < 0.5 for e in _contacts(detect_events(TABLE, 60.0, states)))
