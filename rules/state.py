"""The match state: what a fold over the log carries from one shot to the next. Immutable values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

Point = tuple[float, float]


class Game(StrEnum):
    FREE = "free"  # 2
    COMBINED = "combined"  # 3
    DYNAMIC = "dynamic"  # 4
    RUSSIAN71 = "russian71"  # 5
    CLASSIC71 = "classic71"  # seed 001


GAME_ALIASES: dict[str, Game] = {
    "free": Game.FREE,
    "combined": Game.COMBINED,
    "dynamic": Game.DYNAMIC,
    "russian": Game.RUSSIAN71,
    "russian71": Game.RUSSIAN71,
    "russian-71": Game.RUSSIAN71,
    "classic": Game.CLASSIC71,
    "classic71": Game.CLASSIC71,
    "classic-71": Game.CLASSIC71,
}


def parse_game(name: str) -> Game:
    """A game by its name or alias; raises with the known names."""
    key = str(name).strip().lower().replace("_", "-")
    game = GAME_ALIASES.get(key) or GAME_ALIASES.get(key.replace("-", ""))
    if game is None:
        raise ValueError(f"unknown game {name!r}; one of {', '.join(g.value for g in Game)}")
    return game


class Phase(StrEnum):
    LAG = "lag"  # the break is decided by a lag first
    BREAK = "break"
    PLAY = "play"
    MATCH_OVER = "match_over"


class Hand(StrEnum):
    """Where the next player puts the cue ball from hand."""

    NONE = "none"  # the cue ball stays where it stopped
    HOUSE = "house"  # 1.11, 1.21 (the temporary house at the rear end when all object balls are in the house)
    ANYWHERE = "anywhere"  # 4.5.2, 4.7(2)


class NominationMode(StrEnum):
    BALL_POCKET = "ball_pocket"
    CLEAN = "clean"


class DecisionKind(StrEnum):
    CHOICE_AFTER_FOUL = "choice_after_foul"  # 1.6: play | hand_over
    BREAK_CHOICE = "break_choice"  # 1.12.2: the four choices
    PENALTY_BALL = "penalty_ball"  # 2.7, 3.7, 4.7(1)
    REMOVE_BALL = "remove_ball"  # 3.5.2, 4.5.2
    DYNAMIC_CHOICE = "dynamic_choice"  # 4.7: take_ball | ball_in_hand
    NOMINATION = "nomination"  # 5.5.2, 001
    CUE_BALL_CHOICE = "cue_ball_choice"  # 2.5.1: Free, any ball may be the cue ball (made by striking it)
    CUE_BALL_IN_HAND = "cue_ball_in_hand"  # place the cue ball: house / rear_house / anywhere
    LAG = "lag"  # 1.7, 5.5.7
    LAG_CHOICE = "lag_choice"  # 1.7.4: break or hand the break over
    FORCED_RESULT = "forced_result"  # 001: a drawn frame that must have a result: replay it or its last ball


@dataclass(frozen=True)
class Decision:
    """Something that must be decided before the next stroke, by whom, with the options."""

    kind: DecisionKind
    by: str
    options: tuple[str, ...] = ()
    clause: str = ""

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"decision": str(self.kind), "by": self.by, "clause": self.clause}
        if self.options:
            d["options"] = list(self.options)
        return d


@dataclass(frozen=True)
class Nomination:
    """A called ball and pocket (5.5.2; 001 with its mode and how it must fall)."""

    ball: str | None
    pocket: str | None
    mode: NominationMode = NominationMode.BALL_POCKET
    how: str | None = None
    line: int = 0


@dataclass(frozen=True)
class MatchState:
    """Everything the next verdict depends on. Replaced, never mutated."""

    game: Game
    players: tuple[str, str]
    balls: Mapping[str, Point | None]  # balls on the bed; the cue ball is absent while in hand
    shelves: Mapping[str, tuple[str, ...]]
    score: Mapping[str, int]
    targets: Mapping[str, int]
    to_play: str
    phase: Phase = Phase.BREAK
    hand: Hand = Hand.HOUSE
    premium: bool = False  # Dynamic: only object balls may be potted on this shot (4.5.2, 4.7(2))
    decisions: tuple[Decision, ...] = ()
    offender: str | None = None
    frame: int = 1
    frames_won: Mapping[str, int] = field(default_factory=dict)
    frames_to_win: int = 1
    breaker: str | None = None  # who broke (or is to break) this frame (1.13)
    rebreak: bool = False  # the break due is a re-break after 1.12.2(3)/(4): the frame's breaker stays (1.13)
    shots: int = 0
    playoff: bool = False  # Russian 71 after 70-70: from hand in the house until a pot or a foul (5.5.7)
    veterans: bool = False  # Russian 71: 1.20 waived (5.5.8 note)
    classic_mode: NominationMode = NominationMode.BALL_POCKET
    clock_on: bool = False
    extensions_left: Mapping[str, int] = field(default_factory=dict)
    extension_pending: str | None = None
    last_end_t: float | None = None
    draw_warning: bool = False
    penalty_streak: Mapping[str, int] = field(default_factory=dict)
    winner: str | None = None
    decisive: bool = False  # Classic 71: the competition wants a result, so a draw is forced (001)
    forced_ball: str | None = None  # the last ball of a drawn frame, for a last-ball replay (001)
    decider: bool = False  # a last-ball replay is being played: a pot wins, a foul loses (001)
    decider_free: tuple[str, ...] = ()  # players whose one stroke without a nomination is still to come (001)

    def opponent(self, player: str) -> str:
        a, b = self.players
        if player not in self.players:
            raise ValueError(f"unknown player {player!r}; players are {a!r} and {b!r}")
        return b if player == a else a

    def owed(self, kind: DecisionKind) -> Decision | None:
        return next((d for d in self.decisions if d.kind is kind), None)

    def object_balls_on_table(self) -> list[str]:
        return [b for b in self.balls if b != "C"]
