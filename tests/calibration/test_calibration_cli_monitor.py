"""The CLI writes calibration.json and the overlay; manual corners work; the monitor notices a bump."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from bench.calibration_bench import cached_case, errors_mm
from calibration.auto import calibrate_image
from calibration.camera import CameraModel
from calibration.manual import calibrate_manual
from calibration.monitor import CalibrationMonitor
from calibration.result import Calibration, CalibrationMethod, CalibrationStatus
from calibration.table import Table

TABLE = Table.load()


def case() -> tuple[CameraModel, np.ndarray]:
    return cached_case("pyramid-12ft", 11)


@cache
def calibrated() -> Calibration:
    return calibrate_image(case()[1], TABLE)


def test_cli_writes_calibration_and_overlay(tmp_path: Path) -> None:
    from service.cli.main import main

    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), case()[1])
    out, overlay = tmp_path / "calibration.json", tmp_path / "out.png"
    assert main(["calibrate", str(frame), "-o", str(out), "--overlay", str(overlay)]) == 0
    data = json.loads(out.read_text())
    assert data["table_spec"] == "pyramid-12ft"
    assert np.asarray(data["bed_corners_px"]).shape == (4, 2)
    assert set(data["markings_px"]) == {"centre_spot", "front_spot", "rear_spot"}
    drawn = cv2.imread(str(overlay))
    assert drawn is not None
    assert drawn.shape == case()[1].shape and not np.array_equal(drawn, case()[1])


def test_manual_corners_give_a_usable_camera() -> None:
    cam, _ = case()
    corners = cam.project(np.column_stack([TABLE.bed_corners, np.zeros(4)]))
    cal = calibrate_manual(cam.width, cam.height, corners, TABLE)
    assert cal.quality.method is CalibrationMethod.MANUAL
    # no lens model: four points, seven unknowns, a distorted quad: close at the corners, not exact
    assert np.abs(cal.bed_corners_px - corners).max() < 3.0
    centre = cal.to_table(cam.project(np.array([[0.0, 0.0, 0.0]])), 0.0)[0]
    assert np.hypot(*centre) < 80.0


def _shift(img: np.ndarray, dx: float, dy: float) -> np.ndarray:
    m = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy]], np.float32)
    return np.asarray(cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), borderMode=cv2.BORDER_REPLICATE))


def test_monitor_steady_then_bumped_within_a_second() -> None:
    _, img = case()
    mon = CalibrationMonitor(calibrated(), check_every=10)
    rng = np.random.default_rng(0)
    noisy = [np.clip(img + rng.normal(0, 2.0, img.shape), 0, 255).astype(np.uint8) for _ in range(2)]
    for k in range(60):  # a second of the same view with sensor noise
        assert mon.update(noisy[k % 2]) is CalibrationStatus.OK
    bumped = _shift(img, 9.0, -6.0)
    frames = 0
    while frames < 60 and mon.update(bumped) is not CalibrationStatus.BUMPED:
        frames += 1
    assert mon.status is CalibrationStatus.BUMPED, mon.last_score
    assert frames < 60
    assert mon.update(img) is CalibrationStatus.BUMPED  # stays reported: never silently used again


def test_monitor_recalibrates_when_asked() -> None:
    _, img = case()
    mon = CalibrationMonitor(calibrated(), check_every=5, recalibrate=lambda f: calibrate_image(f, TABLE))
    mon.update(img)
    bumped = _shift(img, 12.0, 8.0)
    statuses = [mon.update(bumped) for _ in range(15)]
    assert CalibrationStatus.RECALIBRATED in statuses
    new = mon.calibration
    assert np.abs(new.bed_corners_px - (calibrated().bed_corners_px + np.array([12.0, 8.0]))).max() < 2.0


def test_video_input_uses_several_frames(tmp_path: Path) -> None:
    """A player's arm over a different cushion in every frame: the median of the sampled frames is clean."""
    from calibration.api import calibrate_file

    cam, img = case()
    path = tmp_path / "clip.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), 30.0, (img.shape[1], img.shape[0]))
    for k in range(7):
        frame = img.copy()
        x = 300 + 200 * k
        cv2.line(frame, (x, 0), (x + 150, 400 + 40 * k), (90, 120, 170), 70)
        writer.write(frame)
    writer.release()
    cal, frame = calibrate_file(path, "pyramid-12ft")
    assert frame.shape == img.shape
    spots = np.array([cal.markings_px[n] for n in ("centre_spot", "front_spot", "rear_spot")])
    c, s = errors_mm(TABLE, cam, cal.bed_corners_px, spots)
    assert c.max() < 3.0, c
    assert s.max() < 3.0, s


