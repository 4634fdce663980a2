"""Analysis decodes B pictures without the deblocking filter (service.pipeline.video.SKIP_B_DEBLOCK_CODECS):
the same frames, at the same times, within a few grey levels of the filtered decode; I and P pictures (the
references) exactly the same, so nothing drifts."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np

from service.pipeline.video import ReadStatus, read_frames

N = 48


def clip(path: Path, codec: str, options: dict[str, str]) -> Path:
    """Blocky moving texture at a low bit rate, where the deblocking filter has work to do."""
    rng = np.random.default_rng(5)
    base = np.repeat(np.repeat(rng.integers(40, 220, (23, 40, 3), dtype=np.uint8), 8, 0), 8, 1)[:180, :320]
    with av.open(str(path), "w") as c:
        s = c.add_stream(codec, rate=30, options=options)
        s.width, s.height, s.pix_fmt = 320, 180, "yuv420p"
        if codec == "mpeg4":
            s.bit_rate = 200_000
        for i in range(N):
            img = np.ascontiguousarray(np.roll(base, 3 * i, axis=1))
            for p in s.encode(av.VideoFrame.from_ndarray(img, format="bgr24")):
                c.mux(p)
        for p in s.encode(None):
            c.mux(p)
    return path


def decode(path: Path, skip: bool) -> tuple[list[float], list[np.ndarray]]:
    status = ReadStatus()
    frames = list(read_frames(path, status, i420=False, skip_b_deblock=skip))
    assert status.error is None, status
    return [f.t for f in frames], [f.image.astype(np.int16) for f in frames]


def picture_types(path: Path) -> list[str]:
    with av.open(str(path)) as c:
        # PyAV 18 gives the type as a plain int (3 is B), earlier releases as an enum
        return [av.video.frame.PictureType(int(f.pict_type)).name for f in c.decode(video=0)]


def test_b_pictures_are_decoded_close_to_the_filtered_decode_and_references_exactly(tmp_path: Path) -> None:
    path = clip(tmp_path / "b.mp4", "libx264", {"bf": "3", "b-pyramid": "none", "crf": "40"})
    types = picture_types(path)
    assert types.count("B") > N // 3  # the clip has B pictures to skip the filter on
    t_full, full = decode(path, skip=False)
    t_fast, fast = decode(path, skip=True)
    assert t_fast == t_full
    diffs = [int(np.abs(a - b).max()) for a, b in zip(full, fast, strict=True)]
    assert all(d == 0 for d, ty in zip(diffs, types, strict=True) if ty != "B")  # references: no drift
    assert any(d > 0 for d, ty in zip(diffs, types, strict=True) if ty == "B")  # the option took effect
    mean = max(float(np.abs(a - b).mean()) for a, b in zip(full, fast, strict=True))
    assert mean < 1.0, mean


def test_a_codec_without_the_option_decodes_as_before(tmp_path: Path) -> None:
    path = clip(tmp_path / "mpeg4.mp4", "mpeg4", {})
    t_full, full = decode(path, skip=False)
    t_fast, fast = decode(path, skip=True)
    assert t_fast == t_full and len(full) == N
    assert all(np.array_equal(a, b) for a, b in zip(full, fast, strict=True))
