"""The scenario language: a scenario is a table set-up plus a list of steps, played by `runner.play`.

Steps are small frozen dataclasses. Aimed steps (`PotShot`, `BankShot`) are solved against the balls as
they lie when the step runs, so a scenario reads like a referee's description of what happens.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from synthetic.physics.stroke import Stroke

Point = tuple[float, float]


@dataclass(frozen=True)
class Shoot:
    """Play this exact stroke. `extra` goes into shot_start (e.g. {"lag": true})."""

    stroke: Stroke
    extra: dict[str, Any] = field(default_factory=dict)
    settle: bool = True  # wait for every ball to stop before the next step


@dataclass(frozen=True)
class PotShot:
    """Pot `ball` in `pocket` off the cue ball (ghost-ball aim verified by simulation)."""

    ball: str
    pocket: str
    cue: str = "C"
    speed: float | None = None
    height: float = 0.0
    side: float = 0.0
    allow_scratch: bool = False
    via: str | None = None  # a kiss: the cue ball drives `via` into `ball`


@dataclass(frozen=True)
class BankShot:
    """Pot `ball` in `pocket` after it rebounds from `cushion`."""

    ball: str
    pocket: str
    cushion: str
    cue: str = "C"


@dataclass(frozen=True)
class RattleShot:
    """Send `ball` at `pocket` so that it hits the jaws and stays out (verified by simulation)."""

    ball: str
    pocket: str
    cue: str = "C"
    speed: float = 2000.0


@dataclass(frozen=True)
class Wait:
    seconds: float


@dataclass(frozen=True)
class Disturb:
    """A hand or a sleeve moves a ball (1.17)."""

    ball: str
    velocity: Point


@dataclass(frozen=True)
class Place:
    """Balls put on the bed by hand between shots (ball in hand, re-spotting)."""

    balls: dict[str, Point]


@dataclass(frozen=True)
class SpotBalls:
    """Spot these balls on the spotting line (1.25) around the balls on the bed."""

    balls: tuple[str, ...]


@dataclass(frozen=True)
class Drop:
    """A ball hanging over a pocket falls by itself (1.23)."""

    ball: str
    pocket: str


@dataclass(frozen=True)
class Referee:
    """A referee/player input for the rules engine's log (nomination, choice...), stamped with the time."""

    item: dict[str, Any]


@dataclass(frozen=True)
class Lag:
    """Both players strike at once from the house to the rear cushion and back (1.7)."""

    balls: dict[str, str]  # ball -> player
    stops_x: tuple[float, float] = (-1450.0, -1250.0)  # where each ball should come to rest


@dataclass(frozen=True)
class PlayFrame:
    """A policy player plays a whole frame of `game` (see frames.py)."""

    game: str
    foul_rate: float = 0.1
    max_seconds: float = 170.0
    max_shots: int = 60


Step = Shoot | PotShot | BankShot | RattleShot | Wait | Disturb | Place | SpotBalls | Drop | Referee | Lag | PlayFrame


@dataclass
class Scenario:
    """A named situation: the opening position, the steps, the match header for the rules engine."""

    name: str
    description: str
    setup: dict[str, Point]
    steps: list[Step]
    game: str = "russian71"
    players: tuple[str, str] = ("A", "B")
    breaker: str = "A"
    seed: int = 0
    table: str = "pyramid-12ft"
    lead_in: float = 1.0  # seconds of still table before the first step
    # "break": a full-rack break, the engine's default start; "break_position": a break from the set-up
    # (incomplete rack), given by a `state` line; "lag": the log starts with the lag; "play": a `state`
    # line gives the position and the breaker is to play
    phase: str = "play"
    notes: str = ""
