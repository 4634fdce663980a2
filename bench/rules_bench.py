"""Rules engine speed: time to judge a generated 500-shot log, per game (target: well under 1 s)."""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

N_SHOTS = 500
REPEATS = 3
SEED = 20261130


def run(n_shots: int = N_SHOTS, repeats: int = REPEATS, seed: int = SEED, verbose: bool = True) -> dict[str, Any]:
    """Judge a seeded random `n_shots` log of each game `repeats` times; print and return the figures."""
    from calibration.table import Table
    from rules.engine import judge_log
    from rules.inputs import parse_log
    from rules.loggen import random_match
    from rules.state import Game

    table = Table.load()
    per_game: dict[str, dict[str, float]] = {}
    for game in Game:
        rows = random_match(seed, game, n_shots, table=table)
        times = []
        n_verdicts = 0
        for _ in range(repeats):
            t0 = time.perf_counter()
            j = judge_log(parse_log(rows), table=table)
            times.append(time.perf_counter() - t0)
            n_verdicts = len(j.verdicts)
        med = statistics.median(times)
        per_game[game.value] = {
            "shots": n_verdicts,
            "log_lines": len(rows),
            "median_s": round(med, 4),
            "best_s": round(min(times), 4),
            "shots_per_s": round(n_verdicts / med, 1),
        }
        if verbose:
            print(f"rules: {game.value:10s} {n_verdicts} shots ({len(rows)} log lines) judged in "
                  f"{med * 1000:.0f} ms median of {repeats} (best {min(times) * 1000:.0f} ms), "
                  f"{n_verdicts / med:.0f} shots/s")
    worst = max(v["median_s"] for v in per_game.values())
    result: dict[str, Any] = {"bench": "rules", "n_shots": n_shots, "repeats": repeats, "seed": seed,
                              "games": per_game, "worst_median_s": worst, "target_s": 1.0,
                              "ok": worst < 1.0}
    if verbose:
        print(f"rules: worst median {worst * 1000:.0f} ms for {n_shots} shots (target well under 1000 ms)")
    return result


if __name__ == "__main__":
    run()
    sys.exit(0)
