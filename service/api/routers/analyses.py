"""/analyses: analyse a video (a path on this machine, or an upload) as a background job with status."""

from __future__ import annotations

import re
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Form, HTTPException, UploadFile
from fastapi.encoders import jsonable_encoder
from pydantic import ValidationError

from service import judging
from service.api import db
from service.api.deps import SQLITE_MAX, JobsDep, RowId, SessionDep, SettingsDep
from service.api.schemas import AnalysisBase, AnalysisCreate, AnalysisPublic
from service.api.settings import Settings
from service.pipeline.recover import open_or_rebuild
from service.pipeline.video import first_frames

router = APIRouter(prefix="/analyses", tags=["analyses"])


def to_public(a: db.AnalysisRow, match: db.MatchRow | None = None) -> AnalysisPublic:
    """The job as the API shows it; the game and table are its match's."""
    done = a.status is db.AnalysisStatus.DONE
    return AnalysisPublic(
        id=a.id, match_id=a.match_id, video=a.video, status=str(a.status), progress=a.progress, message=a.message,
        created_at=a.created_at, updated_at=a.updated_at,
        report_url=f"/matches/{a.match_id}/report" if done else None,
        game=match.game if match else None, table=match.table_spec if match else "pyramid-12ft",
    )


def _public(session: db.sqlite3.Connection, a: db.AnalysisRow) -> AnalysisPublic:
    return to_public(a, db.get_match(session, match_id=a.match_id))


def check_video(video: Path) -> None:
    """Refuse (400, saying why) what cannot be analysed: not a video, no decodable frame, a single picture."""
    try:
        with tempfile.TemporaryDirectory() as tmp:  # an mp4 cut before its index that can be rebuilt is taken
            rebuilt, raw_fps, _, _ = open_or_rebuild(video, Path(tmp), None)
            got, status = first_frames(rebuilt, raw_fps=raw_fps)
    except ValueError as exc:  # the file's name, not where the server keeps it
        raise HTTPException(status_code=400, detail=f"not a readable video: {_named(exc, video)}") from exc
    if got == 0:
        why = _named(Exception(status.error), video) if status.error else "the stream is empty"
        raise HTTPException(status_code=400,
                            detail=f"not a readable video: {video.name}: no frame can be decoded ({why})")
    if got == 1 and status.error is None:
        raise HTTPException(status_code=400, detail=f"not a video: {video.name} holds a single picture")


def _named(exc: Exception, video: Path) -> str:
    """An error message with the video's server path (an upload's folder) cut down to its file name."""
    return str(exc).replace(str(video), video.name)


def _match_for(session: db.sqlite3.Connection, match_id: int | None) -> db.MatchRow | None:
    if match_id is None:
        return None
    found = db.get_match(session, match_id=match_id)
    if found is None:
        raise HTTPException(status_code=404, detail=f"no match with id {match_id}")
    return found


def _start(session: db.sqlite3.Connection, jobs: JobsDep, settings: Settings, video: Path, game: str | None,
           table: str, match: db.MatchRow | None) -> AnalysisPublic:
    check_video(video)
    if match is None:
        match = db.create_match(session, name=video.name, game=game or judging.DEFAULT_GAME, table_spec=table,
                                players=["A", "B"])
    out = settings.data_dir / "analyses" / f"{match.id}-{uuid.uuid4().hex[:8]}"
    row = db.create_analysis(session, match_id=match.id, video=str(video), out_dir=str(out))
    jobs.submit(row.id)
    return to_public(row, match)


@router.post("", status_code=202)
def start_analysis(session: SessionDep, jobs: JobsDep, settings: SettingsDep, body: AnalysisCreate) -> AnalysisPublic:
    if not settings.allow_paths:
        raise HTTPException(status_code=403, detail="this service only analyses uploaded videos")
    video = Path(body.video_path)
    if not video.is_file():
        what = "a folder, not a video file" if video.is_dir() else "no such video file on the server"
        raise HTTPException(status_code=400, detail=f"{what}: {body.video_path}")
    return _start(session, jobs, settings, video, body.game, body.table, _match_for(session, body.match_id))


@router.post("/upload", status_code=202)
def upload_analysis(
    session: SessionDep, jobs: JobsDep, settings: SettingsDep, file: Annotated[UploadFile, File()],
    game: Annotated[str | None, Form()] = None, table: Annotated[str, Form()] = "pyramid-12ft",
    match_id: Annotated[int | None, Form(ge=-SQLITE_MAX, le=SQLITE_MAX)] = None,
) -> AnalysisPublic:
    try:  # the form fields as the JSON body would check them, before anything is stored
        fields = AnalysisBase(game=game, table=table, match_id=match_id)
    except ValidationError as exc:
        raise HTTPException(status_code=422, detail=jsonable_encoder(exc.errors(include_url=False))) from exc
    match = _match_for(session, fields.match_id)
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", Path(file.filename or "video.mp4").name)[-80:]
    dest = settings.data_dir / "uploads" / f"{uuid.uuid4().hex[:12]}-{safe}"
    dest.parent.mkdir(parents=True, exist_ok=True)
    limit = settings.max_upload_mb * 1024 * 1024
    with dest.open("wb") as f:
        shutil.copyfileobj(file.file, f, length=1024 * 1024)
    if dest.stat().st_size > limit:
        dest.unlink()
        raise HTTPException(status_code=413, detail=f"upload larger than {settings.max_upload_mb} MB")
    if dest.stat().st_size == 0:
        dest.unlink()
        raise HTTPException(status_code=400, detail="empty upload")
    try:
        return _start(session, jobs, settings, dest, fields.game, fields.table, match)
    except HTTPException:
        dest.unlink()  # a refused upload is not kept
        raise


@router.get("")
def list_analyses(session: SessionDep) -> list[AnalysisPublic]:
    return [_public(session, a) for a in db.list_analyses(session)]


@router.get("/{analysis_id}")
def read_analysis(session: SessionDep, analysis_id: RowId) -> AnalysisPublic:
    a = db.get_analysis(session, analysis_id=analysis_id)
    if a is None:
        raise HTTPException(status_code=404, detail=f"no analysis with id {analysis_id}")
    return _public(session, a)


@router.post("/{analysis_id}/resume", status_code=202)
def resume_analysis(session: SessionDep, jobs: JobsDep, analysis_id: RowId) -> AnalysisPublic:
    """Run a failed analysis again from its last checkpoint; the events already in the log are kept."""
    a = db.get_analysis(session, analysis_id=analysis_id)
    if a is None:
        raise HTTPException(status_code=404, detail=f"no analysis with id {analysis_id}")
    if a.status is not db.AnalysisStatus.FAILED:
        raise HTTPException(status_code=409, detail=f"analysis {analysis_id} is {a.status}: only a failed one resumes")
    if not Path(a.video).is_file():
        raise HTTPException(status_code=409, detail=f"the video of analysis {analysis_id} is gone: {a.video}")
    # The status read above may be stale (another request or server resumed it since): the transition is
    # made only if the analysis is still failed, in one transaction with taking its lease.
    if not jobs.resume_failed(a.id, f"resuming on request from its last checkpoint (it had failed: {a.message[:200]})"):
        now = db.get_analysis(session, analysis_id=a.id)
        status = now.status if now else "gone"
        raise HTTPException(status_code=409, detail=f"analysis {analysis_id} is {status}: only a failed one resumes "
                                                    "(it was resumed meanwhile)")
    found = db.get_analysis(session, analysis_id=a.id)
    assert found is not None
    return _public(session, found)
