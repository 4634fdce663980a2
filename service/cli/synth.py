"""`pyramid-monitor synth SCENARIO -o DIR`: simulate a scenario, render it, write video + ground truth."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

HELP = "Render a synthetic scenario to DIR/video.mp4 with its exact ground truth (truth.json, truth.npz)."
RENDER_TEST = "render-test"  # a hand-made timeline (rack at rest, a rolling ball, arm and cue): no physics


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1920x1080, got {text!r}") from None
    if w <= 0 or h <= 0 or w % 2 or h % 2:
        raise argparse.ArgumentTypeError(f"size must be positive and even, got {text!r}")
    return w, h


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("scenario", nargs="?", help=f"scenario name (see --list), or {RENDER_TEST!r}")
    p.add_argument("-o", "--out", type=Path, help="output directory")
    p.add_argument("--fps", type=float, default=60.0, help="frame rate (default 60)")
    p.add_argument("--size", type=_size, default=(1920, 1080), help="WIDTHxHEIGHT (default 1920x1080)")
    p.add_argument("--seed", type=int, default=1, help="seed of the scenario, camera pose and look")
    p.add_argument("--style", default="default", help="render style preset (default, blue, pool, ...)")
    p.add_argument("--seconds", type=float, default=10.0, help=f"length of {RENDER_TEST!r} (default 10)")
    p.add_argument("--list", action="store_true", help="list scenarios and styles, then exit")


def run(args: argparse.Namespace) -> int:
    from synthetic.render.style import STYLES, get_style

    if args.list:
        from synthetic.scenarios import SCENARIOS

        print("scenarios:", " ".join([RENDER_TEST, *sorted(SCENARIOS)]))
        print("styles:", " ".join(STYLES))
        return 0
    if not args.scenario or args.out is None:
        print("synth: need SCENARIO and -o DIR (or --list)", file=sys.stderr)
        return 2
    from calibration.table import Table
    from synthetic.make import load_scenario, render_timeline

    try:
        style = get_style(args.style)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        if args.scenario == RENDER_TEST:
            from synthetic.render.demo import line_timeline

            table = Table.load()
            timeline = line_timeline(table, args.fps, args.seconds, seed=args.seed)
            log: list[dict[str, Any]] = []
            about = "hand-made renderer test: rack at rest, a ball rolling on straight lines"
        else:
            timeline, log, table, about = load_scenario(args.scenario, args.seed, args.fps)
        sim_s = time.perf_counter() - wall0
        stats = render_timeline(timeline, table, args.out, args.seed, args.size, style, args.scenario, log, about)
    except ValueError as exc:
        print(f"synth: {exc}", file=sys.stderr)
        return 2
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    w, h = args.size
    print(
        f"{args.out}: {stats.frames} frames {w}x{h} @ {args.fps:g} fps ({stats.frames / args.fps:.1f} s); "
        f"simulation {sim_s:.1f} s, set-up {stats.setup_s:.1f} s, render+encode {stats.render_s:.1f} s "
        f"({1000 * stats.render_s / max(stats.frames, 1):.0f} ms/frame); total {wall:.1f} s wall, {cpu:.1f} s CPU"
    )
    return 0
