"""Drawing a calibration over its frame, so a person can check it at a glance."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.result import Calibration

CUSHION = (0, 255, 255)
BED = (255, 255, 0)
POCKET = (255, 0, 255)
MARK = (0, 0, 255)


def _pl(img: np.ndarray, cal: Calibration, xy: np.ndarray, z: float, colour: tuple[int, int, int],
        closed: bool = False) -> None:
    px = cal.to_image(xy, z)
    cv2.polylines(img, [np.round(px * 16).astype(np.int32).reshape(-1, 1, 2)], closed, colour, 2, cv2.LINE_AA, 4)


def _seg(a: tuple[float, float], b: tuple[float, float], n: int = 60) -> np.ndarray:
    s = np.linspace(0.0, 1.0, n)[:, None]
    return np.asarray(a)[None, :] * (1 - s) + np.asarray(b)[None, :] * s


def draw_overlay(image: np.ndarray, cal: Calibration) -> np.ndarray:
    """A copy of the frame with the fitted cushion noses, bed outline, pockets and markings drawn on it."""
    out = image.copy()
    t = cal.table
    h = t.spec.cushion_nose_height_mm
    hl, hw = t.half_length, t.half_width
    outline = np.vstack([_seg((-hl, -hw), (-hl, hw)), _seg((-hl, hw), (hl, hw)), _seg((hl, hw), (hl, -hw)),
                         _seg((hl, -hw), (-hl, -hw))])
    _pl(out, cal, outline, 0.0, BED, closed=True)
    for c in t.cushions.values():
        _pl(out, cal, _seg(c.a, c.b), h, CUSHION)
    for pk in t.pockets.values():
        ang = np.linspace(0, 2 * np.pi, 40)
        r = pk.mouth_mm / 2.0
        ring = np.column_stack([pk.mouth_centre[0] + r * np.cos(ang), pk.mouth_centre[1] + r * np.sin(ang)])
        _pl(out, cal, ring, h, POCKET, closed=True)
    if t.spec.markings_painted:
        for x in (t.house_line_x, 0.0):
            _pl(out, cal, _seg((x, -hw), (x, hw)), 0.0, MARK)
    for name, (u, v) in cal.markings_px.items():
        cv2.circle(out, (round(u * 16), round(v * 16)), 6 * 16, MARK, 2, cv2.LINE_AA, 4)
        cv2.putText(out, name, (round(u) + 8, round(v) - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.5, MARK, 1, cv2.LINE_AA)
    for name, (u, v) in zip(("front_right", "front_left", "rear_left", "rear_right"), cal.bed_corners_px,
                            strict=True):
        cv2.drawMarker(out, (round(u), round(v)), BED, cv2.MARKER_CROSS, 18, 2)
        cv2.putText(out, name, (round(u) + 6, round(v) + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, BED, 1, cv2.LINE_AA)
    label = f"{cal.table_spec}: residual {cal.rms_mm:.2f} mm, confidence {cal.quality.confidence:.2f}"
    cv2.putText(out, label, (20, 36), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (255, 255, 255), 2, cv2.LINE_AA)
    return out
