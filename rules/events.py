"""The event stream: the versioned contract between vision (writer) and rules (reader).

One JSON object per line. Every event has `type`, `t` (video seconds), `frame`, `confidence` (0..1) and
the fields of its type (see docs/event-schema.md). Ball ids are "1".."15" and "C" (the coloured ball);
cushion and pocket names are those of `calibration.table`. Unknown fields are kept in `extra` so that a
reader of an older version never drops data.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

SCHEMA_VERSION = "1.11"
BALL_IDS: tuple[str, ...] = (*(str(i) for i in range(1, 16)), "C")


class EventType(StrEnum):
    SHOT_START = "shot_start"
    BALL_CONTACT = "ball_contact"
    CUSHION = "cushion"
    LINE_CROSS = "line_cross"
    POT = "pot"
    OFF_TABLE = "off_table"
    BALL_DISTURBED = "ball_disturbed"
    SHOT_END = "shot_end"

    def is_collision(self) -> bool:
        return self in (EventType.BALL_CONTACT, EventType.CUSHION)


class Line(StrEnum):
    CENTRE = "centre"
    HOUSE = "house"


class Direction(StrEnum):
    FRONT = "front"
    REAR = "rear"


# The writer asserts an event at this confidence or above; below it the event is reported for review (a
# doubtful shot_start never splits a running shot and every verdict resting on it is flagged; see
# docs/event-schema.md, How the rules engine reads a shot_start).
ASSERTED = 0.5

# Fields every event carries; everything else lives in the typed optional fields or `extra`.
_CORE = ("type", "t", "frame", "confidence")
_TYPED = ("ball", "balls", "cushion", "line", "to", "pocket", "positions", "frozen", "touching")


@dataclass(frozen=True)
class Event:
    """One observed ball event. `agents` are the balls involved, in order."""

    type: EventType
    t: float
    frame: int
    confidence: float = 1.0
    ball: str | None = None  # shot_start (struck ball), cushion, line_cross, pot, off_table, ball_disturbed
    balls: tuple[str, str] | None = None  # ball_contact
    cushion: str | None = None
    line: Line | None = None
    to: Direction | None = None
    pocket: str | None = None
    positions: dict[str, tuple[float, float]] | None = None  # shot_start / shot_end: balls at rest, mm
    frozen: tuple[dict[str, Any], ...] | None = None  # shot_start: {ball, cushion, gap_mm}
    touching: tuple[dict[str, Any], ...] | None = None  # shot_start: {balls: [a, b], gap_mm}
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence must be within 0..1, got {self.confidence}")
        need: dict[EventType, tuple[str, ...]] = {
            EventType.BALL_CONTACT: ("balls",),
            EventType.CUSHION: ("ball", "cushion"),
            EventType.LINE_CROSS: ("ball", "line", "to"),
            EventType.POT: ("ball", "pocket"),
            EventType.OFF_TABLE: ("ball",),
            EventType.BALL_DISTURBED: ("ball",),
        }
        for name in need.get(self.type, ()):
            if getattr(self, name) is None:
                raise ValueError(f"{self.type} event needs field {name!r}")
        if self.balls is not None and len(self.balls) != 2:
            raise ValueError(f"ball_contact needs exactly two balls, got {self.balls!r}")

    @property
    def agents(self) -> tuple[str, ...]:
        if self.balls is not None:
            return tuple(self.balls)
        return (self.ball,) if self.ball is not None else ()

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": str(self.type), "t": round(self.t, 6), "frame": self.frame}
        d["confidence"] = round(self.confidence, 4)
        for name in _TYPED:
            v = getattr(self, name)
            if v is None:
                continue
            if name == "balls":
                v = list(v)
            elif name == "positions":
                v = {k: [round(float(x), 2), round(float(y), 2)] for k, (x, y) in v.items()}
            elif name in ("frozen", "touching"):
                v = [dict(item) for item in v]
            elif name in ("line", "to"):
                v = str(v)
            d[name] = v
        d.update(self.extra)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Event:
        missing = [k for k in _CORE[:3] if k not in d]
        if missing:
            raise ValueError(f"event is missing {missing}: {d!r}")
        try:
            etype = EventType(d["type"])
        except ValueError as exc:
            raise ValueError(f"unknown event type {d['type']!r}") from exc
        kw: dict[str, Any] = {}
        scalar: dict[str, Any] = {}
        for name in _TYPED:
            if name not in d or d[name] is None:
                continue
            v = d[name]
            if name in ("frozen", "touching") and not isinstance(v, list | tuple):
                scalar[name] = v  # not shot_start's list: e.g. a cushion event's `frozen: true` stays in extra
                continue
            if name == "balls":
                v = (str(v[0]), str(v[1])) if len(v) == 2 else tuple(v)
            elif name == "positions":
                v = {str(k): (float(p[0]), float(p[1])) for k, p in v.items()}
                bad = [k for k, p in v.items() if not (math.isfinite(p[0]) and math.isfinite(p[1]))]
                if bad:
                    raise ValueError(f"{etype.value}: positions of {bad} must be finite [x, y] in mm")
            elif name in ("frozen", "touching"):
                v = tuple(_gap_item(etype, name, item) for item in v)
            elif name == "line":
                v = Line(v)
            elif name == "to":
                v = Direction(v)
            elif name in ("ball",):
                v = str(v)
            kw[name] = v
        extra = {k: v for k, v in d.items() if k not in _CORE and k not in _TYPED}
        extra.update(scalar)
        return cls(
            type=etype,
            t=float(d["t"]),
            frame=int(d["frame"]),
            confidence=float(d.get("confidence", 1.0)),
            extra=extra,
            **kw,
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))


def start_confidence(e: Event) -> float:
    """How sure the writer is that a stroke happened at all (1.1 `start_confidence`). A 1.0 writer folded
    the struck ball's identity into `confidence`, which then stands for both."""
    return _unit(e.extra.get("start_confidence"), e.confidence)


