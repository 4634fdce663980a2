"""/matches/{id}/inputs: referee inputs and overrides. POST validates, appends to the log, re-folds."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Query

from service.api import db, matchlog
from service.api.deps import SQLITE_MAX, HubDep, MatchDep, SessionDep
from service.api.routers.events import to_public
from service.api.schemas import InputCreate, LogEntryPublic

router = APIRouter(prefix="/matches/{match_id}/inputs", tags=["inputs"])


@router.get("")
def list_inputs(
    session: SessionDep, match: MatchDep, after: int = Query(0, ge=0, le=SQLITE_MAX)
) -> list[LogEntryPublic]:
    return [to_public(r) for r in db.read_log(session, match_id=match.id, kind=db.LogKind.INPUT, after=after)]


@router.post("", status_code=201)
def append_input(session: SessionDep, hub: HubDep, match: MatchDep, body: InputCreate) -> LogEntryPublic:
    try:
        rows = matchlog.append(session, hub, match, [(db.LogKind.INPUT, body.payload())])
    except matchlog.LogRejected as exc:
        raise HTTPException(status_code=422, detail=str(exc)) from exc
    return to_public(rows[0])
