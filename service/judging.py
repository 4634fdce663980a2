"""The one adapter between the service and the rules engine.

The service folds a match's log (header, ball events, referee inputs) with `fold(log, game)` and gets a
`MatchFold`: one `VerdictView` per shot, the score, who is to play, and the decisions owed. Everything the
service shows of a verdict goes through `VerdictView`, so the engine's own verdict type can change without
touching routes, reports or the web page.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from service.pipeline.components import ComponentMissing

# What the user expects on a pyramid table with no other hint (issue 7); other disciplines have no game.
DEFAULT_GAME = "russian71"


@dataclass(frozen=True)
class VerdictView:
    shot: int  # 1-based, in shot order
    outcome: str  # "legal", "foul", ... as the engine says it
    clauses: tuple[str, ...]
    explanation: str
    review: bool = False
    review_reasons: tuple[str, ...] = ()
    player: str | None = None
    t: float | None = None
    points: dict[str, int] = field(default_factory=dict)
    score: dict[str, int] = field(default_factory=dict)  # after this shot
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def is_foul(self) -> bool:
        return self.outcome.lower() not in ("legal", "ok", "pot", "break")

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.raw)
        d.update(
            shot=self.shot,
            outcome=self.outcome,
            clauses=list(self.clauses),
            explanation=self.explanation,
            review=self.review,
            review_reasons=list(self.review_reasons),
            player=self.player,
            t=self.t,
            points=self.points,
            score=self.score,
        )
        return d


@dataclass(frozen=True)
class MatchFold:
    game: str
    verdicts: tuple[VerdictView, ...]
    score: dict[str, int]
    to_play: str | None
    owed: tuple[str, ...]  # decisions the referee or a player still has to give
    finished: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "score": self.score,
            "to_play": self.to_play,
            "owed": list(self.owed),
            "finished": self.finished,
            "shots": len(self.verdicts),
        }


def _engine() -> Any:
    try:
        return importlib.import_module("rules.engine")
    except ModuleNotFoundError as exc:
        raise ComponentMissing(f"the rules engine is not available: module 'rules.engine' is missing ({exc})") from exc


def games() -> list[str]:
    """Game names the engine knows."""
    eng = _engine()
    for name in ("GAMES", "RULESETS", "RULE_SETS"):
        if hasattr(eng, name):
            return sorted(str(g) for g in getattr(eng, name))
    return [DEFAULT_GAME]


def fold(log: Sequence[dict[str, Any]], game: str) -> MatchFold:
    """Judge a whole log: the pure engine call, behind this one function."""
    eng = _engine()
    result = eng.judge(list(log), game)
    return _to_fold(result, game)


def match_header(
    game: str, table: str, opening: str, state: dict[str, Any] | None, players: tuple[str, str] = ("A", "B")
) -> list[dict[str, Any]]:
    """The log entries that open a match: the game and table, and the position the recording starts in."""
    entries: list[dict[str, Any]] = [
        {"type": "match", "game": game, "players": list(players), "table": table, "opening": opening}
    ]
    if state:
        entries.append({"type": "state", **state})
    return entries


def merge_log(inputs: Sequence[dict[str, Any]], events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One time-ordered log from referee inputs and ball events. Inputs without `t` (the header, a state)
    come first in their own order; the rest are merged by time, an input before an event at the same t."""
    head = [d for d in inputs if d.get("t") is None]
    timed = [(float(d["t"]), 0, i, d) for i, d in enumerate(inputs) if d.get("t") is not None]
    timed += [(float(d["t"]), 1, i, d) for i, d in enumerate(events)]
    timed.sort(key=lambda x: (x[0], x[1], x[2]))
    return [*head, *(d for *_, d in timed)]


def verdict_from_dict(d: dict[str, Any], index: int) -> VerdictView:
    """Tolerant reading of one verdict dict (engine output or a stored row)."""

    def _tuple(v: Any) -> tuple[str, ...]:
        if v is None:
            return ()
        if isinstance(v, str):
            return (v,)
        return tuple(str(x) for x in v)

    clauses = _tuple(d.get("clauses", d.get("clause")))
    reasons = _tuple(d.get("review_reasons", d.get("review")) if not isinstance(d.get("review"), bool) else
                     d.get("review_reasons"))
    review = bool(d.get("review")) if isinstance(d.get("review"), bool) else bool(reasons)
    return VerdictView(
        shot=int(d.get("shot", index + 1)),
        outcome=str(d.get("outcome", d.get("verdict", "unknown"))),
        clauses=clauses,
        explanation=str(d.get("explanation", "")),
        review=review,
        review_reasons=reasons,
        player=None if d.get("player") is None else str(d.get("player")),
        t=None if d.get("t") is None else float(d["t"]),
        points={str(k): int(v) for k, v in (d.get("points") or {}).items()},
        score={str(k): int(v) for k, v in (d.get("score") or {}).items()},
        raw=d,
    )


def _as_dict(obj: Any) -> dict[str, Any]:
    if isinstance(obj, dict):
        return obj
    if hasattr(obj, "to_dict"):
        return dict(obj.to_dict())
    if hasattr(obj, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(obj)
    raise TypeError(f"cannot read a verdict of type {type(obj).__name__}")


def _to_fold(result: Any, game: str) -> MatchFold:
    d: dict[str, Any] = _as_dict(result) if not isinstance(result, list) else {"verdicts": result}
    verdicts = tuple(verdict_from_dict(_as_dict(v), i) for i, v in enumerate(d.get("verdicts", [])))
    raw_score: dict[str, Any] = d.get("score") or (verdicts[-1].score if verdicts else {})
    score = {str(k): int(v) for k, v in raw_score.items()}
    owed = tuple(str(o) if not isinstance(o, dict) else str(o.get("text", o)) for o in d.get("owed", []) or [])
    return MatchFold(
        game=str(d.get("game", game)),
        verdicts=verdicts,
        score=score,
        to_play=None if d.get("to_play") is None else str(d.get("to_play")),
        owed=owed,
        finished=bool(d.get("finished", False)),
    )
