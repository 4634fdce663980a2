"""CameraModel: projection and back-projection agree, at any height, with distortion."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.table import Table


@pytest.mark.parametrize("k1", [0.0, -0.08, -0.2])
@pytest.mark.parametrize("z", [0.0, 34.0, 42.0])
def test_unproject_inverts_project(k1: float, z: float) -> None:
    table = Table.load()
    cam = CameraModel.look_at((150.0, -120.0, 3100.0), (0.0, 0.0, 0.0), (0.0, 1.0, 0.0), 1150.0, 1920, 1080,
                              dist=(k1, 0.01, 0.0, 0.0, 0.0))
    rng = np.random.default_rng(0)
    pts = np.column_stack([rng.uniform(-table.half_length, table.half_length, 50),
                           rng.uniform(-table.half_width, table.half_width, 50), np.full(50, z)])
    back = cam.unproject(cam.project(pts), z_mm=z)
    assert np.abs(back - pts).max() < 0.05


def test_height_matters_off_centre() -> None:
    """A ball centre 34 mm up, near a cushion, maps centimetres away if treated as lying on the bed."""
    cam = CameraModel.look_at((0.0, 0.0, 3000.0), (0.0, 0.0, 0.0), (0.0, 1.0, 0.0), 1100.0, 1920, 1080)
    p = np.array([[1700.0, 850.0, 34.0]])
    on_bed = cam.unproject(cam.project(p), z_mm=0.0)[0]
    assert 15.0 < np.hypot(*(on_bed[:2] - p[0, :2])) < 30.0


def test_round_trip_through_dict() -> None:
    cam = CameraModel.look_at((0.0, 0.0, 3000.0), (0.0, 0.0, 0.0), (0.0, 1.0, 0.0), 1100.0, 1280, 720)
    again = CameraModel.from_dict(cam.to_dict())
    assert np.allclose(again.K, cam.K) and np.allclose(again.rvec, cam.rvec) and again.width == 1280


@pytest.mark.parametrize(("field", "value", "message"), [("K", np.eye(2), "K must have shape"),
                                                         ("dist", np.zeros(3), "dist must have shape")])
def test_bad_shapes_are_named(field: str, value: np.ndarray, message: str) -> None:
    cam = CameraModel.look_at((0.0, 0.0, 3000.0), (0.0, 0.0, 0.0), (0.0, 1.0, 0.0), 1100.0, 1280, 720)
    kwargs = {"K": cam.K, "dist": cam.dist, "rvec": cam.rvec, "tvec": cam.tvec, "width": 1280, "height": 720}
    kwargs[field] = value
    with pytest.raises(ValueError, match=message):
        CameraModel(**kwargs)


def test_projection_rejects_bad_point_shape() -> None:
    cam = CameraModel.look_at((0.0, 0.0, 3000.0), (0.0, 0.0, 0.0), (0.0, 1.0, 0.0), 1100.0, 1280, 720)
    with pytest.raises(ValueError, match=r"\(N, 2\) or \(N, 3\)"):
        cam.project(np.zeros((4, 5)))


def test_look_at_puts_image_down_where_asked() -> None:
    cam = CameraModel.look_at((0.0, 0.0, 3000.0), (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 1000.0, 1280, 720)
    centre, further = cam.project(np.array([[0.0, 0.0, 0.0], [500.0, 0.0, 0.0]]))
    assert further[1] > centre[1] + 100 and abs(further[0] - centre[0]) < 1e-6
