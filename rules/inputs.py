"""Referee inputs: the non-vision lines of a match log (see docs/rules-engine.md).

A log is JSON Lines holding ball events (`rules.events`) and these inputs, in time order. Inputs are data:
the engine folds them with the events; nothing here edits an earlier line.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from calibration.table import Table
from rules.events import BALL_IDS, Event, EventType


class InputType(StrEnum):
    MATCH = "match"  # header: game, players, breaker, frames_to_win, options
    STATE = "state"  # start from a position: balls, score, to_play, shelves, phase
    NOMINATE = "nominate"  # ball, pocket (Classic 71: mode, how)
    DECLARE_FROZEN = "declare_frozen"  # ball, cushion (1.20 note 2)
    CHOOSE = "choose"  # option (1.6, 1.7.4, 1.12.2, 4.7)
    PENALTY_BALL = "penalty_ball"  # ball taken off to the non-offender's shelf (2.7, 3.7, 4.7)
    REMOVE_BALL = "remove_ball"  # ball taken off for a legally potted cue ball (3.5.2, 4.5.2)
    FOUL = "foul"  # clause: a foul only a person sees (1.15, 1.16, 1.18, 1.28, ...)
    OVERRIDE = "override"  # shot, verdict fields, reason
    CLOCK = "clock"  # action: start | stop | extension (1.26)
    LAG = "lag"  # balls: {ball: player}; the ball events up to the next shot_end are the lag (1.7)
    WARNING = "warning"  # about: penalty_draw (001: three penalty strokes each after a warning)
    INTERFERENCE = "interference"  # 1.27: balls moved by an outsider; restored: false = re-rack, lag, break
    # balls: {id: [x, y]}: where some balls are (e.g. re-spotted by hand), the others left alone. For vision's
    # identities only: it changes nothing the engine judges, so parse_log leaves it out of the fold.
    IDENTIFY = "identify"
    # t, status ("moved"), why: the recording's camera moved at t, so the calibration no longer fits the view
    # from then on. Written by the analysis, not judged by the engine (parse_log leaves it out); the service
    # flags the verdicts from t on for review (service.judging.fold).
    CAMERA = "camera"


class Option(StrEnum):
    PLAY = "play"
    HAND_OVER = "hand_over"
    RERACK_BREAK = "rerack_break"
    RERACK_OFFENDER_BREAKS = "rerack_offender_breaks"
    TAKE_BALL = "take_ball"  # 4.7(1)
    BALL_IN_HAND = "ball_in_hand"  # 4.7(2)
    REPLAY_FRAME = "replay_frame"  # 001: a drawn frame that must have a result is replayed in full
    LAST_BALL = "last_ball"  # 001: ... or, by agreement, only in its last ball on the third spot


_NEED: dict[InputType, tuple[str, ...]] = {
    InputType.MATCH: ("players",),
    InputType.NOMINATE: (),
    InputType.DECLARE_FROZEN: ("ball", "cushion"),
    InputType.CHOOSE: ("option",),
    InputType.PENALTY_BALL: ("ball",),
    InputType.REMOVE_BALL: ("ball",),
    InputType.FOUL: ("clause",),
    InputType.OVERRIDE: ("shot", "reason"),
    InputType.CLOCK: ("action",),
    InputType.LAG: ("balls",),
    InputType.WARNING: ("about",),
    InputType.IDENTIFY: ("balls",),
    InputType.CAMERA: ("status",),
}


Places = dict[str, tuple[float, float]]


def ball_places(balls: Any, where: str) -> Places:
    """`balls` given as {id: [x, y]} (table mm, origin at the centre spot) as ball id -> (x, y): known ids,
    finite numbers. The one parser of stated places (identify lines, state lines, --state); ValueError
    naming `where` for a malformed entry."""
    if not isinstance(balls, Mapping):
        raise ValueError(f"{where}: balls must be {{id: [x, y]}} (table mm), got {type(balls).__name__}")
    out: Places = {}
    for b, xy in balls.items():
        if str(b) not in BALL_IDS:
            raise ValueError(f"{where}: unknown ball id {b!r} (ids are {', '.join(BALL_IDS)})")
        try:
            x, y = (float(v) for v in xy)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where}: ball {b!r} needs [x, y] in mm, got {xy!r}") from exc
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError(f"{where}: ball {b!r} needs finite [x, y] in mm, got {xy!r}")
        out[str(b)] = (x, y)
    return out


def _check_identify(d: Mapping[str, Any], line: int) -> None:
    """`balls` must be a non-empty {id: [x, y]} of known ids and finite millimetres."""
    balls = d["balls"]
    if not isinstance(balls, Mapping) or not balls:
        raise ValueError(f"line {line}: identify needs balls as a non-empty {{id: [x, y]}} (table mm), got {balls!r}")
    ball_places(balls, f"line {line}: identify")


def _count(v: Any) -> bool:
    """A whole number of points or frames: an int, or a float with no fraction (JSON writers differ)."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        return False
    return math.isfinite(v) and float(v).is_integer() and abs(v) < 1e9


