"""Build match logs in code: for tests, golden files, the benchmark and documentation examples.

A shot is written as short steps: ("contact", "C", "5"), ("cushion", "5", "rear"), ("cross", "5"),
("pot", "5", "rear_left"), ("off", "5"), ("disturbed", "7"); a trailing float in a step is its confidence.
Times and frame numbers are assigned in order. Pure: returns dicts, writes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Point = tuple[float, float]
Step = tuple[Any, ...]

_FPS = 50.0


class LogBuilder:
    """Accumulates log lines (dicts) with increasing times."""

    def __init__(self, game: str | None = None, players: Sequence[str] = ("A", "B"), breaker: str | None = "A",
                 **header: Any) -> None:
        self.rows: list[dict[str, Any]] = []
        self.t = 0.0
        if game is not None:
            row: dict[str, Any] = {"type": "match", "game": game, "players": list(players)}
            if breaker is not None:
                row["breaker"] = breaker
            row.update(header)
            self.rows.append(row)

    def _tick(self, dt: float = 0.1) -> float:
        self.t = round(self.t + dt, 6)
        return self.t

    def _event(self, etype: str, **fields: Any) -> dict[str, Any]:
        t = self._tick()
        return {"type": etype, "t": t, "frame": round(t * _FPS), "confidence": 1.0, **fields}

    def add(self, etype: str, **fields: Any) -> LogBuilder:
        """A referee input (or any line) as is, stamped with the current time."""
        self.rows.append({"type": etype, "t": self._tick(0.01), **fields})
        return self

    def state(self, **fields: Any) -> LogBuilder:
        return self.add("state", **fields)

    def step(self, s: Step) -> dict[str, Any]:
        kind, *args = s
        conf = 1.0
        if args and isinstance(args[-1], float):
            conf = float(args.pop())
        if kind == "contact":
            e = self._event("ball_contact", balls=[str(args[0]), str(args[1])])
        elif kind == "cushion":
            e = self._event("cushion", ball=str(args[0]), cushion=str(args[1]))
        elif kind == "cross":
            to = args[1] if len(args) > 1 else "rear"
            e = self._event("line_cross", ball=str(args[0]), line="centre", to=to)
        elif kind == "house":
            e = self._event("line_cross", ball=str(args[0]), line="house", to=args[1] if len(args) > 1 else "rear")
        elif kind == "pot":
            e = self._event("pot", ball=str(args[0]), pocket=str(args[1]))
        elif kind == "off":
            e = self._event("off_table", ball=str(args[0]))
        elif kind == "disturbed":
            e = self._event("ball_disturbed", ball=str(args[0]))
        else:
            raise ValueError(f"unknown step {s!r}")
        e["confidence"] = conf
        return e

    def shot(self, steps: Sequence[Step] = (), struck: str = "C", *,
             positions: Mapping[str, Point] | None = None, end_positions: Mapping[str, Point] | None = None,
             frozen: Sequence[Mapping[str, Any]] | None = None, touching: Sequence[Mapping[str, Any]] | None = None,
             during: Sequence[Mapping[str, Any]] = (), end: bool = True, wait_s: float = 1.0,
             **extra: Any) -> LogBuilder:
        """One shot: shot_start, its steps, inputs made during the stroke, shot_end."""
        self._tick(wait_s)
        start = self._event("shot_start", ball=struck, **extra)
        if positions is not None:
            start["positions"] = {k: [float(x), float(y)] for k, (x, y) in positions.items()}
        if frozen is not None:
            start["frozen"] = [dict(f) for f in frozen]
        if touching is not None:
            start["touching"] = [dict(f) for f in touching]
        self.rows.append(start)
        for i, s in enumerate(steps):
            self.rows.append(self.step(s))
            if i == 0:
                for d in during:
                    self.rows.append({"t": self._tick(0.01), **d})
        if not steps:
            for d in during:
                self.rows.append({"t": self._tick(0.01), **d})
        if end:
            row = self._event("shot_end")
            if end_positions is not None:
                row["positions"] = {k: [float(x), float(y)] for k, (x, y) in end_positions.items()}
            self.rows.append(row)
        return self

    def events_after(self, steps: Sequence[Step]) -> LogBuilder:
        """Ball events between shots (a hanging ball falling, a ball touched while preparing)."""
        for s in steps:
            self.rows.append(self.step(s))
        return self


# Shots that the tests and the benchmark reuse.
BREAK_THREE_CUSHIONS: list[Step] = [("contact", "C", "4"), ("cushion", "5", "left_rear"),
                                    ("cushion", "6", "right_rear"), ("cushion", "3", "rear")]
BREAK_TWO_CUSHIONS: list[Step] = [("contact", "C", "4"), ("cushion", "5", "left_rear"), ("cushion", "6", "right_rear")]
SAFE_2A: list[Step] = [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("cushion", "7", "rear")]
SAFE_2B: list[Step] = [("contact", "C", "7"), ("cushion", "7", "left_rear"), ("contact", "7", "3"),
                       ("cushion", "3", "rear")]
NO_CHAIN: list[Step] = [("contact", "C", "7"), ("cushion", "7", "rear")]
MISS: list[Step] = [("cushion", "C", "rear"), ("cushion", "C", "front")]


def play_rows(game: str, steps: Sequence[Step], *, state: Mapping[str, Any] | None = None,
              before: Sequence[Mapping[str, Any]] = (), **shot: Any) -> list[dict[str, Any]]:
    """A log of one shot played from a position (not a break): header, state line, inputs, the shot."""
    lb = LogBuilder(game)
    lb.state(**{"phase": "play", "to_play": "A", "hand": "none", **(state or {})})
    for row in before:
        lb.add(str(row["type"]), **{k: v for k, v in row.items() if k != "type"})
    lb.shot(steps, **shot)
    return lb.rows
