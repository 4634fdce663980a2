"""Manual fallback: the user gives the four bed corners in pixels (and optionally checkerboard images for
the lens). Four points fix the pose and the focal length when the view is tilted; without lens images the
lens is taken as distortion-free, which a wide lens is not: prefer automatic calibration when it works."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.fit import init_from_corners
from calibration.result import Calibration, CalibrationError, CalibrationMethod, Quality, build_calibration
from calibration.table import Table


def parse_corners(text: str) -> np.ndarray:
    """'x1,y1,x2,y2,x3,y3,x4,y4' -> (4, 2)."""
    try:
        vals = [float(v) for v in text.replace(";", ",").split(",") if v.strip()]
    except ValueError as exc:
        raise CalibrationError(f"--corners must be 8 numbers x1,y1,...,x4,y4: {exc}") from exc
    if len(vals) != 8:
        raise CalibrationError(f"--corners must be 8 numbers x1,y1,...,x4,y4 (got {len(vals)})")
    return np.asarray(vals, float).reshape(4, 2)


def lens_from_checkerboards(paths: list[Path], pattern: tuple[int, int] = (9, 6)) -> tuple[np.ndarray, np.ndarray]:
    """K and distortion from checkerboard images (inner-corner pattern cols x rows), cv2.calibrateCamera."""
    obj = np.zeros((pattern[0] * pattern[1], 3), np.float32)
    obj[:, :2] = np.mgrid[0 : pattern[0], 0 : pattern[1]].T.reshape(-1, 2)
    objs, imgs, size = [], [], None
    for p in paths:
        img = cv2.imread(str(p), cv2.IMREAD_GRAYSCALE)
        if img is None:
            raise CalibrationError(f"cannot read lens image {p}")
        size = img.shape[::-1]
        ok, corners = cv2.findChessboardCorners(img, pattern)
        if ok:
            corners = cv2.cornerSubPix(img, corners, (11, 11), (-1, -1),
                                       (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_MAX_ITER, 30, 1e-3))
            objs.append(obj)
            imgs.append(corners)
    if len(objs) < 3 or size is None:
        raise CalibrationError(f"found a {pattern[0]}x{pattern[1]} checkerboard in only {len(objs)} of "
                               f"{len(paths)} lens images; need at least 3")
    _, K, dist, _, _ = cv2.calibrateCamera(objs, imgs, size, None, None)
    return K, dist.reshape(-1)[:5]


def calibrate_manual(
    width: int, height: int, corners_px: np.ndarray, table: Table, spec_name: str = "",
    lens: tuple[np.ndarray, np.ndarray] | None = None,
) -> Calibration:
    """A calibration from the four bed corners (order of Table.bed_corners: front_right, front_left,
    rear_left, rear_right), at bed level."""
    corners = np.asarray(corners_px, float).reshape(4, 2)
    obj = np.column_stack([table.bed_corners, np.zeros(4)])
    if lens is not None:
        K, dist = lens
        ok, rvec, tvec = cv2.solvePnP(obj, corners, K, dist, flags=cv2.SOLVEPNP_IPPE)
        if not ok:
            raise CalibrationError("the four corners given with --corners do not fit a camera above the table")
        cam = CameraModel(K, np.resize(dist, 5), rvec.reshape(3), tvec.reshape(3), width, height)
    else:
        try:
            cam, _, _ = init_from_corners(corners, table, 0.0, width, height, any_order=False)
            cam = _refine_focal(cam, obj, corners)
        except ValueError as exc:
            raise CalibrationError(
                f"the four corners given with --corners do not fit a camera above the table ({exc}); "
                "order: front_right, front_left, rear_left, rear_right"
            ) from exc
    err = np.linalg.norm(cam.unproject(corners, 0.0)[:, :2] - table.bed_corners, axis=1)
    rms = float(np.sqrt(np.mean(err**2)))
    if rms > 20.0:
        raise CalibrationError(f"the four corners do not fit the table spec: {rms:.0f} mm RMS; check order and spec")
    q = Quality(CalibrationMethod.MANUAL, rms, 0, (0.0, 0.0, 0.0, 0.0), 0, 0, 0.5 if lens is None else 0.7)
    note = "manual: four bed corners" + ("; lens from checkerboards" if lens is not None else "; lens assumed ideal")
    return build_calibration(cam, table, spec_name or table.spec.name, rms, q, [note])


def _refine_focal(cam: CameraModel, obj: np.ndarray, corners: np.ndarray) -> CameraModel:
    """Focal length and pose by least squares on the four corners (the scan is on a coarse grid)."""
    from scipy.optimize import least_squares

    def model(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        K = cam.K.copy()
        K[0, 0] = K[1, 1] = float(np.exp(x[0]))
        return K, x[1:4], x[4:7]

    def fun(x: np.ndarray) -> np.ndarray:
        K, r, t = model(x)
        px, _ = cv2.projectPoints(obj, r, t, K, None)
        return (px.reshape(-1, 2) - corners).ravel()

    x0 = np.concatenate([[np.log(cam.K[0, 0])], cam.rvec, cam.tvec])
    sol = least_squares(fun, x0, x_scale="jac")
    K, r, t = model(sol.x)
    return CameraModel(K, np.zeros(5), r, t, cam.width, cam.height)
