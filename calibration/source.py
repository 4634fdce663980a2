"""Reading the input of a calibration: one image, or a few frames sampled from a video."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from calibration.result import CalibrationError

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


def read_frames(path: Path | str, n_samples: int = 7) -> list[np.ndarray]:
    """The image itself, or n_samples frames spread evenly over a video; CalibrationError if unreadable."""
    p = Path(path)
    if not p.is_file():
        raise CalibrationError(f"cannot read {p}: no such file")
    if p.suffix.lower() in IMAGE_SUFFIXES:
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is None:
            raise CalibrationError(f"cannot read {p}: not a readable image")
        return [img]
    cap = cv2.VideoCapture(str(p))
    try:
        if not cap.isOpened():
            raise CalibrationError(f"cannot read {p}: neither an image nor a video OpenCV can open")
        count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
        idx = np.linspace(0, max(count - 1, 0), n_samples).round().astype(int) if count > 0 else range(n_samples)
        frames = []
        for i in sorted(set(int(k) for k in idx)):
            cap.set(cv2.CAP_PROP_POS_FRAMES, i)
            ok, frame = cap.read()
            if ok and frame is not None:
                frames.append(frame)
    finally:
        cap.release()
    if not frames:
        raise CalibrationError(f"cannot read {p}: no frames could be decoded")
    return frames


def median_frame(frames: list[np.ndarray]) -> np.ndarray:
    """Per-pixel median of frames of one size: players, cues and moving balls mostly vanish."""
    if len(frames) == 1:
        return frames[0]
    shapes = {f.shape for f in frames}
    if len(shapes) != 1:
        raise CalibrationError(f"video frames differ in size: {sorted(shapes)}")
    return np.median(np.stack(frames), axis=0).astype(np.uint8)
