"""SQLite storage: the schema and every query the service runs (routes hold none).

A match's log (ball events and referee inputs, in arrival order) is append-only: an override is a new
line, never an edit. Verdicts and the match state are a cache of the fold over the log, rewritten after
each fold; they can always be rebuilt from the log.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    game TEXT NOT NULL,
    table_spec TEXT NOT NULL,
    players TEXT NOT NULL,
    state TEXT,
    report_path TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS log (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (match_id, seq)
);
CREATE TABLE IF NOT EXISTS verdicts (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    shot INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (match_id, shot)
);
CREATE TABLE IF NOT EXISTS analyses (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id INTEGER NOT NULL REFERENCES matches(id),
    video TEXT NOT NULL,
    out_dir TEXT NOT NULL,
    status TEXT NOT NULL,
    progress REAL NOT NULL DEFAULT 0,
    message TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS analysis_log (
    analysis_id INTEGER NOT NULL REFERENCES analyses(id),
    match_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (analysis_id, seq)
);
"""


class LogKind(StrEnum):
    EVENT = "event"
    INPUT = "input"


class AnalysisStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    WAITING = "waiting"  # taken over, waiting for the old worker to let go of the output folder
    DONE = "done"
    FAILED = "failed"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def connect(path: Path) -> sqlite3.Connection:
    """A connection with the schema in place; WAL so the live feed reads while an analysis writes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=30.0, check_same_thread=False, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.executescript(SCHEMA)
    cols = {r["name"] for r in conn.execute("PRAGMA table_info(analyses)")}
    for col, kind in (("owner", "TEXT"), ("lease_until", "REAL"),  # databases made before leases
                      ("epoch", "INTEGER NOT NULL DEFAULT 0")):  # ... and before fencing
        if col not in cols:
            try:
                conn.execute(f"ALTER TABLE analyses ADD COLUMN {col} {kind}")
            except sqlite3.OperationalError as exc:  # another process added it in between
                if "duplicate column" not in str(exc):
                    raise
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


# --- matches ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MatchRow:
    id: int
    name: str
    game: str
    table_spec: str
    players: list[str]
    state: dict[str, Any] | None
    report_path: str | None
    created_at: str


def _match(row: sqlite3.Row) -> MatchRow:
    return MatchRow(
        id=row["id"],
        name=row["name"],
        game=row["game"],
        table_spec=row["table_spec"],
        players=json.loads(row["players"]),
        state=json.loads(row["state"]) if row["state"] else None,
        report_path=row["report_path"],
        created_at=row["created_at"],
    )


def create_match(conn: sqlite3.Connection, *, name: str, game: str, table_spec: str, players: list[str]) -> MatchRow:
    cur = conn.execute(
        "INSERT INTO matches (name, game, table_spec, players, created_at) VALUES (?, ?, ?, ?, ?)",
        (name, game, table_spec, json.dumps(players), _now()),
    )
    match = get_match(conn, match_id=int(cur.lastrowid or 0))
    assert match is not None
    return match


def get_match(conn: sqlite3.Connection, *, match_id: int) -> MatchRow | None:
    row = conn.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
    return _match(row) if row else None


def list_matches(conn: sqlite3.Connection, *, limit: int = 100, offset: int = 0) -> list[MatchRow]:
    rows = conn.execute("SELECT * FROM matches ORDER BY id DESC LIMIT ? OFFSET ?", (limit, offset)).fetchall()
    return [_match(r) for r in rows]


def set_match_state(conn: sqlite3.Connection, *, match_id: int, state: dict[str, Any]) -> None:
    conn.execute("UPDATE matches SET state = ? WHERE id = ?", (json.dumps(state), match_id))


def set_report(conn: sqlite3.Connection, *, match_id: int, report_path: str, fence: Fence | None = None) -> None:
    with transaction(conn):
        if fence is not None:
            check_fence(conn, fence)
        conn.execute("UPDATE matches SET report_path = ? WHERE id = ?", (report_path, match_id))


# --- the log ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LogRow:
    seq: int
    kind: LogKind
    type: str
    data: dict[str, Any]
    created_at: str


def append_log(
    conn: sqlite3.Connection, *, match_id: int, entries: list[tuple[LogKind, dict[str, Any]]],
    analysis_id: int | None = None, fence: Fence | None = None,
) -> list[LogRow]:
    """Append entries atomically with consecutive sequence numbers. With `analysis_id`, the same
    transaction records that this analysis wrote them (a resumed analysis must not write them twice); with
    `fence`, it first checks that the writer still holds the analysis's lease (raises Fenced)."""
    now = _now()
    out = []
    with transaction(conn):
        if fence is not None:
            check_fence(conn, fence)
        seq = int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM log WHERE match_id = ?", (match_id,)).fetchone()[0])
        for kind, data in entries:
            seq += 1
            conn.execute(
                "INSERT INTO log (match_id, seq, kind, type, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (match_id, seq, str(kind), str(data.get("type", "")), json.dumps(data), now),
            )
            if analysis_id is not None:
                conn.execute("INSERT INTO analysis_log (analysis_id, match_id, seq) VALUES (?, ?, ?)",
                             (analysis_id, match_id, seq))
            out.append(LogRow(seq, kind, str(data.get("type", "")), data, now))
    return out