def _check_state(d: Mapping[str, Any], line: int) -> None:
    """A `state` line's position and numbers, checked where the log is read (the fold converts them):
    `balls` {id: [x, y]} of known ids in finite mm, or a list of ids; `score` and `targets` {player: whole
    number}; `shelves` {player: [ids]}; `frame` a whole number."""
    where = f"line {line}: state"
    balls = d.get("balls")
    if balls is not None:
        if isinstance(balls, list):
            bad = [b for b in balls if isinstance(b, bool) or str(b) not in BALL_IDS]
            if bad:
                raise ValueError(f"{where}: unknown ball id(s) {bad!r} in balls (ids are {', '.join(BALL_IDS)})")
        else:
            ball_places(balls, where)
    for name in ("score", "targets"):
        v = d.get(name)
        if v is None:
            continue
        if not isinstance(v, Mapping) or not all(isinstance(k, str) and _count(n) for k, n in v.items()):
            raise ValueError(f"{where}: field {name!r} must be {{player: whole number}}, got {v!r}")
    shelves = d.get("shelves")
    if shelves is not None and not (isinstance(shelves, Mapping) and all(
            isinstance(ids, list) and all(not isinstance(b, bool) and str(b) in BALL_IDS for b in ids)
            for ids in shelves.values())):
        raise ValueError(f"{where}: field 'shelves' must be {{player: [ball ids]}}, got {shelves!r}")
    frame = d.get("frame")
    if frame is not None and not (_count(frame) and frame >= 1):
        raise ValueError(f"{where}: field 'frame' must be a frame number (1, 2, ...), got {frame!r}")


CAMERA_STATUSES = ("moved",)


def _check_camera(d: Mapping[str, Any], line: int) -> None:
    """A `camera` line says from when (`t`) the view is off its calibration (`status` "moved")."""
    if d.get("status") not in CAMERA_STATUSES:
        raise ValueError(f"line {line}: camera needs status {' or '.join(map(repr, CAMERA_STATUSES))}, "
                         f"got {d.get('status')!r}")
    if d.get("t") is None:
        raise ValueError(f"line {line}: camera needs 't', the video time from which the view moved")
    if not isinstance(d.get("why", ""), str):
        raise ValueError(f"line {line}: camera: field 'why' must be a string, got {d['why']!r}")


# Fields of referee inputs that are names or text (docs/rules-engine.md).
TEXT_FIELDS = ("pocket", "cushion", "clause", "reason", "option", "action", "about", "mode", "how", "player",
               "game", "breaker", "to_play", "phase", "hand")


def check_fields(d: Mapping[str, Any], line: int = 0) -> None:
    """The shapes the engine assumes of common fields and of `t`, so a bad one is refused where the log is
    read (the judge command and the API alike) with its name, rather than misread at a later fold."""
    kind = d.get("type")
    where = f"line {line}: {kind}"
    t = d.get("t")
    if t is not None and (isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t < 0):
        raise ValueError(f"{where}: field 't' must be video seconds (finite, >= 0), got {t!r}")
    for name in TEXT_FIELDS:
        if d.get(name) is not None and not isinstance(d[name], str):
            raise ValueError(f"{where}: field {name!r} must be a string, got {d[name]!r}")
    ball = d.get("ball")
    if ball is not None and (isinstance(ball, bool) or not isinstance(ball, str | int) or str(ball) not in BALL_IDS):
        raise ValueError(f"{where}: field 'ball' must be a ball id ({', '.join(BALL_IDS)}), got {ball!r}")
    shot = d.get("shot")
    if shot is not None and (isinstance(shot, bool) or not isinstance(shot, int) or shot < 1):
        raise ValueError(f"{where}: field 'shot' must be a shot number (1, 2, ...), got {shot!r}")
    players = d.get("players")
    if players is not None and not (isinstance(players, list) and len(players) == 2
                                    and all(isinstance(x, str) and x.strip() for x in players)
                                    and players[0] != players[1]):
        raise ValueError(f"{where}: field 'players' must be two distinct names, got {players!r}")


