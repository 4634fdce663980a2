"""Match set-up: the initial state from the header or a state line, and the next frame (1.13)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from calibration.table import Table
from rules.clock import ShotClock
from rules.games import RULE_SETS
from rules.inputs import RefereeInput
from rules.rack import full_rack
from rules.state import Decision, DecisionKind, Game, Hand, MatchState, NominationMode, Phase, parse_game

DEFAULT_PLAYERS = ("A", "B")
Point = tuple[float, float]


def deciding_frame(frames_won: Mapping[str, int], frames_to_win: int) -> bool:
    """The last frame of a level match (1.26: two extensions)."""
    return frames_to_win > 1 and all(v == frames_to_win - 1 for v in frames_won.values())


def _extensions(players: tuple[str, str], frames_won: Mapping[str, int], frames_to_win: int) -> dict[str, int]:
    n = ShotClock.for_frame(deciding_frame(frames_won, frames_to_win)).extensions_left
    return {p: n for p in players}


def initial_state(game: Game, players: tuple[str, str] = DEFAULT_PLAYERS, breaker: str | None = None, *,
                  table: Table, frames_to_win: int = 1, veterans: bool = False,
                  classic_mode: NominationMode = NominationMode.BALL_POCKET, decisive: bool = False) -> MatchState:
    """A match before its first break: full rack, cue ball in hand in the house."""
    if breaker is not None and breaker not in players:
        raise ValueError(f"breaker {breaker!r} is not one of the players {players!r}")
    rs = RULE_SETS[game]
    decisions: tuple[Decision, ...] = ()
    if breaker is None:
        decisions = (Decision(DecisionKind.LAG, players[0], (), "1.7"),)
    won = {p: 0 for p in players}
    return MatchState(
        game=game,
        players=players,
        balls=dict(full_rack(table)),
        shelves={p: () for p in players},
        score={p: 0 for p in players},
        targets={p: rs.target for p in players},
        to_play=breaker or players[0],
        phase=Phase.BREAK,
        hand=Hand.HOUSE,
        decisions=decisions,
        frames_won=won,
        frames_to_win=frames_to_win,
        breaker=breaker,
        veterans=veterans,
        classic_mode=classic_mode,
        decisive=decisive,
        extensions_left=_extensions(players, won, frames_to_win),
    )


def state_from_header(inp: RefereeInput, game: Game | None, table: Table) -> MatchState:
    """The `match` header: game (unless --game overrides), players, breaker, frames_to_win, options."""
    g = game or parse_game(str(inp.get("game") or ""))
    players = tuple(str(p) for p in inp.get("players"))
    return initial_state(
        g,
        (players[0], players[1]),
        None if inp.get("breaker") is None else str(inp.get("breaker")),
        table=table,
        frames_to_win=int(inp.get("frames_to_win", 1)),
        veterans=bool(inp.get("veterans", False)),
        classic_mode=NominationMode(inp.get("classic_mode", NominationMode.BALL_POCKET.value)),
        decisive=bool(inp.get("decisive", False)),
    )


def _positions(raw: Any) -> dict[str, Point | None]:
    if isinstance(raw, Mapping):
        return {str(k): (None if v is None else (float(v[0]), float(v[1]))) for k, v in raw.items()}
    return {str(b): None for b in raw}


def apply_state_line(st: MatchState, inp: RefereeInput) -> MatchState:
    """A `state` line: start from a position instead of the break (docs/rules-engine.md)."""
    balls = _positions(inp.get("balls")) if inp.get("balls") is not None else dict(st.balls)
    score = {p: int(inp.get("score", {}).get(p, st.score.get(p, 0))) for p in st.players}
    targets = {p: int(inp.get("targets", {}).get(p, st.targets.get(p, 0))) for p in st.players}
    shelves = {p: tuple(str(b) for b in inp.get("shelves", {}).get(p, st.shelves.get(p, ()))) for p in st.players}
    to_play = str(inp.get("to_play") or st.to_play)
    if to_play not in st.players:
        raise ValueError(f"line {inp.line}: to_play {to_play!r} is not one of the players {st.players!r}")
    hand = Hand(inp.get("hand", Hand.NONE.value if "C" in balls else Hand.HOUSE.value))
    phase = Phase(inp.get("phase", Phase.PLAY.value))
    # A position states everything: the flags of special sequences (70-70, re-break, last-ball replay) end.
    return replace(st, balls=balls, score=score, targets=targets, shelves=shelves, to_play=to_play, hand=hand,
                   phase=phase, decisions=(), premium=bool(inp.get("premium", False)),
                   frame=int(inp.get("frame", st.frame)), playoff=False, rebreak=False, decider=False,
                   decider_free=(), forced_ball=None, penalty_streak={})


def next_frame(st: MatchState, table: Table) -> MatchState:
    """The next frame: full rack, scores to zero, the other player breaks (1.13)."""
    rs = RULE_SETS[st.game]
    last_breaker = st.breaker or st.players[0]
    breaker = st.opponent(last_breaker)
    return replace(
        st,
        balls=dict(full_rack(table)),
        shelves={p: () for p in st.players},
        score={p: 0 for p in st.players},
        targets={p: rs.target for p in st.players},
        to_play=breaker,
        breaker=breaker,
        phase=Phase.BREAK,
        hand=Hand.HOUSE,
        premium=False,
        decisions=(),
        offender=None,
        frame=st.frame + 1,
        playoff=False,
        rebreak=False,
        last_end_t=None,  # 1.26: racking is not the breaker's time; the clock starts with the frame's play
        forced_ball=None,
        decider=False,
        decider_free=(),
        extensions_left=_extensions(st.players, st.frames_won, st.frames_to_win),
        extension_pending=None,
        penalty_streak={},
        draw_warning=False,
        winner=None,
    )
