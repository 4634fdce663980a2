"""Leases fence the writes of an analysis: a server that lost its lease writes nothing more.

Real SQLite files, a real uvicorn server in this process (whose heartbeat the test stalls) and one in a
subprocess (tests/service/serve_scripted.py), httpx as the client.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from svc_fakes import GatedPerception, LiveServer, ServerProcess, gated_stages, wait_until, write_video

from service.api import db, leases

N_FRAMES = 200
HOLD_AT = 100  # checkpoints at the shot ends 30 and 70; the shot_start 85 and the contact 95 stored past them


def expected_frames() -> list[tuple[str, int]]:
    kinds = {5: "shot_start", 15: "ball_contact", 30: "shot_end"}
    return [(kinds[f % 40], f) for f in range(N_FRAMES) if f % 40 in kinds]


def row(database: Path, analysis_id: int) -> dict[str, Any]:
    with sqlite3.connect(database) as conn:
        conn.row_factory = sqlite3.Row
        r = conn.execute("SELECT * FROM analyses WHERE id = ?", (analysis_id,)).fetchone()
    return dict(r)


@pytest.fixture
def gate() -> Iterator[None]:
    GatedPerception.hold_at, GatedPerception.reached, GatedPerception.gate = HOLD_AT, threading.Event(), \
        threading.Event()
    yield
    GatedPerception.gate.set()
    GatedPerception.hold_at = None


def test_a_server_whose_lease_was_taken_over_writes_nothing_more(tmp_path: Path, gate: None,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Server A's heartbeat stalls (its renewals hang) while its worker is held at frame 100; server B takes
    the analysis over when the lease lapses. When A's worker runs on, its next write is refused (fenced) and
    it stops; B resumes from the last checkpoint. Every event is stored once, and the match log, events.jsonl
    and verdicts.jsonl equal those of an uninterrupted run."""
    data = tmp_path / "data"
    clip = write_video(tmp_path / "clip.mp4", N_FRAMES)
    unstall = threading.Event()

    def stalled_renewal(*args: Any, **kwargs: Any) -> set[int]:
        unstall.wait(120)  # a heartbeat starved (GIL, swap, a paused VM): it renews nothing meanwhile
        return set()

    monkeypatch.setattr(db, "renew_leases", stalled_renewal)
    a = LiveServer(data, stage_factory=gated_stages)
    a.settings.lease_s, a.settings.checkpoint_every_s = 2.0, 1.0
    a.start()
    b: ServerProcess | None = None
    try:
        job = httpx.post(f"{a.url}/analyses", json={"video_path": str(clip)}, timeout=10).json()
        assert GatedPerception.reached.wait(60)
        before = httpx.get(f"{a.url}/matches/{job['match_id']}/events", timeout=10).json()
        assert [(e["type"], e["data"]["frame"]) for e in before] == [k for k in expected_frames() if k[1] < HOLD_AT]
        b = ServerProcess(data, {"PYRAMID_LEASE_S": "2"})
        wait_until(lambda: f":{b.proc.pid}:" in str(row(a.settings.database, job["id"])["owner"]),
                   "server B to take the lapsed lease")
        taken = row(a.settings.database, job["id"])
        assert taken["epoch"] == 2  # A ran under epoch 1
        GatedPerception.gate.set()  # A's worker runs on, unaware: its next write must be refused
        wait_until(lambda: a.app.state.jobs.futures[job["id"]].done(), "A's worker to stop")
        a.app.state.jobs.futures[job["id"]].result()  # it ended cleanly (no exception escaped)
        with httpx.Client(base_url=b.url, timeout=10) as c:
            wait_until(lambda: c.get(f"/analyses/{job['id']}").json()["status"] == "done", "B to finish")
            final = c.get(f"/analyses/{job['id']}").json()
            assert "resuming at frame 71" in final["message"] and "differed" not in final["message"], final
            events = c.get(f"/matches/{job['match_id']}/events").json()
            assert [(e["type"], e["data"]["frame"]) for e in events] == expected_frames()  # each once
            assert events[:len(before)] == before
            verdicts = c.get(f"/matches/{job['match_id']}/verdicts").json()
            # the same clip, uninterrupted, on server B
            ref = c.post("/analyses", json={"video_path": str(clip)}).json()
            wait_until(lambda: c.get(f"/analyses/{ref['id']}").json()["status"] == "done", "the reference run")
            ref_events = c.get(f"/matches/{ref['match_id']}/events").json()
            assert [e["data"] for e in events] == [e["data"] for e in ref_events]
            assert verdicts == c.get(f"/matches/{ref['match_id']}/verdicts").json()
        out, ref_out = (Path(row(a.settings.database, i)["out_dir"]) for i in (job["id"], ref["id"]))
        for name in ("events.jsonl", "verdicts.jsonl"):
            assert (out / name).read_bytes() == (ref_out / name).read_bytes(), name
        assert row(a.settings.database, job["id"])["owner"] is None  # B gave the lease up when done
    finally:
        GatedPerception.gate.set()
        unstall.set()
        a.stop()
        if b is not None:
            b.kill()


def test_shutdown_keeps_the_lease_of_a_worker_still_running(tmp_path: Path, gate: None) -> None:
    """A worker that does not stop within the shutdown wait keeps its lease (no other server may start the
    analysis while it can still write); when it does stop, it records that and gives the lease up itself."""
    clip = write_video(tmp_path / "clip.mp4", N_FRAMES)
    srv = LiveServer(tmp_path / "data", stage_factory=gated_stages).start()
    try:
        job = httpx.post(f"{srv.url}/analyses", json={"video_path": str(clip)}, timeout=10).json()
        assert GatedPerception.reached.wait(60)
        jobs = srv.app.state.jobs
        jobs.shutdown(wait_s=0.2)  # the worker is inside a frame (held): it cannot stop in time
        held = row(srv.settings.database, job["id"])
        assert held["owner"] == jobs.owner and held["lease_until"] is not None, held
        GatedPerception.gate.set()
        wait_until(lambda: jobs.futures[job["id"]].done(), "the worker to stop at its next frame")
        after = row(srv.settings.database, job["id"])
        assert after["owner"] is None and after["status"] == "queued", after
        assert "stopped by a service shutdown" in after["message"]
    finally:
        srv.stop()


