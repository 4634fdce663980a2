"""Record the tracker's output once per case, then re-run only the event layer and the rules on it.

    python -m bench.replay record [--cases sample_videos] [--only NAME ...]   # real pipeline, states saved
    python -m bench.replay verdicts [--cases sample_videos] [--only NAME ...] # events + rules on saved states

For iterating on `vision.events`: `verdicts` takes seconds where the full verdict benchmark takes minutes.
The recorded states include the identity news the pipeline fed back to vision during the recording run
(shot starts, spotted balls), so a replay after an event-layer change is an approximation of the real
pipeline: figures to report come from `pyramid-monitor bench verdicts`, not from here.
"""

from __future__ import annotations

import argparse
import json
import pickle
from pathlib import Path
from typing import Any

import numpy as np

from service.pipeline.compare import diff_shot
from vision.types import BallStates

ROOT = Path("out/replay")


def store(case: Path) -> Path:
    """Where a case's recording lives: one folder per case set, so two sets never overwrite each other."""
    return ROOT / case.resolve().parent.name / case.name


class RecordingPerception:
    """A perception stage that keeps every BallStates it hands on; identity news passes through."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.states: list[BallStates] = []

    def update(self, image: np.ndarray, frame: int, t: float) -> BallStates:
        s: BallStates = self.inner.update(image, frame, t)
        self.states.append(s)
        return s

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def case_meta(case: Path) -> tuple[Any, list[Any], list[dict[str, Any]], str, float]:
    from calibration.table import Table, TableSpec
    from service.pipeline.compare import truth_inputs

    truth, inputs = truth_inputs(case)
    meta = json.loads((case / "truth.json").read_text())
    table = Table(TableSpec(**meta["table"]))
    game = next((str(d["game"]) for d in inputs if d.get("type") == "match" and d.get("game")), "russian71")
    return table, truth, inputs, game, float(meta["fps"])


def record(case: Path) -> Path:
    from service.pipeline.run import AnalyzeConfig, Stages, analyze, default_stages

    table, _, inputs, game, _ = case_meta(case)
    rec: list[RecordingPerception] = []

    def factory(cfg: AnalyzeConfig, tbl: Any, image: np.ndarray, fps: float) -> Stages:
        st = default_stages(cfg, tbl, image, fps)
        r = RecordingPerception(st.perception)
        rec.append(r)
        return Stages(st.calibration, r, st.detector)

    out = store(case)
    analyze(AnalyzeConfig(video=case / "video.mp4", out=out / "analyze", table=table.spec.name, game=game,
                          inputs=inputs, annotate=False), stage_factory=factory)
    path = out / "states.pkl"
    with path.open("wb") as f:
        pickle.dump(rec[0].states if rec else [], f)
    return path


def replay(case: Path) -> dict[str, Any]:
    from service.pipeline.compare import compare_verdicts, match_events
    from service.pipeline.components import make_event_detector

    table, truth, inputs, game, fps = case_meta(case)
    with (store(case) / "states.pkl").open("rb") as f:
        states: list[BallStates] = pickle.load(f)
    det = make_event_detector(table, fps)
    found = [e for s in states for e in det.update(s)] + det.flush()
    va = compare_verdicts(inputs, truth, found, game, table)
    return {"case": case.name, "shots": va.shots, "agree": va.agree, "carried": va.agree_carried, "diffs": va.diffs,
            "flagged": va.flagged, "wrong_flagged": va.wrong_flagged,
            "events": match_events(truth, found), "found": found}


def _brief(e: Any) -> str:
    """One event on one line: time, frame, type, agents and the fields a verdict reads."""
    parts = [f"{e.t:8.3f} f{e.frame:<5d} {e.type!s:14s} {'-'.join(e.agents):8s}"]
    for name in ("cushion", "line", "to", "pocket"):
        v = getattr(e, name)
        if v is not None:
            parts.append(f"{name}={v}")
    if e.touching:
        parts.append("touching=" + ",".join("-".join(d["balls"]) for d in e.touching))
    if e.frozen:
        parts.append("frozen=" + ",".join(f"{d['ball']}@{d['cushion']}" for d in e.frozen))
    parts += [f"{k}={v}" for k, v in e.extra.items() if k in ("first", "jump", "hand", "cue_follow", "push")]
    if e.confidence < 1.0:
        parts.append(f"conf={e.confidence:.2f}")
    return " ".join(parts)


def dump_diffs(case: Path, diffs: list[str], found: list[Any], margin_s: float = 0.5) -> None:
    """For each disagreeing shot: the truth's events and the pipeline's, from the end of the truth's previous
    shot (what happens between shots counts for this one, as in compare) to the next truth shot (with a
    margin), so the layer at fault can be read off."""
    from rules.events import EventType

    _, truth, _, _, _ = case_meta(case)
    starts = [e.t for e in truth if e.type is EventType.SHOT_START]
    ends = [e.t for e in truth if e.type is EventType.SHOT_END]
    for d in diffs:
        shot = diff_shot(d)
        if shot is None:
            continue
        t0 = t_shot = shot[1]
        before = [t for t in ends if t < t0 - 0.15]
        t0 = min(t0, before[-1] + margin_s) if before else 0.0
        later = [t for t in starts if t > t_shot + 0.15]
        t1 = later[0] if later else float("inf")
        print(f"  --- {case.name} shot {shot[0]} [{t0 - margin_s:.2f}, {t1 + margin_s:.2f}) s")
        for label, evs in (("truth", truth), ("found", found)):
            for e in evs:
                if t0 - margin_s <= e.t < t1 + margin_s:
                    print(f"    {label} {_brief(e)}")


def main(argv: list[str] | None = None) -> int:
    from bench.verdicts_bench import review_figures, review_line
    from synthetic.truth import find_cases

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("what", choices=("record", "verdicts"))
    p.add_argument("--cases", type=Path, default=Path("sample_videos"))
    p.add_argument("--only", nargs="*", default=None, help="case folder names")
    p.add_argument("--force", action="store_true", help="record again cases that already have a recording")
    p.add_argument("--events", action="store_true", help="print truth and pipeline events of each disagreeing shot")
    a = p.parse_args(argv)
    cases = [c for c in find_cases(a.cases) if not a.only or c.name in a.only]
    shots = agree = carried = flagged = wrong_flagged = 0
    for case in cases:
        if a.what == "record":
            if (store(case) / "states.pkl").exists() and not a.force:
                print(f"kept {store(case)} (--force to record again)", flush=True)
                continue
            print(f"recorded {record(case)}", flush=True)
            continue
        if not (store(case) / "states.pkl").exists():
            hint = f"python -m bench.replay record --cases {a.cases} --only {case.name}"
            print(f"{case.name}: no recording (run `{hint}`)")
            continue
        r = replay(case)
        shots += r["shots"]
        agree += r["agree"]
        carried += r["carried"]
        flagged += r["flagged"]
        wrong_flagged += r["wrong_flagged"]
        print(f"{r['case']:34s} shots {r['shots']:3d} agree {r['agree']:3d} carried {r['carried']:3d}", flush=True)
        for d in r["diffs"]:
            print(f"    {d}")
        if a.events:
            dump_diffs(case, r["diffs"], r["found"])
    if a.what == "verdicts":
        print(f"--- replayed verdict agreement: {agree}/{shots} = {agree / max(shots, 1):.1%}; errors carried: "
              f"{carried}/{shots} = {carried / max(shots, 1):.1%} ---")
        print(review_line({"shots": shots, **review_figures(shots, agree, flagged, wrong_flagged)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
