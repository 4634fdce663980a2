"""A server process killed mid-analysis resumes the analysis at its next start, from the checkpoint.

A real uvicorn process (tests/service/serve_scripted.py: the app with scripted vision stages), httpx, and
the SQLite file in tmp_path. The first process stops itself at a known frame (after a checkpoint, with
events stored past it) and is killed with SIGKILL; the second one resumes the job.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import httpx
import numpy as np
import pytest
from svc_fakes import (
    LiveServer,
    ScriptedDetector,
    ScriptedPerception,
    ServerProcess,
    scripted_stages,
    wait_until,
    write_video,
)

from calibration.table import Table
from service.pipeline.run import AnalyzeConfig, Stages
from vision.types import BallStates

N_FRAMES = 200
PAUSE_AT = 100  # checkpoints at shot ends 30 and 70; shot_start 85 and contact 95 are stored past the last


@pytest.fixture
def servers() -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    yield started
    for s in started:
        s.kill()


def expected_frames() -> list[tuple[str, int]]:
    """What ScriptedDetector emits on the whole clip: a shot every 40 frames (start 5, contact 15, end 30)."""
    kinds = {5: "shot_start", 15: "ball_contact", 30: "shot_end"}
    return [(kinds[f % 40], f) for f in range(N_FRAMES) if f % 40 in kinds]


def test_killed_server_resumes_the_analysis_from_its_checkpoint(tmp_path: Path,
                                                                servers: list[ServerProcess]) -> None:
    data, paused = tmp_path / "data", tmp_path / "paused"
    clip = write_video(tmp_path / "clip.mp4", N_FRAMES)
    first = ServerProcess(data, {"PYRAMID_TEST_PAUSE_AT": str(PAUSE_AT), "PYRAMID_TEST_PAUSED": str(paused)})
    servers.append(first)
    job = httpx.post(f"{first.url}/analyses", json={"video_path": str(clip)}, timeout=10).json()
    wait_until(paused.exists, "the analysis to reach the pause frame")
    before = httpx.get(f"{first.url}/matches/{job['match_id']}/events", timeout=10).json()
    inputs_before = httpx.get(f"{first.url}/matches/{job['match_id']}/inputs", timeout=10).json()
    first.kill()
    # killed after the checkpoint at frame 70 with two events of the next shot stored past it
    assert [(e["type"], e["data"]["frame"]) for e in before] == [k for k in expected_frames() if k[1] < PAUSE_AT]
    assert (Path(job["video"]).exists() and
            any((data / "analyses").glob("*/checkpoint.pkl")))

    second = ServerProcess(data)
    servers.append(second)
    with httpx.Client(base_url=second.url, timeout=10) as c:
        def done() -> bool:
            return bool(c.get(f"/analyses/{job['id']}").json()["status"] not in ("queued", "running"))

        wait_until(done, "the resumed analysis to finish")
        final = c.get(f"/analyses/{job['id']}").json()
        assert final["status"] == "done", final
        assert "resumed after an interruption (resuming at frame 71" in final["message"]
        assert "2 events after the checkpoint were already in the log" in final["message"]
        assert "differed" not in final["message"]
        events = c.get(f"/matches/{job['match_id']}/events").json()
        # every event once, in order, as an uninterrupted run gives; the stored ones unchanged (same seq)
        assert [(e["type"], e["data"]["frame"]) for e in events] == expected_frames()
        assert events[:len(before)] == before
        assert c.get(f"/matches/{job['match_id']}/inputs").json() == inputs_before  # the header once
        assert len(c.get(f"/matches/{job['match_id']}/verdicts").json()) == N_FRAMES // 40
        assert c.get(final["report_url"]).status_code == 200


def test_failed_analysis_resumes_on_request(tmp_path: Path, servers: list[ServerProcess]) -> None:
    """With resuming at start-up turned off, the job is marked failed; POST .../resume runs it on."""
    data, paused = tmp_path / "data", tmp_path / "paused"
    clip = write_video(tmp_path / "clip.mp4", N_FRAMES)
    first = ServerProcess(data, {"PYRAMID_TEST_PAUSE_AT": str(PAUSE_AT), "PYRAMID_TEST_PAUSED": str(paused)})
    servers.append(first)
    job = httpx.post(f"{first.url}/analyses", json={"video_path": str(clip)}, timeout=10).json()
    wait_until(paused.exists, "the analysis to reach the pause frame")
    first.kill()
    second = ServerProcess(data, {"PYRAMID_RESUME_ANALYSES": "false"})
    servers.append(second)
    with httpx.Client(base_url=second.url, timeout=10) as c:
        failed = c.get(f"/analyses/{job['id']}").json()
        assert failed["status"] == "failed" and "/resume" in failed["message"]
        assert c.post("/analyses/999/resume").status_code == 404
        r = c.post(f"/analyses/{job['id']}/resume")
        assert r.status_code == 202, r.text
        wait_until(lambda: c.get(f"/analyses/{job['id']}").json()["status"] not in ("queued", "running"),
                   "the resumed analysis to finish")
        final = c.get(f"/analyses/{job['id']}").json()
        assert final["status"] == "done" and "resumed after an interruption" in final["message"], final
        events = c.get(f"/matches/{job['match_id']}/events").json()
        assert [(e["type"], e["data"]["frame"]) for e in events] == expected_frames()
        again = c.post(f"/analyses/{job['id']}/resume")
        assert again.status_code == 409 and "only a failed one" in again.json()["detail"]


def test_two_servers_on_one_database_run_each_analysis_once(tmp_path: Path, servers: list[ServerProcess]) -> None:
    """A second server started while the first runs an analysis leaves it alone (the first renews its lease);
    when the first dies, the second takes the analysis over from its checkpoint, each event stored once."""
    data, paused = tmp_path / "data", tmp_path / "paused"
    clip = write_video(tmp_path / "clip.mp4", N_FRAMES)
    lease = {"PYRAMID_LEASE_S": "2"}
    first = ServerProcess(data, {**lease, "PYRAMID_TEST_PAUSE_AT": str(PAUSE_AT), "PYRAMID_TEST_PAUSED": str(paused)})
    servers.append(first)
    job = httpx.post(f"{first.url}/analyses", json={"video_path": str(clip)}, timeout=10).json()
    wait_until(paused.exists, "the analysis to reach the pause frame")
    before = httpx.get(f"{first.url}/matches/{job['match_id']}/events", timeout=10).json()
    second = ServerProcess(data, lease)
    servers.append(second)
    time.sleep(4.0)  # two lease periods: eight of the second server's heartbeats, each looking for orphans

    def holder() -> tuple[str, str]:
        with sqlite3.connect(data / "pyramid.db") as conn:
            status, owner = conn.execute("SELECT status, owner FROM analyses WHERE id = ?", (job["id"],)).fetchone()
        return str(status), str(owner)

    status, owner = holder()
    assert status == "running" and f":{first.proc.pid}:" in owner, (status, owner)
    assert httpx.get(f"{second.url}/matches/{job['match_id']}/events", timeout=10).json() == before
    first.kill()
    with httpx.Client(base_url=second.url, timeout=10) as c:
        wait_until(lambda: c.get(f"/analyses/{job['id']}").json()["status"] == "done", "the second server to finish")
        final = c.get(f"/analyses/{job['id']}").json()
        assert "resuming at frame 71" in final["message"], final
        events = c.get(f"/matches/{job['match_id']}/events").json()
        assert [(e["type"], e["data"]["frame"]) for e in events] == expected_frames()
    assert holder() == ("done", "None")  # the lease given up


def test_a_lease_is_held_until_it_lapses_or_is_released(tmp_path: Path) -> None:
    from service.api import db

    conn = db.connect(tmp_path / "x.db")
    m = db.create_match(conn, name="m", game="russian71", table_spec="pyramid-12ft", players=["A", "B"])
    a = db.create_analysis(conn, match_id=m.id, video="v.mp4", out_dir="o")
    assert db.claim_analysis(conn, analysis_id=a.id, owner="h:1:a", now=100.0, lease_s=30.0)
    assert not db.claim_analysis(conn, analysis_id=a.id, owner="h:2:b", now=129.0, lease_s=30.0)
    assert [x.id for x in db.unfinished_analyses(conn, now=129.0)] == []
    assert db.renew_leases(conn, owner="h:1:a", ids=[a.id], now=120.0, lease_s=30.0) == {a.id}
    assert not db.claim_analysis(conn, analysis_id=a.id, owner="h:2:b", now=149.0, lease_s=30.0)
    assert db.claim_analysis(conn, analysis_id=a.id, owner="h:2:b", now=149.0, lease_s=30.0, dead_owner="h:1:a")
    assert db.renew_leases(conn, owner="h:1:a", ids=[a.id], now=150.0, lease_s=30.0) == set()  # lost it
    assert db.claim_analysis(conn, analysis_id=a.id, owner="h:3:c", now=180.0, lease_s=30.0)  # lapsed at 179
    db.release_analysis(conn, analysis_id=a.id, owner="h:3:c")
    assert [x.id for x in db.unfinished_analyses(conn, now=0.0)] == [a.id]
    db.update_analysis(conn, analysis_id=a.id, status=db.AnalysisStatus.DONE)
    assert not db.claim_analysis(conn, analysis_id=a.id, owner="h:2:b", now=0.0, lease_s=30.0)  # finished


class SlowPerception(ScriptedPerception):
    """Takes `delay` s per frame (wall clock), so a shutdown finds the analysis running."""

    delay: ClassVar[float] = 0.02

    def update(self, image: np.ndarray, frame: int, t: float) -> BallStates:
        time.sleep(SlowPerception.delay)
        return super().update(image, frame, t)


def slow_stages(cfg: AnalyzeConfig, table: Table, image: np.ndarray, fps: float) -> Stages:
    base = scripted_stages(cfg, table, image, fps)
    return Stages(base.calibration, SlowPerception(), ScriptedDetector())


def test_graceful_shutdown_leaves_the_analysis_queued_and_the_next_start_finishes_it(tmp_path: Path) -> None:
    clip = write_video(tmp_path / "clip.mp4", 600)  # 20 s of video: at 20 ms a frame, 12 s of analysis
    SlowPerception.delay = 0.02
    srv = LiveServer(tmp_path / "data", stage_factory=slow_stages)
    srv.settings.checkpoint_every_s = 1.0
    srv.start()
    try:
        with httpx.Client(base_url=srv.url, timeout=10) as c:
            job = c.post("/analyses", json={"video_path": str(clip)}).json()
            wait_until(lambda: len(c.get(f"/matches/{job['match_id']}/events").json()) >= 4, "events to arrive")
    finally:
        srv.stop()
    SlowPerception.delay = 0.0
    srv2 = LiveServer(tmp_path / "data", stage_factory=slow_stages)
    with sqlite3.connect(srv2.settings.database) as conn:  # as the stopped service left it
        status, message = conn.execute("SELECT status, message FROM analyses WHERE id = ?", (job["id"],)).fetchone()
    assert status == "queued" and "stopped by a service shutdown" in message
    srv2.start()
    try:
        with httpx.Client(base_url=srv2.url, timeout=10) as c:
            wait_until(lambda: c.get(f"/analyses/{job['id']}").json()["status"] not in ("queued", "running"),
                       "the resumed analysis to finish")
            final = c.get(f"/analyses/{job['id']}").json()
            assert final["status"] == "done" and "resumed after an interruption" in final["message"], final
            events = c.get(f"/matches/{job['match_id']}/events").json()
            kinds = {5: "shot_start", 15: "ball_contact", 30: "shot_end"}
            assert [(e["type"], e["data"]["frame"]) for e in events] == \
                [(kinds[f % 40], f) for f in range(600) if f % 40 in kinds]
    finally:
        srv2.stop()


def _ev(kind: str, frame: int, **kw: Any) -> dict[str, Any]:
    return {"type": kind, "t": frame / 30, "frame": frame, **kw}


def test_overlap_writes_each_event_once_when_the_re_analysis_differs() -> None:
    """After a resume with a restarted tracker the events made again differ a little from those stored."""
    from service.api.jobs import Overlap

    stored = [_ev("shot_start", 100, ball="C"), _ev("ball_contact", 110, balls=["C", "5"]),
              _ev("ball_contact", 112, balls=["5", "14"])]
    ov = Overlap(stored)
    remade = [_ev("shot_start", 100, ball="C"),  # the same
              _ev("ball_contact", 111, balls=["C", "5"]),  # a frame later: the same contact
              _ev("ball_contact", 112, balls=["5", "15"]),  # another ball within the stored time: not written
              _ev("pot", 105, ball="9", pocket="rear_left", late=True),  # a late pot: written
              _ev("cushion", 140, ball="5", cushion="rear"),  # after the stored time: written
              _ev("shot_end", 200)]
    written = [d for d in remade if not ov.already_stored(d)]
    assert [d["type"] for d in written] == ["pot", "cushion", "shot_end"]
    assert (ov.matched, ov.differed, len(ov.pending)) == (2, 1, 1)
    assert "1 events it made were not written, 1 stored ones it did not make were kept" in ov.summary()
    same = Overlap(stored)
    assert not [d for d in stored if not same.already_stored(d)] and "differed" not in same.summary()


def test_resume_of_a_video_that_is_gone_fails_clearly_and_keeps_the_outputs(tmp_path: Path) -> None:
    srv = LiveServer(tmp_path / "data")
    srv.settings.resume_analyses = False
    srv.start()
    try:
        with httpx.Client(base_url=srv.url, timeout=10) as c:
            clip = write_video(tmp_path / "clip.mp4", 120)
            job = c.post("/analyses", json={"video_path": str(clip)}).json()
            wait_until(lambda: c.get(f"/analyses/{job['id']}").json()["status"] == "done", "the analysis")
            events = c.get(f"/matches/{job['match_id']}/events").json()
            with sqlite3.connect(srv.settings.database) as conn:  # as if it had been interrupted
                conn.execute("UPDATE analyses SET status = 'failed' WHERE id = ?", (job["id"],))
            out = next((srv.data_dir / "analyses").iterdir())
            before = (out / "events.jsonl").read_bytes()
            clip.unlink()
            r = c.post(f"/analyses/{job['id']}/resume")
            assert r.status_code == 409 and "the video of analysis" in r.json()["detail"]
            with sqlite3.connect(srv.settings.database) as conn:
                conn.execute("UPDATE analyses SET status = 'queued' WHERE id = ?", (job["id"],))
    finally:
        srv.stop()
    srv2 = LiveServer(tmp_path / "data").start()  # resumes the queued job at start-up: its video is gone
    try:
        with httpx.Client(base_url=srv2.url, timeout=10) as c:
            wait_until(lambda: c.get(f"/analyses/{job['id']}").json()["status"] == "failed", "the job to fail")
            assert "the video is no longer on the server" in c.get(f"/analyses/{job['id']}").json()["message"]
            assert c.get(f"/matches/{job['match_id']}/events").json() == events
            assert (out / "events.jsonl").read_bytes() == before
    finally:
        srv2.stop()


def test_sigint_stops_the_server_though_a_live_feed_is_open(tmp_path: Path, servers: list[ServerProcess]) -> None:
    """uvicorn waits for open responses before it stops; an open referee page must not keep it alive."""
    import signal
    import threading

    srv = ServerProcess(tmp_path / "data")
    servers.append(srv)
    mid = httpx.post(f"{srv.url}/matches", json={"name": "feed"}, timeout=10).json()["id"]
    got: list[str] = []
    opened = threading.Event()

    def read() -> None:
        with httpx.stream("GET", f"{srv.url}/live/{mid}", timeout=60) as r:
            for line in r.iter_lines():
                got.append(line)
                if line.startswith("event: state"):
                    opened.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert opened.wait(timeout=30)
    srv.proc.send_signal(signal.SIGINT)
    srv.proc.wait(timeout=30)  # without the feed closing itself this waits forever
    reader.join(timeout=10)
    assert not reader.is_alive()  # the feed ended, so the browser reconnects to the next process