def test_a_lease_holder_in_another_pid_namespace_is_not_taken_for_dead(tmp_path: Path) -> None:
    """Two containers may share a host name; a pid missing from this PID namespace says nothing about a
    process in another one. Such a lease is left alone until it lapses; a holder in this namespace whose pid is
    gone is seen dead at once."""
    me = leases.ServerId.mine()
    elsewhere = leases.ServerId(me.host, 2**22 + 17, "abc", me.boot, "4026530000", "5")
    gone_here = leases.ServerId(me.host, 2**22 + 17, "abc", me.boot, me.pidns, "5")
    assert not leases.seen_dead(str(elsewhere), me)
    assert not leases.seen_dead(f"{me.host}:{2**22 + 17}:abc", me)  # an owner written before server ids
    assert leases.seen_dead(str(gone_here), me) == bool(me.boot and me.pidns)

    srv = LiveServer(tmp_path / "data")
    srv.settings.lease_s = 2.0
    conn = db.connect(srv.settings.database)
    m = db.create_match(conn, name="m", game="russian71", table_spec="pyramid-12ft", players=["A", "B"])
    clip = write_video(tmp_path / "clip.mp4", 60)
    a = db.create_analysis(conn, match_id=m.id, video=str(clip), out_dir=str(tmp_path / "data" / "o"))
    assert db.claim_analysis(conn, analysis_id=a.id, owner=str(elsewhere), now=time.time(), lease_s=3.0)
    srv.start()
    try:
        with httpx.Client(base_url=srv.url, timeout=10) as c:
            assert c.get(f"/analyses/{a.id}").json()["status"] == "queued"
            assert row(srv.settings.database, a.id)["owner"] == str(elsewhere)  # not taken at start-up
            wait_until(lambda: c.get(f"/analyses/{a.id}").json()["status"] == "done",
                       "the lapsed lease to be taken over and the analysis to finish")
    finally:
        srv.stop()
        conn.close()


def test_a_write_under_a_lost_epoch_is_refused_and_stores_nothing(tmp_path: Path) -> None:
    conn = db.connect(tmp_path / "x.db")
    m = db.create_match(conn, name="m", game="russian71", table_spec="pyramid-12ft", players=["A", "B"])
    a = db.create_analysis(conn, match_id=m.id, video="v.mp4", out_dir="o")
    old = db.claim_analysis(conn, analysis_id=a.id, owner="h:1:a", now=100.0, lease_s=30.0)
    assert old is not None and db.claim_analysis(conn, analysis_id=a.id, owner="h:1:a", now=110.0,
                                                 lease_s=30.0) == old  # renewing keeps the epoch
    new = db.claim_analysis(conn, analysis_id=a.id, owner="h:2:b", now=200.0, lease_s=30.0)
    assert new is not None and new.epoch == old.epoch + 1
    ev = {"type": "shot_end", "t": 1.0, "frame": 30}
    with pytest.raises(db.Fenced):
        db.append_log(conn, match_id=m.id, entries=[(db.LogKind.EVENT, ev)], analysis_id=a.id, fence=old)
    with pytest.raises(db.Fenced):
        db.update_analysis(conn, analysis_id=a.id, message="old", fence=old)
    with pytest.raises(db.Fenced):
        db.store_fold(conn, match_id=m.id, verdicts=[{"shot": 1}], state={}, fence=old)
    with pytest.raises(db.Fenced):
        db.set_report(conn, match_id=m.id, report_path="old/report.html", fence=old)
    db.release_analysis(conn, analysis_id=a.id, owner="h:1:a", fence=old)
    assert db.read_log(conn, match_id=m.id) == [] and db.read_verdicts(conn, match_id=m.id) == []
    assert db.get_analysis(conn, analysis_id=a.id).message == ""  # type: ignore[union-attr]
    assert db.get_match(conn, match_id=m.id).report_path is None  # type: ignore[union-attr]
    assert row(tmp_path / "x.db", a.id)["owner"] == "h:2:b"
    assert db.append_log(conn, match_id=m.id, entries=[(db.LogKind.EVENT, ev)], analysis_id=a.id, fence=new)


def test_failing_a_lapsed_analysis_fences_its_stalled_worker(tmp_path: Path) -> None:
    """With resuming off, a start-up marks unfinished analyses without a live lease failed: a worker whose lease
    merely lapsed (its server stalled, not dead) must not go on writing into the failed job."""
    conn = db.connect(tmp_path / "x.db")
    m = db.create_match(conn, name="m", game="russian71", table_spec="pyramid-12ft", players=["A", "B"])
    a = db.create_analysis(conn, match_id=m.id, video="v.mp4", out_dir="o")
    stalled = db.claim_analysis(conn, analysis_id=a.id, owner="h:1:a", now=100.0, lease_s=30.0)
    assert stalled is not None
    assert db.fail_unfinished_analyses(conn, now=200.0) == 1
    with pytest.raises(db.Fenced):
        db.append_log(conn, match_id=m.id, entries=[(db.LogKind.EVENT, {"type": "shot_end", "t": 1.0, "frame": 30})],
                      analysis_id=a.id, fence=stalled)
    assert db.read_log(conn, match_id=m.id) == []
