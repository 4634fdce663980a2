"""Taking an analysis over: a worker that never lets go of the output folder, and two resumes at once.

A real uvicorn server in this process (scripted vision stages), httpx as the client, a SQLite file in
tmp_path; the folder lock is held by a separate process, as a stalled server's worker would hold it.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from svc_fakes import LiveServer, wait_until, write_video

from service.api import db, leases
from service.api.routers import analyses as analyses_router

N_FRAMES = 120
HOLD = ("import fcntl, sys, time\n"
        "f = open(sys.argv[1], 'a')\n"
        "fcntl.flock(f, fcntl.LOCK_EX)\n"
        "print('locked', flush=True)\n"
        "time.sleep(600)\n")


def expected_frames() -> list[tuple[str, int]]:
    kinds = {5: "shot_start", 15: "ball_contact", 30: "shot_end"}
    return [(kinds[f % 40], f) for f in range(N_FRAMES) if f % 40 in kinds]


def row(database: Path, analysis_id: int) -> dict[str, Any]:
    with sqlite3.connect(database) as conn:
        conn.row_factory = sqlite3.Row
        return dict(conn.execute("SELECT * FROM analyses WHERE id = ?", (analysis_id,)).fetchone())


@pytest.fixture
def holders() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for p in started:
        p.kill()
        p.wait(10)


def orphan_with_a_locked_folder(tmp_path: Path, holders: list[subprocess.Popen[str]]) -> tuple[Path, int, Path,
                                                                                                  list[Any]]:
    """An analysis left queued by a server that lost its lease, with one event stored, while another process
    (its stalled worker) still holds the output folder's lock. Returns the data dir, the id, the folder and
    the stored log."""
    data = tmp_path / "data"
    clip = write_video(tmp_path / "clip.mp4", N_FRAMES)
    conn = db.connect(data / "pyramid.db")
    m = db.create_match(conn, name="m", game="russian71", table_spec="pyramid-12ft", players=["A", "B"])
    out = data / "analyses" / "stalled"
    a = db.create_analysis(conn, match_id=m.id, video=str(clip), out_dir=str(out))
    db.append_log(conn, match_id=m.id, analysis_id=a.id,
                  entries=[(db.LogKind.EVENT, {"type": "shot_start", "t": 5 / 30, "frame": 5, "ball": "C"})])
    stored = [dict(r.__dict__) for r in db.read_log(conn, match_id=m.id)]
    conn.close()
    out.mkdir(parents=True)
    (out / "events.jsonl").write_text('{"type": "shot_start"}\n')  # the stalled worker's half-written file
    p = subprocess.Popen([sys.executable, "-c", HOLD, str(out / leases.LOCK_FILE)], stdout=subprocess.PIPE, text=True)
    holders.append(p)
    assert p.stdout is not None and p.stdout.readline().strip() == "locked"
    return data, a.id, out, stored


def test_waiting_for_a_held_folder_is_visible_and_goes_on_when_it_is_let_go(
        tmp_path: Path, holders: list[subprocess.Popen[str]]) -> None:
    data, aid, out, _ = orphan_with_a_locked_folder(tmp_path, holders)
    srv = LiveServer(data)
    srv.settings.folder_wait_s = 120.0
    srv.start()
    try:
        with httpx.Client(base_url=srv.url, timeout=10) as c:
            wait_until(lambda: c.get(f"/analyses/{aid}").json()["status"] == "waiting", "the waiting state", 30)
            waiting = c.get(f"/analyses/{aid}").json()
            assert str(out) in waiting["message"] and "gives up" in waiting["message"], waiting
            assert (out / "events.jsonl").read_text() == '{"type": "shot_start"}\n'  # untouched while it waits
            holders[0].kill()  # the old worker's process ends: the kernel drops its lock
            wait_until(lambda: c.get(f"/analyses/{aid}").json()["status"] == "done", "the analysis to finish", 30)
            events = c.get(f"/matches/{waiting['match_id']}/events").json()
            assert [(e["type"], e["data"]["frame"]) for e in events] == expected_frames()  # each once
    finally:
        srv.stop()


def test_a_folder_held_too_long_fails_the_analysis_clearly_and_loses_nothing(
        tmp_path: Path, holders: list[subprocess.Popen[str]]) -> None:
    data, aid, out, stored = orphan_with_a_locked_folder(tmp_path, holders)
    srv = LiveServer(data)
    srv.settings.folder_wait_s = 0.5
    srv.start()
    try:
        with httpx.Client(base_url=srv.url, timeout=10) as c:
            wait_until(lambda: c.get(f"/analyses/{aid}").json()["status"] == "failed", "the analysis to give up", 30)
            failed = c.get(f"/analyses/{aid}").json()
            assert "still locked" in failed["message"] and str(out) in failed["message"], failed
            assert f"/analyses/{aid}/resume" in failed["message"]
            assert row(srv.settings.database, aid)["owner"] is None  # its lease given up
            with sqlite3.connect(srv.settings.database) as conn:
                n = conn.execute("SELECT COUNT(*) FROM log").fetchone()[0]
            assert n == len(stored) == 1
            assert (out / "events.jsonl").read_text() == '{"type": "shot_start"}\n'
            holders[0].kill()
            assert c.post(f"/analyses/{aid}/resume").status_code == 202
            wait_until(lambda: c.get(f"/analyses/{aid}").json()["status"] == "done", "the resumed analysis", 30)
            events = c.get(f"/matches/{failed['match_id']}/events").json()
            assert [(e["type"], e["data"]["frame"]) for e in events] == expected_frames()
    finally:
        srv.stop()


class _StaleRead:
    """The route's `db`, whose next get_analysis reads the row and then waits (a request delayed between
    reading the status and acting on it) until `go` is set."""

    def __init__(self) -> None:
        self.armed, self.read, self.go = True, threading.Event(), threading.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(db, name)

    def get_analysis(self, conn: Any, *, analysis_id: int) -> db.AnalysisRow | None:
        found = db.get_analysis(conn, analysis_id=analysis_id)
        if self.armed:
            self.armed = False
            self.read.set()
            self.go.wait(60)
        return found


def test_two_resumes_at_once_queue_the_analysis_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Resume A reads the failed status and is delayed; resume B queues the analysis, which runs to its end;
    then A acts: it must be refused (409), not queue a finished analysis a second time."""
    srv = LiveServer(tmp_path / "data")
    srv.settings.resume_analyses = False
    srv.start()
    try:
        with httpx.Client(base_url=srv.url, timeout=30) as c:
            job = c.post("/analyses", json={"video_path": str(write_video(tmp_path / "c.mp4", N_FRAMES))}).json()
            wait_until(lambda: c.get(f"/analyses/{job['id']}").json()["status"] == "done", "the first run")
            with sqlite3.connect(srv.settings.database) as conn:  # as a crash would leave it
                conn.execute("UPDATE analyses SET status = 'failed' WHERE id = ?", (job["id"],))
            jobs = srv.app.state.jobs
            runs: list[int] = []
            inner = jobs._run

            def counted(analysis_id: int) -> None:
                runs.append(analysis_id)
                inner(analysis_id)

            jobs._run = counted
            stale = _StaleRead()
            monkeypatch.setattr(analyses_router, "db", stale)
            answers: list[httpx.Response] = []
            first = threading.Thread(target=lambda: answers.append(c.post(f"/analyses/{job['id']}/resume")))
            first.start()
            assert stale.read.wait(30)
            second = c.post(f"/analyses/{job['id']}/resume")
            assert second.status_code == 202, second.text
            wait_until(lambda: c.get(f"/analyses/{job['id']}").json()["status"] == "done", "the resumed run")
            stale.go.set()
            first.join(30)
            assert answers[0].status_code == 409, answers[0].text
            assert "only a failed one resumes" in answers[0].json()["detail"]
            jobs.futures[job["id"]].result(timeout=30)
            assert runs == [job["id"]]
            assert c.get(f"/analyses/{job['id']}").json()["status"] == "done"
    finally:
        srv.stop()


