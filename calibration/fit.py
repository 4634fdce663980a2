"""Fitting the camera (focal length, radial distortion k1 k2, pose) to cushion-nose points and spots.

Residuals are in table millimetres: each nose edge pixel is cast onto the plane z = nose height and must land
on its cushion's line (x = +-L/2 or y = +-W/2); each spot pixel is cast onto the bed (z = 0) and must land on
the spot. The principal point stays at the image centre: a single view of a plane cannot pin it down.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from scipy.optimize import least_squares

from calibration.camera import CameraModel
from calibration.table import Table

# table side by the pair of bed-corner indices (Table.bed_corners order) it joins: (axis, sign)
SIDE_OF_CORNERS = {
    frozenset((0, 1)): ("front", 0, -1.0),
    frozenset((1, 2)): ("left", 1, 1.0),
    frozenset((2, 3)): ("rear", 0, 1.0),
    frozenset((3, 0)): ("right", 1, -1.0),
}
SIDE_ORDER = ("front", "left", "rear", "right")
MIN_DOWN_COS = math.cos(math.radians(45.0))  # an overhead camera looks within 45 degrees of straight down
MU_RANGE = (-0.2, 0.6)  # radial warp searched: mild pincushion to a strong wide-angle barrel (see straightening)
_CRIT = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 1e-10)


@dataclass(frozen=True)
class Observations:
    """What the camera must explain: pixels at a known height that lie on a known table line.

    Row i: the pixel px[i], cast onto the plane z = z[i], must have coordinate `axis[i]` (0: x, 1: y) equal
    to value[i] mm. Cushion edges give one row per point; a spot gives two (its x and its y).
    """

    px: np.ndarray  # (N, 2)
    z: np.ndarray  # (N,)
    axis: np.ndarray  # (N,) int
    value: np.ndarray  # (N,) mm
    side: np.ndarray  # (N,) index into SIDE_ORDER for cushion rows, -1 for markings

    def __len__(self) -> int:
        return len(self.px)

    def subset(self, keep: np.ndarray) -> Observations:
        return Observations(self.px[keep], self.z[keep], self.axis[keep], self.value[keep], self.side[keep])

    def flipped(self) -> Observations:
        """Relabelled for the table turned end for end (x -> -x, y -> -y)."""
        side = np.where(self.side >= 0, (self.side + 2) % 4, self.side)
        return Observations(self.px, self.z, self.axis, -self.value, side)

    @staticmethod
    def concat(parts: list[Observations]) -> Observations:
        return Observations(
            np.vstack([p.px.reshape(-1, 2) for p in parts]),
            np.concatenate([p.z for p in parts]),
            np.concatenate([p.axis for p in parts]).astype(int),
            np.concatenate([p.value for p in parts]),
            np.concatenate([p.side for p in parts]).astype(int),
        )

    @staticmethod
    def rows(px: np.ndarray, z: float, axis: int, value: float, side: int) -> Observations:
        n = len(px)
        return Observations(np.asarray(px, float).reshape(-1, 2), np.full(n, z), np.full(n, axis, int),
                            np.full(n, value), np.full(n, side, int))


def unproject(px: np.ndarray, z: np.ndarray | float, K: np.ndarray, dist: np.ndarray, rvec: np.ndarray,
              tvec: np.ndarray) -> np.ndarray:
    """(N, 2) pixels -> (N, 2) table mm on the plane(s) at height z."""
    if len(px) == 0:
        return np.zeros((0, 2))
    norm = np.asarray(
        cv2.undistortPointsIter(px.reshape(-1, 1, 2), K, dist, None, None, _CRIT)  # type: ignore[call-overload]
    ).reshape(-1, 2)
    R = cv2.Rodrigues(rvec)[0]
    rays = np.column_stack([norm, np.ones(len(norm))]) @ R
    c = -R.T @ tvec
    s = (np.asarray(z, float) - c[2]) / rays[:, 2]
    return c[None, :2] + s[:, None] * rays[:, :2]


N_PARAMS = 13  # log f, k1, k2, rvec (3), tvec (3), cx, cy, p1, p2
PP_PRIOR_PX = 15.0  # the principal point stays near the image centre: 1 mm of residual per this many px
TANGENTIAL_PRIOR = 1e-3  # p1, p2 of a decent lens: 1 mm of residual per this much


def _unpack(x: np.ndarray, width: int, height: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    f = math.exp(x[0])
    K = np.array([[f, 0.0, x[9]], [0.0, f, x[10]], [0.0, 0.0, 1.0]])
    dist = np.array([x[1], x[2], x[11], x[12], 0.0])
    return K, dist, x[3:6].copy(), x[6:9].copy()


def residuals_mm(x: np.ndarray, obs: Observations, width: int, height: int) -> np.ndarray:
    K, dist, rvec, tvec = _unpack(x, width, height)
    xy = unproject(obs.px, obs.z, K, dist, rvec, tvec)
    return xy[np.arange(len(xy)), obs.axis] - obs.value


def camera_from_x(x: np.ndarray, width: int, height: int) -> CameraModel:
    K, dist, rvec, tvec = _unpack(x, width, height)
    return CameraModel(K, dist, rvec, tvec, width, height)


def x_from_camera(cam: CameraModel) -> np.ndarray:
    return np.concatenate([[math.log(cam.K[0, 0]), cam.dist[0], cam.dist[1]], cam.rvec, cam.tvec,
                           [cam.K[0, 2], cam.K[1, 2], cam.dist[2], cam.dist[3]]])


def init_from_corners(
    corners_px: np.ndarray, table: Table, z: float, width: int, height: int, any_order: bool = True
) -> tuple[CameraModel, tuple[int, ...], float]:
    """A distortion-free camera from four image corners of the rectangle at height z.

    Tries every consistent assignment of image corners to table corners and a range of focal lengths;
    returns the camera, the assignment (table corner index for each image corner) and the RMS pixel error.
    """
    best: tuple[float, CameraModel | None, tuple[int, ...]] = (math.inf, None, (0, 1, 2, 3))
    for f in np.geomspace(0.25, 4.0, 41) * width:
        cand = _pose_from_corners(corners_px, table, z, width, height, f, np.zeros(5), any_order)
        if cand[1] is not None and cand[0] < best[0]:
            best = cand
    if best[1] is None:
        raise ValueError("no camera above the table explains the four corners")
    return best[1], best[2], best[0]


def _pose_from_corners(
    corners_px: np.ndarray, table: Table, z: float, width: int, height: int, f: float, dist: np.ndarray,
    any_order: bool = True,
) -> tuple[float, CameraModel | None, tuple[int, ...]]:
    """For one focal length: the best pose over corner assignments, as (RMS px error, camera, assignment).

    corners_px are already free of lens distortion; the camera returned carries `dist`.
    """
    # solved on the plane z = 0 (IPPE wants it), then lifted: X_cam = R (X + z e3) + t
    obj = np.column_stack([table.bed_corners, np.zeros(4)]).astype(np.float64)
    perms = [tuple((k + i) % 4 for i in range(4)) for k in range(4)]
    perms += [tuple(reversed(p)) for p in perms]
    if not any_order:
        perms = [(0, 1, 2, 3)]
    K = np.array([[f, 0.0, width / 2.0], [0.0, f, height / 2.0], [0.0, 0.0, 1.0]])
    best: tuple[float, CameraModel | None, tuple[int, ...]] = (math.inf, None, (0, 1, 2, 3))
    for perm in perms:
        img = corners_px[np.argsort(perm)].astype(np.float64)  # image point for table corner 0..3
        ok, rvec, tvec = cv2.solvePnP(obj, img, K, None, flags=cv2.SOLVEPNP_IPPE)
        if not ok:
            continue
        R = cv2.Rodrigues(rvec)[0]
        if (-R.T @ tvec.reshape(3))[2] <= 0.0 or -R[2, 2] < MIN_DOWN_COS:  # above the table, looking down
            continue
        proj, _ = cv2.projectPoints(obj, rvec, tvec, K, None)
        err = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - img) ** 2, axis=1))))
        if err < best[0]:
            t_lift = tvec.reshape(3) - R @ np.array([0.0, 0.0, z])
            best = (err, CameraModel(K, np.asarray(dist, float), rvec.reshape(3), t_lift, width, height), perm)
    return best


def straightening(sides_px: list[np.ndarray], width: int, height: int) -> float:
    """The radial warp mu that makes the four sides' points straightest: u = c + d (1 + mu |d|^2 / D^2),
    d from the image centre c, D the half-diagonal. Barrel distortion gives mu > 0.

    Four straight cushions are the lens's own test chart: this measures the distortion before any camera
    is known, so the first camera need not explain curved sides with a wrong focal length and tilt.
    """
    c = np.array([width / 2.0, height / 2.0])
    diag2 = (width * width + height * height) / 4.0

    def cost(mu: float) -> float:
        total = 0.0
        for p in sides_px:
            d = p - c
            u = d * (1.0 + mu * (d * d).sum(axis=1, keepdims=True) / diag2)
            u = u - u.mean(axis=0)
            total += float(np.linalg.svd(u, compute_uv=False)[-1] ** 2 / len(u))  # line-fit residual
        return total

    grid = np.linspace(MU_RANGE[0], MU_RANGE[1], 81)
    costs = np.array([cost(float(m)) for m in grid])
    i = int(np.argmin(costs))
    if 0 < i < len(grid) - 1:
        den = costs[i - 1] - 2 * costs[i] + costs[i + 1]
        if den > 0:
            return float(grid[i] + 0.5 * (costs[i - 1] - costs[i + 1]) / den * (grid[1] - grid[0]))
    return float(grid[i])


def init_from_sides(
    sides_px: list[np.ndarray], table: Table, z: float, width: int, height: int
) -> tuple[CameraModel, tuple[int, ...], float]:
    """A first camera (focal length, k1, pose) from the four sides' edge points, side k running from
    image corner k to k + 1; returns the camera, the corner assignment and the RMS corner error (px).

    The distortion measured by straightening the sides fixes k1 for each focal length tried; the corners
    where the straightened sides meet then pick the focal length and pose.
    """
    mu = straightening(sides_px, width, height)
    diag2 = (width * width + height * height) / 4.0
    best: tuple[float, CameraModel | None, tuple[int, ...]] = (math.inf, None, (0, 1, 2, 3))
    lo, hi = _bounds(width, height)
    for f in np.geomspace(math.exp(lo[0]), math.exp(hi[0]), 41):
        K = np.array([[f, 0.0, width / 2.0], [0.0, f, height / 2.0], [0.0, 0.0, 1.0]])
        k1 = float(np.clip(-mu * f * f / diag2, lo[1], hi[1]))  # first-order inverse of the warp
        dist = np.array([k1, 0.0, 0.0, 0.0, 0.0])
        lines = []
        for p in sides_px:
            u = np.asarray(cv2.undistortPointsIter(  # type: ignore[call-overload]
                p.reshape(-1, 1, 2).astype(np.float64), K, dist, None, K, _CRIT)).reshape(-1, 2)
            lines.append(cv2.fitLine(u.astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).reshape(4))
        try:
            corners = line_intersections(lines)
        except np.linalg.LinAlgError:
            continue
        cand = _pose_from_corners(corners, table, z, width, height, f, dist)
        if cand[1] is not None and cand[0] < best[0]:
            best = cand
    if best[1] is None:
        raise ValueError("no camera above the table explains the four sides")
    return best[1], best[2], best[0]


def line_intersections(lines: list[np.ndarray]) -> np.ndarray:
    """Corner k where side k-1 meets side k; lines as (vx, vy, x0, y0)."""
    out = []
    for k in range(4):
        (v1x, v1y, x1, y1), (v2x, v2y, x2, y2) = lines[k - 1], lines[k]
        A = np.array([[v1x, -v2x], [v1y, -v2y]])
        s = np.linalg.solve(A, np.array([x2 - x1, y2 - y1]))
        out.append([x1 + s[0] * v1x, y1 + s[0] * v1y])
    return np.asarray(out)


def _bounds(width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Physically sensible ranges: without them a near-degenerate view can run off to a camera kilometres
    away with an absurd lens that still fits the lines."""
    inf = np.inf
    lo = np.array([math.log(0.25 * width), -0.8, -0.5, -inf, -inf, -inf, -inf, -inf, -inf,
                   0.35 * width, 0.35 * height, -0.02, -0.02])
    hi = np.array([math.log(2.5 * width), 0.5, 1.0, inf, inf, inf, inf, inf, inf,
                   0.65 * width, 0.65 * height, 0.02, 0.02])
    return lo, hi


