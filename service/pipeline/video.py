"""Reading and writing video at the edge of the pipeline (PyAV).

`read_frames` yields decoded frames one at a time (never the whole video) with their presentation time, and
stops cleanly where a damaged or truncated file stops decoding, recording why in a `ReadStatus`; a file that
decodes to its end but was cut short (service.pipeline.truncation) is recorded the same way.
`SegmentWriter` encodes the annotated video in parts (one per checkpoint interval) that `concat_parts`
joins without re-encoding, so an interrupted run can resume without rewriting what it already wrote.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import numpy as np

from service.pipeline.truncation import cut_short
from vision.siting import h264_chroma_siting
from vision.source import stream_siting, yuv_frame

# A gap of more than 1.5 frame periods is missing frames (as service.pipeline.timing counts drops).
GAP_PERIODS = 1.5
DECODER_DELAY = 16  # frames an H.264 decoder may hold back (its reference picture buffer)
# Codecs whose in-loop deblocking filter FFmpeg can skip on B pictures (`skip_loop_filter=bidir`). Most B
# pictures are never references, so nothing drifts; the rest (a B pyramid's middle picture) are referenced only
# inside their mini-GOP. On the 1080p60 sample: decode about 1.3x faster, pixels within 7 grey levels of the
# filtered decode, mean difference 0.003 (a ball's edge contrast is tens of levels).
SKIP_B_DEBLOCK_CODECS = frozenset({"h264", "hevc"})


@dataclass(frozen=True)
class Frame:
    """One decoded frame: its index in decode order, its time in video seconds, BGR pixels."""

    index: int
    t: float
    image: np.ndarray


@dataclass
class ReadStatus:
    """How reading went: filled in while the generator runs."""

    fps: float = 0.0
    width: int = 0
    height: int = 0
    declared_frames: int = 0  # from the container, 0 when unknown
    frames_read: int = 0
    error: str | None = None  # set when decoding stopped before the end of the stream
    # Damaged stretches the decoder got past (packets it refused, then frames again): "n packet(s) between
    # t1 s and t2 s: <error>"; their frames are missing, a gap in the timestamps like dropped frames.
    damaged: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.error is None


def open_video(path: Path, raw_fps: float | None = None) -> Any:
    """The container; `raw_fps` reads an Annex B H.264 stream at that rate (one rebuilt by
    `service.pipeline.recover`: it carries no timestamps, so frame i is at i / raw_fps)."""
    if raw_fps is None:
        return av.open(str(path))
    return av.open(str(path), format="h264", options={"framerate": f"{raw_fps:g}"})


def probe(path: Path, raw_fps: float | None = None) -> ReadStatus:
    """fps, size and declared frame count without decoding; raises ValueError for an unreadable file."""
    try:
        with open_video(path, raw_fps) as container:
            if not container.streams.video:
                raise ValueError(f"{path}: no video stream")
            s = container.streams.video[0]
            rate = s.guessed_rate or s.average_rate or Fraction(30)
            return ReadStatus(float(rate), int(s.codec_context.width), int(s.codec_context.height), int(s.frames or 0))
    except av.error.FFmpegError as exc:
        raise ValueError(f"{path}: cannot open video: {_why(path, exc)}") from exc


def _why(path: Path, exc: Exception) -> str:
    """FFmpeg's reason, with the likely cause where the file shows one (an MP4 cut before its index)."""
    from service.pipeline.truncation import missing_index

    cause = missing_index(path)
    return f"{exc}; {cause}" if cause else str(exc)


def first_frames(path: Path, n: int = 2, raw_fps: float | None = None) -> tuple[int, ReadStatus]:
    """How many of the first n frames decode, and the read status after them (its `error` when reading stopped).
    Two tell a video from a single picture (a JPEG or PNG that FFmpeg opens as a one-frame stream)."""
    status = ReadStatus()
    frames = read_frames(path, status, raw_fps=raw_fps)
    got = sum(1 for _, _ in zip(range(n), frames, strict=False))
    frames.close()  # type: ignore[attr-defined]
    return got, status


def is_i420(image: np.ndarray) -> bool:
    """A planar frame: I420 (H * 3 / 2, W) or the decoder's planes (a YUVFrame, whose array is the Y plane)."""
    return image.ndim == 2


