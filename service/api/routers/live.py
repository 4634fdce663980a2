"""/live: the referee's feed as Server-Sent Events: log lines, verdicts and state as they happen.

On connect the feed first replays the log after `Last-Event-ID` (or `?after=`), then the current verdicts
and state, then streams. Event ids are log sequence numbers, so a browser's EventSource that reconnects
resumes exactly where it stopped: nothing is lost.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse

from service.api import db
from service.api.deps import SQLITE_MAX, HubDep, MatchDep, SettingsDep

router = APIRouter(prefix="/live", tags=["live"])
HEARTBEAT_S = 15.0
POLL_S = 1.0


def sse(kind: str, data: Any, seq: int | None = None) -> str:
    head = f"id: {seq}\n" if seq is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


@router.get("/{match_id}")
async def live_feed(
    request: Request, match: MatchDep, hub: HubDep, settings: SettingsDep,
    after: int = Query(0, ge=0, le=SQLITE_MAX), last_event_id: str | None = Header(None),
) -> StreamingResponse:
    resumed = last_event_id is not None and last_event_id.isdigit() and int(last_event_id) <= SQLITE_MAX
    start = int(last_event_id) if resumed and last_event_id else after
    sub = hub.subscribe(match.id)

    async def stream() -> AsyncIterator[str]:
        sent = start
        try:
            conn = db.connect(settings.database)
            try:
                backlog = db.read_log(conn, match_id=match.id, after=start)
                fresh = db.get_match(conn, match_id=match.id)
                verdicts = db.read_verdicts(conn, match_id=match.id)
            finally:
                conn.close()
            yield "retry: 1000\n\n"
            for r in backlog:
                yield sse(str(r.kind), {"seq": r.seq, "data": r.data}, r.seq)
                sent = r.seq
            yield sse("verdicts", {"seq": sent, "data": verdicts}, sent)
            yield sse("state", {"seq": sent, "data": (fresh.state if fresh else None) or {}}, sent)
            quiet = 0.0
            while True:
                if await request.is_disconnected():  # checked every second: a closed tab frees its slot soon
                    break
                if hub.closing.is_set():  # the service is stopping: the browser reconnects to the next one
                    break
                try:
                    item = await asyncio.wait_for(sub.queue.get(), timeout=POLL_S)
                except TimeoutError:
                    quiet += POLL_S
                    if quiet >= HEARTBEAT_S:
                        quiet = 0.0
                        yield ": keep-alive\n\n"
                    continue
                quiet = 0.0
                if sub.overflowed:
                    yield sse("reconnect", {"after": sent})
                    break
                kind, seq = item["kind"], int(item.get("seq", 0))
                if kind in ("event", "input"):
                    if seq <= sent:  # already sent in the backlog
                        continue
                    sent = seq
                    yield sse(kind, item, seq)
                else:
                    yield sse(kind, item, None)
        finally:
            hub.unsubscribe(sub)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
