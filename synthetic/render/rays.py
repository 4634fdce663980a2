"""Per-pixel viewing rays of a CameraModel (lens distortion included): the renderer casts these rays
against the table, the balls and the occluders, so every drawn pixel agrees with `CameraModel.project`."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraModel

COARSE_STEP = 4
MARGIN_PX = 48  # rays also exist this far outside the frame, so sprites can straddle the edge


@dataclass
class RayGrid:
    """Unit world-frame ray directions for every pixel centre of the frame grown by `margin` pixels."""

    camera: CameraModel
    dirs: np.ndarray  # (H + 2m, W + 2m, 3) float32
    origin: np.ndarray  # (3,) camera centre, table mm
    margin: int

    @classmethod
    def build(cls, camera: CameraModel, margin: int = MARGIN_PX) -> RayGrid:
        w, h = camera.width + 2 * margin, camera.height + 2 * margin
        # Undistort a coarse grid exactly, then interpolate: the lens map is smooth (error < 0.01 px).
        step = COARSE_STEP
        xs = np.arange(0, w + step, step, dtype=np.float64) - margin
        ys = np.arange(0, h + step, step, dtype=np.float64) - margin
        gx, gy = np.meshgrid(xs, ys)
        pts = np.stack([gx.ravel(), gy.ravel()], axis=1).reshape(-1, 1, 2)
        # Plain undistortPoints stops after 5 iterations: not enough for a strong wide-angle k1.
        crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-12)
        eye = np.eye(3)
        coarse = cv2.undistortPointsIter(pts, camera.K, camera.dist, eye, eye, crit).reshape(len(ys), len(xs), 2)
        fx, fy = np.meshgrid(np.arange(w, dtype=np.float32) / step, np.arange(h, dtype=np.float32) / step)
        norm = cv2.remap(coarse.astype(np.float64), fx, fy, cv2.INTER_LINEAR).astype(np.float64)
        cam = np.concatenate([norm, np.ones((h, w, 1))], axis=2)
        world = cam @ camera.R  # R^T applied to each row vector: camera ray -> table direction
        world /= np.linalg.norm(world, axis=2, keepdims=True)
        grid = cls(camera, world.astype(np.float32), camera.centre_mm.astype(np.float64), margin)
        grid._check()
        return grid

    def _check(self) -> None:
        """Rays must project back onto their pixels; they do not where the lens model folds over."""
        h, w = self.dirs.shape[:2]
        ys, xs = np.mgrid[0:h:23, 0:w:29]
        pts = self.origin + self.dirs[ys, xs].reshape(-1, 3).astype(np.float64) * 1000.0
        err = np.abs(self.camera.project(pts) - np.stack([xs.ravel(), ys.ravel()], 1) + self.margin).max()
        if not err < 0.05:
            raise ValueError(
                f"camera distortion {self.camera.dist.tolist()} folds over inside the frame: a ray misses "
                f"its pixel by {err:.2f} px; use a smaller |k1| or a positive k2"
            )

    @property
    def focal(self) -> float:
        return float(self.camera.K[0, 0])

    def patch(self, box: tuple[int, int, int, int]) -> np.ndarray:
        """Rays of a box (x0, y0, x1, y1) in frame pixel coordinates (may extend into the margin)."""
        x0, y0, x1, y1 = box
        m = self.margin
        return self.dirs[y0 + m : y1 + m, x0 + m : x1 + m]

    def clip_box(self, box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        """A box clipped to the grid (frame plus margin)."""
        m = self.margin
        x0, y0, x1, y1 = box
        return (
            max(x0, -m),
            max(y0, -m),
            min(x1, self.camera.width + m),
            min(y1, self.camera.height + m),
        )

    def plane_hits(self, z_mm: float) -> np.ndarray:
        """(H', W', 2) table xy where each ray meets the plane z = z_mm (rays point down)."""
        s = (z_mm - self.origin[2]) / self.dirs[..., 2]
        return (self.origin[:2] + s[..., None] * self.dirs[..., :2]).astype(np.float32)
