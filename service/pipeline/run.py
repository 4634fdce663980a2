"""The analysis loop: frames in, events, verdicts and pictures out, streaming with bounded memory.

One frame is held at a time; per shot only a thumbnail, the tracks and a sampled frame strip (see
`service.report.shots`). Events are appended to events.jsonl and flushed as they come; verdicts are
judged at every shot end and appended to verdicts.jsonl. The files that need the whole match (score sheet,
report, the joined annotated video) are made at the end from those files, not from memory.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from calibration.table import Table
from rules.events import SCHEMA_VERSION, Event, EventType, read_jsonl
from rules.numbering import Mark, Role, ShotNumbering, mark_event, mark_input
from service import judging
from service.pipeline import checkpoint as ck
from service.pipeline import identity
from service.pipeline.camera import ViewWatch
from service.pipeline.components import (
    CalibrationView,
    EventDetectorLike,
    Perception,
    auto_calibrate,
    load_calibration,
    make_event_detector,
    make_perception,
)
from service.pipeline.frames import LazyBGR, project
from service.pipeline.opening import decide_opening
from service.pipeline.recover import open_or_rebuild
from service.pipeline.timing import FrameVerdict, TimingMonitor
from service.pipeline.video import ReadStatus, read_frames
from service.report.annotate import Annotator
from service.report.shots import ShotRecorder


@dataclass
class AnalyzeConfig:
    video: Path
    out: Path
    table: str = "pyramid-12ft"
    game: str | None = None
    calibration: Path | None = None
    state: dict[str, Any] | None = None  # score and who is to play, from --state
    inputs: list[dict[str, Any]] = field(default_factory=list)  # referee inputs (may hold the match header)
    resume: bool = False
    annotate: bool = True
    annotate_scale: float | None = None  # default: at most 960 px wide
    checkpoint_every_s: float = 30.0
    threads: int = 0  # decoder threads; 1 = one core
    i420: bool = True  # hand vision the decoder's YUV planes (no colour conversion unless a picture is drawn)
    skip_b_deblock: bool = True  # decode B pictures without the deblocking filter (service.pipeline.video)
    max_frames: int | None = None
    reference: Path | None = None  # a complete recording of the same camera: parameter sets to rebuild a cut mp4
    # ball id -> table mm at the first frame analysed, when known; default: the `balls` of --state or of the
    # inputs' opening state line (service.pipeline.identity)
    positions: dict[str, tuple[float, float]] | None = None


@dataclass
class Stages:
    """What is bound to one video: the calibration, the tracker and the event detector."""

    calibration: CalibrationView
    perception: Perception
    detector: EventDetectorLike


StageFactory = Callable[[AnalyzeConfig, Table, np.ndarray, float], Stages]
Judge = Callable[[list[dict[str, Any]], str], judging.MatchFold]


def default_stages(cfg: AnalyzeConfig, table: Table, first_image: np.ndarray, fps: float) -> Stages:
    cal = load_calibration(cfg.calibration, table) if cfg.calibration else auto_calibrate(first_image, table)
    return Stages(cal, make_perception(cal, fps, cfg.positions), make_event_detector(table, fps))


@dataclass
class Hooks:
    """Callbacks for a live consumer (the service's background job, the CLI's printing)."""

    on_event: Callable[[Event], None] | None = None
    on_verdict: Callable[[judging.VerdictView], None] | None = None
    on_progress: Callable[[int, int, float], None] | None = None  # frames done, frames total, video s
    on_note: Callable[[str], None] | None = None  # one-line messages for the user
    on_header: Callable[[list[dict[str, Any]]], None] | None = None  # log lines the run adds (match, state)
    # Referee inputs posted since the last call (a live service), asked at each progress step: their stated
    # ball places (state / identify lines) reach vision while the run goes on.
    new_inputs: Callable[[], list[dict[str, Any]]] | None = None
    on_input: Callable[[dict[str, Any]], None] | None = None  # a log line the run adds mid-way (`camera`)


@dataclass
class AnalysisResult:
    out: Path
    game: str
    frames: int
    events: int
    verdicts: list[judging.VerdictView]
    read: ReadStatus
    timing: TimingMonitor
    notes: list[str] = field(default_factory=list)
    judge_error: str | None = None
    fold: judging.MatchFold | None = None
    camera: dict[str, Any] | None = None  # the `camera` line when the view moved: a degraded analysis


class _Run:
    """The mutable state of one analysis run (one object, so the loop reads top to bottom)."""

    def __init__(self, cfg: AnalyzeConfig, hooks: Hooks, judge: Judge) -> None:
        self.cfg, self.hooks, self.judge = cfg, hooks, judge
        self.table = Table.load(cfg.table)
        self.out = cfg.out
        self.events: list[Event] = []  # small: tens of bytes per event, nothing per frame
        self.header: list[dict[str, Any]] = []
        self.info: dict[str, Any] = {}
        self.game = cfg.game or judging.DEFAULT_GAME
        self.verdicts: list[judging.VerdictView] = []
        self.fold: judging.MatchFold | None = None
        self.judge_error: str | None = None
        self.notes: list[str] = []
        self.recorder = ShotRecorder(cfg.out)
        self.annotator: Annotator | None = None
        self.px_history: deque[tuple[int, dict[str, tuple[float, float]]]] = deque(maxlen=180)
        self.last_ckpt_t = 0.0
        self._events_f: TextIO | None = None
        self._verdicts_f: TextIO | None = None
        self.statements = identity.statements(cfg.state, cfg.inputs)
        self.perception: Perception | None = None  # set when the stages are made
        # Shots numbered as the engine numbers them (rules.numbering); the timed inputs that close a shot or
        # start a lag are stepped in where the engine's merged log has them (before an event at the same t).
        self.numbering = ShotNumbering()
        self.input_marks = sorted((float(d["t"]), mark_input(str(d.get("type")))) for d in cfg.inputs
                                  if d.get("t") is not None and mark_input(str(d.get("type"))) is not Mark.INPUT)

    # --- output helpers -----------------------------------------------------------------------------
    def note(self, text: str) -> None:
        self.notes.append(text)
        if self.hooks.on_note:
            self.hooks.on_note(text)

    def open_outputs(self, append: bool) -> None:
        path = self.out / "events.jsonl"
        self._events_f = path.open("a", encoding="utf-8") if append else path.open("w", encoding="utf-8")
        self._verdicts_f = (self.out / "verdicts.jsonl").open("w", encoding="utf-8")

    def close_outputs(self) -> None:
        for f in (self._events_f, self._verdicts_f):
            if f is not None:
                f.close()

    def write_event(self, e: Event) -> None:
        assert self._events_f is not None
        self._events_f.write(e.to_json() + "\n")
        self._events_f.flush()
        self.events.append(e)
        if self.hooks.on_event:
            self.hooks.on_event(e)

    def log(self) -> list[dict[str, Any]]:
        return judging.merge_log([*self.header, *self.cfg.inputs], [e.to_dict() for e in self.events])

    def rejudge(self) -> list[judging.VerdictView]:
        """Fold the log so far; return the verdicts not emitted before. No engine: events only."""
        if self.judge_error is not None:
            return []
        try:
            self.fold = self.judge(self.log(), self.game)
        except (ValueError, OverflowError) as exc:  # the engine refuses the log: keep the events, say why
            self.judge_error = f"the rules engine refused the log: {exc}"
            self.note(f"no more verdicts: {self.judge_error}")
            return []
        new = list(self.fold.verdicts[len(self.verdicts):])
        self.verdicts = list(self.fold.verdicts)
        assert self._verdicts_f is not None
        for v in new:
            self._verdicts_f.write(json.dumps(v.to_dict()) + "\n")
            if self.hooks.on_verdict:
                self.hooks.on_verdict(v)
        self._verdicts_f.flush()
        return new

    # --- the match header (game, opening, given state) ---------------------------------------------
    def start_match(self, first: Event) -> None:
        decision = decide_opening(first.positions, self.table)
        self.info["opening"] = str(decision.opening)
        self.info["opening_reason"] = decision.reason
        self.header = judging.header_for(self.cfg.inputs, self.game, self.table.spec.name, str(decision.opening),
                                         self.cfg.state, first.positions)
        self.note(f"first shot: {decision.opening} ({decision.reason})")
        self.info["identity"], text = identity.opening_note(str(decision.opening), self.statements)
        self.note(text)
        if self.hooks.on_header and self.header:
            self.hooks.on_header(list(self.header))

    def camera_line(self) -> dict[str, Any] | None:
        return next((d for d in self.header if d.get("type") == "camera"), None)

    def camera_moved(self, line: dict[str, Any]) -> None:
        """The view moved (service.pipeline.camera): the line joins the run's log (and its checkpoint), and
        the verdicts from its t on are flagged (service.judging.fold)."""
        self.header.append(line)
        self.info["camera"] = line
        self.note(f"DEGRADED: {line['why']}")
        if self.verdicts and self.judge_error is None and self._verdicts_f is not None:
            # verdicts.jsonl rewritten whole: the shots already judged since the knock gain their flag
            try:
                self.fold = self.judge(self.log(), self.game)
            except ValueError:
                pass  # the next rejudge says why
            else:
                self.verdicts = list(self.fold.verdicts[:len(self.verdicts)])  # a running shot's comes at its end
                self._verdicts_f.seek(0)
                self._verdicts_f.truncate()
                self._verdicts_f.writelines(json.dumps(v.to_dict()) + "\n" for v in self.verdicts)
                self._verdicts_f.flush()
        if self.hooks.on_input:
            self.hooks.on_input(dict(line))

    def on_event(self, e: Event, image: Callable[[], np.ndarray]) -> None:
        line, why = judging.admit(e.to_dict(), self.events[-1].t if self.events else 0.0)
        if why is not None:  # one bad event from vision must not cost the match every later verdict
            self.note(f"an event the rules engine refuses was {'repaired' if line else 'left out'} ({why}): "
                      f"{e.to_json()}")
            if line is None:
                return
            e = Event.from_dict(line)
        while self.input_marks and self.input_marks[0][0] <= e.t:
            self.numbering.step(self.input_marks.pop(0)[1])
        role = self.numbering.step(mark_event(e))
        if e.type is EventType.SHOT_START and "opening" not in self.info:
            self.start_match(e)
        if role is Role.OPENS:  # a doubtful stroke inside a shot opens none, nor does a lag (as in the engine)
            self._tell_perception("shot_started")
            self.recorder.start(image())
        elif e.type is EventType.BALL_CONTACT and e.balls:
            self.recorder.add_contact(self._px_at(e.frame).get(e.balls[0]))
        elif e.type is EventType.BALL_DISTURBED:
            self.recorder.disturbed(e.t)
        self.write_event(e)
        if self.annotator:
            self.annotator.note_event(e)
        if e.type is EventType.SHOT_END:
            self.recorder.end()
            for v in self.rejudge():
                spots = identity.spotted(v.raw)
                if spots:
                    self._tell_perception("expect_spotted", spots)
                if v.is_foul or v.review:
                    self.recorder.write_strip(v.shot)
                if self.annotator:
                    clause = f" ({', '.join(v.clauses)})" if v.clauses else ""
                    self.annotator.note_verdict(e.t, f"shot {v.shot}: {v.outcome}{clause} {v.explanation}", v.is_foul)
                    self.annotator.set_status(" ".join(f"{k}:{s}" for k, s in v.score.items()))

    def _tell_perception(self, what: str, *args: Any) -> None:
        """Identity news for vision; a perception stage without the method (a scripted one) is skipped."""
        fn = getattr(self.perception, what, None)
        if fn is not None:
            fn(*args)

    def stated_now(self, t: float) -> None:
        """What the referee stated for this video time (a timed state or identify line, a ball taken off by
        hand) goes to vision."""
        for item in self.statements.due(t):
            if item.places:
                self._tell_perception("set_positions", item.places)
            if item.take_off:
                self._tell_perception("take_off", list(item.take_off))

    def take_statement(self, d: dict[str, Any], t: float) -> None:
        """A referee input posted while the run goes on: what it tells vision is applied at its `t`, or at the
        next frame when it has none or its time has passed (the balls are where the referee sees them now)."""
        item = identity.timed_of(d, f"referee input ({d.get('type')}) posted during the analysis", now=t)
        if item is None:
            return
        self.statements.add(item)
        what = f"the places of ball(s) {', '.join(sorted(item.places))}" if item.places else \
            f"ball(s) {', '.join(item.take_off)} taken off the table"
        self.note(f"the referee stated {what}: told to vision at {item.t:.2f} s")

    def live_hooks(self) -> Hooks:
        """The hooks with progress first taking the referee's new statements (when a live service gives them)."""
        poll, inner = self.hooks.new_inputs, self.hooks.on_progress
        if poll is None:
            return self.hooks

        def on_progress(done: int, total: int, t: float) -> None:
            for d in poll():
                self.take_statement(d, t)
            if inner is not None:
                inner(done, total, t)

        return replace(self.hooks, on_progress=on_progress)

    def _px_at(self, frame: int) -> dict[str, tuple[float, float]]:
        for f, px in reversed(self.px_history):
            if f <= frame:
                return px
        return self.px_history[0][1] if self.px_history else {}


