"""Table-space rectification: resample the bed of a camera frame onto a metric grid at ball-centre height.

The grid lies on the plane z = R (the ball centres), so a ball's disc in the rectified image is centred on
its true table position and no height correction is needed. Frames come either as BGR (H, W, 3) or as
planar I420 (H * 3 / 2, W) straight from the decoder; both are resampled to one (h, w, 3) uint8 image in
(Y, Cr, Cb) order, so that the cloth model and the classifier see one colour space.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.table import Table


def frame_layout(frame: np.ndarray, width: int, height: int) -> str:
    """'bgr' for (H, W, 3), 'i420' for (H * 3 / 2, W) uint8 planar frames; raises on anything else."""
    if frame.ndim == 3 and frame.shape == (height, width, 3):
        return "bgr"
    if frame.ndim == 2 and frame.shape == (height * 3 // 2, width):
        return "i420"
    raise ValueError(
        f"frame must be BGR ({height}, {width}, 3) or I420 ({height * 3 // 2}, {width}), got {frame.shape}"
    )


@dataclass
class Rectifier:
    """Precomputed remap tables from a camera frame to the table grid (x along columns, y along rows)."""

    camera: CameraModel
    table: Table
    mm_per_px: float = 4.0
    margin_mm: float = 60.0  # beyond the cushion noses: pocket mouths and balls leaving the bed
    bed_grow_mm: float = 20.0  # the detection mask reaches this far past the noses

    def __post_init__(self) -> None:
        if self.mm_per_px <= 0:
            raise ValueError(f"mm_per_px must be positive, got {self.mm_per_px}")
        s = self.mm_per_px
        self.x0 = -self.table.half_length - self.margin_mm
        self.y0 = -self.table.half_width - self.margin_mm
        self.w = int(np.ceil((2 * (self.table.half_length + self.margin_mm)) / s)) + 1
        self.h = int(np.ceil((2 * (self.table.half_width + self.margin_mm)) / s)) + 1
        self.z_mm = self.table.ball_radius
        self.map_x, self.map_y = self.grid_maps(self.x0, self.y0, self.w, self.h, s)
        self._full = cv2.convertMaps(self.map_x, self.map_y, cv2.CV_16SC2)
        # chroma planes of I420 are half size: pixel centres map as (p + 0.5) / 2 - 0.5
        # chroma: a grid of half the density sampled from the half-size I420 planes, then upsampled
        hx, hy = self.map_x[::2, ::2], self.map_y[::2, ::2]
        self._chroma_maps = cv2.convertMaps((hx + 0.5) / 2 - 0.5, (hy + 0.5) / 2 - 0.5, cv2.CV_16SC2)
        self.bed_mask = self._bed_mask()

    def grid_maps(self, x0: float, y0: float, w: int, h: int, s: float) -> tuple[np.ndarray, np.ndarray]:
        """Float32 pixel maps (h, w) for a grid with top-left centre (x0, y0) mm and spacing s mm."""
        xs = x0 + s * np.arange(w)
        ys = y0 + s * np.arange(h)
        gx, gy = np.meshgrid(xs, ys)
        pts = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, self.z_mm)], axis=1)
        px = self.camera.project(pts).astype(np.float32)
        return px[:, 0].reshape(h, w), px[:, 1].reshape(h, w)

    def _bed_mask(self) -> np.ndarray:
        """255 inside the cushion noses and in the pocket mouths, 0 on the rails."""
        mask = np.zeros((self.h, self.w), np.uint8)
        # a little past the noses: a frozen ball's blurred edge reaches over the nose line
        grow = np.sign(self.table.bed_corners) * self.bed_grow_mm
        corners = self.to_px(self.table.bed_corners + grow)
        cv2.fillPoly(mask, [np.round(corners).astype(np.int32)], 255)
        for pk in self.table.pockets.values():
            c = self.to_px(np.asarray([pk.mouth_centre]))[0]
            r = pk.mouth_mm * 0.75 / self.mm_per_px
            cv2.circle(mask, (round(c[0]), round(c[1])), round(r), 255, -1)
        return mask

    # --- coordinates -------------------------------------------------------------------------
    def to_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """(N, 2) table mm -> (N, 2) rectified pixel coordinates (column, row)."""
        xy = np.asarray(xy_mm, dtype=float).reshape(-1, 2)
        return np.stack([(xy[:, 0] - self.x0) / self.mm_per_px, (xy[:, 1] - self.y0) / self.mm_per_px], axis=1)

    def to_mm(self, uv: np.ndarray) -> np.ndarray:
        """(N, 2) rectified pixel coordinates -> (N, 2) table mm at ball-centre height."""
        p = np.asarray(uv, dtype=float).reshape(-1, 2)
        return np.stack([self.x0 + p[:, 0] * self.mm_per_px, self.y0 + p[:, 1] * self.mm_per_px], axis=1)

    @property
    def radius_px(self) -> float:
        return self.table.ball_radius / self.mm_per_px

    # --- resampling --------------------------------------------------------------------------
    def rectify(self, frame: np.ndarray) -> np.ndarray:
        """A BGR or I420 camera frame -> (h, w, 3) uint8 (Y, Cr, Cb) image of the bed."""
        return cv2.merge(list(self.rectify_planes(frame)))

    def rectify_planes(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A BGR or I420 camera frame -> the (Y, Cr, Cb) planes of the bed, each (h, w) uint8.

        I420 chroma has half the resolution of luma already, so it is resampled on a grid of half the density
        and upsampled: the same information for a quarter of the remap work."""
        layout = frame_layout(frame, self.camera.width, self.camera.height)
        m1, m2 = self._full
        if layout == "bgr":
            rect = cv2.remap(frame, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            y, cr, cb = cv2.split(cv2.cvtColor(rect, cv2.COLOR_BGR2YCrCb))
            return y, cr, cb
        H, W = self.camera.height, self.camera.width
        chroma = frame[H:].reshape(2, H // 2, W // 2)  # U (Cb) then V (Cr) planes
        ry = cv2.remap(frame[:H], m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        c1, c2 = self._chroma_maps
        size = (self.w, self.h)
        rcb = cv2.resize(cv2.remap(chroma[0], c1, c2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), size)
        rcr = cv2.resize(cv2.remap(chroma[1], c1, c2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), size)
        return ry, rcr, rcb

    def image_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """Ball centres in table mm -> distorted image pixels (for drawing)."""
        xy = np.asarray(xy_mm, dtype=float).reshape(-1, 2)
        return self.camera.project(np.hstack([xy, np.full((len(xy), 1), self.z_mm)]))
