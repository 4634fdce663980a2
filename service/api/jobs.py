"""Analyses as background jobs: a worker thread runs the pipeline and writes into the match's log.

Each ball event is appended to the log as it comes (and so reaches the live feed at once); the match is
re-folded at each shot end. The job's status, progress and message live in the `analyses` table.

Every line a job appends is recorded against the job (`analysis_log`), in the same transaction. A job
interrupted by a restart (or a crash) is resumed from its checkpoint (`service.pipeline.checkpoint`): the
pipeline re-analyses from the last shot boundary, and the events it makes again that the log already holds
are not appended a second time; the stored lines are never removed.
"""

from __future__ import annotations

import contextlib
import threading
import time
import traceback
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from rules.events import Event, EventType
from service.api import db, leases, matchlog
from service.api.live import LiveHub
from service.api.settings import Settings
from service.pipeline import checkpoint as ck
from service.pipeline import identity
from service.pipeline.components import CalibrationFailed
from service.pipeline.run import AnalyzeConfig, Hooks, StageFactory, analyze, default_stages

# Inputs of the match log that state ball positions: the analysis hands them to vision (identities) from the start.
POSITION_INPUTS = ("state", "identify")
# Inputs that tell vision a ball was taken off by hand: handed over as news (at their t), never put in the run's
# own log, where one without its foul and choice around it would not fold.
VISION_NEWS = (*POSITION_INPUTS, *identity.TAKE_OFF_INPUTS)


class Stopped(Exception):
    """The service is shutting down: the analysis stops at the next frame and resumes at the next start."""


class LeaseLost(Exception):
    """This process's lease of the analysis lapsed and another server took it over: stop, touch nothing."""


# Referee inputs posted while an analysis runs are read this often (wall clock): a statement of where balls
# are reaches vision within this time of its posting, at the cost of one indexed query per interval. The
# worker checks its lease's fence as often, so one whose lease was taken stops within this time even when it
# has nothing to write.
POLL_INPUTS_S = 0.5
# A worker that took an analysis over while the old worker still holds its output folder looks again this
# often (wall clock): the old one stops at its next write or fence check (POLL_INPUTS_S).
FOLDER_POLL_S = 0.2


# A re-made event this close in video time to a stored one of the same kind is that event: a tracker
# restarted at the checkpoint (after an upgrade) times a contact or a stop a frame or two apart (seen: 1-2
# frames at 30 fps on frame_free); 0.1 s is also the event detector's look-ahead, under the 0.15 s the
# ground-truth comparison allows.
SAME_EVENT_S = 0.1


def _key(d: dict[str, Any]) -> tuple[Any, ...]:
    """What an event is about, apart from its timing and measurements."""
    return (d.get("type"), d.get("ball"), tuple(d.get("balls") or ()), d.get("cushion"), d.get("pocket"),
            d.get("line"), d.get("to"))


class Overlap:
    """The events an interrupted run stored for the video after its checkpoint, which the resumed run makes
    again: each re-made event that matches one is not written twice; one that does not, within the time the
    stored run covered, is not written either (the log keeps what the live feed already showed); later ones
    and late pots (emitted after the fact) are new."""

    def __init__(self, stored: list[dict[str, Any]]) -> None:
        self.pending = [(_key(d), float(d.get("t", 0.0))) for d in stored]
        self.t_last = max((float(d.get("t", 0.0)) for d in stored), default=float("-inf"))
        self.matched = self.differed = 0

    def already_stored(self, d: dict[str, Any]) -> bool:
        k, t = _key(d), float(d.get("t", 0.0))
        for i, (pk, pt) in enumerate(self.pending):
            if pk == k and abs(pt - t) <= SAME_EVENT_S:
                del self.pending[i]
                self.matched += 1
                return True
        if t <= self.t_last and not d.get("late"):
            self.differed += 1
            return True
        return False

    def summary(self) -> str:
        out = f"{self.matched} events after the checkpoint were already in the log and were not written again"
        if self.differed or self.pending:
            out += (f"; the re-analysis differed there: {self.differed} events it made were not written, "
                    f"{len(self.pending)} stored ones it did not make were kept (the report shows the re-analysis)")
        return out


