"""Touches and bounces read off a few samples: `driven_into` against exact bounces (a ball at rest within 2R of
the noses by a pocket, hit from rest, reflected elastically off every nose it reaches, sampled at 30 fps between
the hits; the touches it reports are the noses the ball met, never one it did not), and a step that turned off a
nose read along its bounce when a start is tested for a jump (`motion._bounced`)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.table import Table
from vision.events.cushions import Boundary
from vision.events.history import History
from vision.events.motion import _bounced
from vision.events.touchrules import driven_into
from vision.pipeline import event_settings
from vision.types import BallState, BallStates

TABLE = Table.load()
BOUND = Boundary(TABLE)
R = TABLE.ball_radius
FPS = 30.0


def _bounce(p0: tuple[float, float], d: tuple[float, float], speed: float) -> tuple[History, set[str]]:
    """The ball's samples (hit at t = 0, half a frame before a sample) and the noses it met."""
    v = np.asarray(d, dtype=float)
    v = v / np.hypot(*v) * speed
    p = np.asarray(p0, dtype=float)
    met: set[str] = set()
    hist = History(("A",), 64)
    step = 1e-4
    times = np.arange(-3, 10) / FPS + 0.5 / FPS
    t = 0.0
    for k, t_s in enumerate(times):
        while t_s > 0 and t < t_s:
            p = p + v * step
            dists, pts, _ = BOUND.closest(p)
            for i in np.flatnonzero(dists < R):
                n = (p - pts[i]) / dists[i]
                if float(np.dot(v, n)) < 0:
                    v = v - 2 * float(np.dot(v, n)) * n
                    met.add(BOUND.names[i])
            t += step
        state = BallState.MOVING if t_s > 0 else BallState.STATIONARY
        hist.push(BallStates(k, float(t_s), ("A",), p[None].copy(), np.zeros((1, 2)), np.array([state], np.int8),
                             np.ones(1), np.ones(1)))
    return hist, met


@pytest.mark.parametrize(
    ("p0", "d", "speed"),
    [
        ((1720.2, 845.8), (0.985, 0.16), 2400.0),  # into the rear left mouth: rear, then the side cushion's jaw
        ((45.1, 848.0), (-0.996, 0.093), 2958.0),  # along the side by the middle pocket: one nose only
        ((-43.1, 845.1), (-0.239, 0.971), 2000.0),  # into the side beside the middle pocket: one nose
        ((-40.8, 849.1), (0.945, -0.326), 2000.0),  # away from the side past a jaw tip: no nose
    ],
)
def test_a_ball_driven_from_rest_by_a_pocket_touches_only_the_noses_it_met(
    p0: tuple[float, float], d: tuple[float, float], speed: float
) -> None:
    hist, met = _bounce(p0, d, speed)
    hit = (0.0, np.asarray(d, dtype=float) / np.hypot(*d), speed, 0.9)
    touches = driven_into(hist, BOUND, event_settings(), 0, np.asarray(p0, dtype=float), hit, R, hist.newest)
    assert {tc.cushion for tc in touches} <= met
    if len(met) == 2:  # the corner: both noses, each once
        assert sorted(tc.cushion for tc in touches) == sorted(met)


def test_a_step_turned_off_a_nose_is_read_along_its_bounce_and_a_jump_landing_near_a_line_is_not() -> None:
    bed = (TABLE.half_length - R, TABLE.half_width - R)
    wall = -bed[1]  # the front-right side's centre line
    # seed-179 frame_dynamic: 2 ran 92 mm towards the side from 120 mm off it, then was seen 32 mm back off the nose
    xy = np.array([[-1475.8, -825.2], [-1480.3, -792.8]])
    prev = np.array([[-2.9, -91.8], [-4.5, 32.4]])
    run = _bounced(xy, prev, bed, 8.0)[0]
    assert run == pytest.approx((-825.2 - wall) + (-792.8 - wall), abs=1.0)
    # a jump of the tracked centre 300 mm straight at the line, landing 150 mm off it, then away at 33 mm a frame
    xy = np.array([[0.0, wall + 150.0], [0.0, wall + 183.0]])
    assert _bounced(xy, np.array([[0.0, -300.0], [0.0, 33.0]]), bed, 8.0)[0] == 0.0
    # one nearly along the line (5 mm towards it), landing 150 mm off it
    assert _bounced(xy, np.array([[300.0, -5.0], [0.0, 33.0]]), bed, 8.0)[0] == 0.0