def analyze(
    cfg: AnalyzeConfig,
    hooks: Hooks | None = None,
    stage_factory: StageFactory = default_stages,
    judge: Judge = judging.fold,
) -> AnalysisResult:
    """Run the whole pipeline on one video file into cfg.out (see module docstring)."""
    hooks = hooks or Hooks()
    cfg.out.mkdir(parents=True, exist_ok=True)
    if cfg.positions is None:
        cfg = replace(cfg, positions=identity.statements(cfg.state, cfg.inputs).initial)
    prev = ck.claim(cfg.out, cfg.video, cfg.resume)  # before anything is written there
    run = _Run(cfg, hooks, judge)
    try:  # an mp4 cut before its index is rebuilt from its media data (service.pipeline.recover)
        video, raw_fps, meta, rebuilt = open_or_rebuild(cfg.video, cfg.out, cfg.reference)
    except ValueError as exc:  # not a video at all, or its index is gone and it cannot be rebuilt
        status = ReadStatus(error=str(exc))
        run.note(f"the video could not be read: {exc}")
        run.open_outputs(append=False)
        run.close_outputs()
        return _finish(run, cfg, status, status, TimingMonitor(30.0), 0)
    fps = meta.fps
    if rebuilt:
        run.note(f"the file was cut before its index was written: {rebuilt}")
    timing = TimingMonitor(fps)
    start_frame, stages = 0, None
    if prev is not None and not prev.complete:
        start_frame = prev.next_frame
        ck.truncate_lines(cfg.out / "events.jsonl", prev.events_lines)
        run.events = _read_events(cfg.out / "events.jsonl")
        run.header, run.info = prev.header, prev.info
        run.game = prev.info.get("game", run.game)
        run.recorder.shot = prev.shots
        run.numbering = ShotNumbering(number=prev.shots)  # a checkpoint is at a shot boundary: none open
        run.input_marks = [m for m in run.input_marks if m[0] > prev.t]
        run.last_ckpt_t = prev.t
        timing = TimingMonitor.from_dict(prev.timing)
        stages = ck.load_state(cfg.out) if prev.has_state else None
        if stages is None:  # a fresh tracker at a shot boundary: the balls rest where the last shot left them
            cfg = run.cfg = replace(cfg, positions=identity.resting_positions(run.events) or cfg.positions)
        run.statements.timed = [x for x in run.statements.timed if x.t > prev.t]
        run.note(f"resuming at frame {start_frame} ({prev.t:.1f} s), {prev.events_lines} events kept"
                 + ("" if stages is not None else "; tracker restarted at a shot boundary"))
    elif prev is not None:
        run.note("the checkpoint says this analysis is complete; re-making the outputs from its files")
        start_frame = -1
        run.events = _read_events(cfg.out / "events.jsonl")
        run.header, run.info = prev.header, prev.info
        run.game = prev.info.get("game", run.game)
    run.info["game"] = run.game
    run.note(f"game: {run.game}" + ("" if cfg.game else " (default for a pyramid table; use --game to change)"))
    run.open_outputs(append=start_frame != 0)
    if cfg.annotate:
        scale = cfg.annotate_scale or min(1.0, 960.0 / max(meta.width, 1))
        run.annotator = Annotator(cfg.out / "annotated.parts", fps, scale,
                                  part=(prev.annot_part if prev is not None and start_frame > 0 else 0))
        if start_frame >= 0:  # parts after the checkpoint (all of them on a fresh run) are re-made
            for p in run.annotator.parts():
                if int(p.stem.split("-")[1]) >= run.annotator.part:
                    p.unlink()
    if run.events:
        run.rejudge()  # re-derive the verdicts of the shots before the checkpoint
    status = ReadStatus()
    hooks = run.live_hooks()
    frames_done, last_index, last_t, stopped_early = 0, start_frame - 1, 0.0, False
    watch: ViewWatch | None = None
    try:
        frames = (read_frames(video, status, max(start_frame, 0), cfg.threads, cfg.i420, cfg.skip_b_deblock,
                              raw_fps)
                  if start_frame >= 0 else iter(()))
        for fr in frames:
            bgr = LazyBGR(fr.image)
            if cfg.max_frames is not None and frames_done >= cfg.max_frames:
                stopped_early = True
                break
            if stages is None:
                stages = stage_factory(cfg, run.table, bgr(), fps)
                run.info["calibration"] = stages.calibration.source
            if run.perception is None:
                run.perception = stages.perception
                watch = None if run.camera_line() else ViewWatch(stages.calibration, fps)
            if run.statements.timed and fr.t >= run.statements.timed[0][0]:
                run.stated_now(fr.t)
            if timing.observe(fr.index, fr.t) is FrameVerdict.DUPLICATE:
                continue
            if watch is not None and (moved := watch.update(fr.image, fr.t)) is not None:
                run.camera_moved(moved)
            states = stages.perception.update(fr.image, fr.index, fr.t)
            # Pixel positions only feed pictures: skip the projection when nothing will be drawn.
            px = project(stages.calibration, states) if run.annotator or run.recorder.active else {}
            run.px_history.append((fr.index, px))
            run.recorder.add_frame(bgr.small_for(run.recorder.strip_width), px, fr.t)  # it resizes what it gets
            at_rest = False
            for e in stages.detector.update(states):
                run.on_event(e, bgr)
                at_rest = e.type is EventType.SHOT_END or (at_rest and e.type is not EventType.SHOT_START)
            if run.annotator:
                named = states.named if states.named is not None else ()
                run.annotator.draw(bgr(), fr.index, fr.t, px,
                                   {b for b, n in zip(states.ids, named, strict=False) if not n})
            if at_rest and fr.t - run.last_ckpt_t >= cfg.checkpoint_every_s:  # a shot boundary
                _checkpoint(run, fr.index + 1, fr.t, timing, stages)
            frames_done += 1
            last_index, last_t = fr.index, fr.t
            if hooks.on_progress:
                hooks.on_progress(fr.index + 1, meta.declared_frames, fr.t)
        if stages is not None:
            for e in stages.detector.flush():
                run.on_event(e, LazyBGR(np.zeros((2, 2, 3), np.uint8)))
        if run.events and run.events[-1].type is not EventType.SHOT_END:
            run.recorder.end()
            run.rejudge()  # a last shot the video cut off before every ball stopped still gets its verdict
    finally:
        if run.annotator:
            run.annotator.cut()
        run.close_outputs()
    if rebuilt and not status.error:  # read to the end of what was rebuilt: the cut itself
        status.error = f"the file is cut short (its index was never written; {rebuilt})"
    if status.error:
        run.note(f"the video could not be read to the end: {status.error}; analysed up to {last_t:.2f} s")
    for d in status.damaged:  # frames it held are missing; the timing monitor counts them as dropped
        run.note(f"the video is damaged: {d}")
    if timing.dropped or timing.duplicates:
        run.note(timing.summary())
    if start_frame >= 0 and not stopped_early:
        _checkpoint(run, last_index + 1, last_t, timing, None, complete=True)
    return _finish(run, cfg, meta, status, timing, frames_done)


