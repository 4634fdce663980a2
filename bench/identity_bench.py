"""Ball identity through the whole analyze pipeline: the share of visible balls whose published id is the
true ball (the track of that id is in play within one ball radius of the true centre).

    python -m bench.identity_bench CASES_DIR [--no-state] [--max-frames N]

For each case folder (truth.json + truth.npz + video.mp4) analyze runs as the CLI runs it (automatic
calibration, the truth.json log as referee inputs); the perception stage is wrapped to record every
frame's published states. `--no-state` drops the `balls` of the log's state lines (what a recording with no
stated position gives). Printed per case: ball-frames, the share with the right id, the share on the first
frame, the mean id confidence (and its mean over the ball-frames whose id is wrong: a confidence that
means something is lower there), and the pot events whose ball id matches the truth's pots.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.replay import RecordingPerception
from calibration.table import Table
from rules.events import Event, EventType
from service.pipeline.run import AnalyzeConfig, Stages, analyze, default_stages
from synthetic.truth import GroundTruth, find_cases
from vision.types import BallState

IN_PLAY = (int(BallState.STATIONARY), int(BallState.MOVING))


def _strip_balls(log: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in d.items() if not (d.get("type") == "state" and k == "balls")} for d in log]


def run_case(case: Path, no_state: bool, max_frames: int | None) -> dict[str, Any]:
    truth = GroundTruth.load(case)
    meta = json.loads((case / "truth.json").read_text())
    log = list(meta.get("log", []))
    inputs = _strip_balls(log) if no_state else log
    game = next((str(d["game"]) for d in log if d.get("type") == "match" and d.get("game")), "russian71")
    recorders: list[RecordingPerception] = []

    def stages(cfg: AnalyzeConfig, table: Table, image: np.ndarray, fps: float) -> Stages:
        s = default_stages(cfg, table, image, fps)
        rec = RecordingPerception(s.perception)
        recorders.append(rec)
        return Stages(s.calibration, rec, s.detector)

    with tempfile.TemporaryDirectory() as tmp:
        cfg = AnalyzeConfig(video=case / "video.mp4", out=Path(tmp), table=truth.table.name, game=game,
                            inputs=inputs, annotate=False, max_frames=max_frames)
        res = analyze(cfg, stage_factory=stages)
        found = _read_events(Path(tmp) / "events.jsonl")
    rec = recorders[0]
    R = truth.table.ball_diameter_mm / 2.0
    total = right = first_total = first_right = 0
    conf: list[float] = []
    wrong_conf: list[float] = []  # id confidence of the ball-frames whose id is not the true ball's
    for f, st in enumerate(rec.states):
        ids, xy, state, idc = st.ids, st.xy_mm, st.state, st.id_confidence
        if f >= truth.n_frames:
            break
        pos = truth.pos_mm[f, :, :2]
        vis = truth.visible[f] & np.isfinite(pos[:, 0]) & np.isin(truth.state[f], IN_PLAY)
        order = [ids.index(b) for b in truth.ids]
        ok = np.isin(state[order], IN_PLAY) & (np.linalg.norm(xy[order] - pos, axis=1) <= R)
        n, k = int(vis.sum()), int((vis & ok).sum())
        total, right = total + n, right + k
        conf += [float(c) for c in idc[order][vis]]
        wrong_conf += [float(c) for c in idc[order][vis & ~ok]]
        if f == 0:
            first_total, first_right = n, k
    true_pots = sorted(str(e.ball) for e in truth.events if e.type is EventType.POT)
    found_pots = sorted(str(e.ball) for e in found if e.type is EventType.POT)
    same_pots = sum(min(true_pots.count(b), found_pots.count(b)) for b in set(true_pots))
    return {"case": case.name, "frames": len(rec.states), "ball_frames": total, "right": right,
            "first": (first_right, first_total), "mean_id_conf": float(np.mean(conf)) if conf else float("nan"),
            "wrong_id_conf": float(np.mean(wrong_conf)) if wrong_conf else float("nan"),
            "pots": (same_pots, len(true_pots), len(found_pots)), "notes": res.notes}


def _read_events(path: Path) -> list[Event]:
    if not path.exists():
        return []
    return [Event.from_dict(json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


def run(cases_dir: Path, no_state: bool = False, max_frames: int | None = None, verbose: bool = True
        ) -> dict[str, Any]:
    cases = find_cases(Path(cases_dir))
    if not cases:
        raise ValueError(f"no case folders (truth.json + truth.npz + video.mp4) below {cases_dir}")
    rows = [run_case(c, no_state, max_frames) for c in cases]
    total = sum(r["ball_frames"] for r in rows)
    right = sum(r["right"] for r in rows)
    if verbose:
        for r in rows:
            fr, ft = r["first"]
            same, nt, nf = r["pots"]
            print(f"{r['case']:28s} frames {r['frames']:5d} id right {r['right']:6d}/{r['ball_frames']:6d} "
                  f"= {r['right'] / max(r['ball_frames'], 1):6.1%}  first frame {fr}/{ft}  "
                  f"mean id conf {r['mean_id_conf']:.2f} (wrong ids {r['wrong_id_conf']:.2f})  "
                  f"pots with the true id {same}/{nt} (found {nf})")
            for n in r["notes"]:
                if "identit" in n or "ball ids" in n:
                    print(f"    note: {n}")
        print(f"--- ball ids right: {right}/{total} ball-frames = {right / max(total, 1):.1%} over {len(rows)} "
              f"cases{' (state balls dropped)' if no_state else ''} ---")
    return {"cases": len(rows), "ball_frames": total, "right": right, "share": right / max(total, 1)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("cases_dir", type=Path)
    p.add_argument("--no-state", action="store_true", help="drop the balls of the log's state lines")
    p.add_argument("--max-frames", type=int, default=None)
    a = p.parse_args(argv)
    run(a.cases_dir, a.no_state, a.max_frames)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
