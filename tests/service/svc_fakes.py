"""Helpers for the service tests: tiny videos, scripted stages standing in for vision and the engine, a live server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

import av
import cv2
import httpx
import numpy as np

from calibration.camera import CameraModel
from calibration.table import Table
from rules.events import Event, EventType
from service import judging
from service.pipeline.components import CalibrationView
from service.pipeline.run import AnalyzeConfig, Stages
from vision.types import BallState, BallStates

FPS = 30
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
SIZE = (320, 180)


def write_video(path: Path, n: int, fps: int = FPS, skip: tuple[int, ...] = ()) -> Path:
    """A small H.264 clip of a ball rolling across green cloth; `skip` leaves timestamp gaps (drops)."""
    w, h = SIZE
    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=fps)
        s.width, s.height, s.pix_fmt = w, h, "yuv420p"
        pts = 0
        for i in range(n):
            if i in skip:
                pts += 1
            img = np.full((h, w, 3), (30, 110, 30), np.uint8)
            cv2.circle(img, (10 + (2 * i) % (w - 20), h // 2), 6, (240, 240, 240), -1)
            f = av.VideoFrame.from_ndarray(img, format="bgr24")
            f.pts = pts
            pts += 1
            for p in s.encode(f):
                c.mux(p)
        for p in s.encode(None):
            c.mux(p)
    return path


class ScriptedPerception:
    """Stands in for vision: a cue ball moving along x, one object ball at rest (no image reading)."""

    def update(self, image: np.ndarray, frame: int, t: float) -> BallStates:
        st = BallStates.blank(frame, t, ("C", "1"))
        st.xy_mm[:] = [[-1000.0 + frame * 5.0, 0.0], [500.0, 0.0]]
        st.state[:] = BallState.MOVING
        return st


class PausingPerception(ScriptedPerception):
    """ScriptedPerception that, when $PYRAMID_TEST_PAUSE_AT names a frame, writes $PYRAMID_TEST_PAUSED and
    waits there forever: a server process stopped mid-analysis at a known frame, for a test to kill.
    Read from the environment at each frame, so a pickled copy restored after a restart does not pause."""

    def update(self, image: np.ndarray, frame: int, t: float) -> BallStates:
        at = os.environ.get("PYRAMID_TEST_PAUSE_AT")
        if at is not None and frame >= int(at):
            Path(os.environ["PYRAMID_TEST_PAUSED"]).write_text(str(frame))
            while True:
                time.sleep(0.05)
        return super().update(image, frame, t)


class GatedPerception(ScriptedPerception):
    """ScriptedPerception that holds at frame `hold_at` until `gate` is set: a worker stalled at a known frame
    in this process. The class attributes are not pickled: a copy restored by another process runs through."""

    hold_at: ClassVar[int | None] = None
    reached: ClassVar[threading.Event] = threading.Event()
    gate: ClassVar[threading.Event] = threading.Event()

    def update(self, image: np.ndarray, frame: int, t: float) -> BallStates:
        if frame == GatedPerception.hold_at:
            GatedPerception.reached.set()
            GatedPerception.gate.wait(120)
        return super().update(image, frame, t)


class ScriptedDetector:
    """A shot every 40 frames: start at 5, contact at 15, end at 30 (by frame number, so it is resumable)."""

    def update(self, states: BallStates) -> list[Event]:
        f, t = states.frame, states.t
        phase = f % 40
        if phase == 5:
            return [Event(EventType.SHOT_START, t, f, ball="C", positions={"C": (-1000.0, 0.0), "1": (500.0, 0.0)})]
        if phase == 15:
            return [Event(EventType.BALL_CONTACT, t, f, balls=("C", "1"))]
        if phase == 30:
            return [Event(EventType.SHOT_END, t, f)]
        return []

    def flush(self) -> list[Event]:
        return []


def scripted_stages(cfg: AnalyzeConfig, table: Table, image: np.ndarray, fps: float) -> Stages:
    cam = CameraModel.look_at((0, 0, 3000), (0, 0, 0), (1, 0, 0), 100, *SIZE)
    return Stages(CalibrationView(cam, table, "scripted"), ScriptedPerception(), ScriptedDetector())


def pausing_stages(cfg: AnalyzeConfig, table: Table, image: np.ndarray, fps: float) -> Stages:
    cam = CameraModel.look_at((0, 0, 3000), (0, 0, 0), (1, 0, 0), 100, *SIZE)
    return Stages(CalibrationView(cam, table, "scripted"), PausingPerception(), ScriptedDetector())


def gated_stages(cfg: AnalyzeConfig, table: Table, image: np.ndarray, fps: float) -> Stages:
    cam = CameraModel.look_at((0, 0, 3000), (0, 0, 0), (1, 0, 0), 100, *SIZE)
    return Stages(CalibrationView(cam, table, "scripted"), GatedPerception(), ScriptedDetector())


def counting_judge(log: list[dict[str, Any]], game: str) -> judging.MatchFold:
    """Stands in for the engine: every second shot a foul; A scores one per legal shot."""
    verdicts = []
    score = 0
    for i, _ in enumerate(d for d in log if d.get("type") == "shot_end"):
        foul = i % 2 == 1
        score += 0 if foul else 1
        verdicts.append(judging.VerdictView(i + 1, "foul" if foul else "legal", ("1.20",) if foul else (),
                                            f"shot {i + 1}", score={"A": score, "B": 0}))
    return judging.MatchFold(game, tuple(verdicts), {"A": score, "B": 0}, "A", ())



# --- a real server ----------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """uvicorn serving the app in a thread on 127.0.0.1:<free port>, against a SQLite file in tmp_path."""

    def __init__(self, data_dir: Path, stage_factory: Any = None, port: int | None = None) -> None:
        import uvicorn

        from service.api.app import create_app
        from service.api.settings import Settings

        self.data_dir = data_dir
        self.settings = Settings(data_dir=data_dir)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = app = create_app(self.settings, stage_factory=stage_factory or scripted_stages)
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                                    timeout_graceful_shutdown=1))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)




def counting_judge_all(log: list[dict[str, Any]], game: str) -> judging.MatchFold:
    """Like `counting_judge`, but judges every shot that started, ended or not (as the engine does)."""
    n = sum(1 for d in log if d.get("type") == "shot_start")
    verdicts = tuple(judging.VerdictView(i + 1, "legal", (), f"shot {i + 1}", score={"A": i + 1, "B": 0})
                     for i in range(n))
    return judging.MatchFold(game, verdicts, {"A": n, "B": 0}, "A", ())


# --- a real server process --------------------------------------------------------------------------
SCRIPT = Path(__file__).with_name("serve_scripted.py")


class ServerProcess:
    def __init__(self, data: Path, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = data.parent / f"server-{self.port}.log"
        with self.log.open("w") as log:  # a file, not a pipe: nothing blocks when nobody reads
            self.proc = subprocess.Popen([sys.executable, str(SCRIPT), str(data), str(self.port)],
                                         env={**os.environ, **(env or {})}, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/health", timeout=1.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError("server did not start")
            time.sleep(0.1)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()  # SIGKILL: no shutdown hook runs, as in a crash or a power cut
        self.proc.wait(timeout=10)


def wait_until(pred: Any, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)