def ball_confidence(e: Event) -> float:
    """How sure the writer is of which ball the cue struck (1.1 `ball_confidence`), else `confidence`."""
    return _unit(e.extra.get("ball_confidence"), e.confidence)


def id_confidence(e: Event) -> float:
    """The writer's identity confidence of the event's balls (1.8 `id_confidence`: the risk that a track took
    another ball's detections, not folded into `confidence`), else 1."""
    return _unit(e.extra.get("id_confidence"), 1.0)


def unnamed_of(e: Event) -> list[str]:
    """The ids an event marks `unnamed` (1.7), else none."""
    v = e.extra.get("unnamed")
    return [str(b) for b in v] if isinstance(v, list) else []


def doubtful(e: Event, min_conf: float) -> bool:
    """Reported below `min_conf` (the rules' review confidence), or marked for review by the writer."""
    return e.confidence < min_conf or bool(e.extra.get("review"))


def opens_shot(e: Event) -> bool:
    """A shot_start that asserts a stroke. One whose existence is doubtful must not end the running shot."""
    return e.type is EventType.SHOT_START and start_confidence(e) >= ASSERTED


def _unit(v: Any, default: float) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return default
    return min(1.0, max(0.0, x)) if x == x else default


def is_ball_event(d: dict[str, Any]) -> bool:
    """True for a dict whose `type` is one of the ball events of this schema."""
    return d.get("type") in {str(e) for e in EventType}


# --- small chainable filters, pooltool style ---------------------------------------------------
EventFilter = Callable[[Event], bool]


def by_type(*types: EventType) -> EventFilter:
    return lambda e: e.type in types


def by_ball(ball: str) -> EventFilter:
    return lambda e: ball in e.agents


def after(t: float) -> EventFilter:
    return lambda e: e.t > t


def filter_events(events: Iterable[Event], *filters: EventFilter) -> list[Event]:
    return [e for e in events if all(f(e) for f in filters)]


def read_jsonl(lines: Iterable[str]) -> Iterator[Event]:
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield Event.from_dict(json.loads(line))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"line {n}: {exc}") from exc


def _gap_item(etype: EventType, name: str, item: Any) -> dict[str, Any]:
    """A `frozen` or `touching` item, its gap and sigma (1.6) checked: numbers, finite, the sigma not negative
    (an infinite or negative sigma would silently widen a review band to the whole table or drop it)."""
    if not isinstance(item, dict):
        raise ValueError(f"{etype.value}: each {name} item must be an object, got {item!r}")
    out = dict(item)
    for key in ("gap_mm", "gap_sigma_mm"):
        if out.get(key) is None:
            continue
        v = out[key]
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise ValueError(f"{etype.value}: {name} {key} must be a finite number, got {v!r}")
        if key == "gap_sigma_mm" and v < 0:
            raise ValueError(f"{etype.value}: {name} gap_sigma_mm must be >= 0, got {v!r}")
    return out
