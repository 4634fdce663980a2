"""Other looks than a green cloth under bright lamps: the cloth is found by its own colour whatever it is, and
the table calibrates on rendered red-cloth and dim frames that failed or were centimetres off before."""

from __future__ import annotations

import numpy as np
import pytest

from bench.calibration_bench import cached_case, errors_mm
from calibration.auto import calibrate_image
from calibration.detect import find_cloth
from calibration.result import SPOT_NAMES
from calibration.table import Table

TABLE = Table.load("pyramid-12ft")
W, H = 960, 540
CLOTH = (120, 130, 840, 410)  # x0, y0, x1, y1 of the playing cloth (cushion tops included)
RAIL = 40  # px of wooden rail around it


def drawn_table(cloth_bgr: tuple[int, int, int], rail_bgr: tuple[int, int, int], seed: int = 0) -> np.ndarray:
    """A flat drawing of a table from above: dark floor, a wooden rail, the cloth; lamps brighter in the
    middle (everything scaled by one light field, as a lamp does), sensor noise."""
    rng = np.random.default_rng(seed)
    img = np.zeros((H, W, 3), np.float32)
    img[:] = (30, 38, 50)
    x0, y0, x1, y1 = CLOTH
    img[y0 - RAIL : y1 + RAIL, x0 - RAIL : x1 + RAIL] = rail_bgr
    grain = rng.normal(0.0, 0.12, (y1 - y0 + 2 * RAIL, 1))  # wood grain along the rail
    img[y0 - RAIL : y1 + RAIL, x0 - RAIL : x1 + RAIL] *= 1.0 + grain[:, :, None]
    img[y0:y1, x0:x1] = cloth_bgr
    yy, xx = np.mgrid[0:H, 0:W]
    r2 = ((xx - W / 2) / (W / 2)) ** 2 + ((yy - H / 2) / (H / 2)) ** 2
    img *= (1.15 - 0.55 * r2)[..., None]  # lamp fall-off and vignetting: 0.6 of the centre's light at the rail
    img += rng.normal(0.0, 2.5, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def _quad_off_px(quad: np.ndarray) -> float:
    x0, y0, x1, y1 = CLOTH
    truth = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)
    return float(max(np.min(np.linalg.norm(truth - q, axis=1)) for q in quad))


def test_cloth_outline_stops_at_a_rail_of_the_cloths_own_hue() -> None:
    """A red cloth's wooden rail has the cloth's hue, only duller: the outline is the cloth's, not the rail's
    (before: the hue test took the rail in, and red-cloth seed 2 failed with 'spec does not fit')."""
    quad = find_cloth(drawn_table((40, 36, 150), (20, 24, 80))).quad
    assert _quad_off_px(quad) < 0.5 * RAIL, quad


def test_grey_cloth_is_found() -> None:
    """A grey cloth has no hue at all (before: 'no uniform coloured region near the image centre')."""
    quad = find_cloth(drawn_table((105, 105, 100), (26, 46, 92))).quad
    assert _quad_off_px(quad) < 0.5 * RAIL, quad


@pytest.mark.parametrize(
    ("seed", "style"),
    [(2, "red-cloth"), pytest.param(1, "dim", marks=pytest.mark.slow)],
)
def test_rendered_looks_calibrate_within_a_few_mm(seed: int, style: str) -> None:
    """red-cloth seed 2 failed ('spec does not fit'); dim seed 1 was 10 mm off at a corner (its first camera,
    from four distorted corners, sat 15 m up with a lens outside the fit's bounds)."""
    cam, img = cached_case("pyramid-12ft", seed, style)
    cal = calibrate_image(img, TABLE, "pyramid-12ft")
    spots = np.array([cal.markings_px[n] for n in SPOT_NAMES])
    c, s = errors_mm(TABLE, cam, cal.bed_corners_px, spots)
    assert c.max() < 3.0, c
    assert s.max() < 3.0, s
