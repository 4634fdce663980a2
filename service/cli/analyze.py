"""`pyramid-monitor analyze VIDEO`: the whole pipeline on a recorded match; see docs/service.md."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

HELP = "analyse a recorded match: events, verdicts, score sheet, report.html, annotated.mp4"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("video", type=Path, help="video file (mp4, mkv, ...)")
    p.add_argument("--table", default="pyramid-12ft", help="table preset or spec JSON (default pyramid-12ft)")
    p.add_argument("--game", default=None, help="game rules (default: from the video's truth/log, else russian71)")
    p.add_argument("--calibration", type=Path, default=None, help="calibration.json (default: automatic)")
    p.add_argument("--state", default=None,
                   help='JSON file or inline JSON with the score, who is to play and (optionally) where each ball '
                        'is, e.g. {"score":{"A":12,"B":5},"to_play":"B","balls":{"C":[-900,0],"7":[400,120]}}; '
                        'the ball positions give the tracker its ids')
    p.add_argument("--inputs", type=Path, default=None,
                   help="JSONL of referee inputs (match header, nominations, ...); default: the log of a "
                        "truth.json beside the video, if any")
    p.add_argument("--out", type=Path, default=None, help="output folder (default: out/<video name>)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    p.add_argument("--no-video", action="store_true", help="skip annotated.mp4 (faster)")
    p.add_argument("--annotate-scale", type=float, default=None,
                   help="annotated.mp4 size relative to the input (default: at most 960 px wide)")
    p.add_argument("--max-frames", type=int, default=None, help="stop after this many frames")
    p.add_argument("--reference", type=Path, default=None,
                   help="a complete recording of the same camera: rebuilds a VIDEO cut before its index was written")


def _json_object(text: str, where: str) -> dict[str, Any]:
    """One JSON object, or a ValueError that names where the text came from."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{where} is not JSON ({exc})") from exc
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be a JSON object, got {type(value).__name__}")
    return value


def _read_state(arg: str | None) -> dict[str, Any] | None:
    from rules.inputs import InputType, RefereeInput

    if arg is None:
        return None
    text = Path(arg).read_text() if Path(arg).exists() else arg
    state = _json_object(text, f"--state {arg!r} (a JSON file or JSON text)")
    try:  # the shapes the rules engine will read, checked before a frame is decoded
        RefereeInput.from_dict({**state, "type": InputType.STATE.value})
    except ValueError as exc:
        raise ValueError(f"--state: {str(exc).removeprefix('line 0: ').removeprefix('state: ')}") from exc
    return state


def _read_inputs(path: Path | None, video: Path) -> tuple[list[dict[str, Any]], str | None]:
    """Referee inputs from --inputs, else from the log of a truth.json beside the video; and their source."""
    from rules.inputs import parse_item

    if path is not None:
        rows = []
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            row = _json_object(line, f"{path}: line {n}")
            try:
                parse_item(row, n)  # the judge command's and the API's checks
            except ValueError as exc:
                raise ValueError(f"{path}: {exc}") from exc
            rows.append(row)
        return rows, str(path)
    truth = video.parent / "truth.json"
    if truth.exists():
        try:
            log = json.loads(truth.read_text()).get("log", [])
        except ValueError:
            return [], None
        return [r for r in log if isinstance(r, dict)], f"{truth} (log)"
    return [], None


def _game_from_inputs(inputs: list[dict[str, Any]]) -> str | None:
    for entry in inputs:
        if entry.get("type") == "match" and entry.get("game"):
            return str(entry["game"])
    return None


def _columns() -> int:
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except OSError:
        return 0


