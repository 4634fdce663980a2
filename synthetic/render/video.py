"""H.264 encoding with PyAV, set up so that the same frames always give the same bytes."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from types import TracebackType

import av
import cv2
import numpy as np
from av.bitstream import BitStreamFilterContext

from vision.siting import ChromaSiting, h264_chroma_siting


class VideoWriter:
    """Writes BGR uint8 frames to an MP4 (libx264, yuv420p). Deterministic: one thread, bit-exact muxing."""

    def __init__(self, path: Path, width: int, height: int, fps: float, crf: int = 20, preset: str = "veryfast"):
        if width % 2 or height % 2:
            raise ValueError(f"yuv420p needs an even frame size, got {width}x{height}")
        self.path = Path(path)
        self.width, self.height = width, height
        self._container = av.open(str(self.path), mode="w", options={"fflags": "+bitexact"})
        rate = Fraction(fps).limit_denominator(1001)
        stream = self._container.add_stream("libx264", rate=rate)
        stream.width, stream.height = width, height
        stream.pix_fmt = "yuv420p"
        stream.codec_context.thread_count = 1
        stream.codec_context.options = {
            "crf": str(crf),
            "preset": preset,
            "threads": "1",
            "x264-params": "threads=1:lookahead-threads=1:sliced-threads=0:chromaloc=2",
            "flags": "+bitexact",
        }
        self._stream = stream
        self.frames = 0

    def write(self, frame: np.ndarray) -> None:
        if frame.shape != (self.height, self.width, 3) or frame.dtype != np.uint8:
            raise ValueError(
                f"frame must be uint8 of shape {(self.height, self.width, 3)}, got {frame.dtype} {frame.shape}"
            )
        # OpenCV's I420 conversion is BT.601 limited range, what decoders assume; and faster than swscale. It
        # takes each chroma sample from the top-left pixel of its 2x2 block, which the stream declares (chromaloc)
        yuv = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420), np.uint8)
        vf = av.VideoFrame.from_ndarray(yuv, format="yuv420p")
        vf.pts = self.frames
        for packet in self._stream.encode(vf):
            self._container.mux(packet)
        self.frames += 1

    def close(self) -> None:
        for packet in self._stream.encode(None):
            self._container.mux(packet)
        self._container.close()

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def declare_siting(path: Path, siting: ChromaSiting = ChromaSiting.TOPLEFT) -> bool:
    """Write `siting` into the H.264 parameter sets of an existing MP4 in place, without re-encoding (FFmpeg's
    h264_metadata filter, the packets remuxed as they are: the decoded pictures do not change), for videos
    rendered before the writer declared it. False when the file already declares it."""
    with av.open(str(path)) as src:
        if h264_chroma_siting(src.streams.video[0].codec_context.extradata) is siting:
            return False
    tmp = path.with_suffix(".siting.mp4")
    with av.open(str(path)) as src, av.open(str(tmp), "w", options={"fflags": "+bitexact"}) as dst:
        sin = src.streams.video[0]
        sout = dst.add_stream_from_template(sin)
        bsf = BitStreamFilterContext(f"h264_metadata=chroma_sample_loc_type={int(siting)}", sin, sout)
        for packet in src.demux(sin):
            for out in bsf.filter(packet if packet.size else None):
                out.stream = sout
                dst.mux(out)
    tmp.replace(path)
    return True


def read_frames(path: Path) -> list[np.ndarray]:
    """Every frame of a video as BGR uint8 (for tests and tools; loads the whole clip)."""
    with av.open(str(path)) as container:
        return [f.to_ndarray(format="bgr24") for f in container.decode(video=0)]
