"""What the camera sees of a hand or an arm: a colour no ball of the set has is never a resting ball nor a ball
back in play, an arm covering part of a resting ball does not move it, and the ball that left play last is the
one that comes back."""

from __future__ import annotations

import numpy as np
from track_fakes import dets

from calibration.table import Table
from vision.identity import ColourModel
from vision.track import TrackSet
from vision.types import BallClass, BallState, Detections

FPS = 30.0
TABLE = Table.load("pyramid-12ft")
IVORY = (150.0, 133.0, 119.0)  # (Y, Cr, Cb) of the renders' ivory balls
YELLOW = (130.0, 152.0, 73.0)
SKIN = (146.0, 145.0, 113.0)  # the renders' hands: between ivory and yellow, nearer ivory


def _col(points: list[tuple[float, float]], colours: list[tuple[float, float, float]], seed: int) -> Detections:
    """Detections with colours, chroma noise about 1.3 grey levels (the median of a ball's disc)."""
    rng = np.random.default_rng(seed)
    d = dets(points, [BallClass.UNKNOWN] * len(points), seed=seed)
    d.data["colour"] = np.asarray(colours, dtype=float).reshape(-1, 3) + rng.normal(0.0, 1.3, (len(points), 3))
    return d


def test_the_colour_model_learns_the_spread_of_the_balls_and_reads_a_hand_as_foreign() -> None:
    m = ColourModel()
    rng = np.random.default_rng(1)
    for _ in range(300):
        m.learn(False, np.asarray(IVORY) + rng.normal(0.0, 1.3, 3))
        m.learn(True, np.asarray(YELLOW) + rng.normal(0.0, 3.0, 3))
    d = _col([(0.0, 0.0)] * 4, [IVORY, YELLOW, SKIN, IVORY], seed=2)
    assert m.foreign(d).tolist() == [False, False, True, False]
    assert m.classes(d)[2] == BallClass.IVORY  # the two-class reading alone takes the hand for an ivory ball


def test_a_foreign_colour_is_not_foreign_until_both_classes_are_learnt() -> None:
    m = ColourModel()
    for _ in range(300):  # the ivory balls alone: a coloured ball of another set would read foreign
        m.learn(False, np.asarray(IVORY))
    assert not m.foreign(_col([(0.0, 0.0), (1.0, 1.0), (2.0, 2.0)], [IVORY, SKIN, YELLOW], seed=4)).any()


def test_when_the_light_changes_the_balls_at_rest_are_kept_and_the_model_follows() -> None:
    start = {"1": (100.0, 100.0), "2": (-500.0, 0.0), "3": (400.0, -300.0), "C": (800.0, 300.0)}
    ts = TrackSet(TABLE, ("1", "2", "3", "C"), start)
    f = _learn(ts, list(start.values()), [IVORY] * 3 + [YELLOW], 110)
    warm, warm_c = (150.0, 141.0, 112.0), (130.0, 160.0, 66.0)  # a lamp switched on: 8 levels redder
    assert ts.colours.foreign(_col([start["1"]], [warm], 0)).all()
    for g in range(f, f + 30):  # a ball may be missed for a frame while the model catches up, never lost
        st = ts.step(_col(list(start.values()), [warm] * 3 + [warm_c], g), g / FPS, lambda _p: False)
        assert all(st.state_of(b) in (BallState.STATIONARY, BallState.HIDDEN) for b in start)
    assert all(st.state_of(b) == BallState.STATIONARY for b in start)
    assert not ts.colours.foreign(_col([start["1"], start["C"]], [warm, warm_c], 0)).any()


def _learn(ts: TrackSet, pts: list[tuple[float, float]], cols: list[tuple[float, float, float]], n: int) -> int:
    for f in range(n):
        ts.step(_col(pts, cols, f), f / FPS, lambda _p: False)
    return n


