"""`pyramid-monitor judge LOG.jsonl --game GAME [--explain]`: verdicts for a match log."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = "judge a match log (ball events + referee inputs): one verdict per shot, JSON Lines or --explain text"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", type=Path, help="match log, JSON Lines (see docs/rules-engine.md)")
    parser.add_argument("--game", default=None,
                        help="free | combined | dynamic | russian71 | classic71 (overrides the match header)")
    parser.add_argument("--explain", action="store_true", help="print verdicts for people instead of JSON Lines")
    parser.add_argument("--table", default=None, help="table spec name or JSON file (default: pyramid-12ft)")
    parser.add_argument("--frozen-tol-mm", type=float, default=None, help="frozen-ball tolerance (1.20)")
    parser.add_argument("--review-confidence", type=float, default=None,
                        help="events below this confidence are marked for review")
    parser.add_argument("--veterans", action="store_true", help="Russian 71: waive 1.20 (5.5.8 note)")
    parser.add_argument("--decisive", action="store_true",
                        help="Classic 71: every frame must have a result, a draw is replayed (001)")


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from calibration.table import Table
    from rules.engine import judge_log
    from rules.inputs import check_on_bed, parse_log
    from rules.settings import RulesSettings
    from rules.state import parse_game

    try:
        game = parse_game(args.game) if args.game else None
        table = Table.load(args.table) if args.table else Table.load()
        settings = RulesSettings()
        if args.frozen_tol_mm is not None:
            settings = replace(settings, frozen_tol_mm=args.frozen_tol_mm)
        if args.review_confidence is not None:
            settings = replace(settings, review_confidence=args.review_confidence)
        rows = []
        with args.log.open(encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{args.log}:{n}: not JSON: {exc}") from exc
        for flag in ("veterans", "decisive"):
            if getattr(args, flag):
                for row in rows:
                    if row.get("type") == "match":
                        row[flag] = True
        # The same checks as the API's (rules.inputs): fields, then identify places on this table's bed.
        items = list(parse_log(rows))
        for n, row in enumerate(rows, 1):
            check_on_bed(row, table, n)
        judgement = judge_log(items, game=game, table=table, settings=settings)
    except (OSError, ValueError) as exc:
        print(f"judge: {exc}", file=sys.stderr)
        return 2
    for out in judgement.outputs:
        if args.explain:
            print(out.text())
            print()
        else:
            print(json.dumps(out.to_dict(), ensure_ascii=False, separators=(",", ":")))
    return 0
