"""/matches/{id}/events: the ball events of a match's log; POST appends (vision clients, imports)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Query

from service.api import db, matchlog
from service.api.deps import SQLITE_MAX, HubDep, MatchDep, SessionDep
from service.api.schemas import EventsCreate, LogEntryPublic

router = APIRouter(prefix="/matches/{match_id}/events", tags=["events"])


def to_public(r: db.LogRow) -> LogEntryPublic:
    return LogEntryPublic(seq=r.seq, kind=str(r.kind), type=r.type, data=r.data, created_at=r.created_at)


@router.get("")
def list_events(
    session: SessionDep, match: MatchDep, after: int = Query(0, ge=0, le=SQLITE_MAX),
    limit: int = Query(10_000, ge=1, le=100_000),
) -> list[LogEntryPublic]:
    return [to_public(r) for r in db.read_log(session, match_id=match.id, kind=db.LogKind.EVENT, after=after,
                                              limit=limit)]


@router.post("", status_code=201)
def append_events(session: SessionDep, hub: HubDep, match: MatchDep, body: EventsCreate) -> list[LogEntryPublic]:
    try:
        rows = matchlog.append(session, hub, match, [(db.LogKind.EVENT, e) for e in body.events])
    except matchlog.LogRejected as exc:
        raise HTTPException(status_code=422, detail=str(exc)) from exc
    return [to_public(r) for r in rows]
