"""A camera knocked mid-match: the analysis says it is degraded and flags every verdict from the knock on.

A real uvicorn server, httpx, a SQLite file in tmp_path, a real H.264 clip of a table (cloth, cushions,
rails drawn where the test camera sees them) whose picture shifts part-way; scripted perception and event
detector (they do not read the picture), the real view check and the real rules engine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import av
import cv2
import httpx
import numpy as np
import pytest
from svc_fakes import LiveServer, ScriptedDetector, ScriptedPerception, wait_until

from calibration.camera import CameraModel
from calibration.table import Table
from service.pipeline.components import CalibrationView
from service.pipeline.run import AnalyzeConfig, Stages

W, H, FPS, N = 640, 360, 30, 300
KNOCK_AT = 150  # frame (5.0 s); the last look that still matches is at frame 135 (4.5 s)


def camera() -> CameraModel:
    return CameraModel.look_at((0, 0, 3000), (0, 0, 0), (0, 1, 0), 470, W, H)


def table_stages(cfg: AnalyzeConfig, table: Table, image: np.ndarray, fps: float) -> Stages:
    return Stages(CalibrationView(camera(), table, "scripted"), ScriptedPerception(), ScriptedDetector())


def table_picture() -> np.ndarray:
    """Rails, cushions and cloth where camera() sees them (bed edge and cushion nose lines)."""
    t = Table.load()
    img = np.full((H, W, 3), (40, 60, 90), np.uint8)  # wooden rails
    for z, colour in ((t.spec.cushion_nose_height_mm, (40, 120, 40)), (0.0, (40, 150, 40))):
        px = camera().project(np.column_stack([t.bed_corners * (1.06 if z else 1.0), np.full(4, z)]))
        cv2.fillPoly(img, [np.round(px).astype(np.int32)], colour)
    return img


def write_clip(path: Path, knock: bool) -> Path:
    table = table_picture()
    knocked = np.array([[1, 0, 30], [0, 1, 24]], np.float32)  # 30 px right, 24 px down
    moved = cv2.warpAffine(table, knocked, (W, H), borderMode=cv2.BORDER_REPLICATE)
    rng = np.random.default_rng(1)
    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=FPS)
        s.width, s.height, s.pix_fmt = W, H, "yuv420p"
        for i in range(N):
            img = (moved if knock and i >= KNOCK_AT else table).copy()
            cv2.circle(img, (120 + i, H // 2), 7, (240, 240, 240), -1)  # a rolling ball
            img = np.clip(img.astype(np.int16) + rng.integers(-3, 4, img.shape), 0, 255).astype(np.uint8)
            for p in s.encode(av.VideoFrame.from_ndarray(img, format="bgr24")):
                c.mux(p)
        for p in s.encode(None):
            c.mux(p)
    return path


def camera_reasons(v: dict[str, Any]) -> list[str]:
    return [r for r in v.get("review_reasons", []) if r.startswith("camera moved")]


@pytest.fixture
def server(tmp_path: Path) -> Any:
    srv = LiveServer(tmp_path / "data", stage_factory=table_stages).start()
    yield srv
    srv.stop()


def test_a_knocked_camera_degrades_the_analysis_and_flags_the_verdicts_after_it(server: LiveServer,
                                                                                 tmp_path: Path) -> None:
    clip = write_clip(tmp_path / "knocked.mp4", knock=True)
    with httpx.Client(base_url=server.url, timeout=10) as c:
        job = c.post("/analyses", json={"video_path": str(clip)}).json()
        wait_until(lambda: c.get(f"/analyses/{job['id']}").json()["status"] in ("done", "failed"), "the analysis")
        final = c.get(f"/analyses/{job['id']}").json()
        assert final["status"] == "done" and final["message"].startswith("degraded: the camera's view changed"), final
        lines = [d for d in c.get(f"/matches/{job['match_id']}/inputs").json() if d["type"] == "camera"]
        assert len(lines) == 1 and lines[0]["data"]["t"] == pytest.approx(4.5), lines
        verdicts = c.get(f"/matches/{job['match_id']}/verdicts").json()
        assert len(verdicts) == 8  # a shot every 40 frames; the last one cut off by the end of the clip
        # shots 1-3 ended before 4.5 s; shot 4 (4.17-5.0 s) was running; 5-8 came after
        assert [bool(camera_reasons(v)) for v in verdicts] == [False] * 3 + [True] * 5, verdicts
        assert all(v["review"] for v in verdicts[3:])
        report = c.get(f"/matches/{job['match_id']}/report").text
        assert "Degraded analysis" in report
    out = Path(next(iter((server.data_dir / "analyses").iterdir())))
    assert '"type": "camera"' in (out / "log.jsonl").read_text().replace('":"', '": "')
    # verdicts.jsonl too: shot 4's verdict was written at its end (5.0 s), before the knock was confirmed (6.5 s)
    written = [json.loads(x) for x in (out / "verdicts.jsonl").read_text().splitlines()]
    assert [bool(camera_reasons(v)) for v in written] == [False] * 3 + [True] * 5


def test_a_steady_camera_is_not_flagged(server: LiveServer, tmp_path: Path) -> None:
    clip = write_clip(tmp_path / "steady.mp4", knock=False)
    with httpx.Client(base_url=server.url, timeout=10) as c:
        job = c.post("/analyses", json={"video_path": str(clip)}).json()
        wait_until(lambda: c.get(f"/analyses/{job['id']}").json()["status"] in ("done", "failed"), "the analysis")
        final = c.get(f"/analyses/{job['id']}").json()
        assert final["status"] == "done" and "degraded" not in final["message"], final
        assert not [d for d in c.get(f"/matches/{job['match_id']}/inputs").json() if d["type"] == "camera"]
        assert not any(camera_reasons(v) for v in c.get(f"/matches/{job['match_id']}/verdicts").json())


class Crash(Exception):
    pass


def test_a_run_resumed_after_the_knock_keeps_it_and_flags_as_an_uninterrupted_one(tmp_path: Path) -> None:
    """`analyze --resume` after a crash past the knock: the camera line comes back from the checkpoint (the view
    is not judged again against the knocked picture), and verdicts.jsonl equals an uninterrupted run's."""
    from service.pipeline.run import Hooks, analyze

    clip = write_clip(tmp_path / "knocked.mp4", knock=True)
    whole = tmp_path / "whole"
    analyze(AnalyzeConfig(clip, whole, checkpoint_every_s=0.5, annotate=False), None, table_stages)
    out = tmp_path / "resumed"

    def crash(done: int, total: int, t: float) -> None:
        if done == 240:  # past the knock's confirmation (6.5 s) and the checkpoint at the shot end 230
            raise Crash

    with pytest.raises(Crash):
        analyze(AnalyzeConfig(clip, out, checkpoint_every_s=0.5, annotate=False), Hooks(on_progress=crash),
                table_stages)
    notes: list[str] = []
    res = analyze(AnalyzeConfig(clip, out, checkpoint_every_s=0.5, annotate=False, resume=True),
                  Hooks(on_note=notes.append), table_stages)
    assert any(n.startswith("resuming at frame 231") for n in notes), notes
    assert res.camera is not None and res.camera["t"] == pytest.approx(4.5)
    assert not any(n.startswith("DEGRADED") for n in notes)  # said once, by the first run
    assert (out / "verdicts.jsonl").read_text() == (whole / "verdicts.jsonl").read_text()
    written = [json.loads(x) for x in (out / "verdicts.jsonl").read_text().splitlines()]
    assert [bool(camera_reasons(v)) for v in written] == [False] * 3 + [True] * 5