class JobRunner:
    """Runs analyses in worker threads. Each one is leased (service.api.db): this process renews the leases of
    the analyses it holds from a heartbeat thread, and takes over unfinished ones whose lease lapsed, so
    servers sharing a database never run the same analysis twice."""

    def __init__(self, settings: Settings, hub: LiveHub, stage_factory: StageFactory = default_stages) -> None:
        self.settings, self.hub, self.stage_factory = settings, hub, stage_factory
        self._pool = ThreadPoolExecutor(max_workers=max(1, settings.analysis_workers), thread_name_prefix="analysis")
        self._stop = threading.Event()
        self.futures: dict[int, Future[None]] = {}
        self.me = leases.ServerId.mine()
        self.owner = str(self.me)
        self._lock = threading.Lock()
        self._queue_lock = threading.Lock()  # one check-and-submit at a time: submit and the heartbeat race
        self._held: set[int] = set()
        self._lost: set[int] = set()
        self._beat = threading.Thread(target=self._heartbeat, name="analysis-leases", daemon=True)

    def _claim(self, conn: Any, analysis_id: int, dead_owner: str | None = None) -> db.Fence | None:
        fence = db.claim_analysis(conn, analysis_id=analysis_id, owner=self.owner, now=time.time(),
                                  lease_s=self.settings.lease_s, dead_owner=dead_owner)
        if fence is not None:
            with self._lock:
                self._held.add(analysis_id)
                self._lost.discard(analysis_id)
        return fence

    def submit(self, analysis_id: int) -> bool:
        """Lease the analysis and queue it; False (nothing queued) when another live server holds it."""
        conn = db.connect(self.settings.database)
        try:
            if self._claim(conn, analysis_id) is None:
                return False
        finally:
            conn.close()
        self._queue(analysis_id)
        return True

    def resume_failed(self, analysis_id: int, message: str) -> bool:
        """Queue a failed analysis again under this process's lease, in one conditional transition; False
        (nothing queued) when it is no longer failed: another request or server resumed it first."""
        conn = db.connect(self.settings.database)
        try:
            fence = db.requeue_failed(conn, analysis_id=analysis_id, owner=self.owner, now=time.time(),
                                      lease_s=self.settings.lease_s, message=message)
        finally:
            conn.close()
        if fence is None:
            return False
        with self._lock:
            self._held.add(analysis_id)
            self._lost.discard(analysis_id)
        if not self._queue(analysis_id):  # the failed run's worker is still ending here: queue after it
            def again(_: Future[None]) -> None:
                with contextlib.suppress(RuntimeError):  # the pool shut down meanwhile: resumed at the next start
                    self._queue(analysis_id)

            self.futures[analysis_id].add_done_callback(again)
        return True

    def _queue(self, analysis_id: int) -> bool:
        """Queue a run unless one of this analysis is already queued or running in this process."""
        with self._queue_lock:
            running = self.futures.get(analysis_id)
            if running is not None and not running.done():
                return False
            self.futures[analysis_id] = self._pool.submit(self._run, analysis_id)
            return True

    def resume_orphans(self, message: str) -> list[int]:
        """Lease and queue the unfinished analyses no live server holds (its server stopped or died)."""
        conn = db.connect(self.settings.database)
        taken = []
        try:
            now = time.time()
            orphans: list[tuple[int, str | None]] = [(a.id, None) for a in db.unfinished_analyses(conn, now=now)]
            orphans += [(i, o) for i, o in db.leased_analyses(conn, now=now)
                        if o != self.owner and leases.seen_dead(o, self.me)]
            for analysis_id, dead in sorted(orphans, key=lambda x: x[0]):
                if analysis_id in self.futures and not self.futures[analysis_id].done():
                    continue
                fence = self._claim(conn, analysis_id, dead)
                if fence is None:
                    continue
                try:
                    db.update_analysis(conn, analysis_id=analysis_id, status=db.AnalysisStatus.QUEUED, message=message,
                                       fence=fence)
                except db.Fenced:  # another server took it in between: it is that server's now
                    continue
                self._queue(analysis_id)
                taken.append(analysis_id)
        finally:
            conn.close()
        return taken

    def fail_orphans(self) -> None:
        """At start-up with resuming off: the unfinished analyses no live server holds are marked failed."""
        conn = db.connect(self.settings.database)
        try:
            now = time.time()
            for i, o in db.leased_analyses(conn, now=now):
                if o != self.owner and leases.seen_dead(o, self.me):
                    db.release_analysis(conn, analysis_id=i, owner=o)
            db.fail_unfinished_analyses(conn, now=now)
        finally:
            conn.close()

    def start_heartbeat(self) -> None:
        self._beat.start()

    def _heartbeat(self) -> None:
        """Renew this process's leases every lease_s / 6; take over analyses whose server stopped renewing."""
        while not self._stop.wait(self.settings.lease_s / 6):
            try:
                conn = db.connect(self.settings.database)
                try:
                    with self._lock:
                        ids = sorted(self._held)
                    held = db.renew_leases(conn, owner=self.owner, ids=ids, now=time.time(),
                                           lease_s=self.settings.lease_s)
                    with self._lock:
                        self._lost |= set(ids) - held
                        self._held &= held
                    if self.settings.resume_analyses and not self._stop.is_set():
                        self.resume_orphans("its server stopped (no lease renewed); resuming from its last checkpoint")
                finally:
                    conn.close()
            except Exception:  # a locked or busy database: try again at the next beat
                traceback.print_exc()

    def shutdown(self, wait_s: float = 10.0) -> None:
        """Stop running analyses at their next frame (they stay queued, to resume at the next start) and
        drop queued ones; wait up to `wait_s` for the workers to record that (a frame takes milliseconds,
        but the first one of a run waits for the calibration). Each worker that stopped gave up its lease, and
        so are the leases of the dropped ones, so the next server resumes them at once. A worker still running
        after the wait keeps its lease: it lapses lease_s after the last renewal (the heartbeat has stopped),
        and only then may another server take the analysis (and fence this worker out)."""
        self._stop.set()
        self._pool.shutdown(wait=False, cancel_futures=True)
        wait([f for f in self.futures.values() if not f.done()], timeout=wait_s)
        with self._queue_lock:
            running = {i for i, f in self.futures.items() if not f.done()}
        conn = db.connect(self.settings.database)
        try:
            with self._lock:
                ids = sorted(self._held - running)
            for i in ids:
                db.release_analysis(conn, analysis_id=i, owner=self.owner)
        finally:
            conn.close()

    def _take_folder(self, conn: Any, fence: db.Fence, out: Path) -> leases.FolderLock:
        """Lock the analysis's output folder, waiting (status `waiting`, saying for whom and until when) while a
        worker whose lease this process took over still holds it: it stops at its next write or fence check.
        Raises leases.FolderBusy after settings.folder_wait_s (the analysis then fails, saying why; nothing of
        it is touched), or Stopped / LeaseLost / db.Fenced."""
        lock = leases.FolderLock(out)
        deadline: float | None = None
        while not lock.try_take(self.owner):
            try:
                if self._stop.is_set():
                    raise Stopped
                if fence.analysis_id in self._lost:
                    raise LeaseLost
                db.check_fence(conn, fence)
                holder = lock.holder() or "a process that did not name itself"
                if deadline is None:
                    deadline = time.monotonic() + self.settings.folder_wait_s
                    until = time.strftime("%H:%M:%S UTC", time.gmtime(time.time() + self.settings.folder_wait_s))
                    db.update_analysis(conn, analysis_id=fence.analysis_id, fence=fence,
                                       status=db.AnalysisStatus.WAITING,
                                       message=f"waiting for the previous worker ({holder}) to let go of the output "
                                               f"folder {out}; gives up at {until}")
                elif time.monotonic() > deadline:
                    raise leases.FolderBusy(
                        f"the output folder {out} is still locked by another process ({holder}) after "
                        f"{self.settings.folder_wait_s:g} s: the previous server's worker is alive but not "
                        f"stopping (stalled or suspended?). Nothing was written and nothing is lost: the log "
                        f"lines stored so far and the folder's files are kept. Stop that process, then "
                        f"POST /analyses/{fence.analysis_id}/resume")
            except BaseException:
                lock.close()
                raise
            time.sleep(FOLDER_POLL_S)
        return lock

    def _record(self, conn: Any, fence: db.Fence | None, status: db.AnalysisStatus, message: str) -> None:
        """The job's end, written only while this worker still holds the lease it ran under."""
        if fence is None:
            return
        with contextlib.suppress(db.Fenced):  # taken over meanwhile: the new holder records the outcome
            db.update_analysis(conn, analysis_id=fence.analysis_id, status=status, message=message, fence=fence)

    def _run(self, analysis_id: int) -> None:
        conn = db.connect(self.settings.database)
        fence: db.Fence | None = None
        folder: leases.FolderLock | None = None
        try:
            fence = self._claim(conn, analysis_id)
            if fence is None:  # taken over while it waited in the queue
                return
            job = db.get_analysis(conn, analysis_id=analysis_id)
            assert job is not None
            match = db.get_match(conn, match_id=job.match_id)
            assert match is not None
            folder = self._take_folder(conn, fence, Path(job.out_dir))
            db.update_analysis(conn, analysis_id=analysis_id, status=db.AnalysisStatus.RUNNING,
                               message=job.message or "started", fence=fence)
            self._analyze(conn, job, match, fence)
        except (LeaseLost, db.Fenced):
            fence = None  # another server holds the analysis: nothing of it is ours to write or release
        except Stopped:
            self._record(conn, fence, db.AnalysisStatus.QUEUED,
                         "stopped by a service shutdown; it resumes from its checkpoint at the next start")
        except CalibrationFailed as exc:  # the CLI's advice (--calibration) is no option here
            self._record(conn, fence, db.AnalysisStatus.FAILED,
                         f"no table found in the first frame of the video, so nothing was analysed "
                         f"({exc.__cause__ or exc}). The service finds the table by itself in the first frame: "
                         "give a video whose first frame shows the whole table, or analyse this one with "
                         "`pyramid-monitor analyze VIDEO --calibration FILE`")
        except (ValueError, OSError, leases.FolderBusy) as exc:
            self._record(conn, fence, db.AnalysisStatus.FAILED, str(exc))
        except Exception as exc:  # a worker must never die silently: record what happened
            self._record(conn, fence, db.AnalysisStatus.FAILED,
                         f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}")
        finally:
            if folder is not None:
                folder.close()
            if fence is not None:
                db.release_analysis(conn, analysis_id=analysis_id, owner=self.owner, fence=fence)
            with self._lock:
                self._held.discard(analysis_id)
            conn.close()

    def _analyze(self, conn: Any, job: db.AnalysisRow, match: db.MatchRow, fence: db.Fence) -> None:
        last, checked = [0.0], [time.monotonic()]
        out = Path(job.out_dir)
        if not Path(job.video).is_file():  # checked before the pipeline, which would start the outputs afresh
            raise ValueError(f"the video is no longer on the server: {job.video}")
        own = db.read_analysis_log(conn, analysis_id=job.id)
        stored = [r.data for r in own if r.kind is db.LogKind.EVENT]
        header_done = any(r.kind is db.LogKind.INPUT for r in own)
        prev = ck.load(out)
        # The run restarts at its checkpoint (or at the start): the events stored after that are made again.
        overlap = Overlap(stored[prev.events_lines if prev is not None and not prev.complete else 0:])
        notes: list[str] = []
        resumed_run = bool(stored) or header_done

        def on_event(e: Event) -> None:
            d = e.to_dict()
            if overlap.already_stored(d):  # made again after a resume: the log has it already
                return
            matchlog.append(conn, self.hub, match, [(db.LogKind.EVENT, d)],
                            fold_now=e.type is EventType.SHOT_END, analysis_id=job.id, fence=fence)

        def on_progress(done: int, total: int, t: float) -> None:
            if self._stop.is_set():
                raise Stopped
            if job.id in self._lost:
                raise LeaseLost
            now = time.monotonic()
            if now - checked[0] >= POLL_INPUTS_S:  # a lease taken over while this worker had nothing to write
                checked[0] = now
                db.check_fence(conn, fence)
            if now - last[0] >= 1.0:
                last[0] = now
                frac = done / total if total else 0.0
                db.update_analysis(conn, analysis_id=job.id, progress=min(frac, 1.0), fence=fence,
                                   message=f"{t:.1f} s of video" + (" (resumed after an interruption)" if resumed_run
                                                                    else ""))
                self.hub.publish(match.id, {"kind": "progress", "seq": 0,
                                            "data": {"analysis": job.id, "progress": frac, "t": t}})

        def on_input(line: dict[str, Any]) -> None:
            """A line the run adds mid-way (the camera moved): stored once, even when a resume sees it again."""
            if line.get("type") == "camera" and any(r.data.get("type") == "camera" for r in own):
                return
            rows = matchlog.append(conn, self.hub, match, [(db.LogKind.INPUT, line)], analysis_id=job.id, fence=fence)
            own_seqs.update(r.seq for r in rows)

        def on_header(lines: list[dict[str, Any]]) -> None:
            if header_done:  # written by the interrupted run
                return
            # The run's own match header and opening state (break, or the position it saw) open the log.
            for d in lines:
                if d.get("type") == "match":
                    d["players"] = list(match.players)
            rows = matchlog.append(conn, self.hub, match, [(db.LogKind.INPUT, d) for d in lines], fold_now=False,
                                   analysis_id=job.id, fence=fence)
            own_seqs.update(r.seq for r in rows)

        seen, polled = [db.last_seq(conn, match_id=match.id)], [float("-inf")]
        # Balls taken off before this run started (or before the resume point): told at the first look.
        news = [r.data for r in db.read_log(conn, match_id=match.id, kind=db.LogKind.INPUT, limit=100_000)
                if r.data.get("type") in identity.TAKE_OFF_INPUTS and r.seq <= seen[0]]

        def new_inputs() -> list[dict[str, Any]]:
            """What the referee told vision since the last look (at most every POLL_INPUTS_S): positions,
            balls taken off."""
            now = time.monotonic()
            if now - polled[0] < POLL_INPUTS_S:
                return []
            polled[0] = now
            rows = db.read_log(conn, match_id=match.id, kind=db.LogKind.INPUT, after=seen[0])
            if rows:
                seen[0] = rows[-1].seq
            out = news + [r.data for r in rows if r.data.get("type") in VISION_NEWS and r.seq not in own_seqs]
            news.clear()
            return out

        # Positions the referee stated in the match log before the run (state / identify lines) name balls.
        own_seqs = {r.seq for r in own}
        stated = [r.data for r in db.read_log(conn, match_id=match.id, kind=db.LogKind.INPUT)
                  if r.data.get("type") in POSITION_INPUTS and r.seq not in own_seqs]
        cfg = AnalyzeConfig(video=Path(job.video), out=out, table=match.table_spec, game=match.game,
                            inputs=stated, resume=True, checkpoint_every_s=self.settings.checkpoint_every_s)
        hooks = Hooks(on_event=on_event, on_progress=on_progress, on_header=on_header, on_note=notes.append,
                      new_inputs=new_inputs, on_input=on_input)
        result = analyze(cfg, hooks, self.stage_factory)
        if result.read.error and result.frames == 0 and result.events == 0:
            raise ValueError(f"no frame of the video could be decoded: {result.read.error}")
        fold = matchlog.refold(conn, match, fence)
        matchlog.publish_fold(self.hub, match, fold, db.last_seq(conn, match_id=match.id))
        db.set_report(conn, match_id=match.id, report_path=str(out / "report.html"), fence=fence)
        resumed = [n for n in notes if n.startswith("resuming at frame")]
        msg = "; ".join(n for n in result.notes[-3:] if n not in resumed) or "done"
        if result.read.error:
            msg = f"partly analysed: the video could be read only up to an error ({result.read.error})"
        if result.read.damaged and not result.read.error:
            msg = f"damaged video, analysed past the damage: {'; '.join(result.read.damaged)}; {msg}"
        if result.camera is not None:
            msg = f"degraded: {result.camera.get('why')}; the verdicts from then on are flagged for review; {msg}"
        if resumed_run:
            said = resumed[0] if resumed else "no checkpoint yet: analysed again from the start"
            msg = f"resumed after an interruption ({said}); {overlap.summary()}; {msg}"
        db.update_analysis(conn, analysis_id=job.id, status=db.AnalysisStatus.DONE, progress=1.0, message=msg,
                           fence=fence)
