"""Appending to a match's log and re-folding it: the one path every write takes (routes and jobs).

An append is validated first (each ball event by the event schema, each referee input by the rules
package's input parser, then the whole log with the new lines by a trial fold), so a bad line is refused
with a clear message and the stored log stays one the engine can fold.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from calibration.table import Table
from rules.events import Event, is_ball_event
from rules.inputs import RefereeInput, check_on_bed, parse_item
from service import judging
from service.api import db
from service.api.live import LiveHub


class LogRejected(ValueError):
    """A log line (or the log it would make) is invalid; the message says which and why."""


def _rejected(exc: Exception) -> LogRejected:
    return LogRejected(str(exc).removeprefix("line 0: "))


def validate_event(d: dict[str, Any]) -> dict[str, Any]:
    """A ball event, checked by the same parser the judge command uses (rules.inputs.parse_item)."""
    if not is_ball_event(d):
        raise LogRejected(f"not a ball event type: {d.get('type')!r}")
    try:
        e = parse_item(d)
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        raise _rejected(exc) from exc
    assert isinstance(e, Event)
    return e.to_dict()


def validate_input(d: dict[str, Any], table_spec: str) -> dict[str, Any]:
    """A referee input, checked by the same parser and field checks the judge command uses
    (rules.inputs: RefereeInput.from_dict, check_fields, check_on_bed against the match's table)."""
    if is_ball_event(d):
        raise LogRejected(f"{d.get('type')!r} is a ball event: post it to /events")
    try:
        clean = dict(RefereeInput.from_dict(d).to_dict())
        check_on_bed(clean, Table.load(table_spec))
    except (ValueError, TypeError, KeyError) as exc:
        raise _rejected(exc) from exc
    return clean


def full_log(match: db.MatchRow, rows: list[db.LogRow]) -> list[dict[str, Any]]:
    """The log the engine folds: a header made from the match row (unless the log has its own), then
    the stored lines in arrival order."""
    body = [r.data for r in rows]
    if any(d.get("type") == "match" for d in body):
        return body
    p = match.players
    header = judging.match_header(match.game, match.table_spec, "break", None, (p[0], p[1]))
    return [*header, *body]


@dataclass(frozen=True)
class FoldState:
    """What the feed and the page show of a match after a fold."""

    state: dict[str, Any]
    verdicts: list[dict[str, Any]]


def refold(conn: sqlite3.Connection, match: db.MatchRow, fence: db.Fence | None = None) -> FoldState:
    """Fold the stored log, cache verdicts and state (an analysis's fold: only while it holds its lease)."""
    rows = db.read_log(conn, match_id=match.id)
    try:
        fold = judging.fold(full_log(match, rows), match.game)
        verdicts = [v.to_dict() for v in fold.verdicts]
        state = {**fold.to_dict(), "error": None}
    except ValueError as exc:  # a log stored before a rule change: keep serving, say why
        verdicts, state = db.read_verdicts(conn, match_id=match.id), {
            **(match.state or {}), "error": f"the log no longer folds: {exc}"}
    state["events"] = sum(1 for r in rows if r.kind is db.LogKind.EVENT)
    state["inputs"] = sum(1 for r in rows if r.kind is db.LogKind.INPUT)
    db.store_fold(conn, match_id=match.id, verdicts=verdicts, state=state, fence=fence)
    return FoldState(state, verdicts)


def append(
    conn: sqlite3.Connection,
    hub: LiveHub | None,
    match: db.MatchRow,
    entries: list[tuple[db.LogKind, dict[str, Any]]],
    *,
    fold_now: bool = True,
    analysis_id: int | None = None,
    fence: db.Fence | None = None,
) -> list[db.LogRow]:
    """Validate, append, re-fold, publish. Raises LogRejected (nothing stored) for a bad line or log, and
    db.Fenced (nothing stored) for an analysis whose lease another server took."""
    clean: list[tuple[db.LogKind, dict[str, Any]]] = []
    for n, (kind, d) in enumerate(entries, 1):
        try:
            clean.append((kind, validate_event(d) if kind is db.LogKind.EVENT else validate_input(d, match.table_spec)))
        except LogRejected as exc:
            raise LogRejected(f"item {n}: {exc}") from exc
    if fold_now and any(k is db.LogKind.INPUT for k, _ in clean):
        trial = full_log(match, db.read_log(conn, match_id=match.id)) + [d for _, d in clean]
        try:
            judging.fold(trial, match.game)
        except (ValueError, KeyError, TypeError) as exc:
            raise LogRejected(f"the rules engine refuses this input: {exc}") from exc
    rows = db.append_log(conn, match_id=match.id, entries=clean, analysis_id=analysis_id, fence=fence)
    if hub is not None:
        for r in rows:
            hub.publish(match.id, {"kind": str(r.kind), "seq": r.seq, "data": r.data})
    if fold_now:
        publish_fold(hub, match, refold(conn, match, fence), rows[-1].seq if rows else 0)
    return rows


def publish_fold(hub: LiveHub | None, match: db.MatchRow, fs: FoldState, seq: int) -> None:
    if hub is None:
        return
    hub.publish(match.id, {"kind": "verdicts", "seq": seq, "data": fs.verdicts})
    hub.publish(match.id, {"kind": "state", "seq": seq, "data": fs.state})