def read_analysis_log(conn: sqlite3.Connection, *, analysis_id: int) -> list[LogRow]:
    """The log lines an analysis appended, in order."""
    rows = conn.execute(
        "SELECT l.seq, l.kind, l.type, l.payload, l.created_at FROM analysis_log a JOIN log l "
        "ON l.match_id = a.match_id AND l.seq = a.seq WHERE a.analysis_id = ? ORDER BY l.seq", (analysis_id,),
    ).fetchall()
    return [LogRow(r["seq"], LogKind(r["kind"]), r["type"], json.loads(r["payload"]), r["created_at"]) for r in rows]


def read_log(
    conn: sqlite3.Connection, *, match_id: int, kind: LogKind | None = None, after: int = 0, limit: int = 1_000_000
) -> list[LogRow]:
    sql = "SELECT seq, kind, type, payload, created_at FROM log WHERE match_id = ? AND seq > ?"
    args: list[Any] = [match_id, after]
    if kind is not None:
        sql += " AND kind = ?"
        args.append(str(kind))
    sql += " ORDER BY seq LIMIT ?"
    args.append(limit)
    return [
        LogRow(r["seq"], LogKind(r["kind"]), r["type"], json.loads(r["payload"]), r["created_at"])
        for r in conn.execute(sql, args).fetchall()
    ]


def last_seq(conn: sqlite3.Connection, *, match_id: int) -> int:
    return int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM log WHERE match_id = ?", (match_id,)).fetchone()[0])


# --- verdicts (cache of the fold) -------------------------------------------------------------------
def store_fold(conn: sqlite3.Connection, *, match_id: int, verdicts: list[dict[str, Any]], state: dict[str, Any],
               fence: Fence | None = None) -> None:
    """Replace the cached verdicts and state of a match in one transaction (fenced when `fence` is given)."""
    with transaction(conn):
        if fence is not None:
            check_fence(conn, fence)
        conn.execute("DELETE FROM verdicts WHERE match_id = ?", (match_id,))
        conn.executemany(
            "INSERT INTO verdicts (match_id, shot, payload) VALUES (?, ?, ?)",
            [(match_id, int(v["shot"]), json.dumps(v)) for v in verdicts],
        )
        set_match_state(conn, match_id=match_id, state=state)


def read_verdicts(conn: sqlite3.Connection, *, match_id: int) -> list[dict[str, Any]]:
    rows = conn.execute("SELECT payload FROM verdicts WHERE match_id = ? ORDER BY shot", (match_id,)).fetchall()
    return [json.loads(r["payload"]) for r in rows]


# --- analyses ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AnalysisRow:
    id: int
    match_id: int
    video: str
    out_dir: str
    status: AnalysisStatus
    progress: float
    message: str
    created_at: str
    updated_at: str


def _analysis(row: sqlite3.Row) -> AnalysisRow:
    return AnalysisRow(
        row["id"], row["match_id"], row["video"], row["out_dir"], AnalysisStatus(row["status"]), row["progress"],
        row["message"], row["created_at"], row["updated_at"],
    )


