
"""Golden logs: each file is named by the verdict its last shot must get (see make_rules_golden.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from calibration.table import Table
from rules.engine import judge_log
from rules.inputs import parse_log

TABLE = Table.load()

GOLDEN = Path(__file__).parent / "golden"
FILES = sorted(GOLDEN.glob("*.jsonl"))
NAME = re.compile(r"^(?P<game>[a-z0-9]+)_(?P<what>.+)_(?P<verdict>legal|foul)(?:_(?P<clause>[0-9.]+))?$")


def test_there_are_golden_logs_for_every_game() -> None:
    games = {NAME.match(p.stem).group("game") for p in FILES if NAME.match(p.stem)}  # type: ignore[union-attr]
    assert games == {"free", "combined", "dynamic", "russian71", "classic71"}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_log(path: Path) -> None:
    m = NAME.match(path.stem)
    assert m is not None, f"golden file {path.name} does not follow <game>_<what>_<legal|foul>[_<clause>]"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    v = judge_log(parse_log(rows), table=TABLE).verdicts[-1]
    assert v.legal is (m.group("verdict") == "legal"), v.explanation
    if m.group("clause"):
        assert m.group("clause") in [f.clause for f in v.fouls], v.explanation
    assert v.explanation


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_file_matches_its_generator(path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_rules_golden", Path(__file__).parent / "make_rules_golden.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert path.read_text() == mod.render(path.stem)
