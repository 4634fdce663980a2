"""Render a few short single-shot scenarios under every non-default render style: a verdict set for looks.

    python scripts/make_looks.py [--seed 5] [--out out/looks] [--styles blue dim ...] [--cases break ...]
    python -m bench.verdicts_bench --cases out/looks/<style>   # one style at a time, each from its own folder:
                                                              # the bench writes ./out/bench-verdicts/<case name>

The held-out verdict sets use the default style only; footage in the field has other cloth, lamps, ball
sets and exposure. One folder of cases per style (out/looks/<style>/<case>), 1280x720 at 60 fps like the
bundled samples. The order is case-major so every style gets the first cases before any gets the later
ones. Cases already rendered are kept.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from synthetic.make import make_case
from synthetic.render.style import STYLES, get_style

# Short single shots covering a pot, a thin contact, a miss, a cue-ball pot, a pack, a frozen ball, a bank.
CASES = [
    "legal_cut_pot", "foul_no_contact", "foul_cue_ball_potted", "break",
    "legal_thin_cut", "touching_cluster_hit", "frozen_ball_on_cushion", "legal_bank_shot",
]
SKIP = {"default", "clean"}  # the held-out sets already use the default look; clean is for geometry tests


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--out", type=Path, default=Path("out/looks"))
    p.add_argument("--styles", nargs="*", default=[s for s in STYLES if s not in SKIP])
    p.add_argument("--cases", nargs="*", default=CASES)
    a = p.parse_args(argv)
    for name in a.cases:
        for style in a.styles:
            case = a.out / style / name
            if (case / "truth.json").exists():
                continue
            t0 = time.process_time()
            make_case(name, a.seed, case, fps=60.0, size=(1280, 720), style=get_style(style))
            print(f"{style}/{name} {time.process_time() - t0:.0f} s CPU", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
