"""The verdict benchmark counts a case the pipeline cannot analyse as lost shots and goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

import service.pipeline.run as pipeline_run
from bench.verdicts_bench import run_case

CASE = Path(__file__).resolve().parents[1] / "sample_videos" / "legal_cut_pot"


def test_a_case_that_cannot_be_analysed_loses_its_shots_and_says_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def no_table(*_a: object, **_k: object) -> None:
        raise RuntimeError("automatic calibration found no table in the first frame")

    monkeypatch.setattr(pipeline_run, "analyze", no_table)
    r = run_case(CASE, tmp_path / "out")
    assert r["shots"] == 1 and r["agree"] == 0 and r["carried"] == 0
    assert r["error"].startswith("analysis failed: automatic calibration found no table")
