"""The one adapter between the service and the rules engine.

The service folds a match's log (header, ball events, referee inputs) with `fold(log, game)` and gets a
`MatchFold`: one `VerdictView` per shot, the score, who is to play, and the decisions owed. Everything the
service shows of a verdict goes through `VerdictView`, so the engine's own verdict type can change without
touching routes, reports or the web page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from calibration.table import Table, list_specs
from rules import engine, inputs, state
from rules.verdict import LagVerdict

_CITE = re.compile(r"\((\d+\.\d+[0-9.()a-z]*?)\)(?:[^)]|$)")

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
        if isinstance(d.get("review"), dict):
            d["review_detail"] = d["review"]
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
    # Each lag the log holds (1.7, 5.5.7, 1.27): no shot, so no verdict number; `text` says who won and why.
    lags: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "score": self.score,
            "to_play": self.to_play,
            "owed": list(self.owed),
            "finished": self.finished,
            "shots": len(self.verdicts),
            "lags": list(self.lags),
        }


def games() -> list[str]:
    """Game names the engine knows."""
    return [g.value for g in state.Game]


def canonical_game(name: str) -> str:
    """The engine's name for a game or one of its aliases; ValueError naming the known games."""
    return str(state.parse_game(name).value)


def _table_of(log: Sequence[dict[str, Any]]) -> Table:
    for d in log:
        if d.get("type") == "match" and d.get("table") in list_specs():
            return Table.load(str(d["table"]))
    return Table.load()


def fold(log: Sequence[dict[str, Any]], game: str) -> MatchFold:
    """Judge a whole log (rules.engine.judge_log); raises ValueError naming the bad line."""
    items = list(inputs.parse_log(log))
    judgement = engine.judge_log(items, game=state.parse_game(game) if game else None, table=_table_of(log))
    verdicts = flag_after_camera_move(
        tuple(verdict_from_dict(v.to_dict(), i) for i, v in enumerate(judgement.verdicts)), log)
    lags = tuple({**o.to_dict(), "text": o.text()} for o in judgement.outputs if isinstance(o, LagVerdict))
    st = judgement.state
    if st is None:
        return MatchFold(game, verdicts, {}, None, (), lags=lags)
    owed = tuple(
        f"{d.kind} by {d.by}" + (f" [{' | '.join(d.options)}]" if d.options else "") + (f" ({d.clause})" if d.clause
                                                                                         else "")
        for d in st.decisions
    )
    return MatchFold(
        game=str(st.game),
        verdicts=verdicts,
        score={str(k): int(v) for k, v in st.score.items()},
        to_play=st.to_play,
        owed=owed,
        finished=st.winner is not None,
        lags=lags,
    )


