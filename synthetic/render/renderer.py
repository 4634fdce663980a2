"""The frame renderer: a pre-rendered static table, with balls, shadows and occluders drawn in small
patches over it each frame, exposure blur from sub-frame samples, and sensor noise."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.table import Table
from rules.events import BALL_IDS
from synthetic.render.background import Background, build_background
from synthetic.render.balls import BallLook, Sprite, ball_looks, shadow_factor, sphere_sprite
from synthetic.render.lighting import Lighting
from synthetic.render.occluders import capsule_box_points, capsule_colour, capsule_hit, capsule_shadow
from synthetic.render.rays import RayGrid
from synthetic.render.style import RenderStyle
from synthetic.render.textures import build_atlas
from synthetic.world import Capsule

Box = tuple[int, int, int, int]
NOISE_PAD = 32


@dataclass
class RenderResult:
    image: np.ndarray  # (H, W, 3) uint8 BGR
    visible_fraction: np.ndarray  # (B,) share of each ball's disc left uncovered (NaN: not drawn)


def _box(cx: float, cy: float, rx: float, ry: float) -> Box:
    return (int(np.floor(cx - rx)), int(np.floor(cy - ry)), int(np.ceil(cx + rx)) + 1, int(np.ceil(cy + ry)) + 1)


def _union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _intersect(a: Box, b: Box) -> Box | None:
    x0, y0, x1, y1 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def _line_kernel(half: np.ndarray) -> np.ndarray | None:
    """A normalised anti-aliased line from -half to +half pixels: the image path of the exposure."""
    n = float(np.hypot(half[0], half[1]))
    if not np.isfinite(n) or n < 0.3:
        return None
    a = int(np.ceil(n)) + 1
    k = np.zeros((2 * a + 1, 2 * a + 1), np.float32)
    f = 16.0
    p0 = (round((a - half[0]) * f), round((a - half[1]) * f))
    p1 = (round((a + half[0]) * f), round((a + half[1]) * f))
    cv2.line(k, p0, p1, 1.0, 1, cv2.LINE_AA, 4)
    s = float(k.sum())
    if s <= 0:
        return None
    out: np.ndarray = k / s
    return out


def _smear(img: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    out: np.ndarray = cv2.filter2D(img, -1, kernel, borderType=cv2.BORDER_CONSTANT)
    return out


class Renderer:
    """Renders frames of one table under one camera and style; the static work is done once here."""

    def __init__(
        self,
        table: Table,
        camera: CameraModel,
        style: RenderStyle,
        seed: int = 0,
        ids: tuple[str, ...] = BALL_IDS,
    ) -> None:
        self.table, self.camera, self.style, self.seed, self.ids = table, camera, style, int(seed), ids
        rng = np.random.default_rng(np.random.SeedSequence([self.seed, 0x5CE7E]))
        self.rays = RayGrid.build(camera)
        self.lighting = Lighting.build(table, style.lamps, style.ambient, rng)
        atlas = build_atlas(table, style, rng)
        self.background: Background = build_background(table, self.rays, style, self.lighting, atlas)
        self.looks: dict[str, BallLook] = ball_looks(style, ids, rng)
        self.bounce = np.asarray(style.cloth_bgr, np.float64) / 255.0
        self.frame_box: Box = (0, 0, camera.width, camera.height)
        self._noise = self._noise_bank(rng)
        # A ball at rest looks the same from frame to frame: its sprite and shadow are reused.
        self._still: dict[int, tuple[bytes, Sprite, np.ndarray | None]] = {}

    # --- helpers ------------------------------------------------------------------------------
    def _noise_bank(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray] | None:
        if self.style.noise_sigma <= 0:
            return None
        h, w = self.camera.height + NOISE_PAD, self.camera.width + NOISE_PAD
        n = np.rint(rng.normal(0.0, self.style.noise_sigma, (h, w, 3))).astype(np.int16)
        return np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)

    def _radius_px(self, centre: np.ndarray) -> float:
        return self.rays.focal * self.table.ball_radius / float(np.linalg.norm(centre - self.rays.origin))

    def _ext(self, box: Box) -> Box:
        return self.rays.clip_box(box)

    def _grid(self, arr: np.ndarray, box: Box) -> np.ndarray:
        """Slice of a grown-grid array (depth, gain, bed_xy) for a frame-coordinate box."""
        m = self.rays.margin
        return arr[box[1] + m : box[3] + m, box[0] + m : box[2] + m]

    # --- frames -------------------------------------------------------------------------------
    def render(
        self,
        pos: np.ndarray,
        rot: np.ndarray | None = None,
        vel: np.ndarray | None = None,
        capsules: Sequence[Capsule] = (),
        exposure_s: float = 0.0,
        frame_index: int = 0,
    ) -> RenderResult:
        """pos (B, 3) ball centres in table mm (NaN rows are not drawn), rot (B, 3, 3), vel (B, 3) mm/s."""
        b = len(self.ids)
        pos = np.asarray(pos, float)
        if pos.shape != (b, 3):
            raise ValueError(f"pos must have shape ({b}, 3) for ids {self.ids}, got {pos.shape}")
        rot = np.broadcast_to(np.eye(3), (b, 3, 3)) if rot is None else np.asarray(rot, float)
        vel = np.zeros((b, 3)) if vel is None else np.nan_to_num(np.asarray(vel, float))
        r = self.table.ball_radius
        frame = self.background.image.copy()
        alive = [i for i in range(b) if np.all(np.isfinite(pos[i]))]
        # Centres at the middle, start and end of the exposure: a fast ball becomes a streak.
        centres: dict[int, np.ndarray] = {}
        for i in alive:
            rpx = self._radius_px(pos[i])
            travel_px = float(np.linalg.norm(vel[i])) * exposure_s * rpx / r
            offs = np.array([0.0, -0.5, 0.5]) * exposure_s if travel_px > 0.3 else np.zeros(1)
            centres[i] = pos[i][None, :] + offs[:, None] * vel[i][None, :]
        all_c = np.concatenate([centres[i] for i in alive]) if alive else np.zeros((0, 3))
        proj = self.camera.project(all_c) if alive else np.zeros((0, 2))
        boxes: dict[int, Box] = {}
        shadow_boxes: dict[int, Box] = {}
        smear: dict[int, np.ndarray | None] = {}
        start = 0
        for i in alive:
            n = len(centres[i])
            pts = proj[start : start + n]
            start += n
            smear[i] = _line_kernel((pts[2] - pts[1]) / 2.0) if n == 3 else None
            rpx = self._radius_px(pos[i])
            box = _box(pts[0, 0], pts[0, 1], 1.3 * rpx + 2, 1.3 * rpx + 2)
            sbox = _box(pts[0, 0], pts[0, 1], 2.3 * rpx + 3, 2.3 * rpx + 3)
            for p in pts[1:]:
                box = _union(box, _box(p[0], p[1], 1.3 * rpx + 2, 1.3 * rpx + 2))
                sbox = _union(sbox, _box(p[0], p[1], 2.3 * rpx + 3, 2.3 * rpx + 3))
            boxes[i], shadow_boxes[i] = self._ext(box), sbox
        # A ball wholly outside the frame and its margin (flown off the table) is not drawn.
        alive = [i for i in alive if boxes[i][2] > boxes[i][0] and boxes[i][3] > boxes[i][1]]
        keys = {i: centres[i].tobytes() + rot[i].tobytes() for i in alive}
        still = {i for i in alive if i in self._still and self._still[i][0] == keys[i]}
        # Shadows first, on the cloth only.
        shadows: dict[int, np.ndarray | None] = {}
        for i in alive:
            fb = _intersect(shadow_boxes[i], self.frame_box)
            fac = self._still[i][2] if i in still else self._shadow(fb, centres[i][0], smear[i])
            shadows[i] = fac
            if fac is not None and fb is not None:
                patch = frame[fb[1] : fb[3], fb[0] : fb[2]]
                patch[:] = np.clip(patch * fac[..., None] + 0.5, 0, 255).astype(np.uint8)
        # Balls, farthest from the camera first.
        order = sorted(alive, key=lambda j: -float(np.linalg.norm(pos[j] - self.rays.origin)))
        sprites: dict[int, Sprite] = {}
        for i in order:
            sp = self._still[i][1] if i in still else self._ball_sprite(i, boxes[i], centres[i][0], rot[i], smear[i])
            sprites[i] = sp
            self._composite(frame, boxes[i], sp.colour, sp.alpha)
        self._still = {i: (keys[i], sprites[i], shadows[i]) for i in alive if len(centres[i]) == 1}
        # Occluders over everything below them.
        cap_layers = self._draw_capsules(frame, capsules)
        vis = np.full(b, np.nan)
        for i in alive:
            vis[i] = self._visible_fraction(i, boxes[i], pos[i], rot[i], sprites[i], cap_layers, capsules)
        if self._noise is not None:
            rng = np.random.default_rng(np.random.SeedSequence([self.seed, 0x7015E, int(frame_index)]))
            oy, ox = rng.integers(0, NOISE_PAD, 2)
            h, w = frame.shape[:2]
            pos_n, neg_n = self._noise
            cv2.add(frame, pos_n[oy : oy + h, ox : ox + w], dst=frame)
            cv2.subtract(frame, neg_n[oy : oy + h, ox : ox + w], dst=frame)
        return RenderResult(frame, vis)

    def ball_sprite(self, ball: str, centre: np.ndarray, rot: np.ndarray | None = None) -> tuple[Box, Sprite]:
        """One ball alone, unblurred: its box in frame pixels and its sprite (for tests and tools)."""
        c = np.asarray(centre, float)
        u, v = self.camera.project(c[None, :])[0]
        rpx = self._radius_px(c)
        box = self._ext(_box(u, v, 1.3 * rpx + 2, 1.3 * rpx + 2))
        return box, self._ball_sprite(self.ids.index(ball), box, c, np.eye(3) if rot is None else rot, None)

    def _shadow(self, fb: Box | None, centre: np.ndarray, kernel: np.ndarray | None) -> np.ndarray | None:
        if fb is None:
            return None
        xy = self._grid(self.background.bed_xy, fb)
        if not np.isfinite(xy[..., 0]).any():
            return None
        fac = shadow_factor(xy, centre, self.table.ball_radius, self.lighting)
        if kernel is None:
            return fac
        out: np.ndarray = 1.0 - _smear(1.0 - fac, kernel)
        return out

    def _ball_sprite(self, i: int, box: Box, centre: np.ndarray, rot: np.ndarray, kernel: np.ndarray | None) -> Sprite:
        """The ball at the middle of the exposure, smeared along its image motion when it moves."""
        rays = self.rays.patch(box)
        gain = self._grid(self.background.gain, box)
        depth = self._grid(self.background.depth, box)
        look = self.looks[self.ids[i]]
        sp = sphere_sprite(rays, self.rays.origin, centre, self.table.ball_radius, rot, look, self.lighting, gain,
                           depth, self.rays.focal, self.bounce)
        if kernel is None:
            return sp
        return Sprite(_smear(sp.colour, kernel), _smear(sp.alpha, kernel), sp.full)

    def _composite(self, frame: np.ndarray, box: Box, colour: np.ndarray, alpha: np.ndarray) -> None:
        """frame = colour + (1 - alpha) frame over the part of the box inside the frame."""
        fb = _intersect(box, self.frame_box)
        if fb is None:
            return
        sx0, sy0 = fb[0] - box[0], fb[1] - box[1]
        sl = (slice(sy0, sy0 + fb[3] - fb[1]), slice(sx0, sx0 + fb[2] - fb[0]))
        patch = frame[fb[1] : fb[3], fb[0] : fb[2]].astype(np.float32)
        out = colour[sl] * 255.0 + (1.0 - alpha[sl])[..., None] * patch
        frame[fb[1] : fb[3], fb[0] : fb[2]] = np.clip(out + 0.5, 0, 255).astype(np.uint8)

    def _capsule_box(self, cap: Capsule) -> Box | None:
        pts = capsule_box_points(cap)
        if np.any(pts[:, 2] >= self.rays.origin[2] - 50.0):
            return None
        px = self.camera.project(pts)
        rad = max(self.rays.focal * cap.radius_mm / float(np.linalg.norm(p - self.rays.origin)) for p in pts)
        box = (
            int(np.floor(px[:, 0].min() - 1.3 * rad - 2)),
            int(np.floor(px[:, 1].min() - 1.3 * rad - 2)),
            int(np.ceil(px[:, 0].max() + 1.3 * rad + 3)),
            int(np.ceil(px[:, 1].max() + 1.3 * rad + 3)),
        )
        return self._ext(box)

    def _draw_capsules(self, frame: np.ndarray, capsules: Sequence[Capsule]) -> list[tuple[Box, np.ndarray]]:
        """Draw shadows then capsules (farthest first); returns each capsule's box and coverage."""
        layers: list[tuple[Box, np.ndarray]] = []
        if not capsules:
            return layers
        for cap in capsules:
            ground = Capsule((cap.p0[0], cap.p0[1], 0.0), (cap.p1[0], cap.p1[1], 0.0), cap.radius_mm, cap.colour_bgr)
            gb = self._capsule_box(ground)
            if gb is None:
                continue
            pad = int(0.25 * max(cap.p0[2], cap.p1[2]) * self.rays.focal / 3000.0) + 4
            fb = _intersect((gb[0] - pad, gb[1] - pad, gb[2] + pad, gb[3] + pad), self.frame_box)
            if fb is None:
                continue
            xy = self._grid(self.background.bed_xy, fb)
            if np.isfinite(xy[..., 0]).any():
                fac = capsule_shadow(xy, cap)
                patch = frame[fb[1] : fb[3], fb[0] : fb[2]]
                patch[:] = np.clip(patch * fac[..., None] + 0.5, 0, 255).astype(np.uint8)
        mid = [np.linalg.norm((np.asarray(c.p0) + np.asarray(c.p1)) / 2 - self.rays.origin) for c in capsules]
        for j in np.argsort(mid)[::-1]:
            cap = capsules[int(j)]
            box = self._capsule_box(cap)
            if box is None or box[2] <= box[0] or box[3] <= box[1]:
                continue
            cov, prof = capsule_hit(self.rays.patch(box), self.rays.origin, cap, self.rays.focal)
            colour = capsule_colour(cap, prof, self._grid(self.background.gain, box)) * cov[..., None]
            self._composite(frame, box, colour, cov)
            layers.append((box, cov))
        return layers

    def _visible_fraction(
        self,
        i: int,
        box: Box,
        centre: np.ndarray,
        rot: np.ndarray,
        sprite: Sprite,
        cap_layers: list[tuple[Box, np.ndarray]],
        capsules: Sequence[Capsule],
    ) -> float:
        """Share of the ball's disc (at the frame time) inside the frame and not covered by an occluder."""
        full = sprite.full
        total = float(full.sum())
        if total <= 0:
            return 0.0
        seen = full.copy()
        fb = _intersect(box, self.frame_box)
        inside = np.zeros_like(full)
        if fb is not None:
            inside[fb[1] - box[1] : fb[3] - box[1], fb[0] - box[0] : fb[2] - box[0]] = 1.0
        seen *= inside
        for cbox, _cov in cap_layers:
            if _intersect(cbox, box) is None:
                continue
            for cap in capsules:
                cov, _ = capsule_hit(self.rays.patch(box), self.rays.origin, cap, self.rays.focal)
                seen *= 1.0 - cov
            break
        return float(seen.sum()) / total


