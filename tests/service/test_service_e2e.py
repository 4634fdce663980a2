"""`pyramid-monitor analyze` end to end on a tiny rendered synthetic clip, with the real components."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import av
import pytest

from rules.events import EventType, read_jsonl

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def tiny_case(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A straight pot rendered small (640x360, 30 fps): about six seconds of video."""
    from synthetic.make import make_case

    return make_case("legal_straight_pot", 1, tmp_path_factory.mktemp("case") / "straight", fps=30.0,
                     size=(640, 360))


@pytest.fixture(scope="session")
def analysed(
    tiny_case: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    out = tmp_path_factory.mktemp("analysis") / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "service.cli.main", "analyze", str(tiny_case / "video.mp4"), "--out", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    return out, proc


def test_analyze_cli_writes_every_output(analysed: tuple[Path, subprocess.CompletedProcess[str]],
                                         tiny_case: Path) -> None:
    out, proc = analysed
    assert proc.returncode == 0, proc.stderr[-2000:]
    for name in ("events.jsonl", "verdicts.jsonl", "scoresheet.csv", "report.html", "annotated.mp4"):
        assert (out / name).exists(), name
    with (out / "events.jsonl").open() as f:
        events = list(read_jsonl(f))  # every line is a valid event of the schema
    starts = [e for e in events if e.type is EventType.SHOT_START]
    assert starts, "no shot found"
    html = (out / "report.html").read_text()
    for n in range(1, len(starts) + 1):
        assert f'id="shot-{n}"' in html
    verdicts = [json.loads(line) for line in (out / "verdicts.jsonl").read_text().splitlines()]
    assert len(verdicts) == len(starts)
    n_frames = json.loads((tiny_case / "truth.json").read_text())["n_frames"]
    with av.open(str(out / "annotated.mp4")) as c:
        assert sum(1 for _ in c.decode(video=0)) == n_frames


def test_analyze_cli_says_what_it_assumed_and_compares_with_truth(
    analysed: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    _, proc = analysed
    assert "game russian71 from its match header" in proc.stdout
    assert "first shot: position" in proc.stdout  # a straight pot from a position, not a rack
    assert "compared with ground truth" in proc.stdout and "verdicts:" in proc.stdout
    assert "progress: frame" in proc.stderr  # piped: plain progress lines, no progress bar
    assert "\r" not in proc.stderr
