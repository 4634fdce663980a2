"""An output folder holding an analysis is never emptied by a run that cannot replace it: another video (or a
file that is no video) is refused before anything is written there; a re-run of the same video leaves only its
own outputs; a resume refuses a folder whose events file lost lines. And analyze's arguments are checked before
a frame is decoded: a clear error and exit code 2, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from svc_fakes import counting_judge, scripted_stages

from calibration.table import Table
from service.cli.main import main
from service.pipeline.run import AnalyzeConfig, Stages, analyze


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines())


@pytest.fixture
def done(clip: Path, tmp_path: Path) -> Path:
    out = tmp_path / "done"
    analyze(AnalyzeConfig(clip, out, annotate=False), None, scripted_stages, counting_judge)
    assert _lines(out / "events.jsonl") > 0 and (out / "checkpoint.json").exists()
    return out


@pytest.mark.parametrize("resume", [False, True])
def test_another_video_never_empties_a_finished_analysis(done: Path, tmp_path: Path, resume: bool) -> None:
    before = {p.name: p.read_bytes() for p in done.iterdir() if p.is_file()}
    text = tmp_path / "notes.mp4"
    text.write_text("not a video")
    with pytest.raises(ValueError, match="another video"):
        analyze(AnalyzeConfig(text, done, annotate=False, resume=resume), None, scripted_stages, counting_judge)
    assert {p.name: p.read_bytes() for p in done.iterdir() if p.is_file()} == before


def _no_table(cfg: AnalyzeConfig, table: Table, image: np.ndarray, fps: float) -> Stages:
    raise ValueError("calibration found no table in view")


def test_a_rerun_of_the_same_video_that_fails_leaves_no_earlier_report(done: Path, clip: Path) -> None:
    (done / "notes-of-mine.txt").write_text("not the analysis's")
    with pytest.raises(ValueError, match="no table"):
        analyze(AnalyzeConfig(clip, done, annotate=False), None, _no_table, counting_judge)
    for name in ("report.html", "summary.json", "checkpoint.json", "scoresheet.csv"):
        assert not (done / name).exists(), name
    assert _lines(done / "verdicts.jsonl") == 0  # this run's own, opened before the stages failed
    assert not list((done / "shots").glob("*.jpg"))
    assert (done / "notes-of-mine.txt").exists()


def test_resume_refuses_an_events_file_shorter_than_its_checkpoint(done: Path, clip: Path) -> None:
    (done / "events.jsonl").write_text("")
    with pytest.raises(ValueError, match="changed after that run"):
        analyze(AnalyzeConfig(clip, done, annotate=False, resume=True), None, scripted_stages, counting_judge)


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--state", '{"score": {"A": 1e309}}'], "--state: field 'score'"),
        (["--state", '{"score": {"A": "x"}}'], "whole number"),
        (["--state", '{"balls": {"3": [1e309, 0]}}'], "finite"),
        (["--inputs", "{inputs}"], "line 2"),
        (["--table", "{spec}"], "not valid JSON"),
        (["--out", "{file}"], "in the way"),
    ],
)
def test_bad_arguments_are_clear_errors_before_decoding(
    clip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], needle: str
) -> None:
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text(json.dumps({"type": "nominate", "ball": "3"}) + "\n" + json.dumps({"type": "foul", "t": [1]}))
    spec = tmp_path / "spec.json"
    spec.write_text('{"name": "x",')
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    args = [a.replace("{inputs}", str(inputs)).replace("{spec}", str(spec)).replace("{file}", str(blocker))
            for a in extra]
    out = tmp_path / "out"
    rc = main(["analyze", str(clip), "--no-video", *(["--out", str(out)] if "--out" not in extra else []), *args])
    err = capsys.readouterr().err
    assert rc == 2 and needle in err and "Traceback" not in err, err
    assert not (out / "events.jsonl").exists()


def test_a_single_picture_is_refused_as_the_api_refuses_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """FFmpeg opens a PNG as a one-frame stream; there is nothing to analyse, so nothing is written (exit 2)."""
    import cv2

    still = tmp_path / "table.png"
    cv2.imwrite(str(still), np.full((360, 640, 3), 60, np.uint8))
    out = tmp_path / "out"
    rc = main(["analyze", str(still), "--no-video", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and "single picture" in err and "Traceback" not in err, err
    assert not out.exists()
