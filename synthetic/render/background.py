"""The static background: the table without balls, ray-cast in 3D (bed, cushions at their nose height,
higher rails, pocket holes, the floor), lit by the lamps, with lens vignetting.

Also keeps, per pixel, what later layers need: the ray depth of the surface (balls behind a cushion nose
are hidden), the bed point under the pixel (for shadows) and the vignetting gain.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.table import Table
from synthetic.render.lighting import Lighting
from synthetic.render.rays import RayGrid
from synthetic.render.style import RenderStyle
from synthetic.render.textures import Atlas

CUSHION_RISE_MM = 6.0  # the cushion top climbs this much from the nose to the rail
RAIL_ABOVE_NOSE_MM = 14.0
APRON_MM = 170.0  # the rail's outer face below its top
FLOOR_BELOW_BED_MM = 780.0
POCKET_DEPTH_MM = 140.0


@dataclass
class Background:
    image: np.ndarray  # (H, W, 3) uint8 BGR, the frame itself
    depth: np.ndarray  # (H', W') float32 ray length to the surface, over the grown grid
    bed_xy: np.ndarray  # (H', W', 2) float32 bed point of the pixel (NaN where not cloth of the bed)
    gain: np.ndarray  # (H', W') float32 vignetting


@dataclass(frozen=True)
class PocketHoles:
    centres: np.ndarray  # (P, 2)
    hole_r: np.ndarray  # (P,) radius of the hole through the slate
    area_r: np.ndarray  # (P,) radius of the pocket opening in the rails

    @classmethod
    def of(cls, table: Table) -> PocketHoles:
        d = table.spec.ball_diameter_mm
        hl, hw = table.half_length, table.half_width
        e = 0.15 * d
        centres, hole, area = [], [], []
        for sx in (-1, 1):
            for sy in (-1, 1):
                centres.append((sx * (hl + e), sy * (hw + e)))
                hole.append(0.66 * d)
                area.append(1.02 * d)
        for sy in (-1, 1):
            centres.append((0.0, sy * (hw + 0.5 * d)))
            hole.append(0.69 * d)
            area.append(1.05 * d)
        return cls(np.asarray(centres), np.asarray(hole), np.asarray(area))

    def within(self, xy: np.ndarray, radii: np.ndarray) -> np.ndarray:
        out = np.zeros(xy.shape[:-1], bool)
        for c, r in zip(self.centres, radii, strict=True):
            out |= (xy[..., 0] - c[0]) ** 2 + (xy[..., 1] - c[1]) ** 2 < r * r
        return out


def _outside(table: Table, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Signed distance outside the cushion-nose rectangle and whether the nearest side is an end."""
    dx = np.abs(xy[..., 0]) - table.half_length
    dy = np.abs(xy[..., 1]) - table.half_width
    return np.maximum(dx, dy), dx > dy


