"""Ground-truth files written next to each synthetic video, read by the benchmarks.

A case directory holds:
- `video.mp4`: the rendered H.264 video.
- `truth.json`: {"format": "pyramid-truth/1", "scenario", "table" (spec dict), "camera" (CameraModel dict),
  "fps", "width", "height", "n_frames", "ids", "events" (exact event dicts of rules.events, in time order),
  "log" (match header and referee inputs for the rules engine, a list of dicts, may be empty), "notes"}.
- `truth.npz`: per-frame arrays `pos_mm` (F, B, 3), `vel_mm_s` (F, B, 3), `px` (F, B, 2) projected ball
  centres (NaN when not on the table), `visible` (F, B) bool (on the table and not hidden by an occluder),
  `state` (F, B) int8 codes of vision.types.BallState.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from calibration.camera import CameraModel
from calibration.table import TableSpec
from rules.events import Event

FORMAT = "pyramid-truth/1"


@dataclass
class GroundTruth:
    scenario: str
    table: TableSpec
    camera: CameraModel
    fps: float
    ids: tuple[str, ...]
    events: list[Event]
    pos_mm: np.ndarray
    vel_mm_s: np.ndarray
    px: np.ndarray
    visible: np.ndarray
    state: np.ndarray
    log: list[dict[str, Any]] = field(default_factory=list)
    notes: str = ""

    @property
    def n_frames(self) -> int:
        return int(self.pos_mm.shape[0])

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        meta = {
            "format": FORMAT,
            "scenario": self.scenario,
            "table": self.table.to_dict(),
            "camera": self.camera.to_dict(),
            "fps": self.fps,
            "width": self.camera.width,
            "height": self.camera.height,
            "n_frames": self.n_frames,
            "ids": list(self.ids),
            "events": [e.to_dict() for e in self.events],
            "log": self.log,
            "notes": self.notes,
        }
        (folder / "truth.json").write_text(json.dumps(meta, indent=1) + "\n")
        np.savez_compressed(
            folder / "truth.npz",
            pos_mm=self.pos_mm.astype(np.float32),
            vel_mm_s=self.vel_mm_s.astype(np.float32),
            px=self.px.astype(np.float32),
            visible=self.visible.astype(bool),
            state=self.state.astype(np.int8),
        )

    @classmethod
    def load(cls, folder: Path) -> GroundTruth:
        meta = json.loads((folder / "truth.json").read_text())
        if meta.get("format") != FORMAT:
            raise ValueError(f"{folder}/truth.json: expected format {FORMAT!r}, got {meta.get('format')!r}")
        arrays = np.load(folder / "truth.npz")
        return cls(
            scenario=meta["scenario"],
            table=TableSpec(**meta["table"]),
            camera=CameraModel.from_dict(meta["camera"]),
            fps=float(meta["fps"]),
            ids=tuple(meta["ids"]),
            events=[Event.from_dict(d) for d in meta["events"]],
            pos_mm=arrays["pos_mm"],
            vel_mm_s=arrays["vel_mm_s"],
            px=arrays["px"],
            visible=arrays["visible"],
            state=arrays["state"],
            log=meta.get("log", []),
            notes=meta.get("notes", ""),
        )


def find_cases(root: Path) -> list[Path]:
    """Every case directory (holding truth.json and video.mp4) below root, sorted."""
    return sorted(p.parent for p in root.rglob("truth.json") if (p.parent / "video.mp4").exists())