def create_analysis(conn: sqlite3.Connection, *, match_id: int, video: str, out_dir: str) -> AnalysisRow:
    now = _now()
    cur = conn.execute(
        "INSERT INTO analyses (match_id, video, out_dir, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
        (match_id, video, out_dir, str(AnalysisStatus.QUEUED), now, now),
    )
    row = get_analysis(conn, analysis_id=int(cur.lastrowid or 0))
    assert row is not None
    return row


def update_analysis(
    conn: sqlite3.Connection, *, analysis_id: int, status: AnalysisStatus | None = None,
    progress: float | None = None, message: str | None = None, fence: Fence | None = None,
) -> None:
    """Set the status, progress or message; with `fence`, only while the writer holds the lease (else Fenced)."""
    sets, args = ["updated_at = ?"], [_now()]
    for col, val in (("status", None if status is None else str(status)), ("progress", progress),
                     ("message", message)):
        if val is not None:
            sets.append(f"{col} = ?")
            args.append(val)  # type: ignore[arg-type]
    where, wargs = "id = ?", [analysis_id]
    if fence is not None:
        where, wargs = "id = ? AND epoch = ?", [analysis_id, fence.epoch]
    cur = conn.execute(f"UPDATE analyses SET {', '.join(sets)} WHERE {where}", (*args, *wargs))
    if fence is not None and cur.rowcount != 1:
        raise Fenced(f"analysis {analysis_id}: lease epoch {fence.epoch} was taken over")


def get_analysis(conn: sqlite3.Connection, *, analysis_id: int) -> AnalysisRow | None:
    row = conn.execute("SELECT * FROM analyses WHERE id = ?", (analysis_id,)).fetchone()
    return _analysis(row) if row else None


def list_analyses(conn: sqlite3.Connection, *, limit: int = 100) -> list[AnalysisRow]:
    return [_analysis(r) for r in conn.execute("SELECT * FROM analyses ORDER BY id DESC LIMIT ?", (limit,))]


# --- leases: which service process runs an analysis ----------------------------------------------------
# Several servers may share one database: an unfinished analysis is run by the process that holds its lease
# (owner, lease_until in epoch seconds), renewed while it runs. Only an analysis with no live lease is
# resumed or taken over, so two servers never run the same one.
#
# A lease can still be lost by a live process (its heartbeat starved for a whole lease): so every lease taken
# by a new holder gets the next `epoch`, and each write of the analysis checks, in its own transaction, that
# the epoch it was started under is still the analysis's (a fence). The old worker's next write fails with
# Fenced; it stops and writes nothing more.
_UNFINISHED = (str(AnalysisStatus.QUEUED), str(AnalysisStatus.RUNNING), str(AnalysisStatus.WAITING))
_IN_UNFINISHED = f"status IN ({', '.join('?' * len(_UNFINISHED))})"
_FREE = "(owner IS NULL OR lease_until IS NULL OR lease_until < ?)"


class Fenced(Exception):
    """The analysis's lease was taken by another holder since this worker took it: the write was refused."""


@dataclass(frozen=True)
class Fence:
    """The lease a worker runs under: analysis id and the epoch taken with the lease."""

    analysis_id: int
    epoch: int


def check_fence(conn: sqlite3.Connection, fence: Fence) -> None:
    """Raise Fenced unless the analysis is still at the fence's epoch (call inside the write's transaction)."""
    row = conn.execute("SELECT epoch FROM analyses WHERE id = ?", (fence.analysis_id,)).fetchone()
    if row is None or int(row["epoch"]) != fence.epoch:
        raise Fenced(f"analysis {fence.analysis_id}: lease epoch {fence.epoch} was taken over")


