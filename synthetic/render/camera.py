"""A randomised but realistic overhead camera pose for a table: the renderer's default viewpoint."""

from __future__ import annotations

import math

import numpy as np

from calibration.camera import CameraModel
from calibration.table import Table

# Limits of the randomised pose (mm, degrees); a ceiling mount above the lamps, never square or centred.
HEIGHT_MM = (2600.0, 3500.0)
TILT_DEG = (1.5, 6.0)
YAW_DEG = 3.0
OFFSET_MM = (180.0, 110.0)
FILL = (0.70, 0.95)  # outer table length over image width
K1 = (-0.20, -0.05)


def table_outer_half(table: Table) -> tuple[float, float]:
    """Half length and half width of the table's outer rail edge, mm."""
    s = table.spec
    edge = s.cushion_width_mm + s.rail_width_mm
    return table.half_length + edge, table.half_width + edge


def _corner_radius(width: int, height: int, focal: float, principal: tuple[float, float]) -> float:
    """Largest normalised distorted radius of the frame plus the renderer's margin."""
    m = 64.0
    dx = max(principal[0] + m, width + m - principal[0])
    dy = max(principal[1] + m, height + m - principal[1])
    return math.hypot(dx, dy) / focal


def _unfolding_k2(k1: float, k2: float, rd_max: float) -> float:
    """Raise k2 until r(1 + k1 r^2 + k2 r^4) climbs past rd_max (x1.1) without folding back.

    A strong negative k1 alone folds over inside the frame corners: those pixels would have no ray, and
    no calibration could invert them. Real wide lenses have a positive k2 that prevents it.
    """
    r = np.linspace(0.0, 3.0, 3001)
    while True:
        rd = r * (1 + k1 * r**2 + k2 * r**4)
        slope = 1 + 3 * k1 * r**2 + 5 * k2 * r**4
        reach = rd[np.argmax(slope <= 0.2)] if np.any(slope <= 0.2) else rd[-1]
        if reach >= 1.1 * rd_max:
            return k2
        k2 += 0.002


def default_camera(table: Table, width: int = 1920, height: int = 1080, seed: int = 0) -> CameraModel:
    """A camera 2.6-3.5 m above the bed, tilted a few degrees, off-centre, with a wide lens's barrel
    distortion; the long axis runs roughly along the image width and the table fills 70-95 % of it.

    The playing area (cushion noses and pockets) always lies inside the frame; the outer rails may not.
    """
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0xCA3E]))
    h = rng.uniform(*HEIGHT_MM)
    fill = rng.uniform(*FILL)
    off = rng.uniform(-1.0, 1.0, 2) * np.asarray(OFFSET_MM)
    tilt = math.radians(rng.uniform(*TILT_DEG))
    tilt_dir = rng.uniform(0.0, 2.0 * math.pi)
    yaw = math.radians(rng.uniform(-YAW_DEG, YAW_DEG))
    k1 = rng.uniform(*K1)
    k2 = rng.uniform(0.0, 0.25) * k1 * k1
    p1, p2 = rng.normal(0.0, 3e-4, 2)
    principal = (width / 2.0 + rng.normal(0.0, 0.006 * width), height / 2.0 + rng.normal(0.0, 0.006 * height))
    # CameraModel.look_at maps `up` to image-down; this `up` puts the house (-x) on the left and the
    # left cushion (+y) at the top: the view from above, not mirrored.
    up = (math.sin(yaw), -math.cos(yaw), 0.0)
    eye = (float(off[0]), float(off[1]), h)
    reach = h * math.tan(tilt)
    target = (eye[0] + reach * math.cos(tilt_dir), eye[1] + reach * math.sin(tilt_dir), 0.0)
    hl_out = table_outer_half(table)[0]
    focal = fill * width * h / (2.0 * hl_out)
    dist = (k1, k2, float(p1), float(p2), 0.0)
    corners = np.array([[sx * table.half_length, sy * table.half_width, table.spec.cushion_nose_height_mm]
                        for sx in (-1, 1) for sy in (-1, 1)])
    for _ in range(40):
        k2 = _unfolding_k2(k1, k2, _corner_radius(width, height, focal, principal))
        dist = (k1, k2, float(p1), float(p2), 0.0)
        cam = CameraModel.look_at(eye, target, up, focal, width, height, dist=dist, principal=principal)
        px = cam.project(corners)
        margin = 0.02 * width
        if np.all(px[:, 0] > margin) and np.all(px[:, 0] < width - margin) and np.all(
            px[:, 1] > margin
        ) and np.all(px[:, 1] < height - margin):
            return cam
        focal *= 0.97  # zoom out until the whole bed is in view
    raise ValueError(f"no camera pose keeps the table {table.spec.name!r} in a {width}x{height} frame")
