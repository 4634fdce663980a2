"""Automatic calibration on rendered frames: accurate in table mm, through the true camera."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from bench.calibration_bench import cached_case, errors_mm
from calibration.auto import calibrate_image
from calibration.camera import CameraModel
from calibration.result import SPOT_NAMES, Calibration, CalibrationMethod
from calibration.table import Table

TABLE = Table.load("pyramid-12ft")


def case(seed: int, style: str = "default") -> tuple[CameraModel, np.ndarray]:
    return cached_case("pyramid-12ft", seed, style)


@cache
def calibrated(seed: int, style: str = "default") -> Calibration:
    return calibrate_image(case(seed, style)[1], TABLE, "pyramid-12ft")


@pytest.mark.parametrize(
    ("seed", "style"), [(11, "default"), pytest.param(13, "blue", marks=pytest.mark.slow)]
)
def test_corners_and_spots_within_a_few_mm(seed: int, style: str) -> None:
    """Balls, an arm over a cushion, lamps; green and blue cloth."""
    cam, _ = case(seed, style)
    cal = calibrated(seed, style)
    spots = np.array([cal.markings_px[n] for n in SPOT_NAMES])
    c, s = errors_mm(TABLE, cam, cal.bed_corners_px, spots)
    assert c.max() < 3.0, c
    assert s.max() < 3.0, s
    assert cal.rms_mm < 2.0
    assert cal.quality.method is CalibrationMethod.AUTO
    assert 0.5 < cal.quality.confidence <= 1.0


def test_mapping_at_ball_height_round_trips() -> None:
    cam, _ = case(11)
    cal = calibrated(11)
    xy = np.array([[1000.0, 500.0], [-1700.0, -850.0], [0.0, 0.0]])
    z = TABLE.ball_radius
    back = cal.to_table(cal.to_image(xy, z), z)
    assert np.abs(back - xy).max() < 0.05
    # and it agrees with the true camera where a ball centre really is
    truth_px = cam.project(np.column_stack([xy, np.full(3, z)]))
    assert np.linalg.norm(cal.to_table(truth_px, z) - xy, axis=1).max() < 3.0


def test_save_and_load_round_trip(tmp_path: object) -> None:
    from pathlib import Path

    cal = calibrated(11)
    path = Path(str(tmp_path)) / "calibration.json"
    cal.save(path)
    back = Calibration.load(path)
    assert back.table_spec == "pyramid-12ft"
    assert np.allclose(back.bed_corners_px, cal.bed_corners_px)
    assert np.allclose(back.camera.K, cal.camera.K)
    assert back.markings_px.keys() == set(SPOT_NAMES)
    assert back.quality == cal.quality
