"""`pyramid-monitor`: one subcommand per module in this package.

Each subcommand module defines `HELP: str`, `add_arguments(parser)` and `run(args) -> int`, and keeps its
heavy imports inside `run` so that `--help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

# Order is the order shown by --help.
SUBCOMMANDS = ("analyze", "calibrate", "judge", "serve", "synth", "bench")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pyramid-monitor", description="Computer-vision table monitor for Russian billiards (pyramid)."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        modname = f"service.cli.{name}"
        if importlib.util.find_spec(modname) is None:
            continue
        mod = importlib.import_module(modname)
        p = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args._run(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
