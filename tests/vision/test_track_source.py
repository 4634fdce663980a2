"""Frame sources end cleanly on damaged input, and the same tracker code runs from a file source."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np
import pytest

from vision.source import FileSource, PacedSource, open_source

W, H, N = 160, 96, 40


def write_video(path: Path) -> None:
    rng = np.random.default_rng(0)
    with av.open(str(path), "w", options={"movflags": "faststart"}) as out:
        s = out.add_stream("libx264", rate=30)
        s.width, s.height, s.pix_fmt = W, H, "yuv420p"
        for i in range(N):
            img = np.full((H, W, 3), 60, np.uint8)
            img[:, (i * 3) % W :] = 200
            img = (img + rng.integers(0, 5, img.shape)).astype(np.uint8)
            for pkt in s.encode(av.VideoFrame.from_ndarray(img, format="bgr24")):
                out.mux(pkt)
        for pkt in s.encode():
            out.mux(pkt)


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("src") / "v.mp4"
    write_video(p)
    return p


def test_file_source_reads_i420_and_bgr(video: Path) -> None:
    i420 = list(FileSource(video, i420=True))
    bgr = list(FileSource(video, i420=False))
    assert len(i420) == len(bgr) == N
    # planar frames come as the decoder's planes (a YUVFrame: the Y plane, with .u and .v), no copy
    assert i420[0].image.shape == (H, W) and i420[0].image.i420().shape == (H * 3 // 2, W)
    assert bgr[0].image.shape == (H, W, 3)
    assert np.all(np.diff([f.t for f in i420]) > 0)


@pytest.mark.parametrize("keep", [0.5, 0.8])
def test_truncated_file_ends_the_stream_without_raising(video: Path, tmp_path: Path, keep: float) -> None:
    data = video.read_bytes()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[: int(len(data) * keep)])
    src = FileSource(cut)
    frames = list(src)
    assert len(frames) < N
    assert src.error is not None or len(frames) > 0


def test_garbage_in_the_middle_does_not_raise(video: Path, tmp_path: Path) -> None:
    data = bytearray(video.read_bytes())
    mid = len(data) // 2
    data[mid : mid + 2000] = bytes(np.random.default_rng(1).integers(0, 256, 2000, dtype=np.uint8))
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(bytes(data))
    frames = list(FileSource(bad))
    assert len(frames) <= N


def test_unreadable_file_is_a_clear_error(tmp_path: Path) -> None:
    p = tmp_path / "not-a-video.mp4"
    p.write_bytes(b"\x00" * 1000)
    with pytest.raises(ValueError, match="not-a-video"):
        FileSource(p)


def test_paced_source_keeps_frames_and_times(video: Path) -> None:
    src = open_source(str(video), realtime=True)
    assert isinstance(src, PacedSource)
    frames = list(src)
    assert len(frames) == N and src.error is None