def _in_cushion_extent(table: Table, xy: np.ndarray, d: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Along a cushion's length, between its jaws; the jaws reach further towards the pocket outwards."""
    s = table.spec
    c = s.corner_mouth_mm / np.sqrt(2.0)
    m = s.middle_mouth_mm / 2.0
    dd = np.clip(d, 0.0, None)
    ax, ay = np.abs(xy[..., 0]), np.abs(xy[..., 1])
    on_end = ay <= table.half_width - c + 0.6 * dd
    on_side = (ax >= m - 0.3 * dd) & (ax <= table.half_length - c + 0.6 * dd)
    return np.where(end, on_end, on_side)


def build_background(
    table: Table, rays: RayGrid, style: RenderStyle, lighting: Lighting, atlas: Atlas
) -> Background:
    s = table.spec
    nose = s.cushion_nose_height_mm
    cw, rw = s.cushion_width_mm, s.rail_width_mm
    rail_h = nose + RAIL_ABOVE_NOSE_MM
    cz, dz = rays.origin[2], rays.dirs[..., 2]
    holes = PocketHoles.of(table)

    def at(z: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = (z - cz) / dz
        return rays.origin[:2] + t[..., None] * rays.dirs[..., :2], t

    xy_r, t_r = at(rail_h)
    d_r, _ = _outside(table, xy_r)
    in_area_r = holes.within(xy_r, holes.area_r)
    rim = holes.within(xy_r, holes.area_r + 10.0) & ~in_area_r
    rail = (d_r >= cw) & (d_r <= cw + rw) & ~in_area_r
    beyond = d_r > cw + rw
    xy_a, t_a = at(rail_h - APRON_MM)
    apron = beyond & (_outside(table, xy_a)[0] <= cw + rw)
    xy_f, t_f = at(-FLOOR_BELOW_BED_MM)
    # The cushion top slopes up from the nose: two fixed-point steps find where the ray meets it.
    z_c = np.full(dz.shape, nose)
    for _ in range(2):
        xy_c, t_c = at(z_c)
        d_c, _ = _outside(table, xy_c)
        z_c = nose + CUSHION_RISE_MM * np.clip(d_c / cw, 0.0, 1.0)
    xy_c, t_c = at(z_c)
    d_c, end_c = _outside(table, xy_c)
    ext_c = _in_cushion_extent(table, xy_c, d_c, end_c)
    cushion = (d_c >= 0) & (d_c < cw) & ext_c & ~holes.within(xy_c, holes.hole_r)
    rail_face = (d_c >= cw) & ~holes.within(xy_c, holes.area_r)
    xy_0, t_0 = at(0.0)
    d_0, end_0 = _outside(table, xy_0)
    bed = (d_0 < 0) & ~holes.within(xy_0, holes.hole_r)
    face = (d_c < 0) & (d_0 >= 0) & _in_cushion_extent(table, xy_0, np.zeros_like(d_0), end_0)

    # Precedence, top surface first: the first surface the ray meets wins.
    taken = np.zeros(dz.shape, bool)
    layers: list[tuple[str, np.ndarray]] = []
    for name, mask in (
        ("rail", rail),
        ("rim", rim & (d_r >= cw) & ~beyond),
        ("apron", apron),
        ("floor", beyond),
        ("cushion", cushion),
        ("rail_face", rail_face),
        ("bed", bed),
        ("face", face),
    ):
        m = mask & ~taken
        layers.append((name, m))
        taken |= m
    pocket = ~taken

    h, w = dz.shape
    img = np.zeros((h, w, 3), np.float32)
    depth = np.empty((h, w), np.float32)

    def lit(xy: np.ndarray, z: float | np.ndarray, mask: np.ndarray) -> np.ndarray:
        zz = np.broadcast_to(np.asarray(z, dtype=float), mask.shape)[mask]
        pts = np.column_stack([xy[mask], zz])
        return lighting.light(pts).astype(np.float32)

    cloth = atlas.cloth
    wood = atlas.wood
    for name, m in layers:
        if not m.any():
            continue
        if name == "rail":
            img[m] = atlas.sample(wood, xy_r)[m] * lit(xy_r, rail_h, m)[:, None] * 1.05
            depth[m] = t_r[m]
        elif name == "rim":
            img[m] = np.array([0.07, 0.08, 0.10], np.float32) * lit(xy_r, rail_h, m)[:, None]
            depth[m] = t_r[m]
        elif name == "apron":
            img[m] = atlas.sample(wood, xy_r)[m] * 0.30 * lit(xy_r, rail_h, m)[:, None]
            depth[m] = t_a[m]
        elif name == "floor":
            img[m] = atlas.sample_floor(xy_f)[m] * (
                0.35 + 0.5 * lit(xy_f, -FLOOR_BELOW_BED_MM, m)[:, None]
            )
            depth[m] = t_f[m]
        elif name == "cushion":
            # The rounded nose catches the lamp light; the slope behind it faces slightly away.
            nose_glow = 1.0 + 0.16 * np.exp(-d_c[m] / 4.0) - 0.06 * np.clip(d_c[m] / cw, 0.0, 1.0)
            img[m] = atlas.sample(cloth, xy_c)[m] * (0.94 * lit(xy_c, z_c, m) * nose_glow)[:, None]
            depth[m] = t_c[m]
        elif name == "rail_face":
            img[m] = atlas.sample(wood, xy_c)[m] * 0.45 * lit(xy_c, z_c, m)[:, None]
            depth[m] = t_c[m]
        elif name == "bed":
            # The cushion shades the cloth at its foot: a soft dark band along the nose.
            foot = 1.0 - 0.28 * np.exp(np.minimum(d_0[m], 0.0) / 14.0)
            img[m] = atlas.sample(cloth, xy_0)[m] * (lit(xy_0, 0.0, m) * foot)[:, None]
            depth[m] = t_0[m]
        elif name == "face":
            img[m] = atlas.sample(cloth, xy_0)[m] * 0.6 * lit(xy_0, nose / 2.0, m)[:, None]
            depth[m] = (t_0[m] + t_c[m]) / 2.0
    _, t_p = at(-POCKET_DEPTH_MM)
    img[pocket] = np.array([0.025, 0.025, 0.028], np.float32)
    depth[pocket] = t_p[pocket]

    gain = _vignetting(rays, style.vignetting)
    img *= gain[..., None]
    mg = rays.margin
    frame = np.clip(img[mg : h - mg, mg : w - mg] * 255.0 + 0.5, 0, 255).astype(np.uint8)
    bed_xy = np.where(bed[..., None], xy_0, np.nan).astype(np.float32)
    return Background(frame, depth, bed_xy, gain)


def _vignetting(rays: RayGrid, strength: float) -> np.ndarray:
    """cos^4 fall-off of the angle to the optical axis, scaled so the frame corners lose `strength`."""
    axis = rays.camera.R[2]
    cos = np.clip(rays.dirs @ axis.astype(np.float32), 0.0, 1.0)
    c4 = cos**4
    m = rays.margin
    corner = float(min(c4[m, m], c4[m, -m - 1], c4[-m - 1, m], c4[-m - 1, -m - 1]))
    gain = 1.0 - strength * (1.0 - c4) / max(1.0 - corner, 1e-6)
    out: np.ndarray = np.clip(gain, 0.2, 1.0).astype(np.float32)
    return out
