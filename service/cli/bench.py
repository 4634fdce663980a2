"""`pyramid-monitor bench [calibration|tracking|events|rules|verdicts|speed|all]`: the benchmarks, one table.

Each benchmark is `bench.<name>_bench.run(...) -> dict` and prints its own table. `all` (the default) runs
each in its own process (the speed benchmark pins itself to one core; nothing leaks into the next one),
then prints one summary table of their figures.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HELP = "run the benchmarks (calibration, tracking, events, rules, verdicts, speed) and print one table"
NAMES = ("calibration", "tracking", "events", "rules", "verdicts", "speed")
# The figures the summary shows first for each benchmark, when the benchmark reports them.
HEADLINES: dict[str, tuple[str, ...]] = {
    "calibration": ("corner_rms_mm", "spot_rms_mm", "failures", "seconds_per_calibration"),
    "tracking": ("recall", "precision", "rmse_stationary_mm", "rmse_moving_mm", "shots_without_switch", "hota",
                 "analysed_cpu_fps"),
    "events": ("pot_f1", "cushion_f1", "ball_contact_f1", "line_cross_f1", "first_contact_right",
               "median_timing_error_frames"),
    "rules": ("worst_median_s", "n_shots", "ok"),
    "verdicts": ("agreement", "shots", "agree", "cases"),
    "speed": ("pipeline_cpu_x_realtime", "pipeline_cpu_fps", "decode_cpu_fps", "pipeline_fps", "decode_fps",
              "annotated_cpu_fps", "size", "load_avg_1min"),
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("which", nargs="?", default="all", choices=(*NAMES, "all"))
    p.add_argument("--cases", type=Path, default=None,
                   help="synthetic case folders for tracking / events / verdicts (default: rendered once into "
                        "out/bench-cases/)")
    p.add_argument("--result", type=Path, default=None, help=argparse.SUPPRESS)  # worker mode: write the dict


def _run_one(name: str, cases: Path | None) -> dict[str, Any]:
    if name == "calibration":
        from bench import calibration_bench

        return dict(calibration_bench.run())
    if name == "tracking":
        from bench import tracking_bench, verdicts_bench
        from synthetic.truth import find_cases

        root = cases or (verdicts_bench.SAMPLES if find_cases(verdicts_bench.SAMPLES)
                         else verdicts_bench.default_cases((1920, 1080), 60.0, 0))
        return dict(tracking_bench.run(root))
    if name == "events":
        from bench import events_bench

        return dict(events_bench.run(cases) if cases else events_bench.run())
    if name == "rules":
        from bench import rules_bench

        return dict(rules_bench.run())
    if name == "verdicts":
        from bench import verdicts_bench

        return dict(verdicts_bench.run(cases))
    if name == "speed":
        from bench import speed_bench

        return dict(speed_bench.run())
    raise ValueError(f"unknown benchmark {name!r}; one of {', '.join(NAMES)}")


def _flatten(d: dict[str, Any], prefix: str = "", depth: int = 3) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and depth > 1:
            out.update(_flatten(v, key + ".", depth - 1))
        elif isinstance(v, bool | int | float | str) and (not isinstance(v, str) or len(v) <= 40):
            out[key] = v
    return out


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def summary_table(results: dict[str, dict[str, Any] | str], per_bench: int = 8) -> str:
    lines = [f"{'benchmark':<12} {'figure':<34} value", "-" * 64]
    for name, res in results.items():
        if isinstance(res, str):
            lines.append(f"{name:<12} {'FAILED':<34} {res[-200:]}")
            continue
        flat = _flatten(res)
        keys = [k for k in HEADLINES.get(name, ()) if k in flat]
        keys += [k for k in flat if k not in keys]
        for k in keys[:per_bench]:
            lines.append(f"{name:<12} {k:<34} {_fmt(flat[k])}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.result is not None:  # worker: one benchmark in this process
        res = _run_one(args.which, args.cases)
        args.result.write_text(json.dumps(res, default=str))
        return 0
    names = NAMES if args.which == "all" else (args.which,)
    results: dict[str, dict[str, Any] | str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            out = Path(tmp) / f"{name}.json"
            cmd = [sys.executable, "-m", "service.cli.main", "bench", name, "--result", str(out)]
            if args.cases is not None:
                cmd += ["--cases", str(args.cases)]
            print(f"=== {name} ===", flush=True)
            t0 = time.monotonic()
            proc = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
            if proc.returncode != 0 or not out.exists():
                err = proc.stderr.strip().splitlines()
                results[name] = err[-1] if err else f"exit code {proc.returncode}"
                print(proc.stderr[-2000:], file=sys.stderr)
            else:
                results[name] = json.loads(out.read_text())
            print(f"({name}: {time.monotonic() - t0:.0f} s)", flush=True)
    print()
    print(summary_table(results))
    return 0 if all(not isinstance(r, str) for r in results.values()) else 1
