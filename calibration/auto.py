"""Automatic calibration from one overhead frame: cloth -> cushion noses -> camera -> spots -> camera.

The steps, and why:
1. the cloth (dominant colour near the centre) gives a rough outline, only to know where to look;
2. along each side, sub-pixel edge points of the cushion nose, with a robust curve fit that drops balls,
   arms, cues and pocket gaps;
3. straight lines through them meet at four nose corners: a distortion-free first camera (and which image
   side is which cushion);
4. robust least squares over all nose points for focal length, k1, k2 and pose (residuals in table mm);
5. the house line decides front from rear; the painted spots are found and added at bed level; refit.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.detect import NOT_FOUND, SideEdges, check_image, find_cloth, side_edges, to_lab
from calibration.fit import SIDE_OF_CORNERS, SIDE_ORDER, Observations, flip_180, init_from_sides, refine
from calibration.markings import dark_pockets, find_spots, line_points, middle_mouths_mm
from calibration.result import Calibration, CalibrationError, CalibrationMethod, Quality, build_calibration
from calibration.table import Table, TableSpec

OUTLINE_SLACK_MM = 60.0  # a side of the cloth outline extended over a pocket's chamfer strays this far
MAX_RMS_MM = 6.0  # above this the spec does not describe the table in view
MAX_TILT_DEG = 30.0  # an overhead camera; a spec of the wrong shape needs a steep, implausible view
MIN_SIDE_FRACTION = 0.2  # share of a side's profiles that must land on its nose line
MIN_HEIGHT_MM, MAX_HEIGHT_MM = 1200.0, 8000.0  # an overhead mount over a 2-3.6 m table
MOUTH_RATIO = (0.7, 1.45)  # measured / spec middle-pocket mouth; a wrong-size preset lands near 0.5 or 2


def calibrate_image(image: np.ndarray, table: Table, spec_name: str = "") -> Calibration:
    """Calibrate from one BGR frame; raises CalibrationError saying what failed and what to do."""
    image = check_image(image)
    height, width = image.shape[:2]
    cloth = find_cloth(image)
    lab = cv2.GaussianBlur(to_lab(image), (0, 0), 0.7)
    quad = cloth.quad
    sp = table.spec
    h = sp.cushion_nose_height_mm
    lens = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    ppm = max(lens[0] + lens[2], lens[1] + lens[3]) / (2.0 * (sp.bed_length_mm + 2 * sp.cushion_width_mm))
    # the cloth outline lies between the bed's edge (the cushion tops cut off by the dark face) and the rail's
    # outer edge (a rail of the cloth's colour), give or take a chamfered pocket corner extended: search
    # that far either side, starting inside the bed so that the first edge met is the cushion's
    reach = (sp.cushion_width_mm + sp.rail_width_mm + OUTLINE_SLACK_MM) * ppm
    reach_in, reach_out = reach, reach
    centre = quad.mean(axis=0)
    sides = []
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        d = (b - a) / np.linalg.norm(b - a)
        inward = np.array([-d[1], d[0]])
        if np.dot(centre - a, inward) < 0:
            inward = -inward
        sides.append(side_edges(lab, a, b, inward, reach_in, reach_out, h * ppm, seed=k))
    weak = [k for k, s in enumerate(sides) if s.inlier_fraction < MIN_SIDE_FRACTION]
    if weak:
        raise CalibrationError(f"{NOT_FOUND} (no clear cushion edge on {len(weak)} side(s) of the cloth)")
    try:
        # side k runs from quad corner k to k+1, so nose corner k is where sides k-1 and k meet
        cam0, perm, err_px = init_from_sides([s.points for s in sides], table, h, width, height)
    except ValueError as exc:
        raise CalibrationError(f"{NOT_FOUND} ({exc})") from exc
    obs = _cushion_observations(sides, perm, table, h)
    cam, res = refine(cam0, obs, fit_k2=False)
    _check_fit(cam, res, sp, spec_name, slack=3.0)  # a spec of the wrong shape fails here, cheaply
    obs = obs.subset(_inliers(res))
    cam, res = refine(cam, obs, fit_k2=True)
    face = float(np.mean([s.face_fraction for s in sides]))
    notes = [f"cushion face seen as a dark band under the nose in {100 * face:.0f}% of the profiles"]
    found_lines: dict[str, np.ndarray] = {}
    if sp.markings_painted:
        cam, obs, how, found_lines = _orient(lab, cam, table, obs)
    else:
        cam, obs, how = _orient_by_convention(cam, table, obs)
    notes.append(how)
    marks = _marking_observations(lab, cam, table, found_lines) if sp.markings_painted else []
    spots = find_spots(lab, cam, table) if sp.markings_painted else {}
    for name, p in spots.items():
        xy = table.markings[name]
        marks += [Observations.rows(p[None, :], 0.0, 0, xy[0], -1), Observations.rows(p[None, :], 0.0, 1, xy[1], -1)]
    if marks:
        obs = Observations.concat([obs, *marks])
    cam, res = refine(cam, obs, fit_k2=True, fit_pp=True)
    obs = obs.subset(_inliers(res))
    cam, res = refine(cam, obs, fit_k2=True, fit_pp=True)
    rms = _check_fit(cam, res, sp, spec_name)
    mouths = middle_mouths_mm(lab, cam, table)
    if mouths:
        ratio = float(np.median(mouths)) / sp.middle_mouth_mm
        notes.append(f"middle pocket mouths measure {', '.join(f'{m:.0f}' for m in mouths)} mm "
                     f"(spec {sp.middle_mouth_mm:.1f} mm)")
        if not MOUTH_RATIO[0] <= ratio <= MOUTH_RATIO[1]:
            raise CalibrationError(
                f"table spec {spec_name or sp.name!r} does not fit what is seen: the middle pockets' mouths "
                f"measure {float(np.median(mouths)):.0f} mm against {sp.middle_mouth_mm:.1f} mm in the spec "
                "(a table of another size?); pass the right --table or --corners"
            )
    fractions = _side_fractions(sides, perm if not how.endswith("(turned)") else tuple((p + 2) % 4 for p in perm))
    pockets = dark_pockets(lab, cam, table)
    conf = float(np.clip(1.0 - rms / MAX_RMS_MM, 0.0, 1.0) * min(1.0, 1.5 * min(fractions)))
    if sp.markings_painted and len(spots) + len(found_lines) < 2:
        # painted markings not where the fit puts them: the cushion edges may be the wrong ones
        conf *= 0.5
        notes.append("warning: few painted markings found where the fit predicts them; check the overlay")
    n_edge = int((obs.side >= 0).sum())
    quality = Quality(CalibrationMethod.AUTO, rms, n_edge, fractions, len(spots), len(pockets), conf)
    notes.append(f"markings used: {', '.join([*found_lines, *spots]) or 'none'}")
    notes.append(f"first corner fit {err_px:.2f} px; focal {cam.K[0, 0]:.0f} px; k1 {cam.dist[0]:.4f}")
    return build_calibration(cam, table, spec_name or sp.name, rms, quality, notes)


def _check_fit(cam: CameraModel, res: np.ndarray, sp: TableSpec, spec_name: str, slack: float = 1.0) -> float:
    """The RMS residual (mm), or CalibrationError when the spec cannot describe the table in view."""
    rms = float(np.sqrt(np.mean(res**2))) if len(res) else math.inf
    tilt = float(np.degrees(np.arccos(np.clip(-cam.R[2, 2], -1.0, 1.0))))  # optical axis from straight down
    what = f"bed {sp.bed_length_mm:.0f} x {sp.bed_width_mm:.0f} mm, aspect {sp.bed_length_mm / sp.bed_width_mm:.2f}"
    height = float(cam.centre_mm[2])
    if not MIN_HEIGHT_MM / slack <= height <= MAX_HEIGHT_MM * slack:
        raise CalibrationError(
            f"table spec {spec_name or sp.name!r} does not fit what is seen: the camera would be "
            f"{height / 1000:.1f} m above the bed ({what}); pass the right --table or --corners"
        )
    if tilt > MAX_TILT_DEG * slack:
        raise CalibrationError(
            f"table spec {spec_name or sp.name!r} does not fit what is seen: the camera would have to look "
            f"{tilt:.0f} degrees off vertical ({what}); pass the right --table or --corners"
        )
    if not np.isfinite(rms) or rms > MAX_RMS_MM * slack:
        raise CalibrationError(
            f"table spec {spec_name or sp.name!r} does not fit what is seen: residual {rms:.1f} mm RMS "
            f"({what}); pass the right --table or --corners"
        )
    return rms


def _cushion_observations(sides: list[SideEdges], perm: tuple[int, ...], table: Table, h: float) -> Observations:
    parts = []
    for k, s in enumerate(sides):
        name, ax, sign = SIDE_OF_CORNERS[frozenset((perm[k], perm[(k + 1) % 4]))]
        val = sign * (table.half_length if ax == 0 else table.half_width)
        parts.append(Observations.rows(s.points, h, ax, val, SIDE_ORDER.index(name)))
    return Observations.concat(parts)


def _side_fractions(sides: list[SideEdges], perm: tuple[int, ...]) -> tuple[float, float, float, float]:
    out = [0.0] * 4
    for k, s in enumerate(sides):
        name, _, _ = SIDE_OF_CORNERS[frozenset((perm[k], perm[(k + 1) % 4]))]
        out[SIDE_ORDER.index(name)] = round(s.inlier_fraction, 3)
    return (out[0], out[1], out[2], out[3])


def _inliers(r: np.ndarray) -> np.ndarray:
    mad = float(np.median(np.abs(r - np.median(r))))
    return np.abs(r) < max(4.0 * 1.4826 * mad, 1.0)


def _orient(lab: np.ndarray, cam: CameraModel, table: Table, obs: Observations
            ) -> tuple[CameraModel, Observations, str, dict[str, np.ndarray]]:
    """Which end is the front: the one with the painted house line (the table is otherwise symmetric)."""
    x = table.house_line_x
    here, c_here = line_points(lab, cam, table, x)
    there, c_there = line_points(lab, cam, table, -x)
    if len(here) >= 12 and (len(there) < 12 or c_here > 2.0 * c_there):
        return cam, obs, "orientation from the house line", {"house_line": here}
    if len(there) >= 12 and (len(here) < 12 or c_there > 2.0 * c_here):
        return flip_180(cam), obs.flipped(), "orientation from the house line (turned)", {"house_line": there}
    cam2, obs2, how = _orient_by_convention(cam, table, obs)
    return cam2, obs2, how, {}


def _orient_by_convention(cam: CameraModel, table: Table, obs: Observations
                          ) -> tuple[CameraModel, Observations, str]:
    front = cam.project(np.array([[-table.half_length, 0.0, 0.0]]))[0]
    rear = cam.project(np.array([[table.half_length, 0.0, 0.0]]))[0]
    note = "orientation assumed (no house line seen): front end at the image left"
    if front[0] <= rear[0]:
        return cam, obs, note
    return flip_180(cam), obs.flipped(), note + " (turned)"


def _marking_observations(lab: np.ndarray, cam: CameraModel, table: Table, found: dict[str, np.ndarray]
                          ) -> list[Observations]:
    """Rows for the painted lines across the table (house line, centre line) at bed level."""
    out = []
    if "house_line" in found:
        out.append(Observations.rows(found["house_line"], 0.0, 0, table.house_line_x, -1))
    pts, _ = line_points(lab, cam, table, 0.0, search_mm=40.0)
    if len(pts) >= 12:
        found["centre_line"] = pts
        out.append(Observations.rows(pts, 0.0, 0, 0.0, -1))
    return out
