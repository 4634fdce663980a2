"""The FastAPI application: routers per resource, the live hub, the analysis worker, the web page."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from types import FrameType
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles

from calibration.table import list_specs
from rules.events import SCHEMA_VERSION
from service import judging
from service.api.jobs import JobRunner
from service.api.live import LiveHub
from service.api.routers import analyses, events, inputs, live, matches, verdicts
from service.api.settings import Settings
from service.pipeline.run import StageFactory, default_stages


def _close_feeds_on_stop(hub: LiveHub) -> None:
    """Chain a handler before the server's SIGINT / SIGTERM handler that ends the open live feeds: uvicorn
    waits for open responses before it shuts down, and an SSE feed stays open as long as its page does."""

    def chain(prev: Any) -> Callable[[int, FrameType | None], None]:
        def handler(signum: int, frame: FrameType | None) -> None:
            hub.closing.set()
            if callable(prev):
                prev(signum, frame)
            else:  # the default action (terminate): restore it and deliver the signal again
                signal.signal(signum, signal.SIG_DFL if prev is None else prev)
                signal.raise_signal(signum)

        return handler

    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(sig, chain(signal.getsignal(sig)))
        except ValueError:  # not the main thread (a server run in a thread): feeds end at its shutdown timeout
            return


def create_app(settings: Settings | None = None, stage_factory: StageFactory = default_stages) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        app.state.jobs = JobRunner(settings, app.state.hub, stage_factory)
        if settings.resume_analyses:  # those no live server holds (another server may share the database)
            app.state.jobs.resume_orphans("interrupted by a service restart; resuming from its last checkpoint")
        else:
            app.state.jobs.fail_orphans()
        app.state.jobs.start_heartbeat()
        _close_feeds_on_stop(app.state.hub)
        yield
        app.state.hub.closing.set()
        app.state.jobs.shutdown()

    app = FastAPI(title="Pyramid Monitor", version="0.1.0", lifespan=lifespan)
    app.state.settings = settings
    app.state.hub = LiveHub()
    for r in (matches.router, events.router, verdicts.router, inputs.router, analyses.router, live.router):
        app.include_router(r)

    @app.get("/health", tags=["meta"])
    def health() -> dict[str, object]:
        return {"ok": True, "database": str(settings.database)}

    @app.get("/meta", tags=["meta"])
    def meta() -> dict[str, object]:
        """What the web page offers in its menus (games, tables, the default game) and the event schema version
        that /matches/{id}/events speaks (docs/event-schema.md)."""
        return {"games": judging.games(), "tables": list_specs(), "default_game": judging.DEFAULT_GAME,
                "event_schema": SCHEMA_VERSION}

    @app.get("/", include_in_schema=False)
    def index(request: Request) -> RedirectResponse:
        query = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse(f"/web/index.html{query}")

    web = Path(str(resources.files("service") / "web"))
    app.mount("/web", StaticFiles(directory=web), name="web")
    return app
