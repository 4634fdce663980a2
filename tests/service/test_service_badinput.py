"""Bad requests and bad videos over real HTTP (uvicorn, httpx, a SQLite file): each gets a clear 4xx that
names what is wrong, or a visible job status, never a 500; nothing is stored for a refused request. And the
`identify` referee input: accepted, checked, and handed to vision by an analysis of the match."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import av
import cv2
import httpx
import numpy as np
import pytest
from svc_fakes import LiveServer, ScriptedDetector, ScriptedPerception, scripted_stages, write_video

from calibration.table import Table
from service.api import jobs
from service.pipeline.run import AnalyzeConfig, Stages


@pytest.fixture
def client(shared_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=shared_server.url, timeout=20.0) as c:
        yield c


def wait_job(c: httpx.Client, job: dict[str, Any]) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while job["status"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.1)
        job = c.get(f"/analyses/{job['id']}").json()
    return job


def zeroed_video(src: Path, dest: Path, keep: float) -> Path:
    """`src` with the coded frames after the first `keep` fraction of its media data overwritten by zeros:
    the container (and its index) is intact, the pictures there do not decode."""
    b = bytearray(src.read_bytes())
    start, end = b.find(b"mdat") + 4, b.find(b"moov") - 4
    assert 0 < start < end
    cut = start + int((end - start) * keep)
    b[cut:end] = bytes(end - cut)
    dest.write_bytes(bytes(b))
    return dest


@pytest.fixture(scope="module")
def videos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("videos")
    clip = write_video(d / "clip.mp4", 120)
    (d / "notes.txt").write_text("not a video")
    (d / "half.mp4").write_bytes(clip.read_bytes()[: clip.stat().st_size // 2])  # cut before its index
    ok, png = cv2.imencode(".png", np.zeros((40, 60, 3), np.uint8))
    assert ok
    (d / "still.png").write_bytes(png.tobytes())
    return {"clip": clip, "notes": d / "notes.txt", "half": d / "half.mp4", "still": d / "still.png",
            "dead": zeroed_video(clip, d / "dead.mp4", 0.0), "dir": d}


def uploads(srv: LiveServer) -> set[Path]:
    return set((srv.data_dir / "uploads").glob("*")) if (srv.data_dir / "uploads").exists() else set()


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        ({"video_path": "{dir}"}, 400, "a folder, not a video file"),
        ({"video_path": "/no/such/file.mp4"}, 400, "no such video file"),
        ({"video_path": "{notes}"}, 400, "not a readable video"),
        ({"video_path": "{half}"}, 400, "not a readable video"),
        ({"video_path": "{dead}"}, 400, "no frame can be decoded"),
        ({"video_path": "{still}"}, 400, "single picture"),
        ({"video_path": "{clip}", "game": "snooker"}, 422, "unknown game"),
        ({"video_path": "{clip}", "table": "pool-15ft"}, 422, "unknown table"),
        ({"video_path": "{clip}", "match_id": 99999}, 404, "no match with id 99999"),
        ({"video_path": "{clip}", "colour": "red"}, 422, "colour"),
        ({}, 422, "video_path"),
    ],
)
def test_bad_analysis_requests(client: httpx.Client, videos: dict[str, Path], body: dict[str, Any], status: int,
                               needle: str) -> None:
    before = client.get("/analyses").json()
    body = {k: v.format(**{n: str(p) for n, p in videos.items()}) if isinstance(v, str) else v
            for k, v in body.items()}
    r = client.post("/analyses", json=body)
    assert r.status_code == status, r.text
    assert needle in json.dumps(r.json()["detail"])
    assert client.get("/analyses").json() == before  # no job, no match made


@pytest.mark.parametrize(
    ("name", "data", "status", "needle"),
    [
        ("notes", {}, 400, "not a readable video"),
        ("half", {}, 400, "not a readable video"),
        ("dead", {}, 400, "no frame can be decoded"),
        ("still", {}, 400, "single picture"),
        ("clip", {"game": "snooker"}, 422, "unknown game"),
        ("clip", {"table": "nope"}, 422, "unknown table"),
        ("clip", {"match_id": "99999"}, 404, "no match with id 99999"),
        ("clip", {"match_id": "x"}, 422, "match_id"),
    ],
)
def test_bad_uploads(client: httpx.Client, shared_server: LiveServer, videos: dict[str, Path], name: str,
                     data: dict[str, str], status: int, needle: str) -> None:
    before, kept = client.get("/analyses").json(), uploads(shared_server)
    r = client.post("/analyses/upload", files={"file": (videos[name].name, videos[name].read_bytes(), "video/mp4")},
                    data=data)
    assert r.status_code == status, r.text
    assert needle in json.dumps(r.json()["detail"])
    assert str(shared_server.data_dir) not in json.dumps(r.json()["detail"])  # where the server keeps uploads
    assert client.get("/analyses").json() == before
    assert uploads(shared_server) == kept  # a refused upload is not kept on disk


def test_upload_without_a_file_is_a_422(client: httpx.Client) -> None:
    r = client.post("/analyses/upload", data={"game": "free"})
    assert r.status_code == 422 and "file" in json.dumps(r.json()["detail"])


def test_video_damaged_part_way_is_analysed_up_to_there_and_says_so(client: httpx.Client, tmp_path: Path) -> None:
    video = zeroed_video(write_video(tmp_path / "long.mp4", 240), tmp_path / "damaged.mp4", 0.5)
    r = client.post("/analyses", json={"video_path": str(video)})
    assert r.status_code == 202, r.text
    job = wait_job(client, r.json())
    assert job["status"] == "done" and "partly analysed" in job["message"], job
    assert client.get(job["report_url"]).status_code == 200


def test_a_damaged_stretch_mid_video_is_skipped_and_the_rest_analysed(client: httpx.Client, tmp_path: Path) -> None:
    """A stretch of zeros inside the media data (a bad sector, a glitch in a copy) with good data after it: the
    packets there are skipped and the analysis goes on to the end, saying so (before: it stopped at the damage,
    losing the rest of the match as if the file ended there)."""
    src = write_video(tmp_path / "long.mp4", 240)
    b = bytearray(src.read_bytes())
    start, end = b.find(b"mdat") + 4, b.find(b"moov") - 4
    a, z = start + int((end - start) * 0.45), start + int((end - start) * 0.55)
    b[a:z] = bytes(z - a)
    video = tmp_path / "glitch.mp4"
    video.write_bytes(bytes(b))
    job = wait_job(client, client.post("/analyses", json={"video_path": str(video)}).json())
    assert job["status"] == "done" and job["message"].startswith("damaged video, analysed past the damage"), job
    assert "partly analysed" not in job["message"]
    ends = [e["data"]["t"] for e in client.get(f"/matches/{job['match_id']}/events").json()
            if e["type"] == "shot_end"]
    # the scripted shots end every 40 decoded frames; the damage starts near frame 108 (3.6 s of 8 s)
    assert len(ends) >= 5 and ends[-1] > 7.0, ends
    assert "Damaged video" in client.get(job["report_url"]).text


# Malformed referee inputs: the API and `pyramid-monitor judge` refuse each with the same words (one validation,
# rules.inputs).
BAD_INPUTS = [
        ({"type": "foul", "clause": {"a": 1}}, "field 'clause' must be a string"),
        ({"type": "nominate", "ball": [1], "pocket": "rear_left"}, "field 'ball' must be a ball id"),
        ({"type": "nominate", "ball": "16", "pocket": "rear_left"}, "field 'ball' must be a ball id"),
        ({"type": "override", "shot": "x", "reason": "r"}, "field 'shot' must be a shot number"),
        ({"type": "override", "shot": 0, "reason": "r"}, "field 'shot' must be a shot number"),
        ({"type": "match", "players": "AB"}, "field 'players' must be two distinct names"),
        ({"type": "identify", "t": 3.0}, "needs field(s) ['balls']"),
        ({"type": "identify", "balls": {}}, "non-empty"),
        ({"type": "identify", "balls": ["7"]}, "non-empty {id: [x, y]}"),
        ({"type": "identify", "balls": {"17": [0, 0]}}, "unknown ball id '17'"),
        ({"type": "identify", "balls": {"7": [100]}}, "ball '7' needs [x, y] in mm"),
        ({"type": "identify", "balls": {"7": [5000, 0]}}, "off the bed of pyramid-12ft"),
        ({"type": "identify", "balls": {"7": [0, 0]}, "t": -1}, "field 't' must be video seconds"),
        ({"type": "nominate", "ball": "3", "t": "soon"}, "field 't' must be video seconds"),
        ({"type": "nominate", "ball": True}, "field 'ball' must be a ball id"),
        ({"type": "choose", "option": 3}, "unknown choose option"),
]


@pytest.mark.parametrize(("body", "needle"), BAD_INPUTS)
def test_bad_referee_inputs_name_the_field(client: httpx.Client, body: dict[str, Any], needle: str) -> None:
    m = client.post("/matches", json={"name": "inputs"}).json()
    r = client.post(f"/matches/{m['id']}/inputs", json=body)
    assert r.status_code == 422, r.text
    assert needle in json.dumps(r.json()["detail"])
    assert "line 0" not in json.dumps(r.json()["detail"])
    assert client.get(f"/matches/{m['id']}/inputs").json() == []


@pytest.mark.parametrize(("body", "needle"), BAD_INPUTS)
def test_judge_refuses_what_the_api_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: dict[str, Any],
                                            needle: str) -> None:
    from service.cli.main import main

    log = tmp_path / "log.jsonl"
    header = {"type": "match", "game": "russian71", "players": ["A", "B"]}
    log.write_text(json.dumps(header) + "\n" + json.dumps(body) + "\n")
    assert main(["judge", str(log)]) == 2
    err = capsys.readouterr().err
    assert needle in err and "line 2" in err, err


def test_judge_refuses_an_event_with_infinite_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from service.cli.main import main

    log = tmp_path / "log.jsonl"
    log.write_text('{"type": "shot_start", "t": 1e400, "frame": 1, "ball": "C"}\n')
    assert main(["judge", str(log)]) == 2
    assert "finite" in capsys.readouterr().err


def test_event_with_infinite_time_is_refused(client: httpx.Client) -> None:
    m = client.post("/matches", json={"name": "events"}).json()
    body = b'{"events": [{"type": "shot_start", "t": 1e400, "frame": 1, "ball": "C"}]}'
    r = client.post(f"/matches/{m['id']}/events", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422 and "finite" in r.json()["detail"], r.text


# --- identify: a statement of some balls' places --------------------------------------------------------
class RecordingPerception(ScriptedPerception):
    told: ClassVar[list[tuple[float, dict[str, tuple[float, float]]]]] = []  # the server runs in a thread

    def update(self, image: np.ndarray, frame: int, t: float) -> Any:
        self.t = t
        return super().update(image, frame, t)

    def set_positions(self, positions: dict[str, tuple[float, float]], id_conf: float = 1.0) -> None:
        RecordingPerception.told.append((self.t, positions))


def stages_with(perception: type[RecordingPerception]) -> Any:
    """A stage factory: the scripted calibration and detector around a fresh `perception`."""

    def factory(cfg: AnalyzeConfig, table: Table, image: np.ndarray, fps: float) -> Stages:
        base = scripted_stages(cfg, table, image, fps)
        return Stages(base.calibration, perception(), ScriptedDetector())

    return factory


def test_identify_is_stored_judged_as_nothing_and_reaches_vision(tmp_path: Path) -> None:
    srv = LiveServer(tmp_path / "data", stage_factory=stages_with(RecordingPerception)).start()
    RecordingPerception.told.clear()
    try:
        with httpx.Client(base_url=srv.url, timeout=20.0) as c:
            m = c.post("/matches", json={"name": "identify"}).json()
            r = c.post(f"/matches/{m['id']}/inputs",
                       json={"type": "identify", "t": 2.0, "balls": {"7": [700, 100], "3": [-300, 250]},
                             "reason": "balls 3 and 7 put back by hand"})
            assert r.status_code == 201, r.text
            assert r.json()["data"]["balls"] == {"7": [700, 100], "3": [-300, 250]}
            state = c.get(f"/matches/{m['id']}").json()["state"]
            assert state["error"] is None and state["inputs"] == 1
            job = c.post("/analyses", json={"video_path": str(write_video(tmp_path / "clip.mp4", 120)),
                                            "match_id": m["id"]}).json()
            job = wait_job(c, job)
            assert job["status"] == "done", job
            assert [(round(t, 3), p) for t, p in RecordingPerception.told] == \
                [(round(2.0 - 1 / 30, 3), {"7": (700.0, 100.0), "3": (-300.0, 250.0)})]
            verdicts = c.get(f"/matches/{m['id']}/verdicts").json()
            assert len(verdicts) == 3 and not any("identify" in json.dumps(v) for v in verdicts)
    finally:
        srv.stop()


class HeldPerception(RecordingPerception):
    """Records what it is told, and holds the analysis at frame HOLD_AT until the test lets it go on."""

    HOLD_AT: ClassVar[int] = 60
    reached: ClassVar[threading.Event] = threading.Event()
    go_on: ClassVar[threading.Event] = threading.Event()

    def update(self, image: np.ndarray, frame: int, t: float) -> Any:
        if frame == HeldPerception.HOLD_AT:
            HeldPerception.reached.set()
            assert HeldPerception.go_on.wait(30)
        return super().update(image, frame, t)


def test_identify_posted_during_an_analysis_reaches_vision_while_it_runs(tmp_path: Path) -> None:
    srv = LiveServer(tmp_path / "data", stage_factory=stages_with(HeldPerception)).start()
    RecordingPerception.told.clear()
    HeldPerception.reached.clear()
    HeldPerception.go_on.clear()
    try:
        with httpx.Client(base_url=srv.url, timeout=20.0) as c:
            job = c.post("/analyses", json={"video_path": str(write_video(tmp_path / "clip.mp4", 120))}).json()
            assert HeldPerception.reached.wait(30)
            r = c.post(f"/matches/{job['match_id']}/inputs",  # no t: the balls are there now
                       json={"type": "identify", "balls": {"7": [700, 100]}, "reason": "ball 7 put back by hand"})
            assert r.status_code == 201, r.text
            time.sleep(jobs.POLL_INPUTS_S + 0.1)  # the analysis looks for new inputs at this interval
            HeldPerception.go_on.set()
            job = wait_job(c, job)
            assert job["status"] == "done", job
            # told once, at the frame after the one held (the first look after the posting)
            held_t = HeldPerception.HOLD_AT / 30
            told = [(round(t, 3), p) for t, p in RecordingPerception.told]
            assert told == [(round(held_t, 3), {"7": (700.0, 100.0)})]
    finally:
        HeldPerception.go_on.set()
        srv.stop()


def test_analysis_shows_the_game_and_table_it_runs_with(client: httpx.Client, videos: dict[str, Path]) -> None:
    r = client.post("/analyses", json={"video_path": str(videos["clip"]), "game": "free", "table": "pyramid-10ft"})
    assert r.status_code == 202, r.text
    assert (r.json()["game"], r.json()["table"]) == ("free", "pyramid-10ft")
    job = wait_job(client, r.json())
    assert (job["status"], job["game"], job["table"]) == ("done", "free", "pyramid-10ft"), job


def test_a_video_with_no_table_in_view_fails_saying_what_to_do_here(tmp_path: Path) -> None:
    """The real calibration finds no table: the job fails saying so and what a service user can do (the CLI's
    --calibration advice alone named an option the API does not have)."""
    from service.pipeline.run import default_stages

    wall = tmp_path / "wall.mp4"
    with av.open(str(wall), "w") as c:  # a plain wall with a door, a little sensor noise: no table anywhere
        s = c.add_stream("libx264", rate=30)
        s.width, s.height, s.pix_fmt = 320, 180, "yuv420p"
        rng = np.random.default_rng(2)
        for _ in range(30):
            img = np.full((180, 320, 3), (150, 160, 170), np.uint8)
            cv2.rectangle(img, (60, 40), (140, 150), (60, 40, 30), -1)
            img = np.clip(img.astype(np.int16) + rng.integers(-5, 6, img.shape), 0, 255).astype(np.uint8)
            for p in s.encode(av.VideoFrame.from_ndarray(img, format="bgr24")):
                c.mux(p)
        for p in s.encode(None):
            c.mux(p)
    srv = LiveServer(tmp_path / "data", stage_factory=default_stages).start()
    try:
        with httpx.Client(base_url=srv.url, timeout=20) as c:
            job = wait_job(c, c.post("/analyses", json={"video_path": str(wall)}).json())
            assert job["status"] == "failed", job
            assert job["message"].startswith("no table found in the first frame of the video"), job
            assert "whole table" in job["message"] and "pyramid-monitor analyze VIDEO --calibration" in job["message"]
            assert c.get(f"/matches/{job['match_id']}/events").json() == []
    finally:
        srv.stop()
