"""Balls as ray-traced spheres in small per-ball patches: painted numbers that turn with the ball,
lamp shading and highlights, analytic anti-aliased edges; and their shadows on the cloth."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from synthetic.render.lighting import Lighting
from synthetic.render.style import POOL_BGR, BallSet, RenderStyle

GLYPH_PX = 64


@dataclass(frozen=True)
class BallLook:
    """How one ball is painted: a base colour, an optional stripe, and a decal on both poles."""

    base: np.ndarray  # (3,) float BGR 0..1
    stripe: np.ndarray | None  # (3,) colour of the equatorial band (pool 9-15)
    decal: np.ndarray | None  # (G, G) float32 ink coverage of the number
    decal_disc: bool  # a white disc under the number (pool)
    ink: np.ndarray  # (3,)
    cap: float  # half-angle of the decal, radians
    shine: float  # specular strength


def _glyph(text: str, disc: bool) -> np.ndarray:
    g = np.zeros((GLYPH_PX, GLYPH_PX), np.float32)
    font = cv2.FONT_HERSHEY_DUPLEX
    thick = 5 if len(text) == 1 else 4
    scale = 1.9 if len(text) == 1 else 1.3
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    org = ((GLYPH_PX - tw) // 2, (GLYPH_PX + th) // 2)
    cv2.putText(g, text, org, font, scale, 1.0, thick, cv2.LINE_AA)
    if len(text) == 2 or disc:
        g = g * 0.95
    out: np.ndarray = cv2.GaussianBlur(g, (0, 0), 1.0)
    return out


def _rgb(c: tuple[int, int, int]) -> np.ndarray:
    return np.asarray(c, np.float32) / 255.0


def ball_looks(style: RenderStyle, ids: tuple[str, ...], rng: np.random.Generator) -> dict[str, BallLook]:
    """The paint of every ball of the set; ivory balls differ slightly in tone, as real ones do."""
    out: dict[str, BallLook] = {}
    for bid in ids:
        tint = np.clip(rng.normal(1.0, 0.015, 3), 0.95, 1.05).astype(np.float32)
        if style.ball_set is BallSet.PYRAMID:
            if bid.isdigit():
                out[bid] = BallLook(_rgb(style.ivory_bgr) * tint, None, _glyph(bid, False), False,
                                    _rgb(style.number_bgr), 0.36, 0.85)
            else:
                out[bid] = BallLook(_rgb(style.coloured_bgr), None, None, False, _rgb(style.number_bgr), 0.0, 0.85)
        else:
            white = np.array([0.92, 0.93, 0.93], np.float32)
            if bid.isdigit():
                n = int(bid)
                colour = _rgb(POOL_BGR[n if n <= 8 else n - 8])
                striped = n > 8
                out[bid] = BallLook(white if striped else colour, colour if striped else None,
                                    _glyph(bid, True), True, np.array([0.1, 0.1, 0.1], np.float32), 0.42, 0.9)
            else:
                out[bid] = BallLook(white, None, None, False, white, 0.0, 0.9)
    return out


@dataclass
class Sprite:
    colour: np.ndarray  # (h, w, 3) float32, premultiplied by alpha
    alpha: np.ndarray  # (h, w) coverage after the depth test against the table
    full: np.ndarray  # (h, w) coverage of the whole disc, nothing in front


def sphere_sprite(
    rays: np.ndarray,
    origin: np.ndarray,
    centre: np.ndarray,
    radius: float,
    rot: np.ndarray,
    look: BallLook,
    lighting: Lighting,
    gain: np.ndarray,
    depth: np.ndarray,
    focal: float,
    bounce: np.ndarray,
) -> Sprite:
    """Ray-trace one sphere over a patch of rays (h, w, 3); edges anti-aliased by the ray's miss distance."""
    h, w, _ = rays.shape
    d = rays.reshape(-1, 3).astype(np.float64)
    oc = origin - centre
    b = d @ oc
    c = float(oc @ oc) - radius * radius
    disc = b * b - c
    miss = np.sqrt(np.clip(float(oc @ oc) - b * b, 0.0, None))  # ray's distance from the centre
    pix_mm = float(np.sqrt(oc @ oc)) / focal
    full = np.clip((radius - miss) / pix_mm + 0.5, 0.0, 1.0)
    t = -b - np.sqrt(np.clip(disc, 0.0, None))
    p = origin + t[:, None] * d
    n = (p - centre) / radius
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    albedo = np.broadcast_to(look.base, (len(d), 3)).copy()
    nb = n @ rot  # body frame normal: rot maps body -> table, so n_body = rot^T n
    if look.stripe is not None:
        band = np.clip((0.5 - np.abs(nb[:, 2])) / 0.03 + 0.5, 0.0, 1.0)[:, None]
        albedo = albedo * (1 - band) + look.stripe[None, :] * band
    if look.decal is not None:
        s = np.sin(look.cap)
        ink = np.zeros(len(d), np.float32)
        for sign in (1.0, -1.0):
            gx = ((sign * nb[:, 0] / s + 1.0) * 0.5 * (GLYPH_PX - 1)).astype(np.float32)
            gy = ((-nb[:, 1] / s + 1.0) * 0.5 * (GLYPH_PX - 1)).astype(np.float32)
            on_cap = (sign * nb[:, 2]) > 0
            g = cv2.remap(look.decal, gx.reshape(-1, 1), gy.reshape(-1, 1), cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=0.0).reshape(-1)
            if look.decal_disc:
                r2 = (nb[:, 0] ** 2 + nb[:, 1] ** 2) / (s * s)
                disc_cov = np.clip((0.92 - r2) / 0.08, 0.0, 1.0) * on_cap
                albedo = albedo * (1 - disc_cov[:, None]) + np.float32(0.92) * disc_cov[:, None]
            ink = np.maximum(ink, g * on_cap)
        albedo = albedo * (1 - ink[:, None]) + look.ink[None, :] * ink[:, None]
    # Lamps are a metre away: their direction and strength are taken once at the ball's centre.
    to_l = lighting.lamps - centre[None, :]
    to_l /= np.linalg.norm(to_l, axis=1, keepdims=True)
    e_up = lighting.per_lamp(centre[None, :])[0]  # (L,) on a surface facing up
    per = np.clip(n @ to_l.T, 0.0, None) * (e_up / np.maximum(to_l[:, 2], 1e-3))[None, :]
    amb = lighting.ambient * (0.55 + 0.45 * n[:, 2])
    diffuse = amb + 1.1 * per.sum(axis=1)
    # Light bounced off the cloth tints the lower half of the ball.
    tint = bounce[None, :] * (0.35 * lighting.ambient + 0.25) * np.clip(0.3 - n[:, 2], 0.0, 1.0)[:, None]
    v = -(centre - origin) / np.linalg.norm(centre - origin)
    half = to_l + v[None, :]
    half /= np.linalg.norm(half, axis=1, keepdims=True)
    nh = np.clip(n @ half.T, 0.0, 1.0)
    spec = look.shine * 0.9 * (nh**90 * np.clip(e_up * 1.2, 0.0, 1.0)[None, :]).sum(axis=1)
    g = gain.reshape(-1).astype(np.float64)
    colour = (albedo * diffuse[:, None] + albedo * tint) * g[:, None] + spec[:, None] * g[:, None]
    visible = t < depth.reshape(-1)
    alpha = full * visible
    return Sprite(
        (np.clip(colour, 0.0, 1.0) * alpha[:, None]).reshape(h, w, 3).astype(np.float32),
        alpha.reshape(h, w).astype(np.float32),
        full.reshape(h, w).astype(np.float32),
    )