class _Progress:
    """tqdm on a terminal; one plain line every few seconds when piped."""

    def __init__(self, total: int, fps: float) -> None:
        self.tty = sys.stderr.isatty()
        self.total, self.fps = total, fps
        self.t0 = self.last = time.monotonic()
        self.bar: Any = None
        if self.tty:
            from tqdm import tqdm

            # A pty that reports no size (0 x 0: `script`, some containers) would make tqdm draw nothing.
            sized = _columns() > 0
            self.bar = tqdm(total=total or None, unit="frame", dynamic_ncols=sized, ncols=None if sized else 80,
                            nrows=None if sized else 24)
        self.done = 0
        self.t = 0.0

    def __call__(self, done: int, total: int, t: float) -> None:
        if self.bar is not None:
            self.bar.update(done - self.done)
        else:
            now = time.monotonic()
            if self.done == 0 or now - self.last >= 5.0:
                self._line(done, total, t, now)
        self.done, self.total, self.t = done, total, t

    def _line(self, done: int, total: int, t: float, now: float) -> None:
        rate = done / max(now - self.t0, 1e-9)
        of = f"/{total}" if total else ""
        print(f"progress: frame {done}{of} ({t:.1f} s of video), {rate:.1f} frames/s", file=sys.stderr, flush=True)
        self.last = now

    def write(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text)
        else:
            print(text, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        elif self.done and self.last < time.monotonic() - 0.5:
            self._line(self.done, self.total, self.t, time.monotonic())


def _score_line(fold: Any, verdicts: list[Any]) -> str:
    """The score as the last shot left it (after a won frame the engine's state is the next frame's 0-0),
    frames won when a frame ended, and who is to play."""
    score = verdicts[-1].score if verdicts and verdicts[-1].score else fold.score
    text = "score: " + (", ".join(f"{p} {s}" for p, s in score.items()) or "none")
    won = verdicts[-1].raw.get("frames_won") if verdicts else None
    if won and any(won.values()):
        text += "; frames won: " + ", ".join(f"{p} {n}" for p, n in won.items())
    return text + ("; the match is over" if fold.finished else f"; {fold.to_play} to play" if fold.to_play else "")


def run(args: argparse.Namespace) -> int:
    from service import judging
    from service.pipeline.compare import compare_with_truth
    from service.pipeline.run import AnalyzeConfig, Hooks, analyze
    from service.pipeline.video import ReadStatus, first_frames, probe

    video: Path = args.video
    if not video.exists():
        print(f"error: no such video: {video}", file=sys.stderr)
        return 2
    if args.reference is not None and not args.reference.is_file():
        print(f"error: no such reference video: {args.reference}", file=sys.stderr)
        return 2
    try:
        meta = probe(video)
    except ValueError:
        meta = ReadStatus()  # analyze writes a report that says why the video could not be read
    else:
        got, status = first_frames(video)
        if got == 1 and status.error is None:  # as the API refuses it: nothing to analyse, nothing written
            print(f"error: {video} holds a single picture, not a video", file=sys.stderr)
            return 2
    try:
        state = _read_state(args.state)
        inputs, inputs_source = _read_inputs(args.inputs, video)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = args.out or Path("out") / (video.parent.name if video.stem == "video" else video.stem)
    if (out.exists() and not out.is_dir()) or any(p.exists() and not p.is_dir() for p in out.parents):
        print(f"error: --out {out}: a file is in the way of that folder", file=sys.stderr)
        return 2
    game = args.game or _game_from_inputs(inputs)
    if game is not None:
        try:
            game = judging.canonical_game(game)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if state:
        score = state.get("score")
        given = [f"score {', '.join(f'{p} {n}' for p, n in score.items())}" if isinstance(score, dict) else "",
                 f"{state['to_play']} to play" if state.get("to_play") else "",
                 f"{len(state['balls'])} balls placed" if isinstance(state.get("balls"), dict) else ""]
        print("start from --state: " + ("; ".join(g for g in given if g) or ", ".join(sorted(state))))
    if inputs_source:
        print(f"referee inputs: {len(inputs)} line(s) from {inputs_source}" + (
            f"; game {game} from its match header" if args.game is None and game else ""))
    cfg = AnalyzeConfig(video=video, out=out, table=args.table, game=game, calibration=args.calibration,
                        state=state, inputs=inputs, resume=args.resume, annotate=not args.no_video,
                        annotate_scale=args.annotate_scale, max_frames=args.max_frames,
                        reference=args.reference)
    progress = _Progress(meta.declared_frames, meta.fps)

    def note(text: str) -> None:
        progress.write(text)

    def verdict(v: Any) -> None:
        clause = f" [{', '.join(v.clauses)}]" if v.clauses else ""
        flag = "  REVIEW" if v.review else ""
        progress.write(f"shot {v.shot}: {v.outcome}{clause} {v.explanation}{flag}")

    try:
        result = analyze(cfg, Hooks(on_verdict=verdict, on_progress=progress, on_note=note))
    except KeyboardInterrupt:
        progress.close()
        print(f"interrupted: continue with  pyramid-monitor analyze {video} --out {out} --resume", file=sys.stderr)
        return 130
    except (ValueError, OSError) as exc:
        progress.close()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    progress.close()
    fold = result.fold
    if fold is not None:
        print(f"{len(result.verdicts)} shots judged ({result.game}); {_score_line(fold, result.verdicts)}")
        if fold.owed:
            print("decisions owed: " + "; ".join(fold.owed))
    print(f"{result.events} events; report: {out / 'report.html'}")
    if (video.parent / "truth.json").exists():
        print(compare_with_truth(video.parent, out, result.game).text())
    if result.camera is not None:  # a degraded analysis: said again at the end, and in the exit code
        print(f"DEGRADED: the camera moved at {result.camera['t']:.2f} s; every verdict from then on is flagged for "
              "review", file=sys.stderr)
    if result.judge_error:  # the events are written, the verdicts stop where the engine refused the log
        print(f"NO VERDICTS after shot {len(result.verdicts)}: {result.judge_error}", file=sys.stderr)
    ok = result.read.complete and not result.read.damaged and result.camera is None and not result.judge_error
    return 0 if ok else 1
