"""Frame sources: a video file (PyAV), a camera device or RTSP URL (OpenCV), and a file played at
real-time pace. All yield the same `SourceFrame`s, so live input and offline analysis share one code path.

A source never raises on a damaged stream: it stops and records the reason in `error`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import av
import cv2
import numpy as np

from vision.siting import DEFAULT_SITING, ChromaSiting, h264_chroma_siting


@dataclass(frozen=True)
class SourceFrame:
    index: int
    t: float  # seconds from the start of the stream
    image: np.ndarray  # BGR (H, W, 3), I420 (H * 3 / 2, W) uint8, or a YUVFrame (H, W) with its chroma planes


class YUVFrame(np.ndarray):
    """A planar YUV 4:2:0 frame as the decoder left it, without a copy: the array is the luma plane (H, W),
    `u` and `v` its chroma planes (H / 2, W / 2). The arrays view the decoder's own buffers (kept alive by
    them), so handing a frame to vision costs nothing; `i420` makes the contiguous (H * 3 / 2, W) copy.
    `siting`: where its chroma samples sit among the luma samples (its stream's, vision.siting)."""

    u: np.ndarray
    v: np.ndarray
    siting: ChromaSiting

    def __array_finalize__(self, obj: object) -> None:
        self.u = getattr(obj, "u", None)  # type: ignore[assignment]
        self.v = getattr(obj, "v", None)  # type: ignore[assignment]
        self.siting = getattr(obj, "siting", DEFAULT_SITING)

    def i420(self) -> np.ndarray:
        """The contiguous I420 (H * 3 / 2, W) uint8 array (a copy)."""
        h, w = self.shape
        out = np.empty((h * 3 // 2, w), np.uint8)
        out[:h] = self
        chroma = out[h:].reshape(2, h // 2, w // 2)
        chroma[0], chroma[1] = self.u, self.v
        return out


def _plane(plane: av.video.plane.VideoPlane, width: int, height: int) -> np.ndarray:
    """A (height, width) uint8 view of one decoder plane (rows may be padded to its line size)."""
    return np.frombuffer(memoryview(plane), np.uint8).reshape(-1, plane.line_size)[:height, :width]


def yuv_frame(frame: av.VideoFrame, siting: ChromaSiting = DEFAULT_SITING) -> np.ndarray:
    """The decoder's yuv420p frame as a YUVFrame (no copy) with its stream's chroma `siting`, or a BGR
    (H, W, 3) array for any other format or an odd size (whose chroma planes do not halve evenly)."""
    w, h = frame.width, frame.height
    if frame.format.name != "yuv420p" or w % 2 or h % 2:
        return frame.to_ndarray(format="bgr24")
    y = _plane(frame.planes[0], w, h).view(YUVFrame)
    y.u = _plane(frame.planes[1], w // 2, h // 2)
    y.v = _plane(frame.planes[2], w // 2, h // 2)
    y.siting = siting
    return y


def stream_siting(stream: av.video.stream.VideoStream) -> ChromaSiting:
    """The chroma siting a video stream declares (H.264 parameter sets), else the H.264 default."""
    if stream.codec_context.name != "h264":
        return DEFAULT_SITING  # HEVC and MPEG-2 share the default; their parameter sets are not read
    return h264_chroma_siting(stream.codec_context.extradata)


def bgr_of(image: np.ndarray) -> np.ndarray:
    """BGR pixels of a frame given as BGR (H, W, 3), planar I420 (H * 3 / 2, W) or a YUVFrame."""
    if isinstance(image, YUVFrame):
        image = image.i420()
    if image.ndim == 3:
        return image
    return cv2.cvtColor(image, cv2.COLOR_YUV2BGR_I420)


def small_bgr(image: np.ndarray, width: int) -> np.ndarray:
    """A BGR picture of a frame at least `width` px wide, the caller resizing it further: a planar frame is
    halved (OpenCV's fast exact 2x area path) while it stays that wide and its planes halve evenly, and only
    then converted, a fraction of converting the whole frame. A BGR frame comes back as it is."""
    if image.ndim == 3:
        return image
    y: np.ndarray
    if isinstance(image, YUVFrame):
        y, u, v = image, image.u, image.v
        h, w = y.shape
    else:
        h, w = image.shape[0] * 2 // 3, image.shape[1]
        y, (u, v) = image[:h], image[h:].reshape(2, h // 2, w // 2)
    k = 0
    while w >> (k + 1) >= width and w % (1 << (k + 2)) == 0 and h % (1 << (k + 2)) == 0:
        k += 1
    if k == 0:
        return bgr_of(image)
    planes = [y, u, v]
    for _ in range(k):
        planes = [cv2.resize(p, (p.shape[1] // 2, p.shape[0] // 2), interpolation=cv2.INTER_AREA) for p in planes]
    sh, sw = planes[0].shape
    out = np.empty((sh * 3 // 2, sw), np.uint8)
    out[:sh] = planes[0]
    chroma = out[sh:].reshape(2, sh // 2, sw // 2)
    chroma[0], chroma[1] = planes[1], planes[2]
    return cv2.cvtColor(out, cv2.COLOR_YUV2BGR_I420)


class FrameSource(Protocol):
    fps: float
    width: int
    height: int

    @property
    def error(self) -> str | None: ...

    def __iter__(self) -> Iterator[SourceFrame]: ...


class FileSource:
    """Decode a file with PyAV. `i420=True` hands out the decoder's planar YUV as a YUVFrame, without a copy
    or a colour conversion (the detector reads it directly, which is faster); `threads` 0 lets FFmpeg choose.
    `fast=True` skips H.264's deblocking filter: about a fifth less decode time, block edges that a 4 mm grid
    does not see."""

    def __init__(self, path: str | Path, i420: bool = True, threads: int = 0, fast: bool = False) -> None:
        self.path = Path(path)
        self.i420 = i420
        self.threads = threads
        self.fast = fast
        self.error: str | None = None
        try:
            with av.open(str(self.path)) as c:
                s = c.streams.video[0]
                self.fps = float(s.guessed_rate or s.average_rate or 30)
                self.width, self.height = int(s.codec_context.width), int(s.codec_context.height)
        except (av.error.FFmpegError, IndexError) as exc:
            raise ValueError(f"{self.path}: cannot open video: {exc}") from exc

    def __iter__(self) -> Iterator[SourceFrame]:
        try:
            container = av.open(str(self.path))
        except av.error.FFmpegError as exc:
            self.error = f"open: {exc}"
            return
        with container:
            stream = container.streams.video[0]
            stream.thread_type = "AUTO"
            stream.codec_context.thread_count = self.threads
            if self.fast:
                stream.codec_context.options = {"skip_loop_filter": "all"}
            tb = float(stream.time_base) if stream.time_base else 1.0 / self.fps
            index = 0
            siting = stream_siting(stream)
            try:
                for frame in container.decode(stream):
                    t = float(frame.pts * tb) if frame.pts is not None else index / self.fps
                    img = yuv_frame(frame, siting) if self.i420 else frame.to_ndarray(format="bgr24")
                    yield SourceFrame(index, t, img)
                    index += 1
            except (av.error.FFmpegError, ValueError, EOFError) as exc:
                self.error = f"decode stopped after frame {index}: {exc}"


class CaptureSource:
    """A camera device index or a stream URL (RTSP, HTTP) through cv2.VideoCapture; BGR frames."""

    def __init__(self, device: int | str, max_frames: int | None = None) -> None:
        self.device = device
        self.max_frames = max_frames
        self.error: str | None = None
        self.cap = cv2.VideoCapture(device)
        if not self.cap.isOpened():
            raise ValueError(f"cannot open capture device {device!r}")
        self.fps = float(self.cap.get(cv2.CAP_PROP_FPS) or 30.0)
        self.width = int(self.cap.get(cv2.CAP_PROP_FRAME_WIDTH))
        self.height = int(self.cap.get(cv2.CAP_PROP_FRAME_HEIGHT))

    def __iter__(self) -> Iterator[SourceFrame]:
        index = 0
        t0 = time.monotonic()
        try:
            while self.max_frames is None or index < self.max_frames:
                ok, img = self.cap.read()
                if not ok:
                    if isinstance(self.device, str) and not Path(self.device).exists():
                        self.error = f"stream {self.device!r} ended or dropped after {index} frames"
                    break
                yield SourceFrame(index, time.monotonic() - t0, img)
                index += 1
        finally:
            self.cap.release()


class PacedSource:
    """Another source played no faster than real time (a file standing in for a live camera)."""

    def __init__(self, inner: FrameSource, speed: float = 1.0) -> None:
        self.inner = inner
        self.speed = speed
        self.fps, self.width, self.height = inner.fps, inner.width, inner.height

    @property
    def error(self) -> str | None:
        return self.inner.error

    def __iter__(self) -> Iterator[SourceFrame]:
        start = time.monotonic()
        for fr in self.inner:
            wait = start + fr.t / self.speed - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            yield fr


def open_source(spec: str, realtime: bool = False, i420: bool = True) -> FrameSource:
    """'0' or another integer: a camera device; 'rtsp://...' / 'http://...': a stream; else a file."""
    if spec.isdigit():
        return CaptureSource(int(spec))
    if "://" in spec:
        return CaptureSource(spec)
    src = FileSource(spec, i420=i420)
    if realtime:
        return PacedSource(src)
    return src