def shadow_factor(bed_xy: np.ndarray, centre: np.ndarray, radius: float, lighting: Lighting) -> np.ndarray:
    """(h, w) multiplier for the cloth around a ball: one soft shadow per lamp plus contact occlusion."""
    x, y = bed_xy[..., 0].astype(np.float64), bed_xy[..., 1].astype(np.float64)
    on_bed = np.isfinite(x)
    x, y = np.where(on_bed, x, 1e9), np.where(on_bed, y, 1e9)
    direct = lighting.per_lamp(np.array([[centre[0], centre[1], 0.0]]))[0]
    share = direct / (lighting.ambient + direct.sum())
    out = np.ones(x.shape)
    cz = max(float(centre[2]), 1e-3)
    for lamp, frac in zip(lighting.lamps, share, strict=True):
        k = lamp[2] / max(lamp[2] - cz, 1.0)
        sx = lamp[0] + (centre[0] - lamp[0]) * k
        sy = lamp[1] + (centre[1] - lamp[1]) * k
        r = radius * k * 0.97
        pen = lighting.lamp_radius_mm * cz / max(lamp[2] - cz, 1.0) + 1.5
        dist = np.hypot(x - sx, y - sy)
        out -= frac * np.clip((r - dist) / (2 * pen) + 0.5, 0.0, 1.0)
    rho = np.hypot(x - centre[0], y - centre[1])
    lift = np.clip(1.0 - (cz - radius) / radius, 0.0, 1.0)
    ao = 0.4 * lift * np.clip(1.0 - (rho - 0.8 * radius) / (0.6 * radius), 0.0, 1.0) ** 2
    out *= 1.0 - ao
    result: np.ndarray = np.clip(out, 0.0, 1.0).astype(np.float32)
    return result
