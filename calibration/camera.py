"""The camera model: a pinhole camera with radial-tangential lens distortion, posed over the table.

World frame = table frame (mm, z up, bed plane z = 0). OpenCV's model: x_cam = R X + t, then
distortion (k1, k2, p1, p2, k3), then the intrinsic matrix K. The renderer draws with this model and the
calibration fits it, so ground truth and measurement share one definition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np


@dataclass(frozen=True)
class CameraModel:
    K: np.ndarray  # (3, 3) intrinsics
    dist: np.ndarray  # (5,) k1, k2, p1, p2, k3
    rvec: np.ndarray  # (3,) Rodrigues rotation, world -> camera
    tvec: np.ndarray  # (3,) translation, world -> camera, mm
    width: int
    height: int

    def __post_init__(self) -> None:
        shapes = {"K": (3, 3), "dist": (5,), "rvec": (3,), "tvec": (3,)}
        for name, shape in shapes.items():
            arr = np.asarray(getattr(self, name), dtype=float).reshape(-1)
            if arr.size != math.prod(shape):
                raise ValueError(f"CameraModel.{name} must have shape {shape}, got {arr.size} values")
            object.__setattr__(self, name, arr.reshape(shape))

    # --- construction ---------------------------------------------------------------------------
    @classmethod
    def look_at(
        cls,
        eye_mm: tuple[float, float, float],
        target_mm: tuple[float, float, float],
        image_down: tuple[float, float, float],
        focal_px: float,
        width: int,
        height: int,
        dist: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0),
        principal: tuple[float, float] | None = None,
    ) -> CameraModel:
        """A camera at `eye` looking at `target`; the world direction `image_down` points down the image."""
        eye, target = np.asarray(eye_mm, float), np.asarray(target_mm, float)
        z = target - eye
        z /= np.linalg.norm(z)
        x = np.cross(z, -np.asarray(image_down, float))  # image x = right, image y = down
        x /= np.linalg.norm(x)
        y = np.cross(z, x)
        R = np.stack([x, y, z])
        rvec, _ = cv2.Rodrigues(R)
        tvec = -R @ eye
        cx, cy = principal if principal is not None else (width / 2.0, height / 2.0)
        K = np.array([[focal_px, 0, cx], [0, focal_px, cy], [0, 0, 1]], float)
        return cls(K, np.asarray(dist, float), rvec.reshape(3), tvec, width, height)

    @property
    def R(self) -> np.ndarray:
        return cv2.Rodrigues(self.rvec)[0]

    @property
    def centre_mm(self) -> np.ndarray:
        """The camera's optical centre in table mm."""
        return -self.R.T @ self.tvec

    # --- projection -----------------------------------------------------------------------------
    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """(N, 3) or (N, 2) table points (z = 0 if omitted) -> (N, 2) distorted pixel coordinates."""
        pts = np.asarray(points_mm, dtype=float)
        if pts.ndim != 2 or pts.shape[1] not in (2, 3):
            raise ValueError(f"points must have shape (N, 2) or (N, 3), got {pts.shape}")
        if pts.shape[1] == 2:
            pts = np.hstack([pts, np.zeros((len(pts), 1))])
        if len(pts) == 0:
            return np.zeros((0, 2))
        px, _ = cv2.projectPoints(pts.reshape(-1, 1, 3), self.rvec, self.tvec, self.K, self.dist)
        return px.reshape(-1, 2)

    def unproject(self, pixels: np.ndarray, z_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """(N, 2) distorted pixels -> (N, 3) table points on the plane z = z_mm (per point if an array)."""
        px = np.asarray(pixels, dtype=float)
        if px.ndim != 2 or px.shape[1] != 2:
            raise ValueError(f"pixels must have shape (N, 2), got {px.shape}")
        if len(px) == 0:
            return np.zeros((0, 3))
        norm = cv2.undistortPoints(px.reshape(-1, 1, 2), self.K, self.dist).reshape(-1, 2)
        rays_cam = np.hstack([norm, np.ones((len(norm), 1))])
        R = self.R
        rays = rays_cam @ R  # R^T applied to each row: camera ray -> world direction
        c = self.centre_mm
        z = np.broadcast_to(np.asarray(z_mm, dtype=float), (len(px),))
        s = (z - c[2]) / rays[:, 2]
        return c[None, :] + s[:, None] * rays

    def undistort_points(self, pixels: np.ndarray) -> np.ndarray:
        """Distorted pixels -> ideal (pinhole) pixels with the same K."""
        px = np.asarray(pixels, dtype=float).reshape(-1, 1, 2)
        return cv2.undistortPoints(px, self.K, self.dist, P=self.K).reshape(-1, 2)

    # --- persistence ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "K": self.K.tolist(),
            "dist": self.dist.tolist(),
            "rvec": self.rvec.tolist(),
            "tvec": self.tvec.tolist(),
            "width": self.width,
            "height": self.height,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CameraModel:
        try:
            return cls(
                np.asarray(d["K"], float),
                np.asarray(d["dist"], float),
                np.asarray(d["rvec"], float),
                np.asarray(d["tvec"], float),
                int(d["width"]),
                int(d["height"]),
            )
        except KeyError as exc:
            raise ValueError(f"camera model is missing field {exc}") from exc
