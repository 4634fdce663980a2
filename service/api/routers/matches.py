"""/matches: create, list, read a match; its report."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import FileResponse

from service.api import db, matchlog
from service.api.deps import SQLITE_MAX, MatchDep, SessionDep
from service.api.schemas import MatchCreate, MatchPublic

router = APIRouter(prefix="/matches", tags=["matches"])


def to_public(m: db.MatchRow) -> MatchPublic:
    return MatchPublic(
        id=m.id, name=m.name, game=m.game, table=m.table_spec, players=m.players, created_at=m.created_at,
        state=m.state, report_url=f"/matches/{m.id}/report" if m.report_path else None,
    )


@router.post("", status_code=201)
def create_match(session: SessionDep, body: MatchCreate) -> MatchPublic:
    m = db.create_match(session, name=body.name, game=body.game, table_spec=body.table, players=body.players)
    matchlog.refold(session, m)
    fresh = db.get_match(session, match_id=m.id)
    assert fresh is not None
    return to_public(fresh)


@router.get("")
def list_matches(
    session: SessionDep, limit: int = Query(100, ge=1, le=1000), offset: int = Query(0, ge=0, le=SQLITE_MAX)
) -> list[MatchPublic]:
    return [to_public(m) for m in db.list_matches(session, limit=limit, offset=offset)]


@router.get("/{match_id}")
def read_match(match: MatchDep) -> MatchPublic:
    return to_public(match)


@router.get("/{match_id}/report", response_class=FileResponse)
def read_report(match: MatchDep) -> FileResponse:
    if not match.report_path or not Path(match.report_path).exists():
        raise HTTPException(status_code=404, detail=f"match {match.id} has no report yet")
    return FileResponse(match.report_path, media_type="text/html")
