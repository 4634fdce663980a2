"""Occluders (the player's forearm and cue): capsules ray-cast per pixel, with a soft shadow below."""

from __future__ import annotations

import numpy as np

from synthetic.world import Capsule


def capsule_hit(rays: np.ndarray, origin: np.ndarray, cap: Capsule, focal: float) -> tuple[np.ndarray, np.ndarray]:
    """Coverage (h, w) of a capsule over a patch of rays, and a 0..1 shading profile (1 on its axis)."""
    a = np.asarray(cap.p0, float)
    u = np.asarray(cap.p1, float) - a
    uu = max(float(u @ u), 1e-9)
    d = rays.reshape(-1, 3).astype(np.float64)
    w0 = origin - a
    b = d @ u
    dw = d @ w0
    e = float(u @ w0)
    denom = np.maximum(uu - b * b, 1e-9)
    s = np.clip((e - b * dw) / denom, 0.0, 1.0)
    # Closest point on the ray to the segment point, then refine the segment point once.
    t = s * b - dw
    q = origin + t[:, None] * d
    s = np.clip(((q - a) @ u) / uu, 0.0, 1.0)
    t = np.clip(s * b - dw, 0.0, None)
    q = origin + t[:, None] * d
    seg = a + s[:, None] * u
    dist = np.linalg.norm(q - seg, axis=1)
    depth = np.linalg.norm(seg - origin, axis=1)
    pix_mm = depth / focal
    cov = np.clip((cap.radius_mm - dist) / pix_mm + 0.5, 0.0, 1.0)
    prof = np.sqrt(np.clip(1.0 - (dist / cap.radius_mm) ** 2, 0.0, 1.0))
    h, w = rays.shape[:2]
    return cov.reshape(h, w).astype(np.float32), prof.reshape(h, w).astype(np.float32)


def capsule_colour(cap: Capsule, prof: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """Cylinder shading of a capsule: lit along its top, darker towards its silhouette."""
    base = np.asarray(cap.colour_bgr, np.float32) / 255.0
    shade = 0.38 + 0.62 * prof
    out: np.ndarray = base[None, None, :] * (shade * gain)[..., None]
    return out


def capsule_shadow(bed_xy: np.ndarray, cap: Capsule) -> np.ndarray:
    """(h, w) multiplier: a soft shadow under the capsule, wider and fainter the higher it is."""
    x, y = bed_xy[..., 0].astype(np.float64), bed_xy[..., 1].astype(np.float64)
    ok = np.isfinite(x)
    x, y = np.where(ok, x, 1e9), np.where(ok, y, 1e9)
    a = np.asarray(cap.p0, float)
    b = np.asarray(cap.p1, float)
    u = b[:2] - a[:2]
    uu = max(float(u @ u), 1e-9)
    s = np.clip(((x - a[0]) * u[0] + (y - a[1]) * u[1]) / uu, 0.0, 1.0)
    px, py = a[0] + s * u[0], a[1] + s * u[1]
    z = a[2] + s * (b[2] - a[2])
    dist = np.hypot(x - px, y - py)
    soft = 0.25 * np.maximum(z, 0.0) + 6.0
    strength = 0.45 * np.clip(1.0 - z / 1500.0, 0.1, 1.0)
    out: np.ndarray = (1.0 - strength * np.clip((cap.radius_mm - dist) / (2 * soft) + 0.5, 0.0, 1.0)).astype(
        np.float32
    )
    return out


def capsule_box_points(cap: Capsule, n: int = 9) -> np.ndarray:
    """Points along the capsule axis, for bounding it in the image."""
    a = np.asarray(cap.p0, float)
    b = np.asarray(cap.p1, float)
    s = np.linspace(0.0, 1.0, n)[:, None]
    out: np.ndarray = a + s * (b - a)
    return out