def _read_events(path: Path) -> list[Event]:
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as f:
        return list(read_jsonl(f))


def _checkpoint(run: _Run, next_frame: int, t: float, timing: TimingMonitor, stages: Stages | None,
                complete: bool = False) -> None:
    if run.annotator and not complete:
        run.annotator.cut()
    ckpt = ck.Checkpoint(
        video=str(run.cfg.video),
        video_size=run.cfg.video.stat().st_size,
        next_frame=next_frame,
        t=t,
        events_lines=len(run.events),
        annot_part=run.annotator.part if run.annotator else 0,
        shots=run.recorder.shot,
        timing=timing.to_dict(),
        header=run.header,
        info=run.info,
        complete=complete,
    )
    ck.save(run.out, ckpt, stages)
    run.last_ckpt_t = t


def _finish(run: _Run, cfg: AnalyzeConfig, meta: ReadStatus, status: ReadStatus, timing: TimingMonitor,
            frames_done: int) -> AnalysisResult:
    from service.report.build import write_outputs

    if run.annotator:
        done = ck.load(cfg.out)
        run.annotator.join(cfg.out / "annotated.mp4", keep_parts=done is None or not done.complete)
    summary = {
        "video": str(cfg.video),
        "event_schema": SCHEMA_VERSION,  # the version of events.jsonl's schema (docs/event-schema.md)
        "table": run.table.spec.name,
        "game": run.game,
        "fps": meta.fps,
        "width": meta.width,
        "height": meta.height,
        "declared_frames": meta.declared_frames,
        "frames_analysed_this_run": frames_done,
        "read_error": status.error,
        "damaged": status.damaged,
        "timing": timing.to_dict(),
        "notes": run.notes,
        "judge_error": run.judge_error,
        "fold": run.fold.to_dict() if run.fold else None,
        **run.info,
    }
    (cfg.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    with (cfg.out / "log.jsonl").open("w", encoding="utf-8") as f:
        for entry in run.log():
            f.write(json.dumps(entry, separators=(",", ":")) + "\n")
    write_outputs(cfg.out)
    return AnalysisResult(cfg.out, run.game, frames_done, len(run.events), run.verdicts, status, timing,
                          run.notes, run.judge_error, run.fold, run.camera_line())
