"""The analyze loop with scripted stages: outputs, streaming, resume, bad input, frame timing."""

from __future__ import annotations

import json
from pathlib import Path

import av
import pytest
from svc_fakes import counting_judge, counting_judge_all, scripted_stages

from rules.events import SCHEMA_VERSION, EventType, read_jsonl
from service.pipeline import checkpoint as ck
from service.pipeline.run import AnalyzeConfig, Hooks, analyze
from service.pipeline.timing import FrameVerdict, TimingMonitor


def _events(out: Path) -> list[dict[str, object]]:
    with (out / "events.jsonl").open() as f:
        return [e.to_dict() for e in read_jsonl(f)]


def test_analyze_writes_every_output(clip: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    seen: list[str] = []
    res = analyze(AnalyzeConfig(clip, out), Hooks(on_event=lambda e: seen.append(str(e.type))), scripted_stages,
                  counting_judge)
    for name in ("events.jsonl", "verdicts.jsonl", "scoresheet.csv", "report.html", "annotated.mp4", "log.jsonl"):
        assert (out / name).stat().st_size > 0, name
    events = _events(out)
    assert [e["type"] for e in events] == seen  # the hook saw what the file holds, in order
    assert sum(1 for e in events if e["type"] == "shot_end") == 3
    verdicts = [json.loads(line) for line in (out / "verdicts.jsonl").read_text().splitlines()]
    assert [v["shot"] for v in verdicts] == [1, 2, 3]
    assert res.fold is not None and res.fold.score == {"A": 2, "B": 0}
    html = (out / "report.html").read_text()
    for n in (1, 2, 3):
        assert f'id="shot-{n}"' in html
    assert "<svg" in html  # the score plot is inline
    assert (out / "shots" / "strip-002.jpg").exists() and not (out / "shots" / "strip-001.jpg").exists()
    with av.open(str(out / "annotated.mp4")) as c:
        assert sum(1 for _ in c.decode(video=0)) == 120
    assert res.read.complete and "first shot: position" in " ".join(res.notes)
    assert json.loads((out / "summary.json").read_text())["event_schema"] == SCHEMA_VERSION  # which reader to use


def test_events_are_flushed_as_they_come(clip: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    lines_at_event: list[int] = []

    def on_event(e: object) -> None:
        lines_at_event.append(len((out / "events.jsonl").read_text().splitlines()))

    analyze(AnalyzeConfig(clip, out, annotate=False), Hooks(on_event=on_event), scripted_stages, counting_judge)
    assert lines_at_event == list(range(1, len(lines_at_event) + 1))


class Crash(Exception):
    pass


def test_resume_after_a_crash_gives_the_same_outputs(clip: Path, tmp_path: Path) -> None:
    whole = tmp_path / "whole"
    analyze(AnalyzeConfig(clip, whole, checkpoint_every_s=0.5), None, scripted_stages, counting_judge)

    out = tmp_path / "resumed"

    def crash(done: int, total: int, t: float) -> None:
        if done == 100:
            raise Crash

    with pytest.raises(Crash):
        analyze(AnalyzeConfig(clip, out, checkpoint_every_s=0.5), Hooks(on_progress=crash), scripted_stages,
                counting_judge)
    ckpt = ck.load(out)
    assert ckpt is not None and not ckpt.complete and 0 < ckpt.next_frame < 100
    res = analyze(AnalyzeConfig(clip, out, checkpoint_every_s=0.5, resume=True), None, scripted_stages,
                  counting_judge)
    assert res.frames == 120 - ckpt.next_frame  # only the frames after the checkpoint were decoded again
    assert _events(out) == _events(whole)
    assert (out / "verdicts.jsonl").read_text() == (whole / "verdicts.jsonl").read_text()
    with av.open(str(out / "annotated.mp4")) as c:
        assert sum(1 for _ in c.decode(video=0)) == 120


def test_stages_pickled_by_other_code_are_not_restored(clip: Path, tmp_path: Path) -> None:
    """After an upgrade the pickled tracker and detector would run under new methods: a checkpoint whose
    code digest differs restarts the stages at its shot boundary instead; the outputs are still whole."""
    out = tmp_path / "out"

    def crash(done: int, total: int, t: float) -> None:
        if done == 100:
            raise Crash

    with pytest.raises(Crash):
        analyze(AnalyzeConfig(clip, out, checkpoint_every_s=0.5), Hooks(on_progress=crash), scripted_stages,
                counting_judge)
    ckpt = ck.load(out)
    assert ckpt is not None and ckpt.has_state and ckpt.code == ck.code_digest()
    assert ck.load_state(out) is not None
    ckpt.code = "written-by-older-code"
    ck.save(out, ckpt)
    assert ck.load_state(out) is None
    notes: list[str] = []
    analyze(AnalyzeConfig(clip, out, checkpoint_every_s=0.5, resume=True), Hooks(on_note=notes.append),
            scripted_stages, counting_judge)
    assert any("tracker restarted at a shot boundary" in n for n in notes)
    whole = tmp_path / "whole"
    analyze(AnalyzeConfig(clip, whole, checkpoint_every_s=0.5), None, scripted_stages, counting_judge)
    assert _events(out) == _events(whole)


def test_mp4_cut_before_its_index_gives_a_report_that_says_so(make_clip, tmp_path: Path) -> None:
    src = make_clip("full.mp4", 120)
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(src.read_bytes()[:2000])
    out = tmp_path / "out"
    res = analyze(AnalyzeConfig(broken, out, annotate=False), None, scripted_stages, counting_judge)
    assert res.frames == 0 and not res.read.complete
    html = (out / "report.html").read_text()
    assert "could not be read" in html and "Nothing was analysed" in html and "covers the part" not in html
    assert (out / "events.jsonl").read_text() == ""


def test_truncated_mkv_stops_cleanly_and_says_so(tmp_path: Path) -> None:
    import numpy as np
    from svc_fakes import SIZE

    path = tmp_path / "clip.mkv"
    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=30)
        s.width, s.height, s.pix_fmt = *SIZE, "yuv420p"
        for i in range(150):
            f = av.VideoFrame.from_ndarray(np.full((SIZE[1], SIZE[0], 3), i % 255, np.uint8), format="bgr24")
            f.pts = i
            for p in s.encode(f):
                c.mux(p)
        for p in s.encode(None):
            c.mux(p)
    data = path.read_bytes()
    cut = tmp_path / "cut.mkv"
    cut.write_bytes(data[: int(len(data) * 0.6)] + b"\x00" * 2000)
    out = tmp_path / "out"
    res = analyze(AnalyzeConfig(cut, out), None, scripted_stages, counting_judge)
    assert 0 < res.frames < 150
    html = (out / "report.html").read_text()
    assert res.read.complete or "could not be read to the end" in html


def test_dropped_frames_are_reported(make_clip, tmp_path: Path) -> None:
    clip = make_clip("gappy.mp4", 90, skip=(30, 31, 60))
    out = tmp_path / "out"
    res = analyze(AnalyzeConfig(clip, out, annotate=False), None, scripted_stages, counting_judge)
    assert res.timing.dropped == 3 and res.timing.duplicates == 0
    assert "3 dropped frame(s)" in (out / "report.html").read_text()


OK = FrameVerdict.OK


@pytest.mark.parametrize(
    ("times", "expect", "dropped", "dups"),
    [
        ([0.0, 1 / 30, 2 / 30, 3 / 30], [FrameVerdict.OK] * 4, 0, 0),
        ([0.0, 1 / 30, 1 / 30, 2 / 30], [OK, OK, FrameVerdict.DUPLICATE, OK], 0, 1),
        ([0.0, 1 / 30, 4 / 30], [FrameVerdict.OK, FrameVerdict.OK, FrameVerdict.AFTER_GAP], 2, 0),
        ([0.0, 0.5 / 30, 1 / 30], [FrameVerdict.OK, FrameVerdict.OK, FrameVerdict.OK], 0, 0),  # jitter
    ],
)
def test_timing_monitor(times: list[float], expect: list[FrameVerdict], dropped: int, dups: int) -> None:
    tm = TimingMonitor(30.0)
    assert [tm.observe(i, t) for i, t in enumerate(times)] == expect
    assert (tm.dropped, tm.duplicates) == (dropped, dups)
    assert TimingMonitor.from_dict(tm.to_dict()).to_dict() == tm.to_dict()


def test_timing_monitor_rejects_bad_fps() -> None:
    with pytest.raises(ValueError, match="positive fps"):
        TimingMonitor(0.0).observe(0, 0.0)


def test_every_event_line_parses_with_the_schema(clip: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    analyze(AnalyzeConfig(clip, out, annotate=False), None, scripted_stages, counting_judge)
    with (out / "events.jsonl").open() as f:
        types = [e.type for e in read_jsonl(f)]
    assert types[0] is EventType.SHOT_START and types[-1] is EventType.SHOT_END


def test_shot_pictures_stay_bounded_however_long_the_shot(tmp_path: Path) -> None:
    import numpy as np

    from service.report.shots import ShotRecorder

    rec = ShotRecorder(tmp_path, strip_max=12)
    frame = np.zeros((90, 160, 3), np.uint8)
    rec.start(frame)
    peak = 0
    for i in range(20_000):  # a 5-minute shot at 60 fps
        rec.add_frame(lambda: frame, {"C": (float(i % 160), float(i % 90))})
        peak = max(peak, len(rec._strip), len(rec._tracks["C"]) // 200)
    assert peak <= 12
    assert rec.end() is not None and rec.write_strip(1) is not None


def test_strip_frames_carry_their_video_time_and_the_ball_ids(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    from service.report.shots import ShotRecorder

    rec = ShotRecorder(tmp_path, strip_width=240)
    frame = np.zeros((540, 960, 3), np.uint8)  # full frames 960 px wide; the strip is 240 px: a quarter
    rec.start(frame)
    for i in range(6):
        rec.add_frame(lambda: frame, {"7": (480.0, 400.0)}, t=12.5 + i / 60)
    rec.end()
    strip = cv2.imread(str(rec.write_strip(1, n=1)))
    assert strip[4:16, 4:60].max() > 100  # the time, top left
    assert strip[85:100, 120:140].max() > 100  # the id beside the ball, at a quarter of its full-frame place
    assert strip[40:80, 180:240].max() < 30  # nothing else drawn


def test_a_shot_cut_off_by_the_end_of_the_video_is_still_judged(make_clip, tmp_path: Path) -> None:
    clip = make_clip("cut.mp4", 100)  # the third shot starts at frame 85 and never ends
    out = tmp_path / "out"
    res = analyze(AnalyzeConfig(clip, out, annotate=False), None, scripted_stages, counting_judge_all)
    assert [v.shot for v in res.verdicts] == [1, 2, 3]
    assert 'id="shot-3"' in (out / "report.html").read_text()


def test_a_doubtful_stroke_inside_a_shot_opens_no_shot_in_the_report() -> None:
    """Shots are numbered as the engine numbers them (rules.engine.hold_doubtful_starts), so each verdict lands
    on its own shot: a shot_start with start_confidence < 0.5 while a shot is open stays in that shot."""
    from rules.events import Event, EventType
    from service.judging import VerdictView
    from service.report.build import group_shots

    doubtful = Event(EventType.SHOT_START, 1.2, 36, confidence=0.3, ball="1", extra={"start_confidence": 0.3})
    events = [Event(EventType.SHOT_START, 1.0, 30, ball="C"), Event(EventType.BALL_CONTACT, 1.1, 33, balls=("C", "1")),
              doubtful, Event(EventType.SHOT_END, 2.0, 60), Event(EventType.SHOT_START, 3.0, 90, ball="C"),
              Event(EventType.SHOT_END, 4.0, 120)]
    verdicts = [VerdictView(1, "legal", (), "first"), VerdictView(2, "foul", ("1.5.3",), "second")]
    shots = group_shots(events, verdicts)
    assert [(s.n, s.t0, len(s.events)) for s in shots] == [(1, 1.0, 4), (2, 3.0, 2)]
    assert [s.verdict.explanation if s.verdict else None for s in shots] == ["first", "second"]
    lone = Event(EventType.SHOT_START, 5.0, 150, confidence=0.3, ball="C", extra={"start_confidence": 0.3})
    assert len(group_shots([*events, lone], verdicts)) == 3  # with no shot open it opens one, as in the engine


def test_a_doubtful_stroke_inside_a_shot_starts_no_shot_picture(make_clip, tmp_path: Path) -> None:
    """The recorder (shot pictures, the tracker's shot_started) follows the engine's shot numbering too."""
    import numpy as np
    from svc_fakes import ScriptedDetector

    from calibration.table import Table
    from rules.events import Event
    from service.pipeline.run import Stages
    from vision.types import BallStates

    class DoubtfulDetector(ScriptedDetector):
        def update(self, states: BallStates) -> list[Event]:
            if states.frame % 40 == 10:  # between the start (5) and the end (30) of each scripted shot
                return [Event(EventType.SHOT_START, states.t, states.frame, confidence=0.3, ball="1",
                              extra={"start_confidence": 0.3})]
            return super().update(states)

    def stages(cfg: AnalyzeConfig, table: Table, image: np.ndarray, fps: float) -> Stages:
        base = scripted_stages(cfg, table, image, fps)
        return Stages(base.calibration, base.perception, DoubtfulDetector())

    out = tmp_path / "out"
    analyze(AnalyzeConfig(make_clip("clip.mp4", 90), out, annotate=False), None, stages, counting_judge)
    # shots open at frames 5, 45 and 85; the doubtful starts at 10 and 50 open none
    assert sorted(p.name for p in (out / "shots").glob("shot-*.jpg")) == ["shot-001.jpg", "shot-002.jpg",
                                                                          "shot-003.jpg"]
    assert (out / "report.html").read_text().count('id="shot-') == 3


def test_the_annotated_video_shows_every_verdict_of_a_shot_end_in_full(tmp_path: Path) -> None:
    """A shot without its own end is judged at the next shot's end: both verdicts must be readable."""
    import numpy as np

    from service.report.annotate import Annotator

    frames: list[np.ndarray] = []

    class Grab:
        def write(self, image: np.ndarray, frame: int) -> None:
            frames.append(image)

    ann = Annotator(tmp_path, 30.0, scale=1.0)
    ann._writer = Grab()  # type: ignore[assignment]
    ann.note_verdict(9.0, "shot 1: legal (1.20(3a)) Chain: ball 9 crossed the centre line", False)
    ann.note_verdict(9.0, "shot 2: foul (1.14.2, 1.5.3) " + "stroke before the previous shot ended; " * 6, True)
    ann.draw(np.zeros((360, 640, 3), np.uint8), 270, 9.1, {})
    img = frames[0]
    rows_red = {y for y in range(360) if img[y, 2:6, 2].mean() > 200 and img[y, 2:6, 1].mean() < 60}
    rows_green = {y for y in range(360) if img[y, 2:6, 1].mean() > 140 and img[y, 2:6, 2].mean() < 60}
    assert rows_red and rows_green and max(rows_green) < min(rows_red)  # both shown, the latest at the bottom
    assert len(rows_red) > 2 * 17  # the long foul text wraps onto several lines
    ann.draw(np.zeros((360, 640, 3), np.uint8), 400, 13.5, {})
    assert frames[1][300:, :, :].max() < 30  # gone after VERDICT_SHOW_S


def test_the_shot_thumbnail_names_each_track_where_its_ball_stopped(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    from service.report.shots import ShotRecorder

    rec = ShotRecorder(tmp_path, width=480)
    frame = np.zeros((270, 480, 3), np.uint8)
    rec.start(frame)
    for i in range(50):  # ball 3 rolls from x=40 to x=285 along y=200; ball 5 rests
        rec.add_frame(lambda: frame, {"3": (40.0 + 5 * i, 200.0), "5": (100.0, 60.0)})
    thumb = cv2.imread(str(rec.end()))
    assert thumb[185:197, 289:300].max() > 100  # the id just above and right of where 3 stopped
    assert thumb[40:56, 104:120].max() < 40  # a ball that did not move has no track and no label


def test_a_ball_disturbed_between_shots_opens_the_next_shots_strip(tmp_path: Path) -> None:
    """1.17 is judged with the next shot: its strip starts with frames from around the disturbance."""
    import cv2
    import numpy as np

    from service.report.shots import DISTURBED_MAX, ShotRecorder

    rec = ShotRecorder(tmp_path, strip_width=240)
    frame = np.zeros((540, 960, 3), np.uint8)
    for i in range(180):  # 3.0 s to 6.0 s between shots, 60 fps
        rec.add_frame(lambda: frame, {}, t=3.0 + i / 60)
    rec.disturbed(4.0)
    rec.start(frame)
    for i in range(30):
        rec.add_frame(lambda: frame, {}, t=6.0 + i / 60)
    rec.end()
    strip = cv2.imread(str(rec.write_strip(1, n=6)))
    assert strip.shape[1] == 240 * (DISTURBED_MAX + 6)
    # without a disturbance the next shot's strip is the shot alone
    rec.add_frame(lambda: frame, {}, t=7.0)
    rec.start(frame)
    for i in range(30):
        rec.add_frame(lambda: frame, {}, t=7.5 + i / 60)
    rec.end()
    assert cv2.imread(str(rec.write_strip(2, n=6))).shape[1] == 240 * 6


def test_an_event_at_a_bad_time_is_repaired_flagged_and_the_match_still_judged(make_clip, tmp_path: Path) -> None:
    """One bad event from vision (a contact at a negative time) must not cost every later verdict."""
    import numpy as np
    from svc_fakes import ScriptedDetector

    from calibration.table import Table
    from rules.events import Event
    from service.pipeline.run import Stages
    from vision.types import BallStates

    class BadTimeDetector(ScriptedDetector):
        def update(self, states: BallStates) -> list[Event]:
            if states.frame == 12:  # inside the first scripted shot
                return [Event(EventType.BALL_CONTACT, -2.316, states.frame, confidence=0.19, balls=("C", "1"))]
            return super().update(states)

    def stages(cfg: AnalyzeConfig, table: Table, image: np.ndarray, fps: float) -> Stages:
        base = scripted_stages(cfg, table, image, fps)
        return Stages(base.calibration, base.perception, BadTimeDetector())

    out = tmp_path / "out"
    analyze(AnalyzeConfig(make_clip("clip.mp4", 90), out, annotate=False), None, stages)
    verdicts = (out / "verdicts.jsonl").read_text().splitlines()
    assert len(verdicts) == 3, verdicts  # the real engine judged every shot
    summary = json.loads((out / "summary.json").read_text())
    assert summary["judge_error"] is None
    assert any("repaired" in n and "-2.316" in n for n in summary["notes"]), summary["notes"]
    events = _events(out)
    assert all(e["t"] >= 0 for e in events)
    assert [e["t"] for e in events] == sorted(e["t"] for e in events)  # put at the last time in the stream
    fixed = [e for e in events if e.get("why", "").startswith("vision gave t=-2.316")]
    assert len(fixed) == 1 and fixed[0]["review"] is True and fixed[0]["confidence"] <= 0.4
    first = json.loads(verdicts[0])
    assert first["review"] is True  # the shot it fell in is flagged, naming the repaired event
    assert any(f"t={fixed[0]['t']:.3f}" in r for r in first["review_detail"]["reasons"]), first["review_detail"]


def test_only_a_bad_time_is_repaired_anything_else_the_engine_refuses_is_left_out() -> None:
    from service import judging

    good = {"type": "cushion", "t": 1.0, "frame": 60, "confidence": 0.9, "ball": "5", "cushion": "rear"}
    assert judging.admit(good, 0.5) == (good, None)
    line, why = judging.admit({**good, "t": float("nan")}, 0.5)
    assert line is not None and line["t"] == 0.5 and line["confidence"] == 0.4 and line["review"] is True
    assert why is not None and "'t'" in why
    line, why = judging.admit({**good, "t": -1.0, "confidence": 2.0}, 0.5)  # the time and more: not repaired
    assert line is None and why is not None
