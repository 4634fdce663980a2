"""An mp4 / mov cut before its index was written, rebuilt as a raw H.264 stream that can be analysed up to the cut.

A recorder writes the frames (the `mdat` box) as it goes and their index (`moov`) when it stops, so a recording cut
by a crash or a power loss holds every frame up to the cut but nothing that locates them. For H.264 (the usual
camera codec) the frames are NAL units, each behind a 4-byte length, one after another in `mdat`: they can be
walked without the index. The decoder also needs the parameter sets (SPS, PPS): many cameras repeat them
in-band before each keyframe; otherwise they lived in the lost index, and a complete recording of the same
camera with the same settings (`reference`) has them, with the frame rate. The frames then go out in Annex B
form (start codes) to a `.h264` file, read at that frame rate (`service.pipeline.video.read_frames(raw_fps=...)`).

Walking stops at the first length that does not fit or a unit that is not video (audio interleaved in `mdat`,
or the cut): what follows it is lost. Only H.264 is handled; an HEVC recording is refused with that reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import av

from service.pipeline.video import ReadStatus, probe

REBUILT = "rebuilt.h264"  # in the output folder
_START = b"\x00\x00\x00\x01"
_SPS, _PPS = 7, 8
_VIDEO_NALS = set(range(1, 13))  # slices, SEI, parameter sets, delimiters, end of sequence / stream, filler


@dataclass(frozen=True)
class Rebuilt:
    path: Path  # the .h264 stream written
    fps: float
    units: int  # NAL units recovered
    used_bytes: int  # of the media data, up to where the walk stopped
    data_bytes: int  # media data present in the file
    parameter_sets: str  # "in-band" or the reference's name

    def note(self) -> str:
        share = self.used_bytes / self.data_bytes if self.data_bytes else 0.0
        return (f"rebuilt from its media data: {self.units} H.264 units, {share:.0%} of its {self.data_bytes} "
                f"bytes of media data, parameter sets {self.parameter_sets}, read at {self.fps:g} fps")


def _media_data(path: Path) -> tuple[int, int]:
    """(start, end) of the first `mdat` payload, its end clipped to the file (a cut box claims more)."""
    size_total = path.stat().st_size
    with path.open("rb") as f:
        pos = 0
        while pos + 8 <= size_total:
            f.seek(pos)
            head = f.read(16)
            size, kind = int.from_bytes(head[:4], "big"), head[4:8]
            header = 8
            if size == 1:
                size, header = int.from_bytes(head[8:16], "big"), 16
            elif size == 0:
                size = size_total - pos
            if kind == b"mdat":
                return pos + header, min(pos + size, size_total)
            if size < 8:
                break
            pos += size
    raise ValueError(f"{path.name}: no media data ('mdat' box) to rebuild from")


def _reference_sets(reference: Path) -> tuple[list[bytes], int, float]:
    """(SPS and PPS, NAL length size, fps) from the avcC record of a complete H.264 recording."""
    try:
        with av.open(str(reference)) as c:
            if not c.streams.video:
                raise ValueError(f"reference {reference.name}: no video stream")
            s = c.streams.video[0]
            name, extra = s.codec_context.name, bytes(s.codec_context.extradata or b"")
            fps = float(s.guessed_rate or s.average_rate or 0)
    except av.error.FFmpegError as exc:
        raise ValueError(f"reference {reference.name} cannot be read: {exc}") from exc
    if name != "h264" or len(extra) < 7 or extra[0] != 1:
        raise ValueError(f"reference {reference.name}: not an H.264 mp4/mov recording (codec {name}), "
                         "so it holds no parameter sets to rebuild with")
    length_size = (extra[4] & 3) + 1
    sets, p = [], 5
    for count_mask in (0x1F, 0xFF):  # the SPS count shares its byte with reserved bits; the PPS count does not
        if p >= len(extra):
            break
        n, p = extra[p] & count_mask, p + 1
        for _ in range(n):
            size = int.from_bytes(extra[p:p + 2], "big")
            sets.append(extra[p + 2:p + 2 + size])
            p += 2 + size
    if not any(s and s[0] & 0x1F == _SPS for s in sets) or fps <= 0:
        raise ValueError(f"reference {reference.name}: no SPS or no frame rate in it")
    return sets, length_size, fps


def rebuild(cut: Path, out: Path, reference: Path | None = None) -> Rebuilt:
    """Walk the media data of `cut` and write its H.264 units to `out` (Annex B); ValueError when it cannot.
    The file is streamed unit by unit: a two-hour recording needs no more memory than its largest frame."""
    start, end = _media_data(cut)
    sets: list[bytes] = []
    length_size, fps, source = 4, 0.0, "in-band"
    if reference is not None:
        sets, length_size, fps = _reference_sets(reference)
        source = f"from {reference.name}"
    out.parent.mkdir(parents=True, exist_ok=True)
    part = out.with_name(out.name + ".part")
    head: list[bytes] = []  # the first units, to read the frame rate from when no reference gives it
    kinds: set[int] = set()
    units, pos = 0, start
    with cut.open("rb") as f, part.open("wb") as w:
        for u in sets:
            w.write(_START + u)
        while pos + length_size < end:
            f.seek(pos)
            n = int.from_bytes(f.read(length_size), "big")
            if n == 0 or pos + length_size + n > end:
                break
            unit = f.read(n)
            if len(unit) < n or unit[0] & 0x80 or unit[0] & 0x1F not in _VIDEO_NALS:
                break
            kinds.add(unit[0] & 0x1F)
            if len(head) < 64:
                head.append(unit)
            w.write(_START + unit)
            units += 1
            pos += length_size + n
    try:
        if not sets and not {_SPS, _PPS} <= kinds:
            raise ValueError(f"{cut.name}: its H.264 parameter sets were in the lost index and are not repeated in "
                             "the stream; give a complete recording of the same camera and settings as a reference")
        if not kinds & {1, 5}:
            raise ValueError(f"{cut.name}: no H.264 picture found in its media data (another codec, or audio first)")
        if fps <= 0:
            fps = _stream_rate(cut, sets, head)
    except ValueError:
        part.unlink(missing_ok=True)
        raise
    part.replace(out)
    return Rebuilt(out, fps, units, pos - start, end - start, source)


def _stream_rate(cut: Path, sets: list[bytes], units: list[bytes]) -> float:
    """The frame rate the SPS's timing information gives (FFmpeg reads it), where no reference gave one."""
    probe = cut.with_name(cut.name + ".rate.h264")
    try:
        probe.write_bytes(b"".join(_START + u for u in (*sets, *units[:64])))
        with av.open(str(probe), format="h264") as c:
            s = c.streams.video[0]
            rate = s.codec_context.framerate or s.guessed_rate
            fps = float(rate) if rate else 0.0
    except (av.error.FFmpegError, OSError) as exc:
        raise ValueError(f"{cut.name}: the rebuilt stream does not open: {exc}") from exc
    finally:
        probe.unlink(missing_ok=True)
    if not 1.0 <= fps <= 1000.0:
        raise ValueError(f"{cut.name}: its stream states no frame rate; give a reference recording")
    return fps


def open_or_rebuild(
    video: Path, out: Path, reference: Path | None
) -> tuple[Path, float | None, ReadStatus, str | None]:
    """(the file to read, its raw frame rate or None, its probe, what was done): `video` itself when it opens; a
    stream rebuilt into `out` when it is an mp4 / mov cut before its index. ValueError says why neither works."""
    from service.pipeline.truncation import missing_index

    try:
        return video, None, probe(video), None
    except ValueError as exc:
        if missing_index(video) is None:
            raise
        try:
            rb = rebuild(video, out / REBUILT, reference)
        except ValueError as why:
            raise ValueError(f"{exc}; it could not be rebuilt: {why}") from exc
        return rb.path, rb.fps, probe(rb.path, rb.fps), rb.note()
