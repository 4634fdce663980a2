"""Table-space rectification: resample the bed of a camera frame onto a metric grid at ball-centre height.

The grid lies on the plane z = R (the ball centres), so a ball's disc in the rectified image is centred on
its true table position and no height correction is needed. Frames come either as BGR (H, W, 3) or as
planar I420 (H * 3 / 2, W) straight from the decoder; both are resampled to one (h, w, 3) uint8 image in
(Y, Cr, Cb) order, so that the cloth model and the classifier see one colour space. Planar chroma is read on
the siting the frame carries (a YUVFrame's `siting`, from its stream), the H.264 default for a bare array.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.table import Table
from vision.siting import DEFAULT_SITING, ChromaSiting
from vision.source import YUVFrame


def frame_layout(frame: np.ndarray, width: int, height: int) -> str:
    """'bgr' for (H, W, 3), 'i420' for (H * 3 / 2, W) uint8 planar frames, 'yuv' for a YUVFrame (the
    decoder's planes, vision.source); raises on anything else."""
    if frame.ndim == 3 and frame.shape == (height, width, 3):
        return "bgr"
    if frame.ndim == 2 and frame.shape == (height * 3 // 2, width):
        return "i420"
    if isinstance(frame, YUVFrame) and frame.shape == (height, width):
        return "yuv"
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
        # I420 chroma is resampled straight onto the full grid, box by box like luma, on the stream's own
        # chroma siting (vision.siting): maps per siting, made when a frame first brings it
        self._chroma: dict[ChromaSiting, tuple[np.ndarray, np.ndarray]] = {}
        self.bed_mask = self._bed_mask()

    def grid_maps(self, x0: float, y0: float, w: int, h: int, s: float) -> tuple[np.ndarray, np.ndarray]:
        """Float32 pixel maps (h, w) for a grid with top-left centre (x0, y0) mm and spacing s mm."""
        xs = x0 + s * np.arange(w)
        ys = y0 + s * np.arange(h)
        gx, gy = np.meshgrid(xs, ys)
        pts = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, self.z_mm)], axis=1)
        px = self.camera.project(pts).astype(np.float32)
        return px[:, 0].reshape(h, w), px[:, 1].reshape(h, w)

    def chroma_maps(self, siting: ChromaSiting) -> tuple[np.ndarray, np.ndarray]:
        """Fixed-point remap tables from the full grid to a 4:2:0 chroma plane sited as `siting`: camera luma
        pixel p lies at chroma coordinate (p - offset) / 2."""
        maps = self._chroma.get(siting)
        if maps is None:
            ox, oy = siting.offset
            maps = cv2.convertMaps((self.map_x - ox) / 2, (self.map_y - oy) / 2, cv2.CV_16SC2)
            self._chroma[siting] = maps
        return maps

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
        """A BGR or I420 camera frame -> the (Y, Cr, Cb) planes of the bed, each (h, w) uint8."""
        planes = (np.empty((self.h, self.w), np.uint8), np.empty((self.h, self.w), np.uint8),
                  np.empty((self.h, self.w), np.uint8))
        self.rectify_box(frame, (0, 0, self.w, self.h), planes)
        return planes

    def rectify_box(self, frame: np.ndarray, box: tuple[int, int, int, int],
                    planes: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        """Resample the grid box (x0, y0, x1, y1) of `planes` (Y, Cr, Cb) from `frame`: exactly the pixels the
        whole grid would get."""
        x0, y0, x1, y1 = box
        layout = frame_layout(frame, self.camera.width, self.camera.height)
        m1, m2 = self._full[0][y0:y1, x0:x1], self._full[1][y0:y1, x0:x1]
        py, pcr, pcb = (p[y0:y1, x0:x1] for p in planes)
        if layout == "bgr":
            rect = cv2.remap(frame, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            cv2.split(cv2.cvtColor(rect, cv2.COLOR_BGR2YCrCb), [py, pcr, pcb])
            return
        H, W = self.camera.height, self.camera.width
        luma, (cb, cr) = _yuv_planes(frame, layout, H, W)
        cv2.remap(luma, m1, m2, cv2.INTER_LINEAR, dst=py, borderMode=cv2.BORDER_REPLICATE)
        siting = getattr(frame, "siting", None)
        cm = self.chroma_maps(siting if siting is not None else DEFAULT_SITING)
        c1, c2 = cm[0][y0:y1, x0:x1], cm[1][y0:y1, x0:x1]
        cv2.remap(cb, c1, c2, cv2.INTER_LINEAR, dst=pcb, borderMode=cv2.BORDER_REPLICATE)
        cv2.remap(cr, c1, c2, cv2.INTER_LINEAR, dst=pcr, borderMode=cv2.BORDER_REPLICATE)

    def image_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """Ball centres in table mm -> distorted image pixels (for drawing)."""
        xy = np.asarray(xy_mm, dtype=float).reshape(-1, 2)
        return self.camera.project(np.hstack([xy, np.full((len(xy), 1), self.z_mm)]))


def _yuv_planes(frame: np.ndarray, layout: str, height: int, width: int) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """The luma plane and the (U, V) = (Cb, Cr) planes of an I420 array or a YUVFrame."""
    if layout == "yuv":
        assert isinstance(frame, YUVFrame)
        return frame, (frame.u, frame.v)
    return frame[:height], tuple(frame[height:].reshape(2, height // 2, width // 2))


class ChangeRectifier:
    """The rectified planes of the latest frame, re-sampled only where the picture changed.

    A frame is first reduced to a coarse luma grid (one value per BLOCK x BLOCK pixels of the rectified grid,
    16 mm at 4 mm/px) from a 4x area-averaged camera image; a block is re-sampled when its value moved more
    than `level` grey levels since the block was last re-sampled (so slow drifts are caught once they add
    up), with its neighbours, around the given points (moving balls: always fresh, however slowly they
    creep), and everywhere every `refresh_every` frames. A resting table costs the coarse test only.
    """

    BLOCK = 4

    def __init__(self, rect: Rectifier, level: int = 3, refresh_every: int = 30) -> None:
        self.rect = rect
        self.level = level
        self.refresh_every = refresh_every
        b = self.BLOCK
        self.bw, self.bh = -(-rect.w // b), -(-rect.h // b)
        cam = rect.camera
        self._small_size = (cam.width // 4, cam.height // 4)
        # block centres in the 4x smaller camera image
        cx = rect.map_x[np.minimum(np.arange(self.bh) * b + b // 2, rect.h - 1)][:, np.minimum(
            np.arange(self.bw) * b + b // 2, rect.w - 1)]
        cy = rect.map_y[np.minimum(np.arange(self.bh) * b + b // 2, rect.h - 1)][:, np.minimum(
            np.arange(self.bw) * b + b // 2, rect.w - 1)]
        m1, m2 = cv2.convertMaps((cx + 0.5) / 4 - 0.5, (cy + 0.5) / 4 - 0.5, cv2.CV_16SC2)
        # only the part of the camera image the blocks sample is reduced (on a broadcast view the bed may fill
        # half of it): a crop on 4-pixel boundaries, a sample's two taps and a spare pixel inside it, reduces
        # to exactly the same values, and the maps' integer parts move by whole pixels
        w4, h4 = self._small_size
        self._crop = (0, 0, w4, h4)
        if cam.width % 4 == 0 and cam.height % 4 == 0:
            sx0, sy0 = (max(int(m1[..., k].min()) - 1, 0) for k in (0, 1))
            sx1, sy1 = min(int(m1[..., 0].max()) + 3, w4), min(int(m1[..., 1].max()) + 3, h4)
            if sx1 > sx0 + 1 and sy1 > sy0 + 1:
                self._crop = (sx0, sy0, sx1, sy1)
                m1 = (m1 - np.array([sx0, sy0], np.int16)).astype(np.int16)
        self._coarse_maps = (m1, m2)
        self.planes: tuple[np.ndarray, np.ndarray, np.ndarray] = (
            np.zeros((rect.h, rect.w), np.uint8), np.zeros((rect.h, rect.w), np.uint8),
            np.zeros((rect.h, rect.w), np.uint8))
        self._ref: np.ndarray | None = None
        self._count = 0
        self.changed: np.ndarray = np.zeros((self.bh, self.bw), np.uint8)  # blocks re-sampled in the latest frame (255)
        self.resampled_share = 0.0
        self.full = True  # the latest frame was re-sampled everywhere

    def coarse(self, frame: np.ndarray) -> np.ndarray:
        """(bh, bw) uint8 luma at the block centres, from the camera image averaged over 4x4 pixels."""
        layout = frame_layout(frame, self.rect.camera.width, self.rect.camera.height)
        img = frame if layout in ("bgr", "yuv") else frame[: self.rect.camera.height]
        x0, y0, x1, y1 = self._crop
        img = img[4 * y0 : 4 * y1, 4 * x0 : 4 * x1]
        # two exact halvings: OpenCV's fast path, several times faster than one 4x area resize
        w4, h4 = x1 - x0, y1 - y0
        small = cv2.resize(cv2.resize(img, (w4 * 2, h4 * 2), interpolation=cv2.INTER_AREA), (w4, h4),
                           interpolation=cv2.INTER_AREA)
        if layout == "bgr":
            small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        m1, m2 = self._coarse_maps
        return cv2.remap(small, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def update(self, frame: np.ndarray, force_px: np.ndarray | None = None,
               force_radius_px: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The planes (Y, Cr, Cb) of this frame (arrays owned by this object, overwritten next frame)."""
        coarse = self.coarse(frame)
        b = self.BLOCK
        if self._ref is None or self._count % self.refresh_every == 0:
            self._count = 1
            self.rect.rectify_box(frame, (0, 0, self.rect.w, self.rect.h), self.planes)
            self._ref = coarse
            self.changed[:] = 255
            self.resampled_share = 1.0
            self.full = True
            return self.planes
        self._count += 1
        self.full = False
        diff = cv2.absdiff(coarse, self._ref)
        _, changed = cv2.threshold(diff, self.level, 255, cv2.THRESH_BINARY)
        if force_px is not None and len(force_px):
            rad = max(1, int(np.ceil(force_radius_px / b)))
            for u, v in np.asarray(force_px, dtype=float).reshape(-1, 2):
                cv2.circle(changed, (int(u // b), int(v // b)), rad, 255, -1)
        changed = cv2.dilate(changed, np.ones((3, 3), np.uint8))
        self.changed = changed
        # outer contours' boxes: the components' boxes (one inside another's hole is inside its box too), at a
        # tenth of the cost of labelling
        contours, _ = cv2.findContours(changed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        area = 0
        for cnt in contours:
            x, y, w, h = cv2.boundingRect(cnt)
            box = (x * b, y * b, min((x + w) * b, self.rect.w), min((y + h) * b, self.rect.h))
            self.rect.rectify_box(frame, box, self.planes)
            self._ref[y : y + h, x : x + w] = coarse[y : y + h, x : x + w]
            area += w * h
        self.resampled_share = area / (self.bw * self.bh)
        return self.planes
