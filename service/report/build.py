"""The score sheet and the self-contained HTML report, made from an analysis folder's files.

Reads events.jsonl, verdicts.jsonl, summary.json and the per-shot pictures in shots/; holds one match's
events and verdicts (small), never frames. Images are inlined as base64, the score plot as inline SVG,
so report.html is one file that opens anywhere.
"""

from __future__ import annotations

import base64
import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from rules.events import Event, EventType, is_ball_event, read_jsonl
from rules.numbering import Mark, Role, ShotNumbering, mark_event, mark_input
from service.judging import VerdictView, verdict_from_dict
from service.report.shots import event_label, shot_strip_path, shot_thumb_path


@dataclass
class ShotView:
    n: int
    t0: float
    t1: float | None
    struck: str | None
    events: list[Event] = field(default_factory=list)
    before: list[Event] = field(default_factory=list)  # between the last shot and this stroke (a ball disturbed)
    verdict: VerdictView | None = None
    thumb: str | None = None  # data: URI
    strip: str | None = None


def _data_uri(path: Path) -> str | None:
    if not path.exists():
        return None
    return "data:image/jpeg;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def read_verdicts(path: Path) -> list[VerdictView]:
    if not path.exists():
        return []
    out = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if line.strip():
            out.append(verdict_from_dict(json.loads(line), i))
    return out


def group_shots(log: Sequence[Event | str], verdicts: list[VerdictView]) -> list[ShotView]:
    """Split the log (ball events, and the `type` of each referee input in its place) into shots and attach
    each shot's verdict, numbered as the engine numbers them (rules.numbering): a doubtful shot_start while a
    shot is open opens none; a lag's events are no shot. Events between shots go where the engine puts them
    (rules.records.group_log): a ball disturbed before a stroke, or any event before the first shot or after a
    state line, belongs to the next shot (`before`); others (a late pot) stay with the shot that ended."""
    shots: list[ShotView] = []
    numbering = ShotNumbering()
    pending: list[Event] = []
    last = False  # a shot ended that later events may still belong to
    for e in log:
        if isinstance(e, str):
            mark = mark_input(e)
            numbering.step(mark)
            last = last and mark not in (Mark.RESET, Mark.LAG)
            continue
        in_lag = numbering.in_lag
        role = numbering.step(mark_event(e))
        if in_lag:  # the lag's events: no shot's
            continue
        if role is Role.OPENS:
            shots.append(ShotView(numbering.number, e.t, None, e.ball, before=pending))
            pending, last = [], True
        elif role is Role.OUTSIDE and (not last or e.type is EventType.BALL_DISTURBED):
            pending.append(e)
            continue
        shots[-1].events.append(e)
        if e.type is EventType.SHOT_END and role is Role.IN_SHOT:
            shots[-1].t1 = e.t
    by_shot = {v.shot: v for v in verdicts}
    for s in shots:
        s.verdict = by_shot.get(s.n)
    return shots


def read_log(out: Path, events: list[Event]) -> list[Event | str]:
    """The log the engine folded (log.jsonl: header, inputs and events in order), events as read from
    events.jsonl and inputs by type; without log.jsonl, the events alone."""
    path = out / "log.jsonl"
    if not path.exists():
        return list(events)
    items: list[Event | str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        d = json.loads(line)
        items.append(Event.from_dict(d) if is_ball_event(d) else str(d.get("type", "")))
    return items


def score_plot_svg(verdicts: list[VerdictView]) -> str | None:
    """The score after each shot, one line per player, as an inline SVG string."""
    players = sorted({p for v in verdicts for p in v.score})
    if not players:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(7, 2.6), dpi=96)
    xs = [0] + [v.shot for v in verdicts]
    for p in players:
        ys = [0]
        for v in verdicts:
            ys.append(v.score.get(p, ys[-1]))
        ax.plot(xs, ys, marker="o", markersize=3, label=str(p))
    for v in verdicts:
        if v.is_foul:
            ax.axvline(v.shot, color="#d33", alpha=0.25, lw=1)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("shot")
    ax.set_ylabel("score")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    svg = buf.getvalue()
    return svg[svg.find("<svg"):]


def write_scoresheet(path: Path, shots: list[ShotView]) -> None:
    players = sorted({p for s in shots if s.verdict for p in s.verdict.score})
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["shot", "t_start_s", "player", "outcome", "clauses", "review", "points", *players,
                    "explanation"])
        for s in shots:
            v = s.verdict
            w.writerow([
                s.n,
                f"{s.t0:.2f}",
                v.player if v else "",
                v.outcome if v else "not judged",
                " ".join(v.clauses) if v else "",
                "yes" if v and v.review else "",
                " ".join(f"{k}:{p:+d}" for k, p in v.points.items()) if v else "",
                *[(v.score.get(p, "") if v else "") for p in players],
                v.explanation if v else "",
            ])


_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("service", "templates"), autoescape=jinja2.select_autoescape(["html", "j2"])
)


def write_outputs(out: Path) -> None:
    """scoresheet.csv and report.html from the files in `out`."""
    events: list[Event] = []
    if (out / "events.jsonl").exists():
        with (out / "events.jsonl").open(encoding="utf-8") as f:
            events = list(read_jsonl(f))
    verdicts = read_verdicts(out / "verdicts.jsonl")
    summary: dict[str, Any] = {}
    if (out / "summary.json").exists():
        summary = json.loads((out / "summary.json").read_text())
    shots = group_shots(read_log(out, events), verdicts)
    for s in shots:
        s.thumb = _data_uri(shot_thumb_path(out, s.n))
        if s.verdict and (s.verdict.is_foul or s.verdict.review):
            s.strip = _data_uri(shot_strip_path(out, s.n))
    write_scoresheet(out / "scoresheet.csv", shots)
    html = _ENV.get_template("report.html.j2").render(
        summary=summary,
        shots=shots,
        verdicts=verdicts,
        score_svg=score_plot_svg(verdicts),
        label=event_label,
        fouls=sum(1 for v in verdicts if v.is_foul),
        reviews=sum(1 for v in verdicts if v.review),
        n_events=len(events),
        # the score as the last shot left it: after a won frame the engine's state is the next frame's 0-0
        final_score=(verdicts[-1].score if verdicts and verdicts[-1].score else
                     (summary.get("fold") or {}).get("score") or {}),
        frames_won=(verdicts[-1].raw.get("frames_won") or {}) if verdicts else {},
    )
    (out / "report.html").write_text(html, encoding="utf-8")
