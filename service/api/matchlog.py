"""Appending to a match's log and re-folding it: the one path every write takes (routes and jobs).

An append is validated first (each ball event by the event schema, each referee input by the rules
package's input parser, then the whole log with the new lines by a trial fold), so a bad line is refused
with a clear message and the stored log stays one the engine can fold.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass
from typing import Any

from calibration.table import Table
from rules.events import BALL_IDS, Event, is_ball_event
from rules.inputs import RefereeInput
from service import judging
from service.api import db
from service.api.live import LiveHub


class LogRejected(ValueError):
    """A log line (or the log it would make) is invalid; the message says which and why."""


def validate_event(d: dict[str, Any]) -> dict[str, Any]:
    if not is_ball_event(d):
        raise LogRejected(f"not a ball event type: {d.get('type')!r}")
    try:
        e = Event.from_dict(d)
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        raise LogRejected(f"invalid {d.get('type')} event: {exc}") from exc
    if not (math.isfinite(e.t) and e.t >= 0):
        raise LogRejected(f"invalid {d.get('type')} event: t must be video seconds (finite, >= 0), got {e.t!r}")
    return e.to_dict()


# Fields of referee inputs that are names or text (rules/inputs.py, docs/rules-engine.md).
TEXT_FIELDS = ("pocket", "cushion", "clause", "reason", "option", "action", "about", "mode", "how", "player",
               "game", "breaker", "to_play", "phase", "hand")


def _check_fields(d: dict[str, Any]) -> None:
    """The shapes the engine assumes of common fields, so a bad one is refused here with its name
    (rather than stored and failing, or misread, at a later fold)."""
    kind = d.get("type")
    for name in TEXT_FIELDS:
        if name in d and d[name] is not None and not isinstance(d[name], str):
            raise LogRejected(f"{kind}: field {name!r} must be a string, got {d[name]!r}")
    ball = d.get("ball")
    if ball is not None and (isinstance(ball, bool) or not isinstance(ball, str | int) or str(ball) not in BALL_IDS):
        raise LogRejected(f"{kind}: field 'ball' must be a ball id ({', '.join(BALL_IDS)}), got {ball!r}")
    shot = d.get("shot")
    if shot is not None and (isinstance(shot, bool) or not isinstance(shot, int) or shot < 1):
        raise LogRejected(f"{kind}: field 'shot' must be a shot number (1, 2, ...), got {shot!r}")
    players = d.get("players")
    if players is not None and not (isinstance(players, list) and len(players) == 2
                                    and all(isinstance(x, str) and x.strip() for x in players)
                                    and players[0] != players[1]):
        raise LogRejected(f"{kind}: field 'players' must be two distinct names, got {players!r}")


def validate_input(d: dict[str, Any]) -> dict[str, Any]:
    if is_ball_event(d):
        raise LogRejected(f"{d.get('type')!r} is a ball event: post it to /events")
    try:
        clean = dict(RefereeInput.from_dict(d).to_dict())
    except (ValueError, TypeError, KeyError) as exc:
        raise LogRejected(str(exc).removeprefix("line 0: ")) from exc
    _check_fields(clean)
    return clean


def check_places(d: dict[str, Any], table_spec: str) -> None:
    """Stated ball places (an `identify` line) must be on the match's table bed (centre within the noses)."""
    if d.get("type") != "identify":
        return
    table = Table.load(table_spec)
    for b, xy in d["balls"].items():
        if not table.on_bed((float(xy[0]), float(xy[1]))):
            raise LogRejected(f"identify: ball {b} at {list(xy)} mm is off the bed of {table_spec} "
                              f"(|x| <= {table.half_length:.0f}, |y| <= {table.half_width:.0f}; origin at the "
                              "centre spot)")


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


def refold(conn: sqlite3.Connection, match: db.MatchRow) -> FoldState:
    """Fold the stored log, cache verdicts and state."""
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
    db.replace_verdicts(conn, match_id=match.id, verdicts=verdicts)
    db.set_match_state(conn, match_id=match.id, state=state)
    return FoldState(state, verdicts)


def append(
    conn: sqlite3.Connection,
    hub: LiveHub | None,
    match: db.MatchRow,
    entries: list[tuple[db.LogKind, dict[str, Any]]],
    *,
    fold_now: bool = True,
    analysis_id: int | None = None,
) -> list[db.LogRow]:
    """Validate, append, re-fold, publish. Raises LogRejected (nothing stored) for a bad line or log."""
    clean: list[tuple[db.LogKind, dict[str, Any]]] = []
    for n, (kind, d) in enumerate(entries, 1):
        try:
            clean.append((kind, validate_event(d) if kind is db.LogKind.EVENT else validate_input(d)))
            if kind is db.LogKind.INPUT:
                check_places(clean[-1][1], match.table_spec)
        except LogRejected as exc:
            raise LogRejected(f"item {n}: {exc}") from exc
    if fold_now and any(k is db.LogKind.INPUT for k, _ in clean):
        trial = full_log(match, db.read_log(conn, match_id=match.id)) + [d for _, d in clean]
        try:
            judging.fold(trial, match.game)
        except (ValueError, KeyError, TypeError) as exc:
            raise LogRejected(f"the rules engine refuses this input: {exc}") from exc
    rows = db.append_log(conn, match_id=match.id, entries=clean, analysis_id=analysis_id)
    if hub is not None:
        for r in rows:
            hub.publish(match.id, {"kind": str(r.kind), "seq": r.seq, "data": r.data})
    if fold_now:
        publish_fold(hub, match, refold(conn, match), rows[-1].seq if rows else 0)
    return rows


def publish_fold(hub: LiveHub | None, match: db.MatchRow, fs: FoldState, seq: int) -> None:
    if hub is None:
        return
    hub.publish(match.id, {"kind": "verdicts", "seq": seq, "data": fs.verdicts})
    hub.publish(match.id, {"kind": "state", "seq": seq, "data": fs.state})
