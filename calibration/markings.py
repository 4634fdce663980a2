"""Painted markings and pockets, looked for where a first camera fit predicts them.

Spots refine the fit at bed level (z = 0, while the noses stand at 42 mm: together they fix the camera
height); the house line tells the front end from the rear, which the table's outline cannot.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.table import Table

SPOTS = ("centre_spot", "front_spot", "rear_spot")
LINE_SUB = 9  # samples averaged along a painted line per profile


def _ball_radius_px(cam: CameraModel, table: Table, xy: tuple[float, float]) -> float:
    p = cam.project(np.array([[xy[0], xy[1], 0.0], [xy[0] + table.ball_radius, xy[1], 0.0]]))
    return float(np.linalg.norm(p[1] - p[0]))


def find_spots(lab: np.ndarray, cam: CameraModel, table: Table) -> dict[str, np.ndarray]:
    """Image centres of the painted spots that are visible (not under a ball, not occluded)."""
    out: dict[str, np.ndarray] = {}
    h, w = lab.shape[:2]
    for name in SPOTS:
        xy = table.markings[name]
        p = cam.project(np.array([[xy[0], xy[1], 0.0]]))[0]
        r = _ball_radius_px(cam, table, xy)
        half = round(1.3 * r) + 3
        x0, y0 = round(p[0]) - half, round(p[1]) - half
        if x0 < 0 or y0 < 0 or x0 + 2 * half >= w or y0 + 2 * half >= h:
            continue
        patch = lab[y0 : y0 + 2 * half + 1, x0 : x0 + 2 * half + 1].reshape(-1, 3)
        ref = np.median(patch, axis=0)
        d = np.linalg.norm(patch - ref, axis=1)
        mad = float(np.median(np.abs(d - np.median(d))))
        thr = max(8.0, float(np.median(d)) + 6.0 * 1.4826 * mad)
        dimg = d.reshape(2 * half + 1, 2 * half + 1).astype(np.float32)
        blob = (dimg > thr).astype(np.uint8)
        n, labels, stats, cents = cv2.connectedComponentsWithStats(blob, connectivity=8)
        best, best_d = -1, 0.8 * r
        for k in range(1, n):
            x, y, bw, bh, area = stats[k]
            touches = x == 0 or y == 0 or x + bw >= blob.shape[1] or y + bh >= blob.shape[0]
            if touches or area < 2 or area > 0.3 * np.pi * r * r:
                continue
            dist = float(np.hypot(cents[k][0] - half, cents[k][1] - half))
            if dist < best_d:
                best, best_d = k, dist
        if best < 0:
            continue
        # intensity-weighted centroid over the blob grown by a pixel (anti-aliased rim included)
        grown = cv2.dilate((labels == best).astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        wgt = np.where(grown, np.clip(dimg - 0.5 * thr, 0.0, None), 0.0)
        ys, xs = np.mgrid[0 : blob.shape[0], 0 : blob.shape[1]]
        s = float(wgt.sum())
        if s <= 0:
            continue
        out[name] = np.array([x0 + float((wgt * xs).sum()) / s, y0 + float((wgt * ys).sum()) / s])
    return out


def line_points(
    lab: np.ndarray, cam: CameraModel, table: Table, x_mm: float, search_mm: float = 60.0
) -> tuple[np.ndarray, float]:
    """Image points on a painted line across the table at x = x_mm, searched +-search_mm around where the
    camera predicts it (a first fit can be centimetres off at bed level), and the line's median contrast.

    A profile along x at each of 41 places across the table: the line is a narrow bright ridge on it.
    """
    ys = np.linspace(-0.85 * table.half_width, 0.85 * table.half_width, 41)
    offs = np.arange(-search_mm, search_mm + 0.25, 0.5)
    # each profile averages a strip of SUB samples along the line: painted lines can be very faint
    sub = (np.arange(LINE_SUB) - (LINE_SUB - 1) / 2.0) * (ys[1] - ys[0]) / LINE_SUB
    gx = x_mm + offs[None, None, :] + np.zeros((len(ys), LINE_SUB, 1))
    gy = (ys[:, None] + sub[None, :])[..., None] + np.zeros((1, 1, len(offs)))
    pts3 = np.column_stack([gx.ravel(), gy.ravel(), np.zeros(gx.size)])
    pxs = cam.project(pts3).reshape(len(ys), LINE_SUB, len(offs), 2)
    samples = cv2.remap(lab[..., 0], pxs[..., 0].reshape(len(ys), -1).astype(np.float32),
                        pxs[..., 1].reshape(len(ys), -1).astype(np.float32), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)
    prof = samples.reshape(len(ys), LINE_SUB, len(offs)).mean(axis=1)
    px = pxs[:, LINE_SUB // 2]
    pts, peaks, where = [], [], []
    for i in range(len(ys)):
        g = prof[i] - np.median(prof[i])
        noise = 1.4826 * float(np.median(np.abs(g)))
        j = int(np.argmax(g))
        if g[j] < max(1.5, 5.0 * noise) or j in (0, len(g) - 1):
            continue
        den = g[j - 1] - 2 * g[j] + g[j + 1]
        off = 0.5 * (g[j - 1] - g[j + 1]) / den if den < 0 else 0.0
        k = min(max(j + off, 0.0), len(g) - 1.001)
        k0 = int(k)
        pts.append(px[i, k0] + (k - k0) * (px[i, k0 + 1] - px[i, k0]))
        peaks.append(float(g[j]))
        where.append(offs[k0] + (k - k0) * (offs[1] - offs[0]))
    if len(pts) < 8:
        return np.zeros((0, 2)), 0.0
    # the ridge must sit at one offset along the line (a first fit is off by a smooth amount)
    w = np.asarray(where)
    med = float(np.median(w))
    keep = np.abs(w - med) < 6.0
    if keep.sum() < 8:
        return np.zeros((0, 2)), 0.0
    return np.asarray(pts)[keep], float(np.median(np.asarray(peaks)[keep]))


def dark_pockets(lab: np.ndarray, cam: CameraModel, table: Table) -> list[str]:
    """Pockets that look like holes: much darker than the cloth just inside their mouths."""
    h = table.spec.cushion_nose_height_mm
    found = []
    for pk in table.pockets.values():
        c, o = np.asarray(pk.mouth_centre), np.asarray(pk.outward)
        hole = cam.project(np.array([[*(c + 0.45 * pk.mouth_mm * o), h]]))[0]
        cloth = cam.project(np.array([[*(c - 2.0 * pk.mouth_mm * o), 0.0]]))[0]
        if not all(0 <= q[0] < lab.shape[1] - 1 and 0 <= q[1] < lab.shape[0] - 1 for q in (hole, cloth)):
            continue
        if lab[round(hole[1]), round(hole[0]), 0] < 0.5 * lab[round(cloth[1]), round(cloth[0]), 0]:
            found.append(pk.name)
    return found


def middle_mouths_mm(lab: np.ndarray, cam: CameraModel, table: Table) -> list[float]:
    """Width (table mm) of each middle pocket's gap in the cushion, measured just behind the nose line.

    A spec of the right shape but the wrong size (a pool preset over a pyramid table) fits the cushions and
    markings equally well; the pockets' mouths, whose size does not scale with the table, give it away.
    """
    sp = table.spec
    m = sp.middle_mouth_mm
    xs = np.arange(-3.0 * m, 3.0 * m + 0.5, 1.0)
    out = []
    for sy in (-1.0, 1.0):
        pts = np.column_stack([xs, np.full_like(xs, sy * (table.half_width + 10.0)),
                               np.full_like(xs, sp.cushion_nose_height_mm)])
        px = cam.project(pts).astype(np.float32)
        if np.any(px < 0) or np.any(px[:, 0] >= lab.shape[1] - 1) or np.any(px[:, 1] >= lab.shape[0] - 1):
            continue
        light = cv2.remap(lab[..., 0], px[:, 0].reshape(1, -1), px[:, 1].reshape(1, -1), cv2.INTER_LINEAR)[0]
        cushion = float(np.median(light[np.abs(xs) > 2.0 * m]))
        hole = float(np.min(light[np.abs(xs) < 0.5 * m]))
        if cushion - hole < 8.0:  # no clear dark gap: an arm or a ball in the way
            continue
        dark = light < (cushion + hole) / 2.0
        i0 = int(np.argmin(np.abs(xs)))
        if not dark[i0]:
            continue
        lo, hi = i0, i0
        while lo > 0 and dark[lo - 1]:
            lo -= 1
        while hi < len(xs) - 1 and dark[hi + 1]:
            hi += 1
        if lo == 0 or hi == len(xs) - 1:
            continue
        out.append(float(xs[hi] - xs[lo]))
    return out
