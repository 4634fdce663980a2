"""The table model: dimensions from a spec file, markings, cushions, pockets and geometry queries.

Table coordinates are millimetres on the bed plane: origin at the centre spot, +x along the long axis
towards the rear (rack) cushion, +y towards the left cushion as seen from the front (house) end, +z up.
Pure numpy, no cv2: the rules engine imports this module.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import resources
from pathlib import Path

import numpy as np

DEFAULT_SPEC = "pyramid-12ft"

CUSHIONS = ("front", "rear", "left_front", "left_rear", "right_front", "right_rear")
POCKETS = ("front_left", "front_right", "middle_left", "middle_right", "rear_left", "rear_right")


class Half(StrEnum):
    FRONT = "front"
    REAR = "rear"
    ON_LINE = "on_line"


class HouseStatus(StrEnum):
    IN = "in"
    ON_LINE = "on_line"  # centre on the house line: outside the house (1.10)
    OUT = "out"


@dataclass(frozen=True)
class TableSpec:
    """Physical dimensions of one table; loaded from a JSON spec file."""

    name: str
    bed_length_mm: float
    bed_width_mm: float
    ball_diameter_mm: float
    ball_mass_kg: float
    corner_mouth_mm: float
    middle_mouth_mm: float
    cushion_nose_height_mm: float
    cushion_width_mm: float
    rail_width_mm: float
    markings_painted: bool = True
    discipline: str = "pyramid"

    def __post_init__(self) -> None:
        for name in ("bed_length_mm", "bed_width_mm", "ball_diameter_mm", "ball_mass_kg", "corner_mouth_mm",
                     "middle_mouth_mm", "cushion_nose_height_mm", "cushion_width_mm", "rail_width_mm"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v <= 0:
                raise ValueError(f"table spec {self.name!r}: {name} must be a positive number, got {v!r}")
        if self.ball_diameter_mm >= min(self.bed_width_mm, self.corner_mouth_mm, self.middle_mouth_mm):
            raise ValueError(f"table spec {self.name!r}: a ball of {self.ball_diameter_mm:g} mm does not fit the bed "
                             "or its pocket mouths")

    @property
    def ball_radius_mm(self) -> float:
        return self.ball_diameter_mm / 2.0

    def to_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def list_specs() -> list[str]:
    """Names of the bundled presets."""
    folder = resources.files("calibration") / "specs"
    return sorted(p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json"))


def load_spec(name_or_path: str | Path = DEFAULT_SPEC) -> TableSpec:
    """A preset by name (see `list_specs`) or a custom JSON file with the same fields."""
    path = Path(name_or_path)
    if path.suffix == ".json" and path.exists():
        text = path.read_text()
    else:
        res = resources.files("calibration") / "specs" / f"{name_or_path}.json"
        if not res.is_file():
            raise ValueError(f"unknown table spec {name_or_path!r}; presets: {', '.join(list_specs())}")
        text = res.read_text()
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"table spec {name_or_path!r} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"table spec {name_or_path!r} must be a JSON object, got {type(data).__name__}")
    try:
        return TableSpec(**data)
    except TypeError as exc:
        raise ValueError(f"table spec {name_or_path!r} is malformed: {exc}") from exc


@dataclass(frozen=True)
class Cushion:
    """A straight cushion segment: the nose line between two jaw points, and its inward normal."""

    name: str
    a: tuple[float, float]
    b: tuple[float, float]
    normal: tuple[float, float]  # unit vector pointing into the bed


@dataclass(frozen=True)
class Pocket:
    """A pocket: the two jaw points of its mouth, the direction into the pocket, and the drop point."""

    name: str
    jaw_a: tuple[float, float]
    jaw_b: tuple[float, float]
    outward: tuple[float, float]  # unit vector from the bed into the pocket
    drop: tuple[float, float]  # where a potted ball falls
    mouth_mm: float

    @property
    def mouth_centre(self) -> tuple[float, float]:
        return ((self.jaw_a[0] + self.jaw_b[0]) / 2, (self.jaw_a[1] + self.jaw_b[1]) / 2)


@dataclass(frozen=True)
class Table:
    """A table spec with its derived geometry."""

    spec: TableSpec
    cushions: dict[str, Cushion] = field(init=False)
    pockets: dict[str, Pocket] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cushions", _build_cushions(self.spec))
        object.__setattr__(self, "pockets", _build_pockets(self.spec))

    @classmethod
    def load(cls, name_or_path: str | Path = DEFAULT_SPEC) -> Table:
        return cls(load_spec(name_or_path))

    # --- dimensions and markings -------------------------------------------------------------
    @property
    def half_length(self) -> float:
        return self.spec.bed_length_mm / 2.0

    @property
    def half_width(self) -> float:
        return self.spec.bed_width_mm / 2.0

    @property
    def ball_radius(self) -> float:
        return self.spec.ball_radius_mm

    @property
    def house_line_x(self) -> float:
        """The house line passes through the front spot (1.2)."""
        return -self.spec.bed_length_mm / 4.0

    @property
    def rear_line_x(self) -> float:
        """The line through the rear spot: bounds the temporary house of 1.21."""
        return self.spec.bed_length_mm / 4.0

    @property
    def markings(self) -> dict[str, tuple[float, float]]:
        """Named points in table mm (spots and the ends of the lines)."""
        hl, hw = self.half_length, self.half_width
        return {
            "centre_spot": (0.0, 0.0),
            "front_spot": (self.house_line_x, 0.0),
            "rear_spot": (self.rear_line_x, 0.0),
            "centre_line_left": (0.0, hw),
            "centre_line_right": (0.0, -hw),
            "house_line_left": (self.house_line_x, hw),
            "house_line_right": (self.house_line_x, -hw),
            "rear_line_left": (self.rear_line_x, hw),
            "rear_line_right": (self.rear_line_x, -hw),
            "spotting_line_end": (hl, 0.0),
        }

    @property
    def bed_corners(self) -> np.ndarray:
        """The four corners of the playing area where the cushion-nose lines meet, (4, 2) mm.

        Order: front_right, front_left, rear_left, rear_right (counter-clockwise seen from above).
        """
        hl, hw = self.half_length, self.half_width
        return np.array([[-hl, -hw], [-hl, hw], [hl, hw], [hl, -hw]], dtype=float)

    # --- queries ------------------------------------------------------------------------------
    def house_status(self, xy: tuple[float, float] | np.ndarray, line_tol_mm: float = 0.0) -> HouseStatus:
        """In the house, on the house line, or out, by the ball centre (1.9, 1.10)."""
        dx = float(xy[0]) - self.house_line_x
        if abs(dx) <= line_tol_mm:
            return HouseStatus.ON_LINE
        return HouseStatus.IN if dx < 0 else HouseStatus.OUT

    def in_house(self, xy: tuple[float, float] | np.ndarray, line_tol_mm: float = 0.0) -> bool:
        return self.house_status(xy, line_tol_mm) is HouseStatus.IN

    def in_rear_house(self, xy: tuple[float, float] | np.ndarray, line_tol_mm: float = 0.0) -> bool:
        """Inside the temporary house at the rear end (1.21), bounded by the rear line."""
        return float(xy[0]) - self.rear_line_x > line_tol_mm

    def half(self, xy: tuple[float, float] | np.ndarray, line_tol_mm: float = 0.0) -> Half:
        x = float(xy[0])
        if abs(x) <= line_tol_mm:
            return Half.ON_LINE
        return Half.FRONT if x < 0 else Half.REAR

    def on_bed(self, xy: tuple[float, float] | np.ndarray, margin_mm: float = 0.0) -> bool:
        """True when the point lies inside the cushion noses (shrunk by margin_mm)."""
        return (
            abs(float(xy[0])) <= self.half_length - margin_mm and abs(float(xy[1])) <= self.half_width - margin_mm
        )

    def cushion_distance(self, xy: tuple[float, float] | np.ndarray, cushion: str) -> float:
        """Distance in mm from a point to a cushion's nose line (inf when beyond the segment's extent)."""
        c = self.cushions[cushion]
        p = np.asarray(xy, dtype=float)[:2]
        a, b = np.asarray(c.a), np.asarray(c.b)
        ab = b - a
        s = float(np.dot(p - a, ab) / np.dot(ab, ab))
        if s < 0.0 or s > 1.0:
            return math.inf
        return float(np.dot(p - a, np.asarray(c.normal)))

    def cushion_gaps(self, xy: tuple[float, float] | np.ndarray) -> dict[str, float]:
        """Gap in mm between a ball's surface and each cushion nose it faces (ball centre at xy)."""
        r = self.ball_radius
        out = {}
        for name in CUSHIONS:
            d = self.cushion_distance(xy, name)
            if math.isfinite(d):
                out[name] = d - r
        return out

    def frozen_cushions(self, xy: tuple[float, float] | np.ndarray, tol_mm: float) -> list[tuple[str, float]]:
        """Cushions the ball at xy is frozen to: gap within tol_mm. Returns (cushion, gap_mm) pairs."""
        return sorted(
            ((n, g) for n, g in self.cushion_gaps(xy).items() if g <= tol_mm), key=lambda item: item[1]
        )

    def nearest_cushion(self, xy: tuple[float, float] | np.ndarray) -> tuple[str, float]:
        gaps = self.cushion_gaps(xy)
        if not gaps:
            return ("", math.inf)
        name = min(gaps, key=gaps.__getitem__)
        return name, gaps[name]

    def pocket_at(self, xy: tuple[float, float] | np.ndarray, reach_mm: float | None = None) -> str | None:
        """The pocket whose mouth region holds xy: within reach_mm of the mouth centre (default: mouth
        width) and not inside the bed by more than a ball radius."""
        p = np.asarray(xy, dtype=float)[:2]
        for pk in self.pockets.values():
            centre = np.asarray(pk.mouth_centre)
            reach = pk.mouth_mm if reach_mm is None else reach_mm
            depth = float(np.dot(p - centre, np.asarray(pk.outward)))
            if np.linalg.norm(p - centre) <= reach + max(depth, 0.0) and depth > -self.ball_radius:
                return pk.name
        return None

    def nearest_pocket(self, xy: tuple[float, float] | np.ndarray) -> tuple[str, float]:
        p = np.asarray(xy, dtype=float)[:2]
        best = min(self.pockets.values(), key=lambda pk: float(np.linalg.norm(p - np.asarray(pk.mouth_centre))))
        return best.name, float(np.linalg.norm(p - np.asarray(best.mouth_centre)))

    def ball_gap(self, a: tuple[float, float] | np.ndarray, b: tuple[float, float] | np.ndarray) -> float:
        """Gap in mm between the surfaces of two balls centred at a and b."""
        return float(np.hypot(float(a[0]) - float(b[0]), float(a[1]) - float(b[1]))) - self.spec.ball_diameter_mm

    def rack_positions(self, order: list[str] | None = None, gap_mm: float = 0.0) -> dict[str, tuple[float, float]]:
        """The full pyramid (1.8): apex on the rear spot, base towards the rear cushion, balls touching.

        `order` lists ball ids apex first, row by row, each row from left (+y) to right; default 1..15.
        """
        ids = order or [str(i) for i in range(1, 16)]
        d = self.spec.ball_diameter_mm + gap_mm
        row_dx = d * math.sqrt(3.0) / 2.0
        out: dict[str, tuple[float, float]] = {}
        k = 0
        for row in range(5):
            for j in range(row + 1):
                if k >= len(ids):
                    return out
                y = (row / 2.0 - j) * d
                out[ids[k]] = (self.rear_line_x + row * row_dx, y)
                k += 1
        return out


