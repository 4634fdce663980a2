"""Ball centres inside foreground blobs of the rectified bed: disc peaks that split merged blobs (a rack,
frozen pairs) into balls of the known radius, a vectorised mean-shift refinement, and the disc/ring tests
that tell balls from arms and cues.

A solid blob has no inner edges in a binary mask, so peaks are taken on the clipped score instead, where
the dark gaps and contact shadows between touching balls separate them.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np


def disc_kernel(radius: float) -> np.ndarray:
    """A float32 disc of the given radius (pixels), normalised to sum 1."""
    n = int(np.ceil(radius))
    yy, xx = np.mgrid[-n : n + 1, -n : n + 1]
    k = ((xx * xx + yy * yy) <= radius * radius).astype(np.float32)
    return k / k.sum()


@functools.lru_cache(maxsize=8)
def _window(radius: float) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Offsets of the square window around a centre: n, and flat (K,) int dy, dx and float32 yy, xx."""
    n = int(np.ceil(radius)) + 1
    yy, xx = np.mgrid[-n : n + 1, -n : n + 1]
    # the centre is within half a pixel of the window's middle: corners past radius + 0.5 + 0.71 never count
    keep = (yy * yy + xx * xx <= (radius + 1.25) ** 2).ravel()
    yy, xx = yy.ravel()[keep], xx.ravel()[keep]
    return n, yy, xx, yy.astype(np.float32), xx.astype(np.float32)


def mean_shift(
    weights: np.ndarray, centres: np.ndarray, radius: float, iterations: int = 5
) -> tuple[np.ndarray, np.ndarray]:
    """Move each centre to the weighted centroid of `weights` (float 0..1, or uint8 0..255) within `radius`.

    Returns the refined centres and each disc's mean weight (its fill, 0..1). On a mask that is flat over
    the ball, the fixed point is the disc centre, and a touching neighbour only adds what reaches into the
    window. The window edge is anti-aliased so that the result moves smoothly with sub-pixel shifts.
    All centres are iterated together (vectorised, on flat windows: a few array operations per iteration).
    """
    c = np.asarray(centres, dtype=float).reshape(-1, 2).copy()
    if len(c) == 0:
        return c, np.zeros(0)
    h, w = weights.shape
    n, oy, ox, yy, xx = _window(radius)
    flat = weights.reshape(-1) if weights.flags.c_contiguous else np.ascontiguousarray(weights).reshape(-1)
    off = oy * w + ox  # flat offsets of the window (away from the border)
    scale = np.float32(1.0 / 255.0) if weights.dtype == np.uint8 else np.float32(1.0)
    r_out = np.float32(radius + 0.5)
    r_in2 = np.float32((0.9 * radius) ** 2)
    one, zero = np.float32(1.0), np.float32(0.0)
    # few array operations per iteration (this runs on every moving ball every frame): x and y side by side
    for it in range(iterations + 1):
        ic = np.floor(c + 0.5).astype(np.intp)
        hi = ic.max(axis=0)
        if ic.min() < n or hi[0] >= w - n or hi[1] >= h - n:  # clip at the border only
            gy = np.clip(ic[:, 1:] + oy[None], 0, h - 1)
            gx = np.clip(ic[:, :1] + ox[None], 0, w - 1)
            idx = gy * w + gx
        else:
            idx = (ic[:, 1] * w + ic[:, 0])[:, None] + off[None]
        patch = flat[idx].astype(np.float32)
        if scale != 1.0:
            patch *= scale
        f = (ic - c).astype(np.float32)
        fx, fy = f[:, :1], f[:, 1:]
        dx = xx + fx
        dy = yy + fy
        d2 = dx * dx
        d2 += dy * dy
        win = r_out - np.sqrt(d2)
        np.minimum(win, one, out=win)  # a clip to 0..1 (np.clip's dispatch costs more than the work here)
        np.maximum(win, zero, out=win)
        wts = patch * win
        total = wts.sum(axis=1)
        ok = total > 1e-6
        safe = np.maximum(total, 1e-6)
        # sum(w dx) = sum(w xx) + f sum(w): one matrix-vector product per axis
        step = np.stack([wts @ xx, wts @ yy], axis=1)
        step /= safe[:, None]
        step += f
        if not ok.all():
            step[~ok] = 0.0
        if it == iterations or bool((np.abs(step).sum(axis=1) < 0.02).all()):
            inner = d2 <= r_in2
            fill = (patch * inner).sum(axis=1) / np.maximum(inner.sum(axis=1), 1)
            break
        c += step
    return c, fill.astype(float)


