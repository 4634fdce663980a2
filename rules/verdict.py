"""Verdicts: one per shot (and one per lag), as data, as JSON and as text for people."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from rules.events import Event
from rules.fouls import Foul
from rules.state import Decision

Point = tuple[float, float]


class Result(StrEnum):
    CONTINUE = "continue"  # the frame goes on
    FRAME_WON = "frame_won"
    MATCH_WON = "match_won"
    DRAW = "draw"  # the frame is drawn (001: 70-70, or three penalty strokes each after a warning)
    REPLAY = "replay"  # the shot is replayed with every ball restored (1.23.2, by the referee)


def event_ref(e: Event) -> dict[str, Any]:
    """A short reference to an event a verdict rests on."""
    d: dict[str, Any] = {"type": str(e.type), "t": round(e.t, 6), "frame": e.frame,
                         "confidence": round(e.confidence, 4)}
    if e.agents:
        d["balls"] = list(e.agents)
    if e.cushion:
        d["cushion"] = e.cushion
    if e.pocket:
        d["pocket"] = e.pocket
    return d


@dataclass(frozen=True)
class Review:
    flag: bool = False
    reasons: tuple[str, ...] = ()
    events: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"flag": self.flag, "reasons": list(self.reasons), "events": list(self.events)}


@dataclass(frozen=True)
class Verdict:
    """The judgement of one shot."""

    shot: int
    frame: int
    player: str
    is_break: bool
    legal: bool
    fouls: tuple[Foul, ...]
    potted: tuple[dict[str, Any], ...]
    potted_counted: tuple[dict[str, Any], ...]
    spotted: tuple[dict[str, Any], ...]
    points: dict[str, int]
    score: dict[str, int]
    targets: dict[str, int]
    next_player: str | None
    decisions_owed: tuple[Decision, ...]
    result: Result
    winner: str | None
    review: Review
    explanation: str
    chain: str | None = None
    readings: tuple[str, ...] = ()
    frames_won: dict[str, int] = field(default_factory=dict)
    clock: dict[str, Any] | None = None
    override: dict[str, Any] | None = None
    t: float | None = None  # the stroke (shot_start) time, video seconds

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "kind": "shot",
            "shot": self.shot,
            "t": self.t,
            "frame": self.frame,
            "player": self.player,
            "break": self.is_break,
            "legal": self.legal,
            "fouls": [f.to_dict() for f in self.fouls],
            "potted": list(self.potted),
            "potted_counted": list(self.potted_counted),
            "spotted": list(self.spotted),
            "points": dict(self.points),
            "score": dict(self.score),
            "targets": dict(self.targets),
            "next_player": self.next_player,
            "decisions_owed": [x.to_dict() for x in self.decisions_owed],
            "result": str(self.result),
            "winner": self.winner,
            "frames_won": dict(self.frames_won),
            "review": self.review.to_dict(),
            "chain": self.chain,
            "readings": list(self.readings),
            "explanation": self.explanation,
        }
        if self.clock is not None:
            d["clock"] = self.clock
        if self.override is not None:
            d["override"] = self.override
        return d

    def text(self) -> str:
        """The verdict for people (`judge --explain`)."""
        head = f"Shot {self.shot} (frame {self.frame}, {self.player}{', break' if self.is_break else ''}): "
        head += "LEGAL" if self.legal else "FOUL"
        lines = [head, f"  {self.explanation}"]
        score = ", ".join(f"{p} {s}" for p, s in self.score.items())
        lowered = {p: t for p, t in self.targets.items() if t not in (8, 71)}  # Classic 71 lowered targets (001)
        lines.append(f"  score: {score}; next: {self.next_player or '-'}; result: {self.result}"
                     + (f" ({self.winner})" if self.winner else "")
                     + ("; to win: " + ", ".join(f"{p} {t}" for p, t in lowered.items()) if lowered else ""))
        if self.decisions_owed:
            owed = "; ".join(f"{d.kind} by {d.by}" + (f" [{'|'.join(d.options)}]" if d.options else "")
                             for d in self.decisions_owed)
            lines.append(f"  owed: {owed}")
        if self.review.flag:
            lines.append(f"  REVIEW: {'; '.join(self.review.reasons)}")
        if self.override is not None:
            lines.append(f"  overridden: {self.override.get('reason')}")
        return "\n".join(lines)


@dataclass(frozen=True)
class LagVerdict:
    """The judgement of a lag (1.7) by `rules.lag.judge_lag`."""

    winner: str | None
    replay: bool
    reasons: dict[str, str]
    decisions_owed: tuple[Decision, ...]
    review: Review
    purpose: str  # "break" (1.7), "seventy" (5.5.7) or "interference" (1.27)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "lag",
            "purpose": self.purpose,
            "winner": self.winner,
            "replay": self.replay,
            "reasons": dict(self.reasons),
            "decisions_owed": [x.to_dict() for x in self.decisions_owed],
            "review": self.review.to_dict(),
        }

    def text(self) -> str:
        who = "replay (1.7.3)" if self.replay else f"won by {self.winner}"
        lines = [f"Lag ({self.purpose}): {who}"]
        lines.extend(f"  {p}: {r}" for p, r in self.reasons.items())
        if self.decisions_owed:
            lines.append("  owed: " + "; ".join(f"{d.kind} by {d.by}" + (f" [{'|'.join(d.options)}]" if d.options
                                                                       else "") for d in self.decisions_owed))
        if self.review.flag:
            lines.append(f"  REVIEW: {'; '.join(self.review.reasons)}")
        return "\n".join(lines)


Output = Verdict | LagVerdict
