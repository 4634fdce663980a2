"""A real service process (uvicorn) with scripted vision stages, for tests that kill it mid-analysis.

    python tests/service/serve_scripted.py DATA_DIR PORT

Checkpoints every 1 s of video. $PYRAMID_TEST_PAUSE_AT / $PYRAMID_TEST_PAUSED: see svc_fakes.PausingPerception.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # svc_fakes: also what the pickled stages name

import uvicorn
from svc_fakes import pausing_stages

from service.api.app import create_app
from service.api.settings import Settings

if __name__ == "__main__":
    settings = Settings(data_dir=Path(sys.argv[1]), checkpoint_every_s=1.0)
    uvicorn.run(create_app(settings, stage_factory=pausing_stages), host="127.0.0.1", port=int(sys.argv[2]),
                log_level="warning")
