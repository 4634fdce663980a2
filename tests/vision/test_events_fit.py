"""The straight run from rest that a pack ball struck by the break makes (`vision.events.fit.run_from_rest`)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.events.fit import run_from_rest

FPS = 60.0


def _noise(speed: float) -> float:
    """The noise bound the settings give (an upper bound on the tracker's position noise)."""
    return 0.5 + 1.0 * min(1.0, speed / 500.0)


def _samples(still_s: float, speed: float, span_s: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A ball at rest at the origin, still for still_s after dt = 0, then rolling off along (0.6, 0.8) at speed,
    slowing at 150 mm/s^2; samples over span_s with Gaussian noise per axis at 0.7 of the bound (a 2-D residual's
    RMS is some 1.4 times the per-axis sigma: the test allows twice the bound)."""
    rng = np.random.default_rng(seed)
    dt = np.arange(0.0, span_s, 1.0 / FPS)
    w = np.clip(dt - still_s, 0.0, speed / 150.0)
    s = speed * w - 75.0 * w * w
    off = np.outer(s, [0.6, 0.8]) + rng.normal(0.0, 0.7 * _noise(speed), (len(dt), 2))
    return dt, off


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("speed", [30.0, 60.0, 120.0])
def test_a_ball_sent_off_at_the_hit_made_a_run_from_rest(speed: float, seed: int) -> None:
    # a slow ball is seen to leave late: its samples run from the hit until it is some 8 mm off
    dt, off = _samples(0.0, speed, 8.0 / speed + 2.0 / FPS, seed)
    v = run_from_rest(dt, off, _noise, 3.0 / FPS)
    assert v is not None and float(np.dot(v, [0.6, 0.8])) > 0.0


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("still_s", [0.5, 0.8])
def test_a_ball_that_stood_still_and_left_later_made_none(still_s: float, seed: int) -> None:
    # its samples fit a straight run from the hit within the noise: the still stretch averages into the RMS
    dt, off = _samples(still_s, 150.0, still_s + 0.08, seed)
    assert run_from_rest(dt, off, _noise, 3.0 / FPS) is None


def test_samples_of_the_wrong_shape_are_named() -> None:
    with pytest.raises(ValueError, match=r"\(n,\) and \(n, 2\)"):
        run_from_rest(np.zeros(4), np.zeros((4, 3)), _noise, 0.05)
