"""The service over real HTTP: uvicorn on 127.0.0.1, httpx as the client, a SQLite file in tmp_path."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from svc_fakes import LiveServer

from calibration.table import Table

RUSSIAN_RACK = ["4", "5", "6", "7", "15", "8", "9", "14", "13", "10", "2", "1", "12", "11", "3"]


def rack_positions() -> dict[str, list[float]]:
    pos = {b: [x, y] for b, (x, y) in Table.load().rack_positions(RUSSIAN_RACK).items()}
    pos["C"] = [-1000.0, 0.0]
    return pos


def legal_break(t0: float = 1.0) -> list[dict[str, Any]]:
    """A break where three object balls reach cushions (1.12.1(2))."""
    f = round(t0 * 60)
    return [
        {"type": "shot_start", "t": t0, "frame": f, "ball": "C", "positions": rack_positions()},
        {"type": "ball_contact", "t": t0 + 0.5, "frame": f + 30, "balls": ["C", "4"]},
        {"type": "cushion", "t": t0 + 1.0, "frame": f + 60, "ball": "3", "cushion": "rear"},
        {"type": "cushion", "t": t0 + 1.1, "frame": f + 66, "ball": "11", "cushion": "rear"},
        {"type": "cushion", "t": t0 + 1.2, "frame": f + 72, "ball": "2", "cushion": "left_rear"},
        {"type": "shot_end", "t": t0 + 4.0, "frame": f + 240, "positions": rack_positions()},
    ]


def miss(t0: float) -> list[dict[str, Any]]:
    f = round(t0 * 60)
    return [{"type": "shot_start", "t": t0, "frame": f, "ball": "C"},
            {"type": "shot_end", "t": t0 + 2.0, "frame": f + 120}]


@pytest.fixture
def client(live_server: LiveServer) -> httpx.Client:
    with httpx.Client(base_url=live_server.url, timeout=10.0) as c:
        yield c


@pytest.fixture
def shared_client(shared_server: LiveServer) -> httpx.Client:
    with httpx.Client(base_url=shared_server.url, timeout=10.0) as c:
        yield c


def new_match(client: httpx.Client, **kw: Any) -> dict[str, Any]:
    r = client.post("/matches", json={"name": "test match", **kw})
    assert r.status_code == 201, r.text
    return dict(r.json())


def test_match_lifecycle_and_verdicts(client: httpx.Client, live_server: LiveServer) -> None:
    m = new_match(client)
    assert m["game"] == "russian71" and m["players"] == ["A", "B"]
    r = client.post(f"/matches/{m['id']}/events", json={"events": legal_break() + miss(7.0)})
    assert r.status_code == 201 and [e["seq"] for e in r.json()] == list(range(1, 9))
    verdicts = client.get(f"/matches/{m['id']}/verdicts").json()
    assert [v["outcome"] for v in verdicts] == ["legal", "foul"]
    assert verdicts[1]["clauses"] == ["1.5.3"]
    state = client.get(f"/matches/{m['id']}").json()["state"]
    assert state["score"] == {"A": 5, "B": -5} and state["owed"]
    assert [m2["id"] for m2 in client.get("/matches").json()] == [m["id"]]
    # the data is in the SQLite file, where the settings say
    with sqlite3.connect(live_server.settings.database) as conn:
        assert conn.execute("SELECT COUNT(*) FROM log WHERE match_id = ?", (m["id"],)).fetchone()[0] == 8


def test_referee_override_is_appended_and_refolds(client: httpx.Client) -> None:
    m = new_match(client)
    client.post(f"/matches/{m['id']}/events", json={"events": legal_break() + miss(7.0)})
    r = client.post(f"/matches/{m['id']}/inputs", json={"type": "override", "shot": 2, "verdict": {"legal": True},
                                                       "reason": "the cue ball grazed ball 9"})
    assert r.status_code == 201, r.text
    assert r.json()["type"] == "override"
    verdicts = client.get(f"/matches/{m['id']}/verdicts").json()
    assert verdicts[1]["outcome"] == "legal" and verdicts[1].get("override")
    inputs = client.get(f"/matches/{m['id']}/inputs").json()
    assert [i["type"] for i in inputs] == ["override"]


@pytest.mark.parametrize(
    ("path", "body", "status", "needle"),
    [
        ("/matches", {"name": ""}, 422, "name"),
        ("/matches", {"name": "x", "table": "pool-15ft"}, 422, "unknown table"),
        ("/matches", {"name": "x", "players": ["A", "A"]}, 422, "distinct"),
        ("/matches", {"name": "x", "game": "snooker"}, 422, "unknown game"),
        ("/matches", {"name": "x", "colour": "red"}, 422, "colour"),
        ("/matches/{id}/events", {"events": [{"type": "pot", "t": 1.0, "frame": 60}]}, 422, "needs field 'ball'"),
        ("/matches/{id}/events", {"events": [{"type": "teleport", "t": 1.0, "frame": 1}]}, 422, "not a ball event"),
        ("/matches/{id}/events", {"events": []}, 422, "events"),
        ("/matches/{id}/inputs", {"type": "choose", "option": "bogus"}, 422, "unknown choose option"),
        ("/matches/{id}/inputs", {"type": "shot_start", "t": 1}, 422, "ball event"),
        ("/matches/{id}/inputs", {"type": "override", "reason": "x"}, 422, "shot"),
        ("/matches/{id}/inputs", {"t": 1.0}, 422, "type"),
        ("/matches/99999/inputs", {"type": "nominate", "ball": "3"}, 404, "no match"),
        ("/matches/{id}/inputs", {"type": "state", "balls": {"3": [99999, 0]}}, 422, "off the bed"),
        ("/matches/{id}/inputs", {"type": "state", "score": 5}, 422, "whole number"),
        ("/matches/{id}/inputs", {"type": "foul", "clause": "1.16", "note": "x" * 70_000}, 422, "at most 64000 bytes"),
        ("/matches", {"name": "x", "players": ["A" * 101, "B"]}, 422, "at most 100 characters"),
        ("/matches/{id}/inputs", {"type": "state", "score": {"A": 1.5}}, 422, "whole number"),
        ("/matches/99999999999999999999/inputs", {"type": "nominate", "ball": "3"}, 422, "match_id"),
        ("/analyses", {"video_path": "/no/such/file.mp4"}, 400, "no such video"),
    ],
)
def test_malformed_requests_get_clear_errors(
    shared_client: httpx.Client, path: str, body: dict[str, Any], status: int, needle: str
) -> None:
    client = shared_client
    m = new_match(client)
    before = client.get(f"/matches/{m['id']}/events").json() + client.get(f"/matches/{m['id']}/inputs").json()
    r = client.post(path.format(id=m["id"]), json=body)
    assert r.status_code == status, r.text
    assert needle in json.dumps(r.json()["detail"])
    after = client.get(f"/matches/{m['id']}/events").json() + client.get(f"/matches/{m['id']}/inputs").json()
    assert after == before  # nothing stored


def test_non_finite_numbers_are_refused_and_not_stored(shared_client: httpx.Client) -> None:
    """JSON's 1e309 reads as infinity: a place or a score that no fold (and no browser's JSON.parse) can take."""
    m = new_match(shared_client)
    for path, text in ((f"/matches/{m['id']}/inputs", '{"type": "state", "balls": {"3": [1e309, 0]}}'),
                       (f"/matches/{m['id']}/inputs", '{"type": "state", "score": {"A": 1e309}}'),
                       (f"/matches/{m['id']}/events", '{"events": [{"type": "shot_end", "t": 1.0, "frame": 30, '
                                                      '"positions": {"C": [1e309, 0]}}]}')):
        r = shared_client.post(path, content=text, headers={"content-type": "application/json"})
        assert r.status_code == 422, (path, r.text)
    assert shared_client.get(f"/matches/{m['id']}/inputs").json() == []
    assert shared_client.get(f"/matches/{m['id']}/events").json() == []


@pytest.mark.parametrize("path", ["/matches/99999999999999999999", "/analyses/99999999999999999999",
                                  "/matches?offset=99999999999999999999"])
def test_ids_past_sqlite_integers_are_invalid_not_a_crash(shared_client: httpx.Client, path: str) -> None:
    assert shared_client.get(path).status_code == 422


def test_invalid_json_body_is_a_422_not_a_crash(client: httpx.Client) -> None:
    m = new_match(client)
    r = client.post(f"/matches/{m['id']}/inputs", content=b'{"type": "nominate",', headers={
        "content-type": "application/json"})
    assert r.status_code == 422
    assert client.get("/health").json()["ok"] is True


def test_meta_names_the_event_schema_the_events_resource_speaks(shared_client: httpx.Client) -> None:
    from rules.events import SCHEMA_VERSION

    meta = shared_client.get("/meta").json()
    assert meta["event_schema"] == SCHEMA_VERSION and meta["default_game"] in meta["games"]


def read_sse(client: httpx.Client, url: str, until: int, headers: dict[str, str] | None = None,
             timeout: float = 10.0, on_message: Any = None) -> list[tuple[str | None, str, Any]]:
    """(id, event, data) of each SSE message until `until` messages have arrived."""
    out: list[tuple[str | None, str, Any]] = []
    ev_id, kind, data = None, "message", ""
    with client.stream("GET", url, headers=headers or {}, timeout=timeout) as resp:
        assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/event-stream")
        for line in resp.iter_lines():
            if line.startswith("id: "):
                ev_id = line[4:]
            elif line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
            elif line == "" and data:
                out.append((ev_id, kind, json.loads(data)))
                if on_message is not None:
                    on_message(kind)
                ev_id, kind, data = None, "message", ""
                if len(out) >= until:
                    break
    return out


def test_live_feed_replays_then_streams_new_lines(client: httpx.Client, live_server: LiveServer) -> None:
    m = new_match(client)
    client.post(f"/matches/{m['id']}/events", json={"events": legal_break()})
    # replay: 6 events, then verdicts and state
    msgs = read_sse(client, f"/live/{m['id']}", until=8)
    assert [k for _, k, _ in msgs[:6]] == ["event"] * 6 and [k for _, k, _ in msgs[6:]] == ["verdicts", "state"]
    assert msgs[6][2]["data"][0]["outcome"] == "legal"

    # resume after id 4: only 5 and 6 are replayed; then a new line arrives live
    import threading

    got: list[tuple[str | None, str, Any]] = []
    replayed = threading.Event()  # the feed subscribes before it replays: after the replay, lines come live

    def on_message(kind: str) -> None:
        if kind == "state":
            replayed.set()

    reader = threading.Thread(target=lambda: got.extend(
        read_sse(httpx.Client(base_url=live_server.url), f"/live/{m['id']}", until=7,
                 headers={"Last-Event-ID": "4"}, on_message=on_message)))
    reader.start()
    assert replayed.wait(timeout=10)
    client.post(f"/matches/{m['id']}/inputs", json={"type": "nominate", "ball": "3", "pocket": "rear_left"})
    reader.join(timeout=10)
    assert [i for i, k, _ in got if k == "event"] == ["5", "6"]
    live = [(i, k) for i, k, _ in got[4:]]
    assert live[0] == ("7", "input") and {k for _, k in live[1:]} == {"verdicts", "state"}


def test_data_survives_a_server_restart(tmp_path: Path) -> None:
    srv = LiveServer(tmp_path / "data").start()
    try:
        with httpx.Client(base_url=srv.url) as c:
            mid = new_match(c)["id"]
            c.post(f"/matches/{mid}/events", json={"events": legal_break()})
    finally:
        srv.stop()
    srv2 = LiveServer(tmp_path / "data").start()
    try:
        with httpx.Client(base_url=srv2.url) as c:
            assert len(c.get(f"/matches/{mid}/events").json()) == 6
            assert c.get(f"/matches/{mid}/verdicts").json()[0]["outcome"] == "legal"
    finally:
        srv2.stop()


def test_analysis_job_runs_in_the_background(client: httpx.Client, clip: Path) -> None:
    r = client.post("/analyses", json={"video_path": str(clip)})
    assert r.status_code == 202, r.text
    job = r.json()
    deadline = time.monotonic() + 60
    while job["status"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
        job = client.get(f"/analyses/{job['id']}").json()
    assert job["status"] == "done", job
    events = client.get(f"/matches/{job['match_id']}/events").json()
    assert [e["type"] for e in events].count("shot_end") == 3
    # the run's opening decision opens the match log: a shot from the position it saw, not a break
    header = [i["data"] for i in client.get(f"/matches/{job['match_id']}/inputs").json()]
    assert [h["type"] for h in header] == ["match", "state"] and header[1]["phase"] == "play"
    assert not client.get(f"/matches/{job['match_id']}/verdicts").json()[0].get("break")
    report = client.get(job["report_url"])
    assert report.status_code == 200 and "Pyramid Monitor report" in report.text


def test_uploaded_video_is_analysed(client: httpx.Client, clip: Path) -> None:
    r = client.post("/analyses/upload", files={"file": ("my clip.mp4", clip.read_bytes(), "video/mp4")},
                    data={"game": "free"})
    assert r.status_code == 202, r.text
    job = r.json()
    assert Path(job["video"]).name.endswith("my_clip.mp4") and Path(job["video"]).read_bytes() == clip.read_bytes()
    deadline = time.monotonic() + 60
    while job["status"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
        job = client.get(f"/analyses/{job['id']}").json()
    assert job["status"] == "done", job
    assert client.get(f"/matches/{job['match_id']}").json()["game"] == "free"


def test_upload_that_is_not_a_video_is_refused(client: httpx.Client) -> None:
    r = client.post("/analyses/upload", files={"file": ("x.mp4", b"not a video at all", "video/mp4")})
    assert r.status_code == 400 and "not a readable video" in r.json()["detail"]
