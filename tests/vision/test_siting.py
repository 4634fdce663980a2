"""The chroma siting is read from the stream's H.264 parameter sets and reaches vision with every frame."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from service.pipeline.video import ReadStatus, read_frames
from synthetic.render.video import VideoWriter, declare_siting
from vision.siting import DEFAULT_SITING, ChromaSiting, h264_chroma_siting
from vision.source import FileSource, YUVFrame


def _encode(path: Path, params: str, n: int = 3) -> Path:
    with av.open(str(path), "w") as out:
        st = out.add_stream("libx264", rate=Fraction(30))
        st.width, st.height, st.pix_fmt = 64, 48, "yuv420p"
        st.codec_context.options = {"x264-params": params} if params else {}
        for i in range(n):
            f = av.VideoFrame.from_ndarray(np.full((72, 64), 16 + 30 * i, np.uint8), format="yuv420p")
            f.pts = i
            for p in st.encode(f):
                out.mux(p)
        for p in st.encode(None):
            out.mux(p)
    return path


def _extradata(path: Path) -> bytes | None:
    with av.open(str(path)) as c:
        data = c.streams.video[0].codec_context.extradata
        return bytes(data) if data else None


@pytest.mark.parametrize("loc", list(ChromaSiting))
def test_declared_siting_is_read(tmp_path: Path, loc: ChromaSiting) -> None:
    assert h264_chroma_siting(_extradata(_encode(tmp_path / "v.mp4", f"chromaloc={int(loc)}"))) is loc


def test_undeclared_or_unreadable_siting_is_the_h264_default(tmp_path: Path) -> None:
    assert DEFAULT_SITING is ChromaSiting.LEFT
    assert h264_chroma_siting(_extradata(_encode(tmp_path / "v.mp4", ""))) is ChromaSiting.LEFT
    assert h264_chroma_siting(None) is ChromaSiting.LEFT
    assert h264_chroma_siting(b"\x01\x64\x00\x1f\xff\xe1\x00\x04\x67\x64") is ChromaSiting.LEFT  # cut short
    assert h264_chroma_siting(b"not a parameter set") is ChromaSiting.LEFT


def test_offsets_place_chroma_sample_zero() -> None:
    assert ChromaSiting.LEFT.offset == (0.0, 0.5)
    assert ChromaSiting.CENTER.offset == (0.5, 0.5)
    assert ChromaSiting.TOPLEFT.offset == (0.0, 0.0)
    assert ChromaSiting.BOTTOM.offset == (0.5, 1.0)


def test_frames_carry_their_streams_siting(tmp_path: Path) -> None:
    path = _encode(tmp_path / "v.mp4", "chromaloc=3")
    frames = list(FileSource(path))
    assert frames and all(isinstance(f.image, YUVFrame) and f.image.siting is ChromaSiting.TOP for f in frames)
    status = ReadStatus()
    analysed = list(read_frames(path, status, i420=True))
    assert analysed and all(getattr(f.image, "siting", None) is ChromaSiting.TOP for f in analysed)


def test_a_raw_stream_takes_its_siting_from_the_first_packet(tmp_path: Path) -> None:
    mp4 = _encode(tmp_path / "v.mp4", "chromaloc=1")
    raw = tmp_path / "v.h264"
    with av.open(str(mp4)) as src, av.open(str(raw), "w", format="h264") as dst:
        sin = src.streams.video[0]
        sout = dst.add_stream_from_template(sin)
        for packet in src.demux(sin):
            if packet.size:
                packet.stream = sout
                dst.mux(packet)
    frames = list(read_frames(raw, ReadStatus(), i420=True, raw_fps=30.0))
    assert frames and all(getattr(f.image, "siting", None) is ChromaSiting.CENTER for f in frames)


def test_the_synthetic_writer_declares_opencvs_siting_and_old_videos_can_be_told(tmp_path: Path) -> None:
    path = tmp_path / "w.mp4"
    with VideoWriter(path, 64, 48, 30.0) as w:
        for i in range(3):
            w.write(np.full((48, 64, 3), 40 * i, np.uint8))
    assert h264_chroma_siting(_extradata(path)) is ChromaSiting.TOPLEFT
    old = _encode(tmp_path / "old.mp4", "", n=5)
    with av.open(str(old)) as c:
        before = [f.to_ndarray(format="yuv420p") for f in c.decode(video=0)]
    assert declare_siting(old) and not declare_siting(old)
    assert h264_chroma_siting(_extradata(old)) is ChromaSiting.TOPLEFT
    with av.open(str(old)) as c:
        after = [f.to_ndarray(format="yuv420p") for f in c.decode(video=0)]
    assert len(after) == len(before) and all(np.array_equal(a, b) for a, b in zip(after, before, strict=True))
