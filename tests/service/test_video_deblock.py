"""Decoding without the codec's deblocking filter (an option of the analysis): the same frames, pictures within about
a grey level."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from service.pipeline.run import AnalyzeConfig
from service.pipeline.video import ReadStatus, read_frames

VIDEO = Path(__file__).resolve().parents[2] / "sample_videos" / "break" / "video.mp4"


def _luma(deblock: bool, n: int) -> tuple[list[np.ndarray], list[float]]:
    status = ReadStatus()
    out, times = [], []
    for fr in read_frames(VIDEO, status, threads=1, i420=True, deblock=deblock):
        out.append(np.asarray(fr.image, dtype=np.float32)[: status.height].copy())
        times.append(fr.t)
        if len(out) >= n:
            break
    assert status.error is None
    return out, times


def test_without_deblocking_the_same_frames_come_out_a_grey_level_apart_at_most() -> None:
    full, t_full = _luma(True, 90)
    fast, t_fast = _luma(False, 90)
    assert t_full == t_fast
    rms = [float(np.sqrt(np.mean((a - b) ** 2))) for a, b in zip(full, fast, strict=True)]
    assert max(rms) < 2.0  # the references drift that little over the group of pictures
    assert max(rms) > 0.0  # the filter was skipped: inter frames differ


def test_analyze_decodes_with_deblocking_unless_asked() -> None:
    assert AnalyzeConfig(video=VIDEO, out=Path("x")).deblock is True
