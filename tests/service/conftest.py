"""Fixtures for the service tests: tiny videos, a real uvicorn server, a real browser."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from svc_fakes import CHROMIUM, LiveServer, write_video


@pytest.fixture
def clip(tmp_path: Path) -> Path:
    return write_video(tmp_path / "clip.mp4", 120)


@pytest.fixture
def make_clip(tmp_path: Path) -> Callable[..., Path]:
    def make(name: str, n: int, skip: tuple[int, ...] = ()) -> Path:
        return write_video(tmp_path / name, n, skip=skip)

    return make


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    srv = LiveServer(tmp_path / "data").start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server for a module's many small request tests (each test makes its own match)."""
    srv = LiveServer(tmp_path_factory.mktemp("shared") / "data").start()
    yield srv
    srv.stop()


# --- a real browser ---------------------------------------------------------------------------------
@pytest.fixture
def chromium_path() -> str:
    path = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: .ci/system-deps.sh should have installed it")
        pytest.skip("no chromium installed (apt-get install chromium)")
    return path