def refine(
    cam0: CameraModel, obs: Observations, fit_k2: bool = True, fit_pp: bool = False, f_scale_mm: float = 1.5
) -> tuple[CameraModel, np.ndarray]:
    """Robust least squares from cam0; returns the camera and the per-row residuals (mm)."""
    w, h = cam0.width, cam0.height
    x0 = x_from_camera(cam0)
    if not fit_k2:
        x0[2] = 0.0
    mask = np.ones(N_PARAMS, bool)
    mask[2] = fit_k2
    mask[9:13] = fit_pp  # principal point and tangential terms: together, held by priors
    centre = np.array([w / 2.0, h / 2.0])

    def fun(xf: np.ndarray) -> np.ndarray:
        x = x0.copy()
        x[mask] = xf
        r = residuals_mm(x, obs, w, h)
        if fit_pp:
            r = np.concatenate([r, (x[9:11] - centre) / PP_PRIOR_PX, x[11:13] / TANGENTIAL_PRIOR])
        return r

    lo, hi = _bounds(w, h)
    start = np.clip(x0[mask], lo[mask] + 1e-9, hi[mask] - 1e-9)
    sol = least_squares(fun, start, bounds=(lo[mask], hi[mask]), loss="soft_l1", f_scale=f_scale_mm,
                        x_scale="jac", max_nfev=150)
    x = x0.copy()
    x[mask] = sol.x
    return camera_from_x(x, w, h), residuals_mm(x, obs, w, h)


def flip_180(cam: CameraModel) -> CameraModel:
    """The same camera with the table's ends swapped (x -> -x, y -> -y): the table's own symmetry."""
    Rz = np.diag([-1.0, -1.0, 1.0])
    rvec = cv2.Rodrigues(cam.R @ Rz)[0].reshape(3)
    return CameraModel(cam.K, cam.dist, rvec, cam.tvec, cam.width, cam.height)
