"""Ground truth written with the video: determinism, visibility under the arm, the synth command."""

from __future__ import annotations

import hashlib
from pathlib import Path

import av
import numpy as np
import pytest

from calibration.table import Table
from service.cli.main import main
from synthetic.make import render_timeline
from synthetic.render.demo import line_timeline
from synthetic.truth import GroundTruth
from synthetic.world import Capsule, Timeline
from vision.types import BallState

SIZE = (640, 360)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path: Path) -> None:
    table = Table.load()
    tl = line_timeline(table, 30.0, 0.5, speed_mm_s=5000.0, arm_s=0.2)
    for name, seed in (("a", 4), ("b", 4), ("c", 5)):
        render_timeline(tl, table, tmp_path / name, seed, SIZE)
    for f in ("video.mp4", "truth.npz", "truth.json"):
        assert _sha(tmp_path / "a" / f) == _sha(tmp_path / "b" / f), f
    assert _sha(tmp_path / "a" / "video.mp4") != _sha(tmp_path / "c" / "video.mp4")


def _one_ball_timeline(table: Table, caps_per_frame: list[list[Capsule]]) -> Timeline:
    f = len(caps_per_frame)
    tl = line_timeline(table, 30.0, f / 30.0, speed_mm_s=0.0, arm_s=0.0)
    tl.occluders = caps_per_frame
    return tl


def test_arm_over_a_ball_hides_it(tmp_path: Path) -> None:
    table = Table.load()
    x, y = table.rack_positions()["1"]  # the apex ball
    arm = Capsule((x - 400.0, y, 250.0), (x + 200.0, y, 300.0), 60.0, (60, 52, 48))  # a forearm right over it
    cue = Capsule((x - 600.0, y + 90.0, 60.0), (x + 100.0, y + 15.0, 45.0), 6.0, (150, 190, 215))  # a thin shaft
    tl = _one_ball_timeline(table, [[], [arm], [cue], []])
    render_timeline(tl, table, tmp_path, 2, SIZE)
    gt = GroundTruth.load(tmp_path)
    k = gt.ids.index("1")
    assert list(gt.visible[:, k]) == [True, False, True, True]
    far = np.abs(gt.pos_mm[0, :, 1] - y) > 120.0  # the cue ball and the rack corners, beside the arm
    assert far.sum() >= 3 and gt.visible[:, far].all()
    assert np.allclose(gt.px[1, k], gt.camera.project(gt.pos_mm[1, k][None, :].astype(float))[0], atol=1e-3)


def test_potted_ball_has_no_pixel_truth(tmp_path: Path) -> None:
    table = Table.load()
    tl = line_timeline(table, 30.0, 0.2, speed_mm_s=0.0, arm_s=0.0)
    k = tl.ids.index("5")
    tl.pos_mm[:, k] = np.nan
    tl.state[:, k] = BallState.POTTED
    render_timeline(tl, table, tmp_path, 1, SIZE)
    gt = GroundTruth.load(tmp_path)
    assert np.isnan(gt.px[:, k]).all() and not gt.visible[:, k].any()
    assert np.isfinite(gt.px[:, gt.ids.index("6")]).all()


def test_synth_command_writes_a_readable_video(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "case"
    code = main(["synth", "render-test", "-o", str(out), "--seconds", "0.5", "--fps", "30", "--size", "640x360"])
    assert code == 0
    assert "15 frames" in capsys.readouterr().out
    with av.open(str(out / "video.mp4")) as c:
        frames = [f.to_ndarray(format="bgr24") for f in c.decode(video=0)]
    assert len(frames) == 15 and frames[0].shape == (360, 640, 3)
    gt = GroundTruth.load(out)
    assert gt.n_frames == 15 and gt.camera.width == 640
    with pytest.raises(SystemExit):
        main(["synth", "render-test", "-o", str(out), "--size", "641x360"])
