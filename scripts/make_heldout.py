"""Render every registered scenario with a seed the team does not iterate on: a held-out verdict set.

    python scripts/make_heldout.py [--seed 7] [--out out/heldout]
    python -m bench.verdicts_bench --cases out/heldout

1280x720 like the bundled samples; the whole frames at 30 fps, the rest at 60. Cases already rendered are
kept. The two long frames take several minutes each.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from synthetic.make import make_case
from synthetic.scenarios import SCENARIOS


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", type=Path, default=Path("out/heldout"))
    a = p.parse_args(argv)
    for name in sorted(SCENARIOS, key=lambda n: (n.startswith("frame_"), n)):  # the long frames last
        case = a.out / name
        if (case / "truth.json").exists():
            continue
        t0 = time.time()
        make_case(name, a.seed, case, fps=30.0 if name.startswith("frame_") else 60.0, size=(1280, 720))
        print(f"{name} {time.time() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