def test_requeue_of_a_failed_analysis_is_one_conditional_transition(tmp_path: Path) -> None:
    """Only a failed analysis is queued again; the same transaction takes its lease under a new epoch, so the
    failed run's worker is fenced out and no other server's take-over can slip in between."""
    conn = db.connect(tmp_path / "x.db")
    m = db.create_match(conn, name="m", game="russian71", table_spec="pyramid-12ft", players=["A", "B"])
    a = db.create_analysis(conn, match_id=m.id, video="v.mp4", out_dir="o")
    old = db.claim_analysis(conn, analysis_id=a.id, owner="h:1:a", now=100.0, lease_s=30.0)
    assert old is not None
    assert db.requeue_failed(conn, analysis_id=a.id, owner="h:2:b", now=101.0, lease_s=30.0, message="m") is None
    db.update_analysis(conn, analysis_id=a.id, status=db.AnalysisStatus.FAILED, fence=old)
    new = db.requeue_failed(conn, analysis_id=a.id, owner="h:2:b", now=102.0, lease_s=30.0, message="again")
    assert new is not None and new.epoch == old.epoch + 1
    r = row(tmp_path / "x.db", a.id)
    assert (r["status"], r["owner"], r["message"]) == ("queued", "h:2:b", "again")
    assert db.requeue_failed(conn, analysis_id=a.id, owner="h:3:c", now=103.0, lease_s=30.0, message="x") is None
    assert db.claim_analysis(conn, analysis_id=a.id, owner="h:3:c", now=103.0, lease_s=30.0) is None  # leased
    with pytest.raises(db.Fenced):
        db.update_analysis(conn, analysis_id=a.id, message="the failed run's worker", fence=old)
