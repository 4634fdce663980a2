"""One analysis runs once per process: the heartbeat's take-over and a submit racing it queue one run."""

from __future__ import annotations

import threading
from pathlib import Path

from service.api.jobs import JobRunner
from service.api.live import LiveHub
from service.api.settings import Settings


def test_an_analysis_queued_twice_while_it_runs_runs_once(tmp_path: Path) -> None:
    runner = JobRunner(Settings(data_dir=tmp_path, analysis_workers=2), LiveHub())
    started: list[int] = []
    release = threading.Event()

    def run(analysis_id: int) -> None:
        started.append(analysis_id)
        release.wait(10)

    runner._run = run  # type: ignore[method-assign]
    try:
        assert runner._queue(7)
        assert not runner._queue(7)  # the first run is still going: nothing more queued
        release.set()
        runner.futures[7].result(timeout=10)
        assert started == [7]
        assert runner._queue(7)  # finished: a new run may be queued (a resume)
        runner.futures[7].result(timeout=10)
        assert started == [7, 7]
    finally:
        release.set()
        runner._pool.shutdown(wait=True)
