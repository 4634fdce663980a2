"""A disc read on the seam between two touching balls at rest (an arm's shadow over one of them) is no ball's:
none of them, nor a ball hidden under the hand beside them, jumps onto it."""

from __future__ import annotations

import numpy as np
import pytest
from test_track_colour import FPS, IVORY, TABLE, YELLOW, _col, _learn

from vision.track import TrackSet
from vision.types import BallState

# seed-199 frame_free 15.1-15.5 s, the readings the detector gave there (table mm, confidence)
SIX, EIGHT, FIFTEEN = (949.0, -82.7), (1018.6, -82.6), (1077.5, -35.1)
SEQUENCE = [
    [(SIX, 0.38), ((986.9, -82.1), 0.84)],
    [((1078.8, -36.2), 0.27), ((1019.4, -83.1), 0.34), ((981.3, -82.4), 0.84)],
    [((948.5, -82.7), 0.39), ((987.9, -82.2), 0.84)],
    [((948.9, -82.7), 0.33)],
    [((948.9, -82.7), 0.38), ((1019.4, -83.1), 0.28), ((982.6, -82.1), 0.84)],
    [((1019.0, -83.2), 0.29), ((981.5, -82.2), 0.84)],
    [((948.4, -82.6), 0.38), ((1018.7, -83.1), 0.31), ((983.0, -82.1), 0.84)],
    [((948.9, -82.7), 0.38)],
    [((948.9, -82.7), 0.38), ((986.9, -82.1), 0.84)],  # 6 read as before, 8 unseen, the disc on the seam
]


@pytest.mark.parametrize("exact", [False, True])
def test_no_ball_jumps_onto_a_disc_on_the_seam_of_two_touching_resting_balls(exact: bool) -> None:
    """`exact`: 6's reading repeated bit for bit (the detector reuses an unchanged blob), so its track is held
    out of the assignment; its place still blocks the disc."""
    start = {"6": SIX, "8": EIGHT, "15": FIFTEEN, "2": (956.6, 22.2), "C": (880.8, 6.0)}
    ts = TrackSet(TABLE, tuple(start), start)
    pts = list(start.values())
    f = _learn(ts, pts, [IVORY, IVORY, IVORY, IVORY, YELLOW], 60)
    hand = (1000.0, -60.0)

    def under_hand(p: np.ndarray) -> bool:
        return bool(np.hypot(p[0] - hand[0], p[1] - hand[1]) < 150.0)

    for g, seen in enumerate(SEQUENCE * 2):
        where = [xy for xy, _ in seen] + [start["2"], start["C"]]
        d = _col(where, [IVORY] * len(seen) + [IVORY, YELLOW], f + g)
        d.confidence[: len(seen)] = [c for _, c in seen]
        if exact:
            d.xy_mm[: len(seen)] = [xy for xy, _ in seen]  # 6 reads (948.9, -82.7) twice running
        st = ts.step(d, (f + g) / FPS, under_hand)
        for ball in ("6", "8", "15"):
            k = st.ids.index(ball)
            moved = float(np.hypot(*(st.xy_mm[k] - np.asarray(start[ball]))))
            assert moved < 0.5 * TABLE.ball_radius, f"frame {g}: {ball} at {st.xy_mm[k]} ({moved:.0f} mm off)"
            assert st.state[k] != BallState.MOVING, f"frame {g}: {ball} called moving"


def test_a_ball_pushed_into_one_touching_it_follows_it_though_it_reaches_over_that_ones_place() -> None:
    # a push: A struck into B touching it, B's first step about half a radius (its detection still within half a
    # radius of its place), A a ball's width behind it, over B's old place: two balls two radii apart, no seam
    a0, b0 = (300.0, 200.0), (368.5, 200.0)
    start = {"1": a0, "2": b0, "3": (-600.0, -300.0), "C": (-900.0, 400.0)}
    ts = TrackSet(TABLE, tuple(start), start)
    f = _learn(ts, list(start.values()), [IVORY, IVORY, IVORY, YELLOW], 60)
    a_x = [317.0, 331.0, 342.0, 350.0]
    b_x = [385.5, 418.0, 452.0, 484.0]
    for g, (ax, bx) in enumerate(zip(a_x, b_x, strict=True)):
        d = _col([(ax, 200.0), (bx, 200.0), start["3"], start["C"]], [IVORY, IVORY, IVORY, YELLOW], f + g)
        st = ts.step(d, (f + g) / FPS, lambda _p: False)
        for ball, x in (("1", ax), ("2", bx)):
            k = st.ids.index(ball)
            assert abs(float(st.xy_mm[k][0]) - x) < 8.0, f"frame {g}: {ball} at {st.xy_mm[k]}, seen at {x}"