def test_a_ball_hidden_at_rest_does_not_take_a_hand_nor_is_a_potted_ball_revived_on_it() -> None:
    start = {"1": (100.0, 100.0), "2": (-500.0, 0.0), "3": (400.0, -300.0), "C": (800.0, 300.0)}
    ts = TrackSet(TABLE, ("1", "2", "3", "4", "C"), start)
    pts, cols = list(start.values()), [IVORY, IVORY, IVORY, YELLOW]
    f = _learn(ts, pts, cols, 110)
    assert min(ts.colours.n.values()) >= ts.colours.min_samples
    # an arm covers ball 1; its skin-coloured hand rests on the bed 150 mm away for two seconds
    hand = (250.0, 100.0)
    for g in range(f, f + int(2 * FPS)):
        st = ts.step(_col([*pts[1:], hand], [IVORY, IVORY, YELLOW, SKIN], g), g / FPS, lambda p: bool(p[0] > 0))
    assert st.state_of("1") == BallState.HIDDEN
    assert np.hypot(*(st.xy_mm[st.index("1")] - start["1"])) < 3
    assert st.state_of("4") == BallState.UNKNOWN  # never seen: not revived on the hand either


def test_an_arm_over_a_resting_ball_shifts_its_centre_but_does_not_move_it() -> None:
    from vision.trackstate import COVERED_SHIFT_R, TrackerConfig

    start = {"1": (100.0, 100.0), "2": (-500.0, 0.0)}
    ts = TrackSet(TABLE, ("1", "2"), start, TrackerConfig(covered_shift_r=COVERED_SHIFT_R))  # off by default
    f = _learn(ts, list(start.values()), [IVORY, IVORY], 10)
    for g in range(f, f + 10):  # the arm over it pulls the measured centre 8 mm (a quarter of a radius)
        st = ts.step(_col([(108.0, 100.0), start["2"]], [IVORY, IVORY], g), g / FPS, lambda p: bool(p[0] > 0))
        assert st.state_of("1") == BallState.STATIONARY
        assert np.hypot(*(st.xy_mm[0] - start["1"])) < 2
    # struck under the arm: 25 mm in a frame is more than covering half of it can shift its centre
    st = ts.step(_col([(125.0, 100.0), start["2"]], [IVORY, IVORY], f + 10), (f + 10) / FPS, lambda p: bool(p[0] > 0))
    assert st.state_of("1") == BallState.MOVING


def test_the_ball_that_left_play_last_comes_back_first() -> None:
    start = {"1": (100.0, 100.0), "2": (-500.0, 0.0), "3": (400.0, -300.0)}
    ts = TrackSet(TABLE, ("1", "2", "3"), start)
    f = _learn(ts, list(start.values()), [IVORY] * 3, 5)
    ts.tracks["1"].state, ts.tracks["1"].left_t = BallState.POTTED, 0.0  # potted long ago
    ts.tracks["3"].state, ts.tracks["3"].left_t = BallState.POTTED, f / FPS  # potted in the last shot
    spot = (887.5, 0.0)
    st = None
    for g in range(f, f + 20):  # a ball put on a spot, no verdict naming it
        st = ts.step(_col([start["2"], spot], [IVORY, IVORY], g), g / FPS, lambda _p: False)
    assert st is not None and st.state_of("3") == BallState.STATIONARY
    assert st.state_of("1") == BallState.POTTED


def test_under_a_warm_light_the_coloured_ball_is_the_odd_one_out_of_the_rack() -> None:
    from vision.identity import from_rack

    slots = TABLE.rack_positions(["1", "2", "3", "4", "5"])
    pts = [slots[b] for b in ("1", "2", "3", "4", "5")] + [(-1000.0, 0.0)]
    # warm light: every ivory ball reads yellowish enough for the fixed hue rule to call it coloured
    warm_ivory, warm_yellow = (170.0, 142.0, 96.0), (150.0, 158.0, 60.0)
    d = _col(pts, [warm_ivory] * 5 + [warm_yellow], seed=5)
    d.cls = np.array([BallClass.COLOURED] * 6, dtype=object)
    got = from_rack(TABLE, d, ("1", "2", "3", "4", "5", "C"), order=("1", "2", "3", "4", "5"))
    assert got["C"][0] == 5 and got["C"][1] >= 0.85  # far out of the set: a sure call
    assert {got[b][0] for b in ("1", "2", "3", "4", "5")} == {0, 1, 2, 3, 4}


