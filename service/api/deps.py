"""Dependencies as `Annotated` aliases: the settings, a database session, the live hub, the job runner."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Path, Request

from service.api import db
from service.api.jobs import JobRunner
from service.api.live import LiveHub
from service.api.settings import Settings


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


SettingsDep = Annotated[Settings, Depends(get_settings)]


def get_session(settings: SettingsDep) -> Iterator[sqlite3.Connection]:
    conn = db.connect(settings.database)
    try:
        yield conn
    finally:
        conn.close()


SessionDep = Annotated[sqlite3.Connection, Depends(get_session)]


def get_hub(request: Request) -> LiveHub:
    hub: LiveHub = request.app.state.hub
    return hub


HubDep = Annotated[LiveHub, Depends(get_hub)]


def get_jobs(request: Request) -> JobRunner:
    jobs: JobRunner = request.app.state.jobs
    return jobs


JobsDep = Annotated[JobRunner, Depends(get_jobs)]


# SQLite's integers are signed 64-bit: a larger id or cursor is refused as invalid (422), not passed on to
# overflow in the driver (a 500).
SQLITE_MAX = 2**63 - 1
RowId = Annotated[int, Path(ge=-SQLITE_MAX, le=SQLITE_MAX)]


def get_match_or_404(session: SessionDep, match_id: RowId) -> db.MatchRow:
    match = db.get_match(session, match_id=match_id)
    if match is None:
        raise HTTPException(status_code=404, detail=f"no match with id {match_id}")
    return match


MatchDep = Annotated[db.MatchRow, Depends(get_match_or_404)]