def camera_moved(log: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The first `camera` line saying the view moved (rules.inputs), or None."""
    return next((d for d in log if d.get("type") == "camera" and d.get("status") == "moved"), None)


def flag_after_camera_move(verdicts: tuple[VerdictView, ...], log: Sequence[dict[str, Any]]) -> tuple[VerdictView, ...]:
    """Every verdict of a shot played after the camera moved (or still running when it moved) is flagged for
    review with the reason: its positions come from a calibration that no longer fits the view."""
    line = camera_moved(log)
    if line is None:
        return verdicts
    t_m = float(line["t"])
    ends = [float(d["t"]) for d in log if d.get("type") == "shot_end" and d.get("t") is not None]
    reason = f"camera moved at {t_m:.2f} s: {line.get('why') or 'the calibration no longer fits the view'}"
    out = []
    for v in verdicts:
        if v.t is not None and v.t < t_m and any(v.t <= e < t_m for e in ends):
            out.append(v)  # over before the camera moved
            continue
        review = dict(v.raw.get("review") or {}) if isinstance(v.raw.get("review"), dict) else {}
        review.update(flag=True, reasons=[*review.get("reasons", ()), reason],
                      events=[*review.get("events", ()), {"type": "camera", "t": t_m, "status": "moved"}])
        out.append(replace(v, review=True, review_reasons=(*v.review_reasons, reason), raw={**v.raw, "review": review}))
    return tuple(out)


def opening_state(
    opening: str, state: dict[str, Any] | None, positions: dict[str, tuple[float, float]] | None
) -> dict[str, Any] | None:
    """The `state` line for how the recording starts: nothing for a plain break; for a shot from a position,
    the balls as seen at rest before it; the user's --state (score, to_play, ...) merged in either way."""
    if opening == "break" and not state:
        return None
    line: dict[str, Any] = {"type": "state", "phase": "break" if opening == "break" else "play"}
    if opening != "break" and positions:
        line["balls"] = {b: [round(p[0], 1), round(p[1], 1)] for b, p in positions.items()}
    line.update(state or {})
    line["type"] = "state"
    return line


def match_header(
    game: str, table: str, opening: str, state: dict[str, Any] | None, players: tuple[str, str] = ("A", "B"),
    positions: dict[str, tuple[float, float]] | None = None,
) -> list[dict[str, Any]]:
    """The log entries that open a match: the game, players and table, and the position it starts in."""
    entries: list[dict[str, Any]] = [
        {"type": "match", "game": game, "players": list(players), "breaker": players[0], "table": table,
         "opening": opening}
    ]
    line = opening_state(opening, state, positions)
    if line is not None:
        entries.append(line)
    return entries


def header_for(
    inputs: Sequence[dict[str, Any]], game: str, table: str, opening: str, state: dict[str, Any] | None,
    positions: dict[str, tuple[float, float]] | None,
) -> list[dict[str, Any]]:
    """The lines this service adds before the referee inputs: a match header unless the inputs have one,
    and the opening `state` line unless the inputs already set a state."""
    if not any(d.get("type") == "match" for d in inputs):
        return match_header(game, table, opening, state, positions=positions)
    line = opening_state(opening, state, positions)
    return [line] if line is not None and not any(d.get("type") == "state" for d in inputs) else []


def refusal(event: dict[str, Any]) -> str | None:
    """Why the engine would refuse this event line (as it reads a log), or None when it takes it."""
    try:
        inputs.check_fields(event)
        inputs.parse_item(event)
    except ValueError as exc:
        return str(exc)
    return None


REPAIRED_CONFIDENCE = 0.4  # below the engine's review confidence (0.6), so the verdict names the event


def admit(event: dict[str, Any], floor_t: float) -> tuple[dict[str, Any] | None, str | None]:
    """The event line as the engine will take it, and why it was changed or refused (None: taken as is).

    A bad time (vision's own bug) is set to `floor_t`, the last time already in the stream, and the event is
    demoted below the review confidence with the reason, so a verdict resting on it is flagged, not silent.
    Anything else the engine refuses is left out (None) with the reason."""
    why = refusal(event)
    if why is None:
        return event, None
    fixed = {**event, "t": max(0.0, floor_t)}
    if refusal(fixed) is not None:  # not (only) its time: nothing to repair
        return None, why
    return {**fixed, "confidence": min(float(event.get("confidence", 0.0)), REPAIRED_CONFIDENCE), "review": True,
            "repaired": True,  # its time is unknown: rules.doubts keeps the flag (when it was, not whether)
            "why": f"vision gave t={event.get('t')!r}; set to the last time in the stream"}, why



def merge_log(inputs: Sequence[dict[str, Any]], events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One time-ordered log from referee inputs and ball events. The match header goes first, then inputs
    without `t` (a state line) in their own order; the rest are merged by time, an input before an event
    at the same t."""
    head = [d for d in inputs if d.get("type") == "match"]
    head += [d for d in inputs if d.get("t") is None and d.get("type") != "match"]
    timed = [(float(d["t"]), 0, i, d) for i, d in enumerate(inputs) if d.get("t") is not None
             and d.get("type") != "match"]
    timed += [(float(d["t"]), 1, i, d) for i, d in enumerate(events)]
    timed.sort(key=lambda x: (x[0], x[1], x[2]))
    return [*head, *(d for *_, d in timed)]


def verdict_from_dict(d: dict[str, Any], index: int) -> VerdictView:
    """One verdict dict (rules.verdict.Verdict.to_dict, or a stored row of this class's to_dict)."""

    def _strs(v: Any) -> tuple[str, ...]:
        if v is None:
            return ()
        return (str(v),) if isinstance(v, str) else tuple(str(x) for x in v)

    if "legal" in d and "outcome" not in d:  # the engine's own format
        fouls = d.get("fouls") or []
        clauses = tuple(dict.fromkeys(str(f.get("clause", "")) for f in fouls if f.get("clause")))
        if not clauses:  # a legal shot cites the clause its explanation rests on, e.g. "(1.12.1(2))"
            m = _CITE.search(str(d.get("explanation", "")))
            clauses = (m.group(1),) if m else ()
        review = d.get("review") or {}
        return VerdictView(
            shot=int(d.get("shot", index + 1)),
            outcome="legal" if d["legal"] else "foul",
            clauses=clauses,
            explanation=str(d.get("explanation", "")),
            review=bool(review.get("flag", False)),
            review_reasons=_strs(review.get("reasons")),
            player=None if d.get("player") is None else str(d["player"]),
            t=None if d.get("t") is None else float(d["t"]),
            points={str(k): int(v) for k, v in (d.get("points") or {}).items()},
            score={str(k): int(v) for k, v in (d.get("score") or {}).items()},
            raw=d,
        )
    return VerdictView(
        shot=int(d.get("shot", index + 1)),
        outcome=str(d.get("outcome", "unknown")),
        clauses=_strs(d.get("clauses")),
        explanation=str(d.get("explanation", "")),
        review=bool(d.get("review", False)),
        review_reasons=_strs(d.get("review_reasons")),
        player=None if d.get("player") is None else str(d.get("player")),
        t=None if d.get("t") is None else float(d["t"]),
        points={str(k): int(v) for k, v in (d.get("points") or {}).items()},
        score={str(k): int(v) for k, v in (d.get("score") or {}).items()},
        raw=d,
    )