def test_a_hairline_odd_one_out_is_named_with_a_doubtful_confidence() -> None:
    """Just past the cut-offs the set names the coloured ball, but at 0.5-0.6: its events flag their verdicts."""
    from vision.identity import odd_one_out

    pts = [(-1000.0 + 300.0 * k, 0.0) for k in range(6)]
    ivory = (170.0, 142.0, 96.0)
    d = _col(pts, [ivory] * 5 + [ivory], seed=5)
    col = np.asarray(d.data["colour"], dtype=float)
    col[:, 1:3] = np.median(col[:, 1:3], axis=0)  # the ivory balls read one chroma
    col[5, 1] += 10.5  # the odd one barely past min_sep = 10 grey levels
    d.data["colour"] = col
    got = odd_one_out(d)
    assert got is not None and got[0] == 5 and 0.5 <= got[1] < 0.6
    col[5, 1] += 30.0
    far = odd_one_out(d)
    assert far is not None and far[1] == 0.9


def test_a_struck_ball_is_followed_even_when_its_first_frame_is_smeared() -> None:
    start = {"1": (100.0, 100.0), "2": (-500.0, 0.0), "C": (800.0, 300.0)}
    ts = TrackSet(TABLE, ("1", "2", "C"), start)
    f = _learn(ts, list(start.values()), [IVORY, IVORY, YELLOW], 110)
    assert ts.tracks["C"].state == BallState.STATIONARY
    # struck at 2.4 m/s: 80 mm in a frame, the disc smeared with the cloth (a chroma no resting ball shows)
    smeared = (149.0, 135.0, 95.0)
    st = ts.step(_col([start["1"], start["2"], (880.0, 300.0)], [IVORY, IVORY, smeared], f), f / FPS,
                 lambda _p: False)
    assert ts.colours.foreign(_col([(880.0, 300.0)], [smeared], 0)).all()
    assert st.state_of("C") == BallState.MOVING
    assert np.hypot(*(st.xy_mm[st.index("C")] - (880.0, 300.0))) < 3


def test_a_ball_seen_moving_once_may_read_smeared_on_its_next_frame_not_the_hand_behind_it() -> None:
    # struck late inside a frame at 30 fps: its first step is 15 mm (a 0.45 m/s estimate, under the blur speed of
    # half a radius a frame), its next reading a 2.9 m/s streak whose colour no ball shows, and the bridge hand's
    # reading lies 240 mm behind. C takes the streak (before: the hand, and stayed lost there; heldout37
    # frame_free shot 17)
    start = {"1": (100.0, 100.0), "2": (-500.0, 300.0), "C": (-454.0, 78.0)}
    ts = TrackSet(TABLE, ("1", "2", "C"), start)
    f = _learn(ts, list(start.values()), [IVORY, IVORY, YELLOW], 110)
    hand = (-230.0, 56.0)
    st = ts.step(_col([start["1"], start["2"], (-469.0, 80.0), hand], [IVORY, IVORY, YELLOW, SKIN], f), f / FPS,
                 lambda _p: False)
    assert st.state_of("C") == BallState.MOVING
    smeared = (149.0, 135.0, 95.0)
    probe = _col([(-564.0, 88.0), hand], [smeared, SKIN], 0)
    assert ts.colours.foreign(probe).all()
    st = ts.step(_col([start["1"], start["2"], (-564.0, 88.0), hand], [IVORY, IVORY, smeared, SKIN], f + 1),
                 (f + 1) / FPS, lambda _p: False)
    assert np.hypot(*(st.xy_mm[st.index("C")] - (-564.0, 88.0))) < 3
    # a ball rolling steadily under the blur speed reads its own colour: a foreign reading is not it
    for g in range(f + 2, f + 12):
        st = ts.step(_col([start["1"], start["2"], (-564.0 - 10.0 * (g - f - 1), 88.0)], [IVORY, IVORY, YELLOW],
                          g), g / FPS, lambda _p: False)
    x = -564.0 - 10.0 * 11
    st = ts.step(_col([start["1"], start["2"], (x, 88.0)], [IVORY, IVORY, smeared], f + 12), (f + 12) / FPS,
                 lambda _p: False)
    assert ts.tracks["C"].misses == 1


