"""Re-derive the event log of rendered cases from the simulator, without rendering again.

    python scripts/refresh_truth.py out/heldout13 [--write]

For a fix in how the simulator LOGS events (not in how balls move). Each case is simulated again from its
scenario, seed and fps; if the trajectories are not the ones in truth.npz (to 0.01 mm) the case is left alone
and said, because its video would no longer match. Otherwise the events that differ are printed and, with
--write, truth.json gets the new events and a note saying so. Videos and truth.npz are never touched.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from collections import Counter
from pathlib import Path

import numpy as np

from synthetic.make import load_scenario
from synthetic.truth import find_cases

POS_TOL_MM = 0.01  # truth.npz keeps float32: about 1e-4 mm at table scale


def _key(e: dict[str, object]) -> str:
    """An event's identity for the diff: type, agents and time to 0.1 ms."""
    agents = e.get("balls") or e.get("ball") or ""
    where = e.get("cushion") or e.get("pocket") or e.get("line") or ""
    return f"{e['type']} {agents} {where} {float(e['t']):.4f}"  # type: ignore[arg-type]


def refresh(case: Path, write: bool, rev: str) -> str:
    meta = json.loads((case / "truth.json").read_text())
    m = re.search(r"seed=(\d+)", meta.get("notes", ""))
    if m is None:
        return f"{case}: no seed in the notes, skipped"
    timeline, _, _, _ = load_scenario(meta["scenario"], int(m.group(1)), float(meta["fps"]))
    old_pos = np.load(case / "truth.npz")["pos_mm"]
    new_pos = timeline.pos_mm.astype(np.float32)
    same = old_pos.shape == new_pos.shape and bool(
        np.all((np.abs(old_pos - new_pos) <= POS_TOL_MM) | (np.isnan(old_pos) & np.isnan(new_pos)))
    )
    if not same:
        return f"{case}: trajectories differ from truth.npz ({old_pos.shape} vs {new_pos.shape}): NOT refreshed"
    new = [e.to_dict() for e in timeline.events]
    old_keys, new_keys = Counter(_key(e) for e in meta["events"]), Counter(_key(e) for e in new)
    added, removed = new_keys - old_keys, old_keys - new_keys
    if not added and not removed:
        return f"{case}: events unchanged"
    lines = [f"{case}: +{sum(added.values())} -{sum(removed.values())}"]
    lines += [f"   + {k}" for k in sorted(added)] + [f"   - {k}" for k in sorted(removed)]
    if write:
        meta["events"] = new
        meta["notes"] = (
            meta.get("notes", "") + f"; events re-derived by scripts/refresh_truth.py at {rev} "
            f"(+{sum(added.values())} -{sum(removed.values())})"
        )
        (case / "truth.json").write_text(json.dumps(meta, indent=1) + "\n")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("root", type=Path)
    p.add_argument("--write", action="store_true", help="write truth.json (default: only print the diff)")
    p.add_argument("--only", nargs="*", default=None, help="case folder names")
    a = p.parse_args(argv)
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    for case in find_cases(a.root):
        if a.only and case.name not in a.only:
            continue
        print(refresh(case, a.write, rev or "unknown"), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
