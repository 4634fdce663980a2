"""/matches/{id}/verdicts: one verdict per shot, from the latest fold of the match's log."""

from __future__ import annotations

from fastapi import APIRouter

from service.api import db
from service.api.deps import MatchDep, SessionDep
from service.api.schemas import VerdictPublic

router = APIRouter(prefix="/matches/{match_id}/verdicts", tags=["verdicts"])


@router.get("")
def list_verdicts(session: SessionDep, match: MatchDep) -> list[VerdictPublic]:
    return [VerdictPublic(**v) for v in db.read_verdicts(session, match_id=match.id)]
