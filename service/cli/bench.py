"""`pyramid-monitor bench [calibration|tracking|events|rules|verdicts|speed|all]`: the benchmarks, one table.

Each benchmark is `bench.<name>_bench.run(...) -> dict` and prints its own table. `all` (the default) runs
each in its own process (the speed benchmark pins itself to one core; nothing leaks into the next one),
then prints one summary table of their figures.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HELP = "run the benchmarks (calibration, tracking, events, rules, verdicts, speed) and print one table"
NAMES = ("calibration", "tracking", "events", "rules", "verdicts", "speed")


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
        return {**tracking_bench.run(root), "set": str(root)}
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


@dataclass(frozen=True)
class Row:
    """One headline figure of a benchmark: where it is in the result, how it reads, its target if any."""

    key: str
    label: str
    fmt: str = "{:.4g}"  # applied to the value (a str.format pattern)
    target: str = ""  # as the reader sees it
    ok: Callable[[float], bool] | None = None  # None: a figure without a target


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


# The table `bench` prints: each benchmark's headline figures beside the targets of issue #7 and the README.
ROWS: dict[str, tuple[Row, ...]] = {
    "calibration": (
        Row("corner_rms_mm", "bed corners, RMS", "{:.2f} mm", "<= 1.5 mm", lambda v: v <= 1.5),
        Row("spot_rms_mm", "spots, RMS", "{:.2f} mm", "<= 1.5 mm", lambda v: v <= 1.5),
        Row("failures", "failed calibrations", "{:.0f}", "0", lambda v: v == 0),
    ),
    "tracking": (
        Row("recall", "detection recall (visible balls)", "pct", ">= 99.5 %", lambda v: v >= 0.995),
        Row("rmse_stationary_mm", "position RMSE at rest", "{:.2f} mm", "<= 2 mm", lambda v: v <= 2.0),
        Row("rmse_moving_mm", "position RMSE moving", "{:.2f} mm", "<= 6 mm", lambda v: v <= 6.0),
        Row("shots_without_switch", "shots without an identity switch", "pct", ">= 98 %", lambda v: v >= 0.98),
        Row("id_switches", "identity switches", "{:.0f}"),
        Row("hota", "HOTA", "{:.3f}"),
    ),
    "events": (
        Row("pot_f1", "pots F1", "{:.3f}", ">= 0.99", lambda v: v >= 0.99),
        Row("cushion_f1", "cushions F1", "{:.3f}", ">= 0.97", lambda v: v >= 0.97),
        Row("ball_contact_f1", "contacts F1", "{:.3f}", ">= 0.95", lambda v: v >= 0.95),
        Row("line_cross_f1", "line crossings F1", "{:.3f}", ">= 0.99", lambda v: v >= 0.99),
        Row("first_contact_right", "first contact right", "pct", ">= 99 %", lambda v: v >= 0.99),
        Row("median_timing_error_frames", "median timing error", "{:.2f} frame", "<= 1 frame", lambda v: v <= 1.0),
        Row("moment_events_within_100ms", "moment events out <= 100 ms (no packs)", "pct", "100 %",
            lambda v: v >= 0.9995),
    ),
    "rules": (
        Row("worst_median_s", "a whole log judged in (worst game)", "{:.3f} s", "< 1 s", lambda v: v < 1.0),
    ),
    "verdicts": (
        Row("agreement", "verdict agreement", "pct", ">= 98 %", lambda v: v >= 0.98),
        Row("agreement_carried", "... errors carried into later shots", "pct"),
        Row("agreement_seen", "... leaving out touches no camera sees", "pct"),
        Row("flagged_share", "shots marked for the referee's review", "pct"),
        Row("wrong_flagged_share", "wrong verdicts among them", "pct", "100 %", lambda v: v >= 0.9995),
        Row("gaps.ball.rms_mm", "rest gaps of close balls, RMS", "{:.2f} mm"),
        Row("gaps.ball.within_2_sigma", "... truth within 2 reported sigmas", "pct", ">= 95 %",
            lambda v: v >= 0.95),
        Row("gaps.cushion.rms_mm", "rest gaps to a cushion, RMS", "{:.2f} mm"),
        Row("gaps.cushion.within_2_sigma", "... truth within 2 reported sigmas", "pct", ">= 95 %",
            lambda v: v >= 0.95),
    ),
    "speed": (
        Row("pipeline_cpu_x_realtime", "pipeline x real time, one core", "{:.2f}x", ">= 2x", lambda v: v >= 2.0),
        Row("pipeline_cpu_fps", "pipeline frames / CPU s", "{:.0f}"),
        Row("decode_cpu_fps", "bare decode frames / CPU s", "{:.0f}"),
    ),
}


def _measured_on(name: str, res: dict[str, Any]) -> str:
    """What the benchmark ran on, in a few words (so a subset says it is one)."""
    if name == "calibration":
        return f"{res.get('frames', '?')} rendered frames"
    if name in ("tracking", "verdicts"):
        what = f"{res.get('cases', '?')} cases" + (f" of {Path(str(res['set'])).name}" if res.get("set") else "")
        if name == "verdicts":
            what += f", {res.get('agree', '?')}/{res.get('shots', '?')} shots"
        if res.get("subset"):
            what += f" ({res['subset']})"
        return what
    if name == "events":
        label = str(res.get("cases", "")).split(" (")[0]  # "kinematic set (12 per kind, seed 0)" -> "kinematic set"
        return f"{res.get('n_cases', '?')} cases, {label}" if label else f"{res.get('n_cases', '?')} cases"
    if name == "rules":
        return f"{res.get('n_shots', '?')} shots x {len(res.get('games', {}))} games"
    if name == "speed":
        return f"{res.get('frames', '?')} frames {res.get('size', '')}".strip()
    return ""


def _value(row: Row, v: float) -> str:
    return _pct(v) if row.fmt == "pct" else row.fmt.format(v)


def summary_table(results: dict[str, dict[str, Any] | str], times: dict[str, tuple[float, float]] | None = None,
                  per_bench: int = 8) -> str:
    """One table of every benchmark: headline figures, what they were measured on, target and whether it is met.
    A benchmark without a row spec shows its first flat figures; a failed one shows its error."""
    head = f"{'benchmark':<12} {'measured on':<40} {'figure':<36} {'value':>12}  {'target':<11} met"
    lines = [head, "-" * len(head)]
    for name, res in results.items():
        if isinstance(res, str):
            lines.append(f"{name:<12} {'':<40} {'FAILED':<36} {res[-120:]}")
            continue
        on = _measured_on(name, res)
        flat = _flatten(res)
        rows = [r for r in ROWS.get(name, ()) if isinstance(flat.get(r.key), int | float)]
        if not rows:  # no spec (or none of its keys): the benchmark's own first figures
            for k in list(flat)[:per_bench]:
                lines.append(f"{name:<12} {on:<40} {k:<36} {_fmt(flat[k]):>12}")
                on = ""
        for r in rows:
            v = float(flat[r.key])
            met = "" if r.ok is None or v != v else ("yes" if r.ok(v) else "NO")  # NaN: nothing to measure
            shown = "n/a" if v != v else _value(r, v)
            lines.append(f"{name:<12} {on:<40} {r.label:<36} {shown:>12}  {r.target:<11} {met}".rstrip())
            on = ""
        if times and name in times:
            wall, cpu = times[name]
            lines.append(f"{name:<12} {'':<40} {'time: wall / CPU':<36} {f'{wall:.0f} / {cpu:.0f} s':>12}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.result is not None:  # worker: one benchmark in this process
        res = _run_one(args.which, args.cases)
        args.result.write_text(json.dumps(res, default=str))
        return 0
    names = NAMES if args.which == "all" else (args.which,)
    results: dict[str, dict[str, Any] | str] = {}
    times: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            out = Path(tmp) / f"{name}.json"
            cmd = [sys.executable, "-m", "service.cli.main", "bench", name, "--result", str(out)]
            if args.cases is not None:
                cmd += ["--cases", str(args.cases)]
            print(f"=== {name} ===", flush=True)
            t0 = time.monotonic()
            ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            proc = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
            ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
            times[name] = (time.monotonic() - t0, cpu)
            if proc.returncode != 0 or not out.exists():
                err = proc.stderr.strip().splitlines()
                results[name] = err[-1] if err else f"exit code {proc.returncode}"
                print(proc.stderr[-2000:], file=sys.stderr)
            else:
                results[name] = json.loads(out.read_text())
            print(f"({name}: {times[name][0]:.0f} s, {cpu:.0f} CPU s)", flush=True)
    print()
    print(summary_table(results, times))
    return 0 if all(not isinstance(r, str) for r in results.values()) else 1
