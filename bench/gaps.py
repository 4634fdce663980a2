"""Rest gaps at the stroke: vision's measured gaps of close ball pairs and of balls near a cushion, against the
truth, next to the uncertainty vision reports for each (`gap_sigma_mm`).

    python -m bench.gaps --cases DIR --analyzed WORK   # the events.jsonl that analyze wrote per case

A push (1.19.2) turns on whether the struck ball touched the ball it hit (the rules' `touching_tol_mm`); a
cushion touch of a frozen ball on whether it was frozen (`frozen_tol_mm`). Both are decided on these gaps, so
the rules flag a decision for review when the gap lies within `gap_z` of its reported sigmas of the tolerance.
This prints how large the errors are and how often the truth lay within two reported sigmas.

Rows: at every truth shot_start matched to a detected one (within 0.1 s), each pair of balls whose gap is
under 3 mm in the truth or as measured (any pair, not only the struck ball's), and each (ball, cushion) that
either side lists as frozen. The verdict bench prints the same figures for the cases it analyses.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from calibration.table import Table, TableSpec
from rules.events import Event, EventType, read_jsonl

NEAR_MM = 3.0  # a gap under this (truth or measured) makes a row
MATCH_S = 0.1  # a detected shot_start this close to a truth one is that shot's


@dataclass(frozen=True)
class GapRow:
    kind: str  # "ball" (a pair of balls) or "cushion" (a ball and a cushion nose)
    case: str
    t: float
    key: str  # "C-5" or "9 front"
    truth_mm: float
    measured_mm: float | None  # None: vision has no place for one of the balls
    sigma_mm: float | None  # vision's gap_sigma_mm, None where it gave none
    listed: bool = True  # False: not in vision's touching / frozen list (a pair measured from the positions)

    @property
    def error_mm(self) -> float | None:
        return None if self.measured_mm is None else self.measured_mm - self.truth_mm


def _starts(events: Sequence[Event]) -> list[Event]:
    return [e for e in events if e.type is EventType.SHOT_START]


def _items(e: Event, name: str) -> list[dict[str, Any]]:
    return list(getattr(e, name) or [])


def rest_gaps(case: str, truth: Sequence[Event], found: Sequence[Event], table: Table) -> list[GapRow]:
    """The rows of one case (see the module docstring)."""
    rows: list[GapRow] = []
    found_starts = _starts(found)
    for s in _starts(truth):
        m = min(found_starts, key=lambda p: abs(p.t - s.t), default=None)
        if m is None or abs(m.t - s.t) > MATCH_S or not s.positions:
            continue
        tpos, mpos = dict(s.positions), dict(m.positions or {})
        measured = {frozenset(str(b) for b in it.get("balls", ())): it for it in _items(m, "touching")}
        ids = sorted(tpos)
        for i, a in enumerate(ids):
            for b in ids[i + 1:]:
                g_true = table.ball_gap(tpos[a], tpos[b])
                it = measured.get(frozenset((a, b)))
                g_meas = float(it["gap_mm"]) if it is not None else (
                    table.ball_gap(mpos[a], mpos[b]) if a in mpos and b in mpos else None)
                if g_true < NEAR_MM or (g_meas is not None and g_meas < NEAR_MM):
                    sigma = it.get("gap_sigma_mm") if it is not None else None
                    rows.append(GapRow("ball", case, s.t, f"{a}-{b}", g_true, g_meas,
                                       None if sigma is None else float(sigma), it is not None))
        mf = {(str(it["ball"]), str(it["cushion"])): it for it in _items(m, "frozen")}
        tf = {(str(it["ball"]), str(it["cushion"])) for it in _items(s, "frozen")}
        for ball, cushion in sorted(tf | set(mf)):
            if ball not in tpos:
                continue
            g_true = table.cushion_gaps(tpos[ball]).get(cushion, math.inf)
            it = mf.get((ball, cushion))
            g_meas = float(it["gap_mm"]) if it is not None else None
            if g_true < NEAR_MM or (g_meas is not None and g_meas < NEAR_MM):
                sigma = it.get("gap_sigma_mm") if it is not None else None
                rows.append(GapRow("cushion", case, s.t, f"{ball} {cushion}", g_true, g_meas,
                                   None if sigma is None else float(sigma), it is not None))
    return rows


def summary(rows: Sequence[GapRow]) -> dict[str, dict[str, float]]:
    """Per kind: n, RMS error, 90th percentile and largest |error|, mean error (bias), the share of listed rows
    whose truth lies within 2 reported sigmas, and how many rows vision did not list (a truth gap under NEAR_MM
    that vision measured wider than it lists, or gave no place for: no sigma, so outside any review band)."""
    out: dict[str, dict[str, float]] = {}
    for kind in ("ball", "cushion"):
        rs = [r for r in rows if r.kind == kind]
        errs = sorted(abs(e) for r in rs if (e := r.error_mm) is not None)
        signed = [e for r in rs if (e := r.error_mm) is not None]
        with_sigma = [r for r in rs if r.error_mm is not None and r.sigma_mm is not None]
        inside = sum(1 for r in with_sigma if abs(r.error_mm or 0.0) <= 2.0 * (r.sigma_mm or 0.0))
        out[kind] = {
            "n": float(len(errs)),
            "unlisted": float(sum(1 for r in rs if not r.listed)),
            "rms_mm": math.sqrt(sum(e * e for e in errs) / len(errs)) if errs else math.nan,
            "p90_mm": errs[min(len(errs) - 1, int(0.9 * len(errs)))] if errs else math.nan,
            "max_mm": errs[-1] if errs else math.nan,
            "bias_mm": sum(signed) / len(signed) if signed else math.nan,
            "within_2_sigma": inside / len(with_sigma) if with_sigma else math.nan,
            "median_sigma_mm": (sorted(r.sigma_mm or 0.0 for r in with_sigma)[len(with_sigma) // 2]
                                if with_sigma else math.nan),
        }
    return out


def format_summary(s: dict[str, dict[str, float]]) -> list[str]:
    lines = []
    for kind, v in s.items():
        what = "ball pairs" if kind == "ball" else "ball-cushion"
        lines.append(f"rest gaps, {what:12s} n {v['n']:.0f} ({v['unlisted']:.0f} unlisted)  RMS {v['rms_mm']:.2f} mm  "
                     f"p90 {v['p90_mm']:.2f}  max {v['max_mm']:.2f}  bias {v['bias_mm']:+.2f}  "
                     f"truth within 2 reported sigmas {v['within_2_sigma']:.1%} (median sigma "
                     f"{v['median_sigma_mm']:.2f} mm)")
    return lines


def case_rows(case: Path, analyzed: Path) -> list[GapRow]:
    """Rows of one case folder (truth.json) against the analysis in `analyzed` (events.jsonl)."""
    meta = json.loads((case / "truth.json").read_text())
    table = Table(TableSpec(**meta["table"]))
    truth = [Event.from_dict(d) for d in meta["events"]]
    with (analyzed / "events.jsonl").open(encoding="utf-8") as f:
        found = list(read_jsonl(f))
    return rest_gaps(case.name, truth, found, table)


def main(argv: list[str] | None = None) -> int:
    from synthetic.truth import find_cases

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--cases", type=Path, required=True)
    p.add_argument("--analyzed", type=Path, required=True, help="a folder per case holding its events.jsonl")
    p.add_argument("--rows", action="store_true", help="print every row")
    a = p.parse_args(argv)
    rows: list[GapRow] = []
    for case in find_cases(a.cases):
        if (a.analyzed / case.name / "events.jsonl").exists():
            rows += case_rows(case, a.analyzed / case.name)
    if a.rows:
        for r in rows:
            meas = "no place" if r.measured_mm is None else f"{r.measured_mm:6.2f}"
            sig = "  unlisted" if not r.listed else ("" if r.sigma_mm is None else f"  sigma {r.sigma_mm:.2f}")
            print(f"{r.kind:8s}{r.case:34s}{r.t:8.2f}  {r.key:16s} truth {r.truth_mm:6.2f}  measured {meas}{sig}")
    for line in format_summary(summary(rows)):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
