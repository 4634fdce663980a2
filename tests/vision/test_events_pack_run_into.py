"""A pack member set moving first that runs into another member apart from it (15 hit by 5 runs 20 mm within the
frame into 8, 9 mm off it): that pair is an edge of the pack's impulse solve, with its line of centres where they
met (`ClusterLogic._run_into`, `pack_impulses(normals=...)`)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from calibration.table import Table
from vision.events.clusters import ClusterLogic, pack_impulses
from vision.events.history import History
from vision.events.settings import EventSettings
from vision.types import BallState, BallStates

TABLE = Table.load()
R = TABLE.ball_radius
FPS = 30.0
IDS = ("15", "8")


class _Rest:
    """15 rests at the origin until t15, 8 rests 2R + 9.5 mm below it until t8."""

    def __init__(self, anchors: dict[int, np.ndarray], until: dict[int, float]) -> None:
        self.anchors, self.until = anchors, until

    def anchor_at(self, b: int, t: float) -> np.ndarray | None:
        return self.anchors[b] if t <= self.until[b] + 1e-9 else None


def _history(xy: np.ndarray) -> History:
    h = History(IDS, 64)
    for n in range(len(xy)):
        state = np.full(2, BallState.MOVING, dtype=np.int8)
        h.push(BallStates(n, n / FPS, IDS, xy[n], np.zeros((2, 2)), state, np.ones(2), np.ones(2)))
    return h


@pytest.mark.parametrize(("step_mm", "met"), [(20.0, True), (-20.0, False)])  # towards 8, away from it
def test_member_that_ran_into_a_resting_member_is_an_edge(step_mm: float, met: bool) -> None:
    a15, a8 = np.zeros(2), np.array([0.0, -(2 * R + 9.5)])
    xy = np.repeat(np.stack([a15, a8])[None], 12, axis=0)
    xy[6:, 0] = a15 + np.outer(np.arange(1, 7), [0.0, -step_mm])  # 15 leaves at frame 6, towards 8
    h = _history(xy)
    rest = _Rest({0: a15, 1: a8}, {0: 5 / FPS, 1: 6 / FPS})  # 8 still rests at frame 6, leaves after it
    me = SimpleNamespace(hist=h, s=EventSettings(), motion=rest, table=TABLE)
    got = ClusterLogic._run_into(me, {0, 1}, {0: a15, 1: a8}, [], 5, 9)  # type: ignore[arg-type]
    assert (list(got) == [(0, 1)]) is met, got
    if met:
        n = got[(0, 1)] / np.hypot(*got[(0, 1)])
        assert n == pytest.approx([0.0, -1.0], abs=1e-6)


def test_pack_impulses_read_a_run_into_edge_along_its_own_line() -> None:
    # 15 ran 41 mm off its rest, sideways, into 8 (30 degrees off the line of their rest centres): the impulse is
    # read along the line where they met
    pos = {0: np.zeros(2), 1: np.array([0.0, -(2 * R + 9.5)])}
    met = pos[1] - np.array([40.0, -10.0])
    n = met / np.hypot(*met)
    dv = {0: (-800.0 * n, 20.0), 1: (800.0 * n, 20.0)}
    with_line = pack_impulses(pos, dv, [(0, 1)], {(0, 1): met})[(0, 1)][0]
    assert with_line == pytest.approx(800.0, abs=5.0)
    rest_line = pack_impulses(pos, dv, [(0, 1)])[(0, 1)][0]
    assert abs(rest_line - 800.0) > 20.0
