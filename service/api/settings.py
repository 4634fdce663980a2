"""Service settings from the environment (prefix PYRAMID_) or a .env file, via pydantic-settings."""

from __future__ import annotations

from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PYRAMID_", env_file=".env", extra="ignore")

    data_dir: Path = Path("data")  # uploads and analysis outputs live below it
    db_path: Path | None = None  # default: <data_dir>/pyramid.db
    max_upload_mb: int = 4096
    analysis_workers: int = 1  # analyses run one at a time by default: the pipeline wants a whole core
    allow_paths: bool = True  # POST /analyses may name a video already on this machine
    # An analysis interrupted by a restart resumes from its last checkpoint (taken at a shot boundary
    # after at least this much video); a shorter interval re-does less work after a crash.
    checkpoint_every_s: float = 30.0
    # Servers sharing one database: a running analysis's lease is renewed every lease_s / 6; one whose lease
    # lapsed for lease_s (its server died) is taken over by another server (when resume_analyses).
    lease_s: float = 30.0
    # A server that took an analysis over waits at most this long (wall clock) for the old worker to let go of
    # the output folder: a worker that still runs frames sees its fence within 0.5 s and lets go, but one
    # whose heartbeat starved for a whole lease may stay starved as long again, and its first frame may be a
    # calibration (about 6 s at 1080p); after two default leases the analysis is failed, saying why, and
    # POST /analyses/<id>/resume tries again.
    folder_wait_s: float = 60.0
    resume_analyses: bool = True  # at start-up, resume analyses a previous process left unfinished

    @property
    def database(self) -> Path:
        return self.db_path if self.db_path is not None else self.data_dir / "pyramid.db"

