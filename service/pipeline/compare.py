"""How an analysis compares with ground truth: events matched by type, agents and time; verdicts per shot.

The verdict comparison judges the ground truth's own events and the pipeline's events with the same
engine and the same referee inputs, so it measures what vision changes, not the engine.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calibration.table import Table, TableSpec
from rules.events import Event, EventType, read_jsonl
from service import judging
from service.pipeline.opening import decide_opening

# Seconds either side for an event to match; "every ball at rest" is a slower, softer instant than a hit.
TIME_TOL_S = 0.15
SHOT_END_TOL_S = 0.6


def _key(e: Event) -> tuple[Any, ...]:
    agents = tuple(sorted(e.balls)) if e.balls else (e.ball,)
    return (e.type, agents, e.cushion, e.line, e.pocket)


def match_events(truth: Sequence[Event], found: Sequence[Event], tol_s: float = TIME_TOL_S) -> dict[str, Counter[str]]:
    """Greedy one-to-one matching in time order; returns per-type counts of tp, fn, fp."""
    counts: dict[str, Counter[str]] = {}
    used: set[int] = set()
    for t_ev in truth:
        c = counts.setdefault(str(t_ev.type), Counter())
        tol = SHOT_END_TOL_S if t_ev.type is EventType.SHOT_END else tol_s
        best, best_d = None, tol
        for i, f_ev in enumerate(found):
            if i in used or _key(f_ev) != _key(t_ev):
                continue
            d = abs(f_ev.t - t_ev.t)
            if d <= best_d:
                best, best_d = i, d
        if best is None:
            c["fn"] += 1
        else:
            used.add(best)
            c["tp"] += 1
    for i, f_ev in enumerate(found):
        if i not in used:
            counts.setdefault(str(f_ev.type), Counter())["fp"] += 1
    return counts


def verdict_key(v: judging.VerdictView) -> tuple[object, ...]:
    """What "judged the same" means: legal or foul, the foul clauses, and the points each player got."""
    return (v.outcome, tuple(sorted(v.clauses)) if v.is_foul else (), tuple(sorted(v.points.items())))


def same_verdict(a: judging.VerdictView, b: judging.VerdictView) -> bool:
    return verdict_key(a) == verdict_key(b)


@dataclass
class Comparison:
    events: dict[str, Counter[str]]
    shots_truth: int = 0
    shots_agree: int = 0
    shots_agree_carried: int = 0
    disagreements: list[str] = field(default_factory=list)
    judge_error: str | None = None

    @property
    def agreement(self) -> float | None:
        return self.shots_agree / self.shots_truth if self.shots_truth else None

    def text(self) -> str:
        head = f"  {'event':<15}{'truth':>7}{'found':>7}{'recall':>8}{'precision':>10}"
        lines = ["compared with ground truth:", head]
        for etype in [str(t) for t in EventType]:
            c = self.events.get(etype)
            if not c:
                continue
            n_truth, n_found = c["tp"] + c["fn"], c["tp"] + c["fp"]
            rec = f"{c['tp'] / n_truth:.0%}" if n_truth else "-"
            prec = f"{c['tp'] / n_found:.0%}" if n_found else "-"
            lines.append(f"  {etype:<15}{n_truth:>7}{n_found:>7}{rec:>8}{prec:>10}")
        if self.judge_error:
            lines.append(f"  verdicts: not compared ({self.judge_error})")
        elif self.agreement is not None:
            lines.append(f"  verdicts: {self.shots_agree}/{self.shots_truth} shots agree ({self.agreement:.0%}), "
                         f"each shot after the truth's earlier shots; {self.shots_agree_carried}/{self.shots_truth} "
                         "with the pipeline's own earlier shots")
            lines += [f"    {d}" for d in self.disagreements[:10]]
        return "\n".join(lines)


def judge_events(inputs: list[dict[str, Any]], events: Sequence[Event], game: str, table: Table,
                 state: dict[str, Any] | None = None) -> tuple[judging.VerdictView, ...]:
    """Verdicts of an event stream with the referee inputs, opened as analyze opens it: break or position
    decided from the first shot_start's positions."""
    first = next((e for e in events if e.type is EventType.SHOT_START), None)
    opening = decide_opening(first.positions if first else None, table)
    head = judging.header_for(inputs, game, table.spec.name, str(opening.opening), state,
                              first.positions if first else None)
    return judging.fold(judging.merge_log([*head, *inputs], [e.to_dict() for e in events]), game).verdicts


@dataclass
class VerdictAgreement:
    """Truth shots, and how many the pipeline judged the same, two ways.

    `agree`: each truth shot judged from the truth's own history (the events of the shots before it), with
    the pipeline's events for that shot only (from its start to the next truth shot): one shot's error does
    not carry into the next. `agree_carried`: the pipeline's whole event stream judged as one match, its
    shots matched to the truth's by start time; an early error (a false foul, an extra shot) changes who
    plays and the score of every later shot. A shot agrees when the pipeline gives exactly one verdict for
    it with the same outcome, foul clauses and points.
    """

    shots: int = 0
    agree: int = 0
    agree_carried: int = 0
    diffs: list[str] = field(default_factory=list)
    # review flags on the `agree` judging: shots whose pipeline verdict is marked for the referee, and of the
    # shots judged wrong, those marked (a wrong verdict the referee is not pointed to is the costly kind)
    flagged: int = 0
    wrong_flagged: int = 0


def _shot_starts(events: Sequence[Event]) -> list[float]:
    return [e.t for e in events if e.type is EventType.SHOT_START]