_CACHE: dict[str, Renderer] = {}


def _key(table: Table, camera: CameraModel, style: RenderStyle, seed: int) -> str:
    return repr((table.spec, camera.to_dict(), style, int(seed)))


def get_renderer(table: Table, camera: CameraModel, style: RenderStyle, seed: int = 0) -> Renderer:
    """A Renderer, reused while table, camera, style and seed stay the same (the static work is costly)."""
    key = _key(table, camera, style, seed)
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = Renderer(table, camera, style, seed)
    return _CACHE[key]


def render_frame(
    table: Table,
    camera: CameraModel,
    positions_mm: Mapping[str, tuple[float, float, float]],
    style: RenderStyle | None = None,
    seed: int = 0,
    rot: Mapping[str, np.ndarray] | None = None,
    vel_mm_s: Mapping[str, tuple[float, float, float]] | None = None,
    occluders: Sequence[Capsule] = (),
    exposure_s: float = 0.0,
    frame_index: int = 0,
) -> np.ndarray:
    """One BGR uint8 frame of the balls at `positions_mm` (ball centres, table mm; z = R on the cloth).

    Balls not in `positions_mm` are not drawn. `exposure_s` > 0 with `vel_mm_s` blurs moving balls.
    """
    r = get_renderer(table, camera, style if style is not None else RenderStyle(), seed)
    b = len(r.ids)
    pos = np.full((b, 3), np.nan)
    rots = np.broadcast_to(np.eye(3), (b, 3, 3)).copy()
    vel = np.zeros((b, 3))
    for k, bid in enumerate(r.ids):
        if bid in positions_mm:
            pos[k] = positions_mm[bid]
        if rot is not None and bid in rot:
            rots[k] = rot[bid]
        if vel_mm_s is not None and bid in vel_mm_s:
            vel[k] = vel_mm_s[bid]
    unknown = set(positions_mm) - set(r.ids)
    if unknown:
        raise ValueError(f"unknown ball ids {sorted(unknown)}; expected some of {r.ids}")
    return r.render(pos, rots, vel, occluders, exposure_s, frame_index).image
