"""Is a video that decoded to its end without an error cut short? (issue #7: a truncated video is analysed
up to where it breaks, and the report says so.)

A container with an index (mp4, mov) cut partway usually fails to decode, which `read_frames` records. Other
files end quietly where they were cut: an MPEG-TS has no index, a Matroska file's cues may be lost. After
the last frame, the evidence looked for is:

- the container's expected end: the video stream's duration (mp4, or Matroska's per-track DURATION tag), or
  the container's (all streams), against the end of the last decoded frame;
- a transport stream whose size is not a whole number of transport packets (188, 192 or 204 bytes): its
  last packet was cut;
- frames missing just before the last one: a stream with B-frames cut mid-group, whose decoder flushes the
  last reference frame without the frames that came after it in the file;
- decoder errors in the last frames (a frame cut partway decodes with errors concealed): where the video
  stream's own end is not known, the tail is decoded again on one thread with libav's log captured.

Where none of these shows (a transport stream cut on a packet boundary between frames, with no B-frames),
the cut cannot be told from a recording that ended there.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import av.logging

# A frame gap this many frame periods long is a drop (service.pipeline.timing): the same tolerance for "the
# last frame ends where the container says the video ends".
GAP_PERIODS = 1.5
# The container's own duration spans every stream: an audio track may outlast the video by its last packets
# and the encoder's delay (a few hundred ms seen in camera files); a second more is allowed before calling
# the video cut.
OTHER_STREAMS_S = 1.0
# Transport packet sizes: plain MPEG-TS, M2TS (a 4-byte timecode before each), and with Reed-Solomon bytes.
TS_PACKETS = (188, 192, 204)
# How much of the end is decoded again to look for decoder errors (one GOP of a camera is 0.5-2 s).
TAIL_S = 2.0
# The errors counted are those of the last two packets and of the flush: a cut frame is the last packet.
LAST_PACKETS = 3


def _hms(text: str) -> float | None:
    """Seconds of an 'HH:MM:SS.fraction' tag (Matroska's DURATION)."""
    try:
        h, m, s = text.split(":")
        return int(h) * 3600 + int(m) * 60 + float(s)
    except ValueError:
        return None


def expected_end(container: Any, stream: Any) -> tuple[float, float, str] | None:
    """(end time in stream seconds, tolerance in seconds beyond the gap rule, where it comes from) or None.
    None for a transport stream: it declares no duration; FFmpeg estimates one from the last timestamps."""
    if container.format.name == "mpegts":
        return None
    tb = stream.time_base or Fraction(1, 90000)
    start = float(stream.start_time * tb) if stream.start_time is not None else 0.0
    if stream.duration:
        return start + float(stream.duration * tb), 0.0, "the video stream's duration"
    tag = _hms(str(stream.metadata.get("DURATION", "")))
    if tag:
        return start + tag, 0.0, "the video track's DURATION tag"
    if container.duration:
        c_start = container.start_time / av.time_base if container.start_time is not None else 0.0
        slack = OTHER_STREAMS_S if len(container.streams) > 1 else 0.0
        return c_start + container.duration / av.time_base, slack, "the container's duration"
    return None


def partial_ts_packet(path: Path, format_name: str) -> str | None:
    if format_name != "mpegts":
        return None
    size = path.stat().st_size
    if any(size % n == 0 for n in TS_PACKETS):
        return None
    return f"the file ends inside a transport packet ({size} bytes is no whole number of {TS_PACKETS[0]}-byte packets)"


def tail_errors(path: Path, from_t: float) -> list[str]:
    """libav's error messages while decoding the last packets of the video (and the decoder's flush), decoding
    on one thread from the first keyframe after `from_t` (s). Errors of earlier packets are not counted:
    a decoder started part-way can complain of missing references without anything being wrong."""
    previous, skip = av.logging.get_level(), av.logging.get_skip_repeated()
    av.logging.set_level(av.logging.ERROR)
    av.logging.set_skip_repeated(False)  # else a message seen before (the first decode) is not logged again
    marks: list[int] = []  # where the log stood before each packet was decoded
    try:
        with av.logging.Capture(local=True) as logs, av.open(str(path)) as c:
            s = c.streams.video[0]
            s.thread_type, s.codec_context.thread_count = "SLICE", 1
            tb = s.time_base or Fraction(1, 90000)
            c.seek(max(int(from_t / float(tb)), 0), stream=s, backward=True)
            for packet in c.demux(s):
                if not marks and packet.size and not packet.is_keyframe:
                    continue
                marks.append(len(logs))
                for _ in packet.decode():
                    pass
    except (av.error.FFmpegError, ValueError, OSError) as exc:
        return [str(exc)]
    finally:
        av.logging.set_level(previous)
        av.logging.set_skip_repeated(skip)
    last = marks[-LAST_PACKETS] if len(marks) >= LAST_PACKETS else 0
    return [str(m).strip() for lvl, _name, m in logs[last:] if lvl <= av.logging.ERROR]


def cut_short(path: Path, container: Any, stream: Any, last_t: float, gap_before_last_s: float,
              fps: float, last_duration_s: float = 0.0) -> str | None:
    """Why the video looks cut short after a decode that ended without error (None when it does not).
    `last_duration_s`: the last frame's own duration when the container gives one (a variable-frame-rate
    recording's last frame may last longer than the nominal period), else the nominal period is used."""
    period = 1.0 / fps if fps > 0 else 1.0 / 30
    reasons = []
    exp = expected_end(container, stream)
    if exp is not None:
        end, slack, source = exp
        if end - (last_t + max(last_duration_s, period)) > GAP_PERIODS * period + slack:
            reasons.append(f"{source} says the video ends at {end:.2f} s; the last frame decoded is at {last_t:.2f} s")
    partial = partial_ts_packet(path, container.format.name)
    if partial:
        reasons.append(partial)
    # Frames missing before the last one are the B-frames a cut took (they follow it in the file) only in a
    # stream that reorders frames; elsewhere they are a drop like any other (a camera, a phone's VFR).
    reorders = int(getattr(stream.codec_context, "has_b_frames", 0) or 0) > 0
    if gap_before_last_s > GAP_PERIODS * period and (reorders or reasons):
        reasons.append(f"{round(gap_before_last_s / period) - 1} frame(s) missing just before the last frame "
                       "(frames that came after it in the file are gone)")
    # A stream whose own duration is known was checked against it; decoding the tail again (up to a GOP of
    # frames) is only worth it where nothing else says where the video should end.
    errors = tail_errors(path, max(last_t - TAIL_S, 0.0)) if exp is None or exp[1] > 0 else []
    if errors:
        reasons.append(f"decoder errors in the last frames ({errors[-1]})")
    return "; ".join(reasons) or None


# ISO base media (mp4, mov, 3gp) top-level boxes: a recorder writes the media data (mdat) as it goes and the index
# (moov) at the end, unless it writes fragments (moof) or moves the index to the front.
_ISO_BOXES = {b"ftyp", b"free", b"skip", b"wide", b"mdat", b"moov", b"moof", b"mfra", b"uuid", b"pdin", b"sidx",
              b"styp", b"meta"}


def missing_index(path: Path, max_boxes: int = 64) -> str | None:
    """Why an ISO media file that FFmpeg cannot open holds nothing playable, if that is why: media data but no
    index (moov, or moof fragments), the sign of a recording cut before the recorder wrote its index. None where
    the file is not such a file (or cannot be read)."""
    found: list[bytes] = []
    try:
        size_total = path.stat().st_size
        with path.open("rb") as f:
            pos = 0
            while pos + 8 <= size_total and len(found) < max_boxes:
                f.seek(pos)
                head = f.read(16)
                size, kind = int.from_bytes(head[:4], "big"), head[4:8]
                if kind not in _ISO_BOXES:
                    break
                found.append(kind)
                if size == 1 and len(head) >= 16:
                    size = int.from_bytes(head[8:16], "big")  # a 64-bit box size follows the type
                elif size == 0:
                    break  # runs to the end of the file
                if size < 8:
                    break
                pos += size
    except OSError:
        return None
    if not found or found[0] != b"ftyp" or b"mdat" not in found or {b"moov", b"moof"} & set(found):
        return None
    return ("the file holds video data but no index (no 'moov' box): the recording was cut before the recorder "
            "wrote its index, so no player can locate its frames. `analyze` rebuilds an H.264 one from its media "
            "data, by itself where the camera repeats its parameter sets in the stream, else with --reference "
            "and a complete recording of the same camera and settings")
