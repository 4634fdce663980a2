"""`pyramid-monitor serve`: the FastAPI service (matches, live feed, referee inputs, analyses, web page)."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "run the web service: REST API, live referee feed (SSE), referee page at /"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--data-dir", type=Path, default=None, help="uploads, analyses and the database (default ./data)")
    p.add_argument("--db", type=Path, default=None, help="SQLite file (default <data-dir>/pyramid.db)")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from service.api.app import create_app
    from service.api.settings import Settings

    overrides: dict[str, object] = {}
    if args.data_dir is not None:
        overrides["data_dir"] = args.data_dir
    if args.db is not None:
        overrides["db_path"] = args.db
    settings = Settings(**overrides)  # type: ignore[arg-type]
    print(f"database: {settings.database}; referee page: http://{args.host}:{args.port}/")
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="info")
    return 0