def read_frames(
    path: Path, status: ReadStatus, start_frame: int = 0, threads: int = 0, i420: bool = False,
    skip_b_deblock: bool = False, raw_fps: float | None = None,
) -> Iterator[Frame]:
    """Decode `path` frame by frame from `start_frame`. A packet that does not decode is skipped and the
    stretch recorded in `status.damaged` when frames decode after it; when none do, reading stops there and
    `status.error` says so.

    `threads=1` pins the decoder to one core (speed benchmark); 0 lets FFmpeg choose. `i420=True` hands
    out the decoder's planar YUV 4:2:0 without a colour conversion when the stream has it (vision reads
    it directly; `vision.source.bgr_of` converts when a picture is needed). `skip_b_deblock=True` leaves
    out the deblocking filter on B pictures of H.264 and HEVC streams (`SKIP_B_DEBLOCK_CODECS`), which
    analysis does for speed.
    """
    try:
        container = open_video(path, raw_fps)
    except av.error.FFmpegError as exc:
        status.error = f"cannot open video: {_why(path, exc)}"
        return
    with container:
        if not container.streams.video:
            status.error = "no video stream"
            return
        stream = container.streams.video[0]
        if threads or raw_fps is not None:
            # a rebuilt raw stream is a damaged one: frame threading conceals its missing references differently
            # from run to run (a resumed read gave other pictures, 1 run in 16 under load); slices decode alike
            stream.thread_type = "SLICE"
            stream.codec_context.thread_count = threads
        else:
            stream.thread_type = "AUTO"
        if skip_b_deblock and stream.codec_context.name in SKIP_B_DEBLOCK_CODECS:
            stream.codec_context.options = {"skip_loop_filter": "bidir"}
        rate = stream.guessed_rate or stream.average_rate or Fraction(30)
        status.fps = float(rate)
        status.width, status.height = int(stream.codec_context.width), int(stream.codec_context.height)
        status.declared_frames = int(stream.frames or 0)
        tb = stream.time_base or Fraction(1, 90000)
        if start_frame > 0 and raw_fps is None:  # a raw stream has no timestamps to seek by: decoded from its start
            # Seek to the keyframe before the target, then decode forward; indices come from timestamps.
            target = int((start_frame - 0.5) / float(rate) / float(tb))
            try:
                container.seek(max(target, 0), stream=stream, backward=True)
            except av.error.FFmpegError:
                container.seek(0)
        index, last_t, gap, last_dur = -1, None, 0.0, 0.0
        siting = stream_siting(stream)
        # a raw H.264 stream has no extradata: its parameter sets come in the first packet
        in_band = stream.codec_context.name == "h264" and not stream.codec_context.extradata
        bad, bad_exc, after_bad = 0, "", 0  # packets refused, and frames out of the decoder since
        for packet in container.demux(stream):
            if in_band and packet.size:
                siting, in_band = h264_chroma_siting(bytes(packet)), False
            try:
                frames = packet.decode()
            except (av.error.FFmpegError, ValueError, OSError) as exc:
                # A damaged packet (a bad sector, a glitch in a copy): skip it; the decoder resumes at the next
                # picture it can decode. Only when nothing new decodes after it does the reading stop there.
                bad, bad_exc, after_bad = bad + 1, str(exc), 0
                continue
            for frame in frames:
                t = float(frame.pts * tb) if frame.pts is not None else (index + 1) / float(rate)
                if bad:
                    # Decoding went on past the damage: a frame after a gap in time, or more frames than a
                    # decoder holds back (16 reference pictures) - not just the ones it had buffered before it.
                    after_bad += 1
                    if (last_t is not None and t - last_t > GAP_PERIODS / float(rate)) or after_bad > DECODER_DELAY:
                        status.damaged.append(f"{bad} damaged packet(s) could not be decoded; decoding went on at "
                                              f"{t:.2f} s ({bad_exc}): the frames they held are missing")
                        bad = 0
                gap, last_t = (t - last_t if last_t is not None else 0.0), t
                last_dur = float(frame.duration * tb) if frame.duration else 0.0
                index = round(t * float(rate)) if start_frame > 0 and frame.pts is not None else index + 1
                if index < start_frame:
                    continue
                status.frames_read += 1
                if i420 and frame.format.name == "yuv420p":
                    # the decoder's planes without a copy (a 1080p to_ndarray copy costs ~0.35 ms a frame)
                    yield Frame(index, t, yuv_frame(frame, siting))
                else:
                    yield Frame(index, t, frame.to_ndarray(format="bgr24"))
        # damaged to the end (nothing decoded after it), or decoded to the end: either way, was the file cut
        # short? (PyAV 18 refuses a cut MP4's last, partial packet where earlier releases decoded to the cut)
        why = cut_short(path, container, stream, last_t, gap, status.fps, last_dur) if last_t is not None else None
        if why:
            status.error = f"the file is cut short after frame {index} ({last_t:.2f} s): {why}"
            if bad:
                status.error += f"; its last {bad} packet(s) did not decode ({bad_exc})"
        elif bad:
            status.error = f"decoding stopped after frame {index}: {bad_exc}"


class SegmentWriter:
    """H.264 (libx264) writer of one part of the annotated video; pts are global frame indices."""

    def __init__(self, path: Path, fps: float, width: int, height: int, crf: int = 28) -> None:
        self.path = path
        self._container = av.open(str(path), mode="w")
        rate = Fraction(fps).limit_denominator(1001)
        self._stream = self._container.add_stream("libx264", rate=rate)
        self._stream.width, self._stream.height = width - width % 2, height - height % 2
        self._stream.pix_fmt = "yuv420p"
        self._stream.time_base = 1 / rate
        # No B-frames: dts == pts, so parts concatenate by copying packets.
        self._stream.options = {"preset": "ultrafast", "crf": str(crf), "bf": "0"}
        self._stream.codec_context.thread_count = 1

    def write(self, image_bgr: np.ndarray, frame_index: int) -> None:
        h, w = self._stream.height, self._stream.width
        frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(image_bgr[:h, :w]), format="bgr24")
        frame.pts = frame_index
        for packet in self._stream.encode(frame):
            self._container.mux(packet)

    def close(self) -> None:
        for packet in self._stream.encode(None):
            self._container.mux(packet)
        self._container.close()


def concat_parts(parts: list[Path], out: Path) -> int:
    """Join parts written by `SegmentWriter` into one file by copying packets; returns packets written."""
    parts = [p for p in parts if p.exists() and p.stat().st_size > 0]
    if not parts:
        return 0
    n = 0
    last_dts = -1
    with av.open(str(parts[0])) as first:
        template = first.streams.video[0]
        with av.open(str(out), mode="w", format="mp4") as dst:
            ostream = dst.add_stream_from_template(template)
            for part in parts:
                with av.open(str(part)) as src:
                    for packet in src.demux(src.streams.video[0]):
                        if packet.dts is None or packet.size == 0:
                            continue
                        if packet.dts <= last_dts:  # overlap after a resume: keep the earlier copy
                            continue
                        last_dts = packet.dts
                        packet.stream = ostream
                        dst.mux(packet)
                        n += 1
    return n
