"""A video cut partway that still decodes to its (new) end is flagged as cut short (issue #7), in the report
and the API: MPEG-TS cut on and off a transport-packet boundary, Matroska, an mp4 with its index in front.
The files are made here with PyAV (libx264 with its default B-frames), then cut."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import av
import httpx
import numpy as np
import pytest
from svc_fakes import LiveServer, counting_judge, scripted_stages, wait_until

from service.pipeline.run import AnalyzeConfig, analyze
from service.pipeline.video import ReadStatus, read_frames

N = 90
TS_PACKET = 188


def inside_a_frame(ts: Path, frame: int) -> int:
    """A transport-packet boundary in the middle of `frame`'s data (a cut there leaves that frame partial)."""
    with av.open(str(ts)) as c:
        pos = [p.pos for p in c.demux(video=0) if p.size]
    assert pos[frame + 1] - pos[frame] > 2 * TS_PACKET  # the frame spans several packets
    return (pos[frame] + (pos[frame + 1] - pos[frame]) // 2) // TS_PACKET * TS_PACKET


def textured_clip(path: Path, fmt: str | None = None, options: dict[str, str] | None = None,
                  stream_options: dict[str, str] | None = None) -> Path:
    """Moving noise: frames of several transport packets each, so a cut can fall inside a frame."""
    base = np.random.default_rng(7).integers(0, 255, (180, 320, 3), dtype=np.uint8)
    with av.open(str(path), "w", format=fmt, options=options or {}) as c:
        s = c.add_stream("libx264", rate=30, options=stream_options or {})
        s.width, s.height, s.pix_fmt = 320, 180, "yuv420p"
        for i in range(N):
            for p in s.encode(av.VideoFrame.from_ndarray(np.roll(base, 4 * i, axis=1), format="bgr24")):
                c.mux(p)
        for p in s.encode(None):
            c.mux(p)
    return path


@pytest.fixture(scope="module")
def videos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("cut")
    whole = {"ts": textured_clip(d / "whole.ts"), "mkv": textured_clip(d / "whole.mkv"),
             "mp4": textured_clip(d / "whole.mp4", "mp4", {"movflags": "faststart"})}
    out = {f"whole-{k}": v for k, v in whole.items()}
    for name, src, size in (
            ("ts-on-a-packet", whole["ts"], lambda n: inside_a_frame(whole["ts"], N * 6 // 10)),
            ("ts-in-a-packet", whole["ts"], lambda n: inside_a_frame(whole["ts"], N * 6 // 10) + 77),
            ("mkv", whole["mkv"], lambda n: int(n * 0.6)),
            ("mp4", whole["mp4"], lambda n: int(n * 0.6))):
        data = src.read_bytes()
        out[f"cut-{name}"] = d / f"cut-{name}{src.suffix}"
        out[f"cut-{name}"].write_bytes(data[:size(len(data))])
    return out


def partly_analysed(c: httpx.Client, video: Path) -> dict[str, Any]:
    """Analyse `video` through the API; the finished job, which must say the file was cut short."""
    job = c.post("/analyses", json={"video_path": str(video)}).json()
    wait_until(lambda: c.get(f"/analyses/{job['id']}").json()["status"] not in ("queued", "running"), "the analysis")
    done: dict[str, Any] = c.get(f"/analyses/{job['id']}").json()
    assert done["status"] == "done" and done["message"].startswith("partly analysed"), done
    assert "cut short" in done["message"]
    return done


def read_all(path: Path) -> ReadStatus:
    status = ReadStatus()
    for _ in read_frames(path, status):
        pass
    return status


@pytest.mark.parametrize("name", ["whole-ts", "whole-mkv", "whole-mp4"])
def test_a_whole_video_is_not_flagged(videos: dict[str, Path], name: str) -> None:
    status = read_all(videos[name])
    assert status.frames_read == N and status.error is None, status


@pytest.mark.parametrize("name", ["cut-ts-on-a-packet", "cut-ts-in-a-packet", "cut-mkv", "cut-mp4"])
def test_a_cut_video_is_read_up_to_the_cut_and_flagged(videos: dict[str, Path], name: str) -> None:
    status = read_all(videos[name])
    assert 0 < status.frames_read < N
    assert status.error is not None and "cut short" in status.error, status


def test_the_report_and_the_api_say_a_transport_stream_was_cut(videos: dict[str, Path], tmp_path: Path) -> None:
    video = videos["cut-ts-on-a-packet"]
    res = analyze(AnalyzeConfig(video, tmp_path / "out", annotate=False), None, scripted_stages, counting_judge)
    assert res.frames > 0 and res.read.error is not None and "cut short" in res.read.error
    assert "cut short" in json.loads((tmp_path / "out" / "summary.json").read_text())["read_error"]
    assert "could not be read to the end: the file is cut short" in (tmp_path / "out" / "report.html").read_text()

    srv = LiveServer(tmp_path / "data").start()
    try:
        with httpx.Client(base_url=srv.url, timeout=10) as c:
            done = partly_analysed(c, video)
            assert "the file is cut short" in c.get(done["report_url"]).text
    finally:
        srv.stop()


def test_a_last_frame_held_longer_is_not_a_cut(videos: dict[str, Path], tmp_path: Path) -> None:
    """A variable-frame-rate recording may hold its last frame longer than the nominal period: the track's
    duration then ends later than last frame + one period, and nothing is missing."""
    # such recordings (phones, cameras) have no B-frames: the last packet is the last frame shown (with B-frames
    # it is not, and PyAV 18's MP4 muxer ends the track at the last packet's end)
    src = textured_clip(tmp_path / "no-b.mp4", "mp4", {"movflags": "faststart"}, {"bf": "0"})
    dst = tmp_path / "held.mp4"
    with av.open(str(src)) as i, av.open(str(dst), "w") as o:
        packets = [p for p in i.demux(i.streams.video[0]) if p.size]
        s = o.add_stream_from_template(i.streams.video[0])
        last_dts = max(int(p.dts) for p in packets)
        for p in packets:
            if p.dts == last_dts:
                p.duration = int(p.duration) * 6  # the last frame shown for six periods
            p.stream = s
            o.mux(p)
    with av.open(str(dst)) as c:  # the track now says it runs five periods past the last frame's nominal end
        s = c.streams.video[0]
        assert float(s.duration * s.time_base) > (N + 4) / 30
    status = read_all(dst)
    assert status.frames_read == N and status.error is None, status


def test_a_frame_dropped_just_before_the_end_of_a_whole_file_is_no_cut(tmp_path: Path) -> None:
    """With no B-frames nothing can follow the last frame in the file: a gap before it is a camera's drop."""
    path = tmp_path / "drop-at-end.ts"
    base = np.random.default_rng(3).integers(0, 255, (180, 320, 3), dtype=np.uint8)
    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=30, options={"bf": "0"})
        s.width, s.height, s.pix_fmt = 320, 180, "yuv420p"
        for i in [*range(N - 3), N - 1]:  # frames N-3 and N-2 never came from the camera
            f = av.VideoFrame.from_ndarray(np.roll(base, 4 * i, axis=1), format="bgr24")
            f.pts = i
            for p in s.encode(f):
                c.mux(p)
        for p in s.encode(None):
            c.mux(p)
    status = read_all(path)
    assert status.frames_read == N - 2 and status.error is None, status


def _cut_before_index(whole: Path, to: Path) -> Path:
    to.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    return to


def test_an_mp4_cut_before_its_index_says_why_it_cannot_be_read(tmp_path: Path) -> None:
    """A recorder writes the index (moov) last: a recording cut before that holds frames no player can find.
    Without parameter sets in the stream nor a reference, the error names that cause (FFmpeg only says 'invalid
    data') and what would rebuild it; other unreadable files keep FFmpeg's words."""
    from service.pipeline.truncation import missing_index
    from service.pipeline.video import probe

    whole = textured_clip(tmp_path / "whole.mp4", "mp4")  # the index at the end, as a camera writes it
    cut = _cut_before_index(whole, tmp_path / "cut.mp4")
    text = tmp_path / "notes.mp4"
    text.write_text("not a video")
    assert missing_index(whole) is None and missing_index(text) is None
    assert missing_index(cut) is not None
    with pytest.raises(ValueError, match="no index"):
        probe(cut)
    status = ReadStatus()
    assert list(read_frames(cut, status)) == []
    assert status.error is not None and "no index" in status.error
    with pytest.raises(ValueError) as exc:
        probe(text)
    assert "no index" not in str(exc.value)
    res = analyze(AnalyzeConfig(video=cut, out=tmp_path / "out", annotate=False), None, scripted_stages,
                  counting_judge)
    assert res.frames == 0 and "--reference" in str(res.read.error) and "could not be rebuilt" in str(res.read.error)


@pytest.mark.parametrize("how", ["reference", "in-band"])
def test_an_mp4_cut_before_its_index_is_rebuilt_and_analysed_up_to_the_cut(tmp_path: Path, how: str) -> None:
    """The frames of a cut mp4 are walked out of its media data: with the parameter sets of a complete recording
    of the same camera (`reference`), or those the camera repeats before each keyframe (x264 repeat-headers)."""
    opts = {"x264-params": "repeat-headers=1:keyint=15"} if how == "in-band" else {}
    whole = textured_clip(tmp_path / "whole.mp4", "mp4", None, opts)
    reference = textured_clip(tmp_path / "other.mp4", "mp4") if how == "reference" else None
    cut = _cut_before_index(whole, tmp_path / "cut.mp4")
    res = analyze(AnalyzeConfig(video=cut, out=tmp_path / "out", annotate=False, reference=reference), None,
                  scripted_stages, counting_judge)
    with av.open(str(whole)) as c:  # the frames wholly inside the bytes kept
        kept = sum(1 for q in c.demux(video=0) if q.size and q.pos + q.size <= cut.stat().st_size)
    assert 0 < kept < N
    # every one of them, but a B-frame group the cut broke (its pictures wait for a reference that is gone)
    assert kept - 4 <= res.frames <= kept + 1, (res.frames, kept)  # a frame cut after its picture data may decode too
    assert res.read.error is not None and "cut short" in res.read.error
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["fps"] == pytest.approx(30.0)  # the reference's rate, or the one the stream's SPS states
    assert any("cut before its index" in n and "rebuilt" in n for n in summary["notes"]), summary["notes"]
    events = (tmp_path / "out" / "events.jsonl").read_text().splitlines()
    assert events  # the scripted stages saw frames


def test_the_api_takes_a_cut_mp4_it_can_rebuild_and_says_why_it_refuses_one_it_cannot(tmp_path: Path) -> None:
    inband = _cut_before_index(textured_clip(tmp_path / "a.mp4", "mp4", None, {"x264-params": "repeat-headers=1"}),
                               tmp_path / "inband-cut.mp4")
    bare = _cut_before_index(textured_clip(tmp_path / "b.mp4", "mp4"), tmp_path / "bare-cut.mp4")
    srv = LiveServer(tmp_path / "data").start()
    try:
        with httpx.Client(base_url=srv.url, timeout=10) as c:
            r = c.post("/analyses", json={"video_path": str(bare)})
            assert r.status_code == 400 and "no index" in r.json()["detail"] and "--reference" in r.json()["detail"]
            assert str(tmp_path) not in r.json()["detail"]
            partly_analysed(c, inband)
    finally:
        srv.stop()


def test_a_rebuilt_stream_read_from_a_frame_on_gives_the_same_frames(tmp_path: Path) -> None:
    """A resumed analysis of a rebuilt stream reads it from a frame on: a raw stream has no timestamps to seek by,
    so it is decoded from its start and the frames before are skipped, with the same indices and pictures."""
    from service.pipeline.recover import rebuild

    cut = _cut_before_index(textured_clip(tmp_path / "a.mp4", "mp4", None, {"x264-params": "repeat-headers=1"}),
                            tmp_path / "cut.mp4")
    rb = rebuild(cut, tmp_path / "rebuilt.h264")
    every = [(f.index, f.image.copy()) for f in read_frames(rb.path, ReadStatus(), raw_fps=rb.fps)]
    later = [(f.index, f.image) for f in read_frames(rb.path, ReadStatus(), 10, raw_fps=rb.fps)]
    assert len(every) > 12 and [i for i, _ in later] == [i for i, _ in every[10:]]
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(every[10:], later, strict=True))