def test_monitor_ignores_a_player_over_one_cushion() -> None:
    """An arm and body over one long cushion for a second is not a bumped camera."""
    _, img = case()
    cal = calibrated()
    mon = CalibrationMonitor(cal, check_every=10)
    mon.update(img)
    occluded = img.copy()
    a, b = cal.bed_corners_px[1], cal.bed_corners_px[2]  # the left cushion (front_left -> rear_left)
    for s in (0.3, 0.45):
        p = a + s * (b - a)
        cv2.circle(occluded, (round(p[0]), round(p[1])), 90, (80, 110, 160), -1)
    for _ in range(60):
        assert mon.update(occluded) is CalibrationStatus.OK, mon.last_score


def test_cli_manual_corners(tmp_path: Path) -> None:
    from service.cli.main import main

    cam, img = case()
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), img)
    corners = cam.project(np.column_stack([TABLE.bed_corners, np.zeros(4)]))
    text = ",".join(f"{v:.2f}" for v in corners.ravel())
    out = tmp_path / "manual.json"
    assert main(["calibrate", str(frame), "--corners", text, "-o", str(out)]) == 0
    cal = Calibration.load(out)
    assert cal.quality.method is CalibrationMethod.MANUAL
    assert np.abs(cal.bed_corners_px - corners).max() < 3.0



def test_lens_from_rendered_checkerboards(tmp_path: Path) -> None:
    """Checkerboards seen through a known distorted lens give back its focal length and k1."""
    from calibration.manual import lens_from_checkerboards

    true = CameraModel.look_at((0.0, 0.0, 600.0), (0.0, 0.0, 0.0), (0.0, -1.0, 0.0), 500.0, 640, 480,
                               dist=(-0.15, 0.02, 0.0, 0.0, 0.0))
    sq = 30.0
    u = np.linspace(0.0, 1.0, 8)
    square = np.concatenate([np.column_stack([u, 0 * u]), np.column_stack([0 * u + 1, u]),
                             np.column_stack([1 - u, 0 * u + 1]), np.column_stack([0 * u, 1 - u])])
    paths = []
    # rigid poses tilted about different axes: one axis alone leaves the focal length undetermined
    for k, rvec in enumerate([(0.35, 0.0, 0.0), (0.0, 0.35, 0.3), (-0.3, 0.2, -0.25), (0.2, -0.3, 0.5)]):
        R = cv2.Rodrigues(np.asarray(rvec, float))[0]
        img = np.full((480, 640), 255, np.uint8)
        for i in range(10):
            for j in range(7):
                if (i + j) % 2:
                    continue
                local = np.column_stack([(i + square[:, 0] - 5.0) * sq, (j + square[:, 1] - 3.5) * sq,
                                         np.zeros(len(square))])
                px = true.project(local @ R.T + np.array([10.0 * k, -8.0 * k, 0.0]))
                cv2.fillPoly(img, [np.round(px * 16).astype(np.int32).reshape(-1, 1, 2)], 0, cv2.LINE_AA, 4)
        p = tmp_path / f"board{k}.png"
        cv2.imwrite(str(p), img)
        paths.append(p)
    K, dist = lens_from_checkerboards(paths)
    assert abs(K[0, 0] - 500.0) < 25.0
    assert abs(dist[0] - -0.15) < 0.05