def check_on_bed(d: Mapping[str, Any], table: Table, line: int = 0) -> None:
    """Stated places (an `identify` or a `state` line) must be on the table's bed (a ball centre within the
    noses)."""
    kind = d.get("type")
    if kind not in (InputType.IDENTIFY.value, InputType.STATE.value) or not isinstance(d.get("balls"), Mapping):
        return
    for b, xy in d["balls"].items():
        if not table.on_bed((float(xy[0]), float(xy[1]))):
            raise ValueError(f"line {line}: {kind}: ball {b} at {list(xy)} mm is off the bed of {table.spec.name} "
                             f"(|x| <= {table.half_length:.0f}, |y| <= {table.half_width:.0f}; origin at the "
                             "centre spot)")


@dataclass(frozen=True)
class RefereeInput:
    """One referee input line. `data` holds its fields (everything but `type` and `t`)."""

    type: InputType
    data: Mapping[str, Any] = field(default_factory=dict)
    t: float | None = None
    line: int = 0  # 1-based line number in the log, for error messages and review references

    def get(self, name: str, default: Any = None) -> Any:
        return self.data.get(name, default)

    @property
    def ball(self) -> str | None:
        b = self.data.get("ball")
        return None if b is None else str(b)

    @property
    def option(self) -> Option:
        return Option(self.data["option"])

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], line: int = 0) -> RefereeInput:
        try:
            itype = InputType(d["type"])
        except (KeyError, ValueError) as exc:
            raise ValueError(f"line {line}: unknown input type {d.get('type')!r}") from exc
        missing = [k for k in _NEED.get(itype, ()) if d.get(k) is None]
        if missing:
            raise ValueError(f"line {line}: {itype} input needs field(s) {missing}: {dict(d)!r}")
        if itype is InputType.CHOOSE:
            try:
                Option(d["option"])
            except ValueError as exc:
                opts = ", ".join(o.value for o in Option)
                raise ValueError(f"line {line}: unknown choose option {d['option']!r}; one of {opts}") from exc
        if itype is InputType.IDENTIFY:
            _check_identify(d, line)
        if itype is InputType.CAMERA:
            _check_camera(d, line)
        if itype is InputType.STATE:
            _check_state(d, line)
        check_fields(d, line)
        if itype is InputType.MATCH and len(d["players"]) != 2:
            raise ValueError(f"line {line}: match needs exactly two players, got {d['players']!r}")
        t = d.get("t")
        data = {k: v for k, v in d.items() if k not in ("type", "t")}
        return cls(type=itype, data=data, t=None if t is None else float(t), line=line)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": str(self.type)}
        if self.t is not None:
            out["t"] = self.t
        out.update(self.data)
        return out


LogItem = Event | RefereeInput

_BALL_EVENT_TYPES = frozenset(e.value for e in EventType)


def parse_item(d: Mapping[str, Any], line: int = 0) -> LogItem:
    """A ball event or a referee input, by its `type`."""
    if d.get("type") in _BALL_EVENT_TYPES:
        try:
            e = Event.from_dict(dict(d))
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:  # a malformed field: name the line
            raise ValueError(f"line {line}: {type(exc).__name__}: {exc}: {dict(d)!r}") from exc
        if not (math.isfinite(e.t) and e.t >= 0):
            raise ValueError(f"line {line}: {d.get('type')} event: t must be video seconds (finite, >= 0), "
                             f"got {e.t!r}")
        return e
    return RefereeInput.from_dict(d, line)


def parse_log(rows: Iterable[Mapping[str, Any]]) -> Iterator[LogItem]:
    """Log items from parsed JSON objects (the CLI reads and decodes the file). `identify` and `camera` lines
    are checked and left out: they tell vision where balls are, or say how far to trust the recording, and
    change nothing the engine judges."""
    for n, d in enumerate(rows, 1):
        if not isinstance(d, Mapping):
            raise ValueError(f"line {n}: expected a JSON object, got {type(d).__name__}")
        item = parse_item(d, n)
        if isinstance(item, RefereeInput) and item.type in (InputType.IDENTIFY, InputType.CAMERA):
            continue
        yield item
