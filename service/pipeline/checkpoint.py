"""Checkpoints of an analysis, taken at shot boundaries, so an interrupted run resumes.

A checkpoint is taken when a shot ends (every ball at rest) and at least `every_s` of video has passed
since the last one. It records the next frame to decode, how many lines of events.jsonl are final, the
annotated-video part to start next, the shot counter, the frame-timing tally and the match header; the
tracker and event detector are pickled beside it when they can be. Resuming truncates events.jsonl to
the recorded length, drops annotated parts written after the checkpoint, seeks the video, and restores the
tracker and detector (or, if they could not be pickled, starts fresh ones: the balls are at rest at a
shot boundary, so a fresh tracker re-acquires them on the next frames). Verdicts are re-derived by folding
the events again, which is cheap and exact.

The pickle is only restored by the code that wrote it: the checkpoint records a digest of the source of
the packages whose objects it holds, and after an upgrade (a service restarted on new code) the stages
start fresh instead of running old objects under new methods.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import pickle
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

CHECKPOINT = "checkpoint.json"
STATE_PICKLE = "checkpoint.pkl"
# The packages whose objects the pickled stages hold (tracker, event detector, calibration, schema).
PICKLED_PACKAGES = ("vision", "calibration", "rules", "service.pipeline")


@cache
def code_digest() -> str:
    """A digest of the source of PICKLED_PACKAGES as this process runs it (computed once)."""
    h = hashlib.sha256()
    for name in PICKLED_PACKAGES:
        spec = importlib.util.find_spec(name)
        for root in (spec.submodule_search_locations or []) if spec else []:
            for path in sorted(Path(root).rglob("*.py")):
                h.update(str(path.relative_to(root)).encode())
                h.update(path.read_bytes())
    return h.hexdigest()[:16]


@dataclass
class Checkpoint:
    video: str
    video_size: int
    next_frame: int
    t: float
    events_lines: int
    annot_part: int
    shots: int
    timing: dict[str, Any]
    header: list[dict[str, Any]] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)  # opening decision, calibration source, game
    complete: bool = False
    has_state: bool = False
    code: str = ""  # code_digest() of the process that pickled the stages


def save(out: Path, ckpt: Checkpoint, stages: Any = None) -> None:
    """Write atomically (tmp + rename): a crash mid-write leaves the previous checkpoint intact."""
    if stages is not None:
        try:
            blob = pickle.dumps(stages, protocol=pickle.HIGHEST_PROTOCOL)
            tmp = out / (STATE_PICKLE + ".tmp")
            tmp.write_bytes(blob)
            os.replace(tmp, out / STATE_PICKLE)
            ckpt.has_state, ckpt.code = True, code_digest()
        except (pickle.PicklingError, TypeError, AttributeError):
            ckpt.has_state = False
    tmp = out / (CHECKPOINT + ".tmp")
    tmp.write_text(json.dumps(asdict(ckpt), indent=1))
    os.replace(tmp, out / CHECKPOINT)


def load(out: Path) -> Checkpoint | None:
    path = out / CHECKPOINT
    if not path.exists():
        return None
    try:
        return Checkpoint(**json.loads(path.read_text()))
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{path}: unreadable checkpoint ({exc}); delete it or run without --resume") from exc


def load_state(out: Path) -> Any:
    """The pickled stages of our own checkpoint (a file this program wrote in the output folder); None
    when there are none, or they were written by other code (see the module docstring)."""
    path = out / STATE_PICKLE
    ckpt = load(out)
    if not path.exists() or ckpt is None or ckpt.code != code_digest():
        return None
    try:
        return pickle.loads(path.read_bytes())
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        return None


def truncate_lines(path: Path, n: int) -> None:
    """Keep the first n lines of a text file (events written after the checkpoint are re-made)."""
    if not path.exists():
        return
    with path.open("rb") as f:
        lines = f.readlines()[:n]
    with path.open("wb") as f:
        f.writelines(lines)


# What an analysis writes into its folder (nothing else there is ever touched).
OUTPUTS = ("events.jsonl", "verdicts.jsonl", "log.jsonl", "summary.json", "scoresheet.csv", "report.html",
           "annotated.mp4", "annotated.mp4.tmp", CHECKPOINT, STATE_PICKLE)
OUTPUT_DIRS = ("shots", "annotated.parts")


def claim(out: Path, video: Path, resume: bool) -> Checkpoint | None:
    """Make `out` this run's folder and return the checkpoint to resume from (None: a fresh run).

    An earlier analysis of another video there is never overwritten (ValueError: use another folder, or delete
    it). A fresh run of the same video first removes the earlier run's outputs, so a run that then fails leaves
    no report of the earlier one beside its own events. A resume refuses a folder whose events file no longer
    holds the lines its checkpoint counts."""
    prev = load(out)
    if prev is None:
        return None
    size = video.stat().st_size if video.exists() else -1
    if prev.video_size != size:
        raise ValueError(f"{out} holds the analysis of another video ({prev.video}, {prev.video_size} bytes; this "
                         f"one has {size}): use another --out, or delete that folder to replace it")
    if not resume:
        for name in OUTPUTS:
            (out / name).unlink(missing_ok=True)
        for name in OUTPUT_DIRS:
            if (out / name).is_dir():
                for p in (out / name).iterdir():
                    if p.is_file():
                        p.unlink()
        return None
    events = out / "events.jsonl"
    have = sum(1 for _ in events.open("rb")) if events.exists() else 0
    if have < prev.events_lines:
        raise ValueError(f"{events} holds {have} lines where its checkpoint counts {prev.events_lines}: the folder "
                         "changed after that run; analyse again without --resume")
    return prev