def claim_analysis(conn: sqlite3.Connection, *, analysis_id: int, owner: str, now: float, lease_s: float,
                   dead_owner: str | None = None) -> Fence | None:
    """Take (or keep) the lease of an unfinished analysis: its fence (a new epoch when the holder changes),
    or None when another live process holds it (`dead_owner`: a holder known to be gone, whose lease has not
    lapsed yet)."""
    with transaction(conn):
        cur = conn.execute(
            f"UPDATE analyses SET owner = ?, lease_until = ?, "
            f"epoch = epoch + (CASE WHEN owner IS ? THEN 0 ELSE 1 END) WHERE id = ? AND {_IN_UNFINISHED} "
            f"AND (owner = ? OR owner = ? OR {_FREE})",
            (owner, now + lease_s, owner, analysis_id, *_UNFINISHED, owner, dead_owner, now))
        if cur.rowcount != 1:
            return None
        epoch = conn.execute("SELECT epoch FROM analyses WHERE id = ?", (analysis_id,)).fetchone()["epoch"]
    return Fence(analysis_id, int(epoch))


def requeue_failed(conn: sqlite3.Connection, *, analysis_id: int, owner: str, now: float, lease_s: float,
                   message: str) -> Fence | None:
    """A failed analysis queued again under a new lease, in one conditional transition: its fence, or None
    when it is no longer failed (another request or server resumed it first). The epoch moves on, so any
    worker of the failed run is fenced out."""
    with transaction(conn):
        cur = conn.execute(
            "UPDATE analyses SET status = ?, message = ?, updated_at = ?, owner = ?, lease_until = ?, "
            "epoch = epoch + 1 WHERE id = ? AND status = ?",
            (str(AnalysisStatus.QUEUED), message, _now(), owner, now + lease_s, analysis_id,
             str(AnalysisStatus.FAILED)))
        if cur.rowcount != 1:
            return None
        epoch = conn.execute("SELECT epoch FROM analyses WHERE id = ?", (analysis_id,)).fetchone()["epoch"]
    return Fence(analysis_id, int(epoch))


def leased_analyses(conn: sqlite3.Connection, *, now: float) -> list[tuple[int, str]]:
    """(id, owner) of the unfinished analyses with a live lease."""
    rows = conn.execute(f"SELECT id, owner FROM analyses WHERE {_IN_UNFINISHED} AND NOT {_FREE} ORDER BY id",
                        (*_UNFINISHED, now)).fetchall()
    return [(int(r["id"]), str(r["owner"])) for r in rows]


def renew_leases(conn: sqlite3.Connection, *, owner: str, ids: list[int], now: float, lease_s: float) -> set[int]:
    """Extend this owner's leases of `ids`; the ids it still holds."""
    held = set()
    with transaction(conn):
        for i in ids:
            cur = conn.execute("UPDATE analyses SET lease_until = ? WHERE id = ? AND owner = ?",
                               (now + lease_s, i, owner))
            if cur.rowcount == 1:
                held.add(i)
    return held


def release_analysis(conn: sqlite3.Connection, *, analysis_id: int, owner: str, fence: Fence | None = None) -> None:
    """Give up the lease (only the holder's own; with `fence`, only the lease of that epoch)."""
    sql, args = "UPDATE analyses SET owner = NULL, lease_until = NULL WHERE id = ? AND owner = ?", [analysis_id, owner]
    if fence is not None:
        sql, args = sql + " AND epoch = ?", [*args, fence.epoch]
    conn.execute(sql, args)


def unfinished_analyses(conn: sqlite3.Connection, *, now: float) -> list[AnalysisRow]:
    """Analyses left queued or running with no live lease (their process stopped or died), oldest first."""
    rows = conn.execute(f"SELECT * FROM analyses WHERE {_IN_UNFINISHED} AND {_FREE} ORDER BY id",
                        (*_UNFINISHED, now)).fetchall()
    return [_analysis(r) for r in rows]


def fail_unfinished_analyses(conn: sqlite3.Connection, *, now: float) -> int:
    """At start-up: analyses left queued/running by a process that is gone did not finish. The epoch moves on,
    so a worker whose lease merely lapsed (a stalled server, not a dead one) is fenced out of the failed job."""
    cur = conn.execute(
        "UPDATE analyses SET status = ?, message = 'interrupted by a service restart; "
        "POST /analyses/<id>/resume resumes it from its last checkpoint', updated_at = ?, epoch = epoch + 1 "
        f"WHERE {_IN_UNFINISHED} AND {_FREE}",
        (str(AnalysisStatus.FAILED), _now(), *_UNFINISHED, now),
    )
    return cur.rowcount
