"""A fitted calibration: the camera model plus the evidence for it, saved as `calibration.json`.

The vision layer only needs `to_table` and `to_image`; the rest is for checking and for the monitor.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np

from calibration.camera import CameraModel
from calibration.table import Table

FORMAT = "pyramid-calibration/1"
SPOT_NAMES = ("centre_spot", "front_spot", "rear_spot")


class CalibrationError(Exception):
    """Calibration could not be done; the message says why and what the user can do."""


class CalibrationMethod(StrEnum):
    AUTO = "auto"
    MANUAL = "manual"


class CalibrationStatus(StrEnum):
    OK = "ok"
    BUMPED = "bumped"  # the view moved and no new calibration was made: do not use the old one
    RECALIBRATED = "recalibrated"


@dataclass(frozen=True)
class Quality:
    """How much to trust a calibration."""

    method: CalibrationMethod
    rms_mm: float  # residual of the cushion-nose points and spots, table mm
    edge_points: int  # cushion-nose edge points used (inliers)
    side_inlier_fraction: tuple[float, float, float, float]  # front, left, rear, right
    spots_found: int
    pockets_found: int
    confidence: float  # 0..1

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": str(self.method),
            "rms_mm": self.rms_mm,
            "edge_points": self.edge_points,
            "side_inlier_fraction": list(self.side_inlier_fraction),
            "spots_found": self.spots_found,
            "pockets_found": self.pockets_found,
            "confidence": self.confidence,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Quality:
        f, l_, r, rt = (float(v) for v in d["side_inlier_fraction"])
        return cls(
            CalibrationMethod(d["method"]),
            float(d["rms_mm"]),
            int(d["edge_points"]),
            (f, l_, r, rt),
            int(d["spots_found"]),
            int(d["pockets_found"]),
            float(d["confidence"]),
        )


@dataclass(frozen=True)
class Calibration:
    """The camera over one table, with pixel <-> table-mm mappings at any height."""

    camera: CameraModel
    table_spec: str  # spec name (or path) as given to Table.load
    table: Table
    rms_mm: float
    bed_corners_px: np.ndarray  # (4, 2), order of Table.bed_corners, bed plane z = 0
    markings_px: dict[str, tuple[float, float]]  # centre, front and rear spots
    quality: Quality
    notes: list[str] = field(default_factory=list)

    # --- the mapping the vision layer uses ------------------------------------------------------
    def to_table(self, px: np.ndarray, z_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """(N, 2) image pixels -> (N, 2) table mm of the points at height z_mm (e.g. a ball centre: R)."""
        return self.camera.unproject(np.asarray(px, dtype=float).reshape(-1, 2), z_mm)[:, :2]

    def to_image(self, xy_mm: np.ndarray, z_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """(N, 2) table mm at height z_mm -> (N, 2) image pixels."""
        xy = np.asarray(xy_mm, dtype=float).reshape(-1, 2)
        z = np.broadcast_to(np.asarray(z_mm, dtype=float), (len(xy),))
        return self.camera.project(np.column_stack([xy, z]))

    # --- persistence ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "table_spec": self.table_spec,
            "table": self.table.spec.to_dict(),
            "camera": self.camera.to_dict(),
            "rms_mm": self.rms_mm,
            "bed_corners_px": np.asarray(self.bed_corners_px, float).tolist(),
            "markings_px": {k: [float(v[0]), float(v[1])] for k, v in self.markings_px.items()},
            "quality": self.quality.to_dict(),
            "notes": list(self.notes),
        }

    def save(self, path: Path | str) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Calibration:
        from calibration.table import TableSpec

        if d.get("format") != FORMAT:
            raise CalibrationError(f"not a calibration file: expected format {FORMAT!r}, got {d.get('format')!r}")
        try:
            table = Table(TableSpec(**d["table"]))
            return cls(
                camera=CameraModel.from_dict(d["camera"]),
                table_spec=str(d["table_spec"]),
                table=table,
                rms_mm=float(d["rms_mm"]),
                bed_corners_px=np.asarray(d["bed_corners_px"], float).reshape(4, 2),
                markings_px={k: (float(v[0]), float(v[1])) for k, v in d["markings_px"].items()},
                quality=Quality.from_dict(d["quality"]),
                notes=list(d.get("notes", [])),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"calibration file is malformed: {exc}") from exc

    @classmethod
    def load(cls, path: Path | str) -> Calibration:
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise CalibrationError(f"cannot read calibration file {path}: {exc}") from exc
        return cls.from_dict(data)


def build_calibration(
    camera: CameraModel, table: Table, spec_name: str, rms_mm: float, quality: Quality, notes: list[str]
) -> Calibration:
    """Fill in the derived image positions (bed corners, spots) from a fitted camera."""
    corners = camera.project(np.column_stack([table.bed_corners, np.zeros(4)]))
    marks = table.markings
    spots = camera.project(np.array([[*marks[n], 0.0] for n in SPOT_NAMES]))
    return Calibration(
        camera=camera,
        table_spec=spec_name,
        table=table,
        rms_mm=rms_mm,
        bed_corners_px=corners,
        markings_px={n: (float(p[0]), float(p[1])) for n, p in zip(SPOT_NAMES, spots, strict=True)},
        quality=quality,
        notes=notes,
    )
