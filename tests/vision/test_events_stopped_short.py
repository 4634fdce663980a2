"""`neighbours.stopped_short`: a striker whose own way after a hit starts clear of the ball did not meet it."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from calibration.table import Table
from vision.events.neighbours import stopped_short
from vision.events.settings import EventSettings

R = 34.0
FPS = 60.0


def _w(table: Table | None) -> SimpleNamespace:
    # stopped_short reads these fields of a contacts.Window
    return SimpleNamespace(s=EventSettings(), radius=R, fps=FPS, table=table)


def _after(p0: tuple[float, float], v: tuple[float, float], t_c: float, n: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Samples of a striker after t_c (every frame), on a straight way through p0 at t_c."""
    t = t_c + (np.arange(n) + 0.5) / FPS
    xy = np.asarray(p0) + np.multiply.outer(t - t_c, np.asarray(v))
    return t, xy


def test_a_striker_that_stopped_short_of_the_ball_did_not_meet_it() -> None:
    # C stopped 60 mm short of touching the ball whose start dates the contact, and crawls on at 100 mm/s
    anchor = np.array([0.0, 0.0])
    t, xy = _after((-2 * R - 60.0, 0.0), (100.0, 0.0), 1.0)
    assert stopped_short(_w(Table.load()), t, xy, 1.0, anchor)


def test_a_striker_that_met_the_ball_and_ran_on_met_it() -> None:
    # a cut: the striker at touching distance at t_c, leaving at 1.5 m/s along the tangent
    anchor = np.array([0.0, 0.0])
    t, xy = _after((-2 * R, 0.0), (0.0, 1500.0), 1.0)
    assert not stopped_short(_w(Table.load()), t, xy, 1.0, anchor)


def test_samples_long_after_the_hit_say_nothing() -> None:
    # the striker unseen for three frames after t_c (under the cue, an arm): no way back to the hit is read
    anchor = np.array([0.0, 0.0])
    t, xy = _after((-2 * R - 60.0, 0.0), (100.0, 0.0), 1.0)
    assert not stopped_short(_w(Table.load()), t + 3.0 / FPS, xy, 1.0, anchor)


def test_a_striker_by_a_cushion_is_not_read() -> None:
    # the same stop short, but the striker's samples lie within its reach of a cushion nose: a bounce inside
    # the frame would fold its way back, so the reading is not taken
    table = Table.load()
    y_nose = table.spec.bed_width_mm / 2 - R  # the centre of a ball touching the long cushion's nose
    anchor = np.array([600.0, y_nose - 15.0])  # clear of the middle pocket's mouth
    t, xy = _after((600.0 - 2 * R - 60.0, y_nose - 15.0), (0.0, 900.0), 1.0)
    assert stopped_short(_w(None), t, xy, 1.0, anchor)  # with no table to ask, it is read
    assert not stopped_short(_w(table), t, xy, 1.0, anchor)