def _build_cushions(spec: TableSpec) -> dict[str, Cushion]:
    hl, hw = spec.bed_length_mm / 2, spec.bed_width_mm / 2
    c = spec.corner_mouth_mm / math.sqrt(2.0)  # jaw tip distance from the corner along each nose
    m = spec.middle_mouth_mm / 2.0
    return {
        "front": Cushion("front", (-hl, -hw + c), (-hl, hw - c), (1.0, 0.0)),
        "rear": Cushion("rear", (hl, hw - c), (hl, -hw + c), (-1.0, 0.0)),
        "left_front": Cushion("left_front", (-hl + c, hw), (-m, hw), (0.0, -1.0)),
        "left_rear": Cushion("left_rear", (m, hw), (hl - c, hw), (0.0, -1.0)),
        "right_front": Cushion("right_front", (-m, -hw), (-hl + c, -hw), (0.0, 1.0)),
        "right_rear": Cushion("right_rear", (hl - c, -hw), (m, -hw), (0.0, 1.0)),
    }


def _build_pockets(spec: TableSpec) -> dict[str, Pocket]:
    hl, hw = spec.bed_length_mm / 2, spec.bed_width_mm / 2
    c = spec.corner_mouth_mm / math.sqrt(2.0)
    m = spec.middle_mouth_mm / 2.0
    r = spec.ball_diameter_mm / 2.0
    s = 1.0 / math.sqrt(2.0)
    out: dict[str, Pocket] = {}
    for name, sx, sy in (
        ("front_left", -1, 1),
        ("front_right", -1, -1),
        ("rear_left", 1, 1),
        ("rear_right", 1, -1),
    ):
        cx, cy = sx * hl, sy * hw
        out[name] = Pocket(
            name,
            (cx - sx * c, cy),
            (cx, cy - sy * c),
            (sx * s, sy * s),
            (cx + sx * r * s, cy + sy * r * s),
            spec.corner_mouth_mm,
        )
    for name, sy in (("middle_left", 1), ("middle_right", -1)):
        out[name] = Pocket(
            name, (-m, sy * hw), (m, sy * hw), (0.0, float(sy)), (0.0, sy * (hw + r)), spec.middle_mouth_mm
        )
    return out