def disc_mean(img: np.ndarray, centres: np.ndarray, radius: float) -> np.ndarray:
    """Mean of `img` inside `radius` of each centre (integer-rounded centres, clipped at the border)."""
    c = np.rint(np.asarray(centres, dtype=float).reshape(-1, 2)).astype(int)
    if len(c) == 0:
        return np.zeros(0)
    h, w = img.shape
    dy, dx = _disc_offsets(radius)
    iy = np.clip(c[:, 1:2] + dy[None, :], 0, h - 1)
    ix = np.clip(c[:, 0:1] + dx[None, :], 0, w - 1)
    return img[iy, ix].mean(axis=1).astype(float)


@functools.lru_cache(maxsize=8)
def _disc_offsets(radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Row and column offsets of the pixels within `radius` of a centre pixel (row-major order)."""
    n = int(np.ceil(radius))
    yy, xx = np.mgrid[-n : n + 1, -n : n + 1]
    keep = yy * yy + xx * xx <= radius * radius
    return yy[keep], xx[keep]


def ring_support(mask: np.ndarray, centres: np.ndarray, radius: float) -> np.ndarray:
    """Share of the ring 1.2 r .. 1.6 r around each centre that is foreground not explained by any disc.

    Near 0 for a ball on cloth or in a rack; near 1 for a disc placed inside an arm or a large occluder."""
    fg = unexplained(mask, centres, 1.08 * radius)
    out = np.zeros(len(centres))
    ring = np.zeros_like(mask)
    area = np.pi * (1.6**2 - 1.2**2) * radius * radius
    thick = max(1, round(0.4 * radius))
    for k, (cx, cy) in enumerate(np.asarray(centres, dtype=float).reshape(-1, 2)):
        ring[:] = 0
        cv2.circle(ring, (round(cx), round(cy)), round(1.4 * radius), 255, thick)
        out[k] = cv2.countNonZero(cv2.bitwise_and(fg, ring)) / area
    return out


def unexplained(mask: np.ndarray, centres: np.ndarray, radius: float) -> np.ndarray:
    """The foreground of `mask` (uint8) farther than `radius` from every centre."""
    covered = np.zeros_like(mask)
    for cx, cy in np.asarray(centres, dtype=float).reshape(-1, 2):
        cv2.circle(covered, (round(cx), round(cy)), round(radius), 255, -1)
    return cv2.bitwise_and(mask, cv2.bitwise_not(covered))


def ring_kernel(inner: float, outer: float) -> np.ndarray:
    """A float32 annulus inner..outer (pixels), normalised to sum 1."""
    n = int(np.ceil(outer))
    yy, xx = np.mgrid[-n : n + 1, -n : n + 1]
    d2 = xx * xx + yy * yy
    k = ((d2 >= inner * inner) & (d2 <= outer * outer)).astype(np.float32)
    return k / k.sum()


def response_peaks(weights: np.ndarray, radius: float, min_response: float = 0.3) -> np.ndarray:
    """Centres (K, 2) of ball-sized bright discs in `weights` (float32 0..1): local maxima of
    mean(disc 0.8 r) - 0.5 mean(ring 1.05 r .. 1.4 r), at least 1.3 r apart, strongest first.

    The dark gaps and shadows between touching balls make the ring term dip at each ball's own centre,
    so a rack gives one peak per ball where a binary mask gives one solid blob."""
    disc = cv2.filter2D(weights, -1, disc_kernel(0.8 * radius), borderType=cv2.BORDER_CONSTANT)
    ring = cv2.filter2D(weights, -1, ring_kernel(1.05 * radius, 1.4 * radius), borderType=cv2.BORDER_CONSTANT)
    resp = disc - 0.5 * ring
    size = max(3, round(1.2 * radius) | 1)
    peaks = (resp >= cv2.dilate(resp, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))) & (
        resp >= min_response
    )
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-resp[ys, xs])
    out: list[tuple[float, float]] = []
    for i in order:
        p = (float(xs[i]), float(ys[i]))
        if all((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 >= (1.3 * radius) ** 2 for q in out):
            out.append(p)
    return np.asarray(out, dtype=float).reshape(-1, 2)