def test_the_lost_coloured_ball_comes_back_where_the_light_reads_it_off_its_learnt_colour() -> None:
    # the colour model learnt the yellow ball where it has been; lost while it rolled, it comes to rest by a side
    # cushion where the light shifts its chroma ~7 deviations: foreign to the learnt model, yet read as the
    # coloured class. It is the coloured ball back (named by its colour), and it stays (before: never revived,
    # so its next stroke was missed and the shot judged a 1.5.3 foul: heldout29 frame_free shot 11)
    start = {"1": (100.0, 100.0), "2": (-500.0, 0.0), "3": (400.0, -300.0), "C": (800.0, 300.0)}
    ts = TrackSet(TABLE, ("1", "2", "3", "C"), start)
    pts, cols = list(start.values()), [IVORY, IVORY, IVORY, YELLOW]
    f = _learn(ts, pts, cols, 110)
    ts.tracks["C"].state, ts.tracks["C"].left_t = BallState.UNKNOWN, f / FPS  # lost while rolling
    there, shifted = (-16.0, -754.0), (130.0, 158.0, 65.0)
    probe = _col([there], [shifted], 0)
    assert ts.colours.foreign(probe)[0] and ts.colours.classes(probe)[0] == BallClass.COLOURED
    st = None
    for g in range(f, f + int(3 * FPS)):
        st = ts.step(_col([*pts[:3], there], [IVORY, IVORY, IVORY, shifted], g), g / FPS, lambda _p: False)
        if g == f + int(1.5 * FPS):
            assert st.state_of("C") == BallState.STATIONARY
    assert st is not None and st.state_of("C") == BallState.STATIONARY
    assert np.hypot(*(st.xy_mm[st.index("C")] - there)) < 3 and st.id_confidence[st.index("C")] >= 0.8


def _weak(points: list[tuple[float, float]], conf: list[float], seed: int) -> Detections:
    d = dets(points, [BallClass.IVORY] * len(points), seed=seed)
    d.confidence[:] = conf
    return d


def test_a_ball_covered_at_rest_does_not_follow_a_weak_reading_under_the_arm_away_from_it() -> None:
    # an arm carrying the cue ball in hand passes over resting ball 6: 6 is covered (hidden at rest), and the
    # carried ball shows as a weak reading under the arm 110-350 mm away, moving. 6 stays where it lay (before:
    # its track followed the hand at 4 m/s and came back: a phantom stroke, heldout29 cue_ball_in_hand_anywhere)
    start = {"6": (0.0, -577.0), "2": (-500.0, 0.0)}
    ts = TrackSet(TABLE, ("6", "2"), start)
    f = _learn(ts, list(start.values()), [IVORY, IVORY], 10)
    arm = [(0.0, -577.0), (-32.0, -468.0), (-27.0, -399.0), (-23.0, -333.0), (-12.0, -224.0)]
    st = None
    for g, p in enumerate(arm):
        under = (lambda c: lambda q: bool(np.hypot(q[0] - c[0], q[1] - c[1]) < 150.0))(p)
        pts, conf = ([start["2"]], [0.95]) if g == 0 else ([start["2"], p], [0.95, 0.3])
        st = ts.step(_weak(pts, conf, f + g), (f + g) / FPS, under)
        assert st.state_of("6") in (BallState.HIDDEN, BallState.STATIONARY), (g, st.state_of("6"))
        assert np.hypot(*(st.xy_mm[st.index("6")] - start["6"])) < 3
    # a ball struck out from under the hand shows whole, clear of it: that one is taken
    g = len(arm)
    st = ts.step(_weak([start["2"], (0.0, -470.0)], [0.95, 0.95], f + g), (f + g) / FPS, lambda _q: False)
    assert st.state_of("6") == BallState.MOVING


