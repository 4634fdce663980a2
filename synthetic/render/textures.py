"""Albedo atlases in table coordinates: cloth (with the painted markings) and wood, sampled by the
background renderer with cv2.remap, so the texture sticks to the table whatever the camera."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.table import Table
from synthetic.render.camera import table_outer_half
from synthetic.render.style import RenderStyle

ATLAS_MM_PER_PX = 1.25
FLOOR_MM_PER_PX = 4.0


@dataclass
class Atlas:
    """Cloth and wood albedo (float32 BGR 0..1) on a grid over the whole table, outer rails included."""

    cloth: np.ndarray  # (Ha, Wa, 3)
    wood: np.ndarray  # (Ha, Wa, 3)
    floor: np.ndarray  # (Hf, Wf, 3) a tile of floorboards, repeated
    x0: float  # table x of atlas column 0
    y0: float  # table y of atlas row 0
    res: float  # mm per atlas pixel

    def coords(self, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """cv2.remap maps (map_x, map_y) for table points xy (..., 2)."""
        mx = ((xy[..., 0] - self.x0) / self.res).astype(np.float32)
        my = ((xy[..., 1] - self.y0) / self.res).astype(np.float32)
        return mx, my

    def sample_floor(self, xy: np.ndarray) -> np.ndarray:
        mx = (xy[..., 0] / FLOOR_MM_PER_PX).astype(np.float32)
        my = (xy[..., 1] / FLOOR_MM_PER_PX).astype(np.float32)
        out: np.ndarray = cv2.remap(self.floor, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)
        return out

    def sample(self, which: np.ndarray, xy: np.ndarray) -> np.ndarray:
        mx, my = self.coords(xy)
        out: np.ndarray = cv2.remap(which, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        return out


def _noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Smooth noise of unit spread: a coarse random grid upsampled to `shape`."""
    coarse = rng.standard_normal((max(2, cells[0]), max(2, cells[1]))).astype(np.float32)
    out: np.ndarray = cv2.resize(coarse, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)
    return out / max(float(out.std()), 1e-6)