def _describe(v: judging.VerdictView | None) -> str:
    if v is None:
        return "no verdict"
    pts = " ".join(f"{k}{n:+d}" for k, n in sorted(v.points.items()) if n)
    return f"{v.outcome} {','.join(v.clauses)}" + (f" [{pts}]" if pts else "")


def compare_verdicts(
    inputs: list[dict[str, Any]], truth: Sequence[Event], found: Sequence[Event], game: str, table: Table,
    tol_s: float = TIME_TOL_S,
) -> VerdictAgreement:
    """Verdict agreement per truth shot (see VerdictAgreement); shots are matched by start time within tol_s."""
    v_truth = judge_events(inputs, truth, game, table)
    v_found = judge_events(inputs, found, game, table)
    res = VerdictAgreement(shots=len(v_truth))
    for v in v_truth:
        if v.t is None:
            continue
        near = [f for f in v_found if f.t is not None and abs(f.t - v.t) <= tol_s]
        carried = near[0] if len(near) == 1 else None
        if carried is not None and same_verdict(v, carried):
            res.agree_carried += 1
        alone = _judge_alone(inputs, truth, found, game, table, v, tol_s)
        flagged = any(a.review for a in alone)
        res.flagged += int(flagged)
        if len(alone) == 1 and same_verdict(v, alone[0]):
            res.agree += 1
        else:
            res.wrong_flagged += int(flagged)
            extra = f" (+{len(alone) - 1} more shots in its time)" if len(alone) > 1 else ""
            res.diffs.append(f"shot {v.shot} at {v.t:.2f} s: truth {_describe(v)}, pipeline "
                             f"{_describe(alone[0] if alone else None)}{extra}")
    return res


def diff_shot(diff: str) -> tuple[int, float] | None:
    """(truth shot number, its start time) of a diff line `compare` writes ("shot N at T s: ..."), else None."""
    m = re.match(r"shot (\d+) at ([0-9.]+) s", diff)
    return (int(m.group(1)), float(m.group(2))) if m else None


def _judge_alone(inputs: list[dict[str, Any]], truth: Sequence[Event], found: Sequence[Event], game: str,
                 table: Table, v: judging.VerdictView, tol_s: float) -> list[judging.VerdictView]:
    """The pipeline's verdicts for the time of truth shot v, judged after the truth's own earlier shots.

    The pipeline's window opens when the truth's previous shot ends (its shot_end; the video's start for the
    first shot), not at v's start: what happens between shots (a ball touched by a hand, 1.17) belongs to the
    next shot, so a missed or invented between-shot event counts against it. A previous shot without a
    shot_end keeps its events (the window opens at the pipeline's stroke matched to v's start, else at v's
    start - tol_s), so no error counts twice; it closes likewise at the pipeline's stroke matched to the next
    truth shot, so what happens just before a stroke that cut the shot short (1.14.2) stays in it. The pipeline's
    previous shot may end a little after the truth's: its events up to its own shot_end (one before its first
    shot_start in the window) belong to that shot and are left out."""
    assert v.t is not None
    found_starts = _shot_starts(found)

    def boundary(t: float) -> float:
        """Where the pipeline's shot of truth time t begins: its own stroke matched to t, else t - tol_s."""
        near = [f for f in found_starts if abs(f - t) <= tol_s]
        return min(near, key=lambda f: abs(f - t)) if near else t - tol_s

    earlier = [t for t in _shot_starts(truth) if t < v.t - tol_s]
    ends = [e.t for e in truth if e.type is EventType.SHOT_END and earlier and earlier[-1] <= e.t < v.t - tol_s]
    start = ends[-1] if ends else (boundary(v.t) if earlier else -float("inf"))
    later = [t for t in _shot_starts(truth) if t > v.t + tol_s]
    stop = boundary(later[0]) if later else float("inf")
    before = [e for e in truth if e.t <= start] if ends else [e for e in truth if e.t < min(start, v.t)]
    mine = [e for e in found if start < e.t < stop] if ends else [e for e in found if start <= e.t < stop]
    first = next((i for i, e in enumerate(mine) if e.type is EventType.SHOT_START), len(mine))
    closing = [i for i, e in enumerate(mine[:first]) if e.type is EventType.SHOT_END]
    mine = mine[closing[-1] + 1:] if closing else mine
    known = [d for d in inputs if d.get("t") is None or float(d["t"]) < v.t]
    try:
        verdicts = judge_events(known, [*before, *mine], game, table)
    except ValueError:  # the engine refuses the spliced log: the pipeline's shot cannot be judged as truth's
        return []
    return [f for f in verdicts if f.shot >= v.shot]


def truth_inputs(case: Path) -> tuple[list[Event], list[dict[str, Any]]]:
    meta = json.loads((case / "truth.json").read_text())
    return [Event.from_dict(d) for d in meta["events"]], list(meta.get("log", []))


def compare_with_truth(case: Path, out: Path, game: str, table: Table | None = None) -> Comparison:
    truth, inputs = truth_inputs(case)
    table = table or Table(TableSpec(**json.loads((case / "truth.json").read_text())["table"]))
    with (out / "events.jsonl").open(encoding="utf-8") as f:
        found = list(read_jsonl(f))
    comp = Comparison(match_events(truth, found))
    try:
        va = compare_verdicts(inputs, truth, found, game, table)
        comp.shots_truth, comp.shots_agree, comp.disagreements = va.shots, va.agree, va.diffs
        comp.shots_agree_carried = va.agree_carried
    except ValueError as exc:  # the engine refuses a log: say so beside the event comparison
        comp.judge_error = str(exc)
    return comp
