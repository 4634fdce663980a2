"""Analyses as background jobs: a worker thread runs the pipeline and writes into the match's log.

Each ball event is appended to the log as it comes (and so reaches the live feed at once); the match is
re-folded at each shot end. The job's status, progress and message live in the `analyses` table.
"""

from __future__ import annotations

import time
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from rules.events import Event, EventType
from service.api import db, matchlog
from service.api.live import LiveHub
from service.api.settings import Settings
from service.pipeline.run import AnalyzeConfig, Hooks, StageFactory, analyze, default_stages


class JobRunner:
    def __init__(self, settings: Settings, hub: LiveHub, stage_factory: StageFactory = default_stages) -> None:
        self.settings, self.hub, self.stage_factory = settings, hub, stage_factory
        self._pool = ThreadPoolExecutor(max_workers=max(1, settings.analysis_workers), thread_name_prefix="analysis")
        self.futures: dict[int, Future[None]] = {}

    def submit(self, analysis_id: int) -> None:
        self.futures[analysis_id] = self._pool.submit(self._run, analysis_id)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _run(self, analysis_id: int) -> None:
        conn = db.connect(self.settings.database)
        try:
            job = db.get_analysis(conn, analysis_id=analysis_id)
            assert job is not None
            match = db.get_match(conn, match_id=job.match_id)
            assert match is not None
            db.update_analysis(conn, analysis_id=analysis_id, status=db.AnalysisStatus.RUNNING, message="started")
            self._analyze(conn, job, match)
        except (ValueError, OSError) as exc:
            db.update_analysis(conn, analysis_id=analysis_id, status=db.AnalysisStatus.FAILED, message=str(exc))
        except Exception as exc:  # a worker must never die silently: record what happened
            msg = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"
            db.update_analysis(conn, analysis_id=analysis_id, status=db.AnalysisStatus.FAILED, message=msg)
        finally:
            conn.close()

    def _analyze(self, conn: Any, job: db.AnalysisRow, match: db.MatchRow) -> None:
        last = [0.0]

        def on_event(e: Event) -> None:
            matchlog.append(conn, self.hub, match, [(db.LogKind.EVENT, e.to_dict())],
                            fold_now=e.type is EventType.SHOT_END)

        def on_progress(done: int, total: int, t: float) -> None:
            now = time.monotonic()
            if now - last[0] >= 1.0:
                last[0] = now
                frac = done / total if total else 0.0
                db.update_analysis(conn, analysis_id=job.id, progress=min(frac, 1.0), message=f"{t:.1f} s of video")
                self.hub.publish(match.id, {"kind": "progress", "seq": 0,
                                            "data": {"analysis": job.id, "progress": frac, "t": t}})

        def on_header(lines: list[dict[str, Any]]) -> None:
            # The run's own match header and opening state (break, or the position it saw) open the log.
            for d in lines:
                if d.get("type") == "match":
                    d["players"] = list(match.players)
            matchlog.append(conn, self.hub, match, [(db.LogKind.INPUT, d) for d in lines], fold_now=False)

        cfg = AnalyzeConfig(video=Path(job.video), out=Path(job.out_dir), table=match.table_spec, game=match.game)
        hooks = Hooks(on_event=on_event, on_progress=on_progress, on_header=on_header)
        result = analyze(cfg, hooks, self.stage_factory)
        matchlog.publish_fold(self.hub, match, matchlog.refold(conn, match), db.last_seq(conn, match_id=match.id))
        db.set_report(conn, match_id=match.id, report_path=str(Path(job.out_dir) / "report.html"))
        msg = "; ".join(result.notes[-3:]) or "done"
        if result.read.error:
            msg = f"video read up to an error: {result.read.error}"
        db.update_analysis(conn, analysis_id=job.id, status=db.AnalysisStatus.DONE, progress=1.0, message=msg)