def build_atlas(table: Table, style: RenderStyle, rng: np.random.Generator) -> Atlas:
    hl_out, hw_out = table_outer_half(table)
    res = ATLAS_MM_PER_PX
    wa, ha = int(np.ceil(2 * hl_out / res)), int(np.ceil(2 * hw_out / res))
    shape = (ha, wa)
    k = style.cloth_texture
    # Cloth: coarse mottling, the nap's streaks along the table, and fibre grain.
    shade = 1.0 + k * (
        0.018 * _noise(rng, shape, (ha // 160, wa // 160))
        + 0.007 * _noise(rng, shape, (ha // 12, wa // 400))
        + 0.010 * _noise(rng, shape, (ha // 40, wa // 40))
    )
    fibre = rng.standard_normal(shape).astype(np.float32)
    fibre = np.asarray(cv2.GaussianBlur(fibre, (0, 0), 0.7), np.float32)
    shade += k * 0.03 * fibre / max(float(fibre.std()), 1e-6)
    base = np.asarray(style.cloth_bgr, np.float32) / 255.0
    cloth = shade[..., None] * base[None, None, :]
    _chalk(cloth, table, res, -hl_out, -hw_out, rng)
    if style.markings and table.spec.markings_painted:
        _paint_markings(cloth, table, res, -hl_out, -hw_out)
    # Wood: grain along each rail's length, plank-to-plank tone changes.
    grain_x = _noise(rng, shape, (ha // 3, max(2, wa // 300)))
    grain_y = _noise(rng, shape, (max(2, ha // 300), wa // 3))
    ys, xs = np.mgrid[0:ha, 0:wa]
    tx = xs * res - hl_out
    ty = ys * res - hw_out
    end_rail = (np.abs(tx) - table.half_length) > (np.abs(ty) - table.half_width)
    grain = np.where(end_rail, grain_y, grain_x)
    wood_shade = 1.0 + 0.10 * grain + 0.05 * _noise(rng, shape, (ha // 200, wa // 200))
    wood = wood_shade[..., None] * (np.asarray(style.rail_bgr, np.float32) / 255.0)[None, None, :]
    _paint_sights(wood, table, res, -hl_out, -hw_out)
    return Atlas(cloth.astype(np.float32), wood.astype(np.float32), _floor(style, rng), -hl_out, -hw_out, res)


def _floor(style: RenderStyle, rng: np.random.Generator) -> np.ndarray:
    """A 4 m x 2 m tile of floorboards (140 mm wide, along x) with grain and tone per board."""
    hf, wf = 500, 1000
    board_px = 140.0 / FLOOR_MM_PER_PX
    rows = np.arange(hf)[:, None] / board_px
    board = np.floor(rows).astype(int)
    tone = rng.normal(1.0, 0.05, board.max() + 2)[board]
    grain = _noise(rng, (hf, wf), (hf // 2, wf // 60))
    seam = np.clip(np.abs(rows - np.round(rows)) * board_px, 0.0, 1.0)  # a dark line between boards
    shade = (tone * (1.0 + 0.04 * grain)) * (0.8 + 0.2 * seam)
    base = np.asarray(style.floor_bgr, np.float32) / 255.0
    out: np.ndarray = (shade[..., None] * base[None, None, :]).astype(np.float32)
    return out


def _to_px(x: float, y: float, x0: float, y0: float, res: float) -> tuple[float, float]:
    return (x - x0) / res, (y - y0) / res


def _blend_mask(img: np.ndarray, mask: np.ndarray, colour: np.ndarray, opacity: float) -> None:
    a = (mask * opacity)[..., None]
    img[:] = img * (1.0 - a) + colour[None, None, :] * a


def _paint_markings(cloth: np.ndarray, table: Table, res: float, x0: float, y0: float) -> None:
    """Spots as small white dots; the house line and the centre line faintly drawn (chalk/pencil)."""
    shift = 4  # sub-pixel precision for cv2 drawing
    f = float(1 << shift)
    white = np.array([0.93, 0.95, 0.95], np.float32)
    hw = table.half_width
    lines = np.zeros(cloth.shape[:2], np.float32)
    for x, opacity in ((table.house_line_x, 0.55), (0.0, 0.3)):
        a = _to_px(x, -hw, x0, y0, res)
        b = _to_px(x, hw, x0, y0, res)
        layer = np.zeros_like(lines)
        cv2.line(layer, (round(a[0] * f), round(a[1] * f)), (round(b[0] * f), round(b[1] * f)), 1.0,
                 max(1, round(1.5 / res)), cv2.LINE_AA, shift)
        lines = np.maximum(lines, layer * opacity)
    # Soften to about the camera's footprint (~2 mm): a 1-texel line would alias into dashes.
    lines = np.asarray(cv2.GaussianBlur(lines, (0, 0), 1.6 / res), np.float32)
    _blend_mask(cloth, lines, white, 0.6)
    dots = np.zeros(cloth.shape[:2], np.float32)
    for name in ("centre_spot", "front_spot", "rear_spot"):
        x, y = table.markings[name]
        c = _to_px(x, y, x0, y0, res)
        cv2.circle(dots, (round(c[0] * f), round(c[1] * f)), round(5.0 / res * f), 1.0, -1, cv2.LINE_AA, shift)
    _blend_mask(cloth, dots, white, 0.9)


def _chalk(cloth: np.ndarray, table: Table, res: float, x0: float, y0: float, rng: np.random.Generator) -> None:
    """A few faint blue chalk smudges, mostly near the cushions where players bridge."""
    mask = np.zeros(cloth.shape[:2], np.float32)
    for _ in range(int(rng.integers(4, 10))):
        if rng.random() < 0.7:
            side = rng.integers(0, 4)
            t = rng.uniform(-1.0, 1.0)
            inset = rng.uniform(20.0, 120.0)
            hl, hw = table.half_length, table.half_width
            x, y = [(t * hl, hw - inset), (t * hl, -hw + inset), (-hl + inset, t * hw), (hl - inset, t * hw)][side]
        else:
            x, y = rng.uniform(-table.half_length, table.half_length), rng.uniform(-table.half_width, table.half_width)
        c = _to_px(float(x), float(y), x0, y0, res)
        axes = (max(1, round(rng.uniform(4, 14) / res)), max(1, round(rng.uniform(3, 8) / res)))
        angle, level = float(rng.uniform(0, 180)), float(rng.uniform(0.3, 0.8))
        cv2.ellipse(mask, (round(c[0]), round(c[1])), axes, angle, 0, 360, level, -1)
    mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), 2.5 / res), np.float32)
    _blend_mask(cloth, mask, np.array([0.75, 0.55, 0.35], np.float32), 0.35)


def _paint_sights(wood: np.ndarray, table: Table, res: float, x0: float, y0: float) -> None:
    """Mother-of-pearl sights along the rails' centre line: a real distractor near the cushions."""
    s = table.spec
    off = s.cushion_width_mm + s.rail_width_mm / 2.0
    hl, hw = table.half_length, table.half_width
    pts = [(sx * hl * k / 4.0, sy * (hw + off)) for k in (1, 2, 3) for sx in (-1, 1) for sy in (-1, 1)]
    pts += [(sx * (hl + off), hw * k / 2.0) for k in (-1, 0, 1) for sx in (-1, 1)]
    mask = np.zeros(wood.shape[:2], np.float32)
    shift = 4
    for x, y in pts:
        c = _to_px(x, y, x0, y0, res)
        cv2.circle(mask, (round(c[0] * 16), round(c[1] * 16)), round(4.5 / res * 16), 1.0, -1, cv2.LINE_AA, shift)
    _blend_mask(wood, mask, np.array([0.80, 0.84, 0.86], np.float32), 0.9)
