"""Per-frame data types that flow through detection and tracking (supervision's `Detections` idea).

Every stage takes and returns one of these; arrays are parallel along the first axis and validated on
construction, with errors that name the expected shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any

import numpy as np

from rules.events import BALL_IDS


class BallClass(StrEnum):
    IVORY = "ivory"
    COLOURED = "coloured"
    UNKNOWN = "unknown"  # a ball-like object of another set (pool, snooker footage)


class BallState(IntEnum):
    """Track state of a ball. IntEnum so it packs into numpy arrays; compare with members, not ints."""

    STATIONARY = 0
    MOVING = 1
    POTTED = 2
    OFF_TABLE = 3
    HIDDEN = 4  # occluded (arm, cue) or not yet seen
    UNKNOWN = 5


def _check(name: str, arr: np.ndarray, shape: tuple[int | None, ...], n: int) -> np.ndarray:
    want = tuple(n if s is None else s for s in shape)
    if arr.shape != want:
        raise ValueError(f"{name} must have shape {want} (N={n}), got {arr.shape}")
    return arr


# A disc read at least this well is a ball seen clear: a disc inside an arm or cue blob has its confidence scaled
# by detect.OCCLUDED_CONF (0.4), so it never reaches this.
CLEAR_CONF = 0.6


@dataclass
class Detections:
    """Balls found in one frame. N rows; positions are ball centres in table mm at ball-centre height."""

    xy_mm: np.ndarray  # (N, 2) float
    confidence: np.ndarray  # (N,) float 0..1
    cls: np.ndarray  # (N,) object array of BallClass
    xy_px: np.ndarray  # (N, 2) float, image pixels (distorted), for drawing
    radius_px: np.ndarray  # (N,) float
    data: dict[str, np.ndarray] = field(default_factory=dict)  # extra per-row arrays (N, ...)

    def __post_init__(self) -> None:
        self.xy_mm = np.asarray(self.xy_mm, dtype=float).reshape(-1, 2) if np.size(self.xy_mm) else np.zeros((0, 2))
        n = len(self.xy_mm)
        self.confidence = _check("confidence", np.asarray(self.confidence, dtype=float), (None,), n)
        self.cls = _check("cls", np.asarray(self.cls, dtype=object), (None,), n)
        xy_px = np.asarray(self.xy_px, dtype=float)
        self.xy_px = _check("xy_px", xy_px.reshape(-1, 2) if xy_px.size else np.zeros((0, 2)), (None, 2), n)
        self.radius_px = _check("radius_px", np.asarray(self.radius_px, dtype=float), (None,), n)
        for key, arr in self.data.items():
            if len(arr) != n:
                raise ValueError(f"data[{key!r}] must have length {n}, got {len(arr)}")

    def __len__(self) -> int:
        return len(self.xy_mm)

    def __getitem__(self, index: Any) -> Detections:
        return Detections(
            self.xy_mm[index],
            self.confidence[index],
            self.cls[index],
            self.xy_px[index],
            self.radius_px[index],
            {k: v[index] for k, v in self.data.items()},
        )

    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 2)), np.zeros(0), np.zeros(0, dtype=object), np.zeros((0, 2)), np.zeros(0))

    @classmethod
    def merge(cls, parts: list[Detections]) -> Detections:
        if not parts:
            return cls.empty()
        keys = set.intersection(*(set(p.data) for p in parts))
        return cls(
            np.concatenate([p.xy_mm for p in parts]),
            np.concatenate([p.confidence for p in parts]),
            np.concatenate([p.cls for p in parts]),
            np.concatenate([p.xy_px for p in parts]),
            np.concatenate([p.radius_px for p in parts]),
            {k: np.concatenate([p.data[k] for p in parts]) for k in keys},
        )


@dataclass
class BallStates:
    """The tracker's published state of every ball at one frame: one row per ball id, in `ids` order."""

    frame: int
    t: float  # video seconds
    ids: tuple[str, ...]  # e.g. BALL_IDS
    xy_mm: np.ndarray  # (B, 2) float; last known position when not visible
    vel_mm_s: np.ndarray  # (B, 2) float
    state: np.ndarray  # (B,) int8 codes of BallState
    confidence: np.ndarray  # (B,) position confidence 0..1
    id_confidence: np.ndarray  # (B,) identity confidence 0..1: no swap with another ball
    # (B,) bool: the ball's number is known; False where the id labels an ivory ball vision could not name.
    # None (an older producer): every ball named
    named: np.ndarray | None = None

    def __post_init__(self) -> None:
        b = len(self.ids)
        self.xy_mm = _check("xy_mm", np.asarray(self.xy_mm, dtype=float), (None, 2), b)
        self.vel_mm_s = _check("vel_mm_s", np.asarray(self.vel_mm_s, dtype=float), (None, 2), b)
        self.state = _check("state", np.asarray(self.state, dtype=np.int8), (None,), b)
        self.confidence = _check("confidence", np.asarray(self.confidence, dtype=float), (None,), b)
        self.id_confidence = _check("id_confidence", np.asarray(self.id_confidence, dtype=float), (None,), b)
        named = np.ones(b, dtype=bool) if self.named is None else np.asarray(self.named, dtype=bool)
        self.named = _check("named", named, (None,), b)

    def __len__(self) -> int:
        return len(self.ids)

    def index(self, ball: str) -> int:
        return self.ids.index(ball)

    def state_of(self, ball: str) -> BallState:
        return BallState(int(self.state[self.index(ball)]))

    def on_table(self) -> np.ndarray:
        """Mask of balls still in play (not potted, not off the table)."""
        return ~np.isin(self.state, [BallState.POTTED, BallState.OFF_TABLE])

    @classmethod
    def blank(cls, frame: int, t: float, ids: tuple[str, ...] = BALL_IDS) -> BallStates:
        b = len(ids)
        return cls(
            frame,
            t,
            ids,
            np.full((b, 2), np.nan),
            np.zeros((b, 2)),
            np.full(b, BallState.UNKNOWN, dtype=np.int8),
            np.zeros(b),
            np.zeros(b),
        )
