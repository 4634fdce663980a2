"""The calibration entry points: from a file (image or video), from frames, or from given corners."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from calibration.auto import calibrate_image
from calibration.manual import calibrate_manual, lens_from_checkerboards
from calibration.result import Calibration, CalibrationError
from calibration.source import median_frame, read_frames
from calibration.table import Table


def load_table(spec: str) -> Table:
    try:
        return Table.load(spec)
    except (ValueError, OSError) as exc:
        raise CalibrationError(str(exc)) from exc


def calibrate_frames(frames: list[np.ndarray], table: Table, spec_name: str = "") -> Calibration:
    """Video: the per-pixel median of the sampled frames first (players fade out), else the best frame."""
    first: CalibrationError | None = None
    try:
        return calibrate_image(median_frame(frames), table, spec_name)
    except CalibrationError as exc:
        first = exc
    best: Calibration | None = None
    for f in frames if len(frames) > 1 else []:
        try:
            cal = calibrate_image(f, table, spec_name)
        except CalibrationError:
            continue
        if best is None or cal.rms_mm < best.rms_mm:
            best = cal
    if best is None:
        raise first
    return best


def calibrate_file(
    path: Path | str,
    spec: str = "pyramid-12ft",
    corners: np.ndarray | None = None,
    lens_images: list[Path] | None = None,
) -> tuple[Calibration, np.ndarray]:
    """Calibrate from an image or video file; returns the calibration and the frame it was made on."""
    table = load_table(spec)
    frames = read_frames(path)
    frame = median_frame(frames)
    if corners is not None:
        lens = lens_from_checkerboards(lens_images) if lens_images else None
        h, w = frame.shape[:2]
        return calibrate_manual(w, h, corners, table, spec, lens), frame
    return calibrate_frames(frames, table, spec), frame