def test_a_ball_at_rest_under_a_hand_read_as_discs_does_not_follow_one_off_its_place() -> None:
    """seed-199 frame_free 104.83 s: a warm-lit hand laid over 11 by a corner, its sleeve lost against the rail, came
    out as three discs of the hand's colour, one on 11's place and two 58 and 81 mm off, all at full confidence and
    no occluder marked. 11 is under the hand, not struck: its place is not bare."""
    eleven = (1638.0, -818.0)
    start = {"11": eleven, "2": (-500.0, 0.0), "3": (400.0, -300.0), "C": (800.0, 300.0)}
    ts = TrackSet(TABLE, tuple(start), start)
    pts, cols = list(start.values()), [IVORY, IVORY, IVORY, YELLOW]
    f = _learn(ts, pts, cols, 110)
    hand = [(1640.7, -813.9), (1585.5, -754.3), (1688.4, -846.2)]
    for g in range(f, f + 6):
        st = ts.step(_col([*pts[1:], *hand], [IVORY, IVORY, YELLOW, SKIN, SKIN, SKIN], g), g / FPS, lambda _p: False)
        k = st.index("11")
        assert np.hypot(*(st.xy_mm[k] - eleven)) < 3, f"frame {g - f}: 11 at {st.xy_mm[k]}"
        assert st.state_of("11") != BallState.MOVING


def test_a_ball_struck_off_a_bare_place_may_read_smeared() -> None:
    """The other side: 11 struck, its place bare, its streak reads a colour no ball has; it follows the streak."""
    eleven = (1000.0, 0.0)
    start = {"11": eleven, "2": (-500.0, 0.0), "3": (400.0, -300.0), "C": (800.0, 300.0)}
    ts = TrackSet(TABLE, tuple(start), start)
    pts, cols = list(start.values()), [IVORY, IVORY, IVORY, YELLOW]
    f = _learn(ts, pts, cols, 110)
    st = ts.step(_col([(1060.0, 0.0), *pts[1:]], [SKIN, IVORY, IVORY, YELLOW], f), f / FPS, lambda _p: False)
    assert st.state_of("11") == BallState.MOVING
    assert np.hypot(*(st.xy_mm[st.index("11")] - (1060.0, 0.0))) < 10


def test_a_struck_ball_read_under_the_tip_does_not_jump_onto_a_disc_that_lay_still_elsewhere() -> None:
    """seed-223 frame_dynamic 65.1 s: C struck 13 mm into 9, sent back by it, read no ball's colour under the cue's
    tip; a hand's weak disc had lain 230 mm away for seconds. C jumped onto it: a stroke at 7 m/s and no contact."""
    c0, nine = (-1707.7, 777.5), (-1737.9, 853.8)
    hand = (-1623.3, 565.7)
    start = {"C": c0, "9": nine, "2": (-500.0, 0.0), "3": (400.0, -300.0)}
    ts = TrackSet(TABLE, tuple(start), start)
    cols = [YELLOW, IVORY, IVORY, IVORY]
    f = _learn(ts, list(start.values()), cols, 110)
    rest = [start["2"], start["3"]]

    def frame(c: tuple[float, float], c_col: tuple[float, float, float], g: int) -> None:
        d = _col([c, nine, *rest, hand], [c_col, IVORY, IVORY, IVORY, SKIN], g)
        d.confidence[-1] = 0.3
        ts.step(d, g / FPS, lambda p: bool(np.hypot(p[0] - hand[0], p[1] - hand[1]) < 120.0))

    for g in range(f, f + 30):  # the hand's disc lies there, no ball takes it
        frame(c0, YELLOW, g)
    frame((-1711.6, 790.0), YELLOW, f + 30)  # struck: its first step, toward 9
    frame((-1707.5, 778.8), SKIN, f + 31)  # back off 9, under the tip: reads no ball's colour
    st = ts.publish((f + 31) / FPS)
    k = st.index("C")
    assert np.hypot(*(st.xy_mm[k] - hand)) > 100.0, f"C at {st.xy_mm[k]}: on the hand's disc"
    # read as itself again the next frame: that reading was left unclaimed, yet it is C's (its coasting prediction
    # ran on past it)
    frame((-1706.0, 776.0), YELLOW, f + 32)
    st = ts.publish((f + 32) / FPS)
    assert st.state_of("C") == BallState.MOVING and np.hypot(*(st.xy_mm[k] - (-1706.0, 776.0))) < 10.0
