"""Shot numbers agree: the engine (rules.engine), the analysis loop (service.pipeline.run: shot pictures,
recorder) and the report (service.report.build.group_shots) number the shots of a log alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rules import engine, inputs
from rules.events import Event, EventType, is_ball_event
from rules.numbering import Mark, Role, ShotNumbering
from rules.records import ShotRecord, group_log
from service import judging
from service.pipeline.run import AnalyzeConfig, Hooks, _Run
from service.report.build import group_shots

Numbers = tuple[dict[int, float], dict[int, list[float]]]  # shot -> start t, shot -> held doubtful starts' t
POS = {"C": [-1000.0, 0.0], "1": [500.0, 0.0]}


def start(t: float, sc: float = 1.0) -> dict[str, Any]:
    return {"type": "shot_start", "t": t, "frame": round(t * 30), "ball": "C", "start_confidence": sc,
            "ball_confidence": 1.0, "confidence": sc, "positions": POS}


def end(t: float) -> dict[str, Any]:
    return {"type": "shot_end", "t": t, "frame": round(t * 30)}


HEADER = judging.match_header("russian71", "pyramid-12ft", "break", None)
LOGS = {
    "doubtful strokes": [*HEADER, start(1.0), end(3.0), start(4.0, 0.3), start(4.5, 0.3), end(6.0),
                         start(7.0), start(7.5), end(9.0)],
    "lag and a state line": [*HEADER, {"type": "lag", "t": 0.5, "balls": {"C": "A", "1": "B"}}, start(1.0),
                             end(2.0), start(3.0), start(3.4, 0.2), end(4.0), start(5.0),
                             {"type": "state", "t": 5.5, "to_play": "B"}, start(6.0, 0.3), end(7.0)],
    "a state line inside a lag": [*HEADER, {"type": "lag", "t": 0.5, "balls": {"C": "A", "1": "B"}}, start(1.0),
                                  {"type": "state", "t": 1.2, "score": {"A": 0, "B": 0}}, start(1.4), end(2.0),
                                  start(3.0), start(3.4, 0.2), end(4.0)],
}


def engine_numbers(log: list[dict[str, Any]]) -> Numbers:
    kept, held = engine.hold_doubtful_starts(list(inputs.parse_log(log)))
    shots = [s for s in group_log(kept) if isinstance(s, ShotRecord)]
    return {s.number: s.start.t for s in shots}, {n: [e.t for e in es] for n, es in held.items()}


def report_numbers(log: list[dict[str, Any]]) -> Numbers:
    items = [Event.from_dict(d) if is_ball_event(d) else str(d["type"]) for d in log]
    shots = group_shots(items, [])
    return ({s.n: s.t0 for s in shots},
            {s.n: [e.t for e in s.events[1:] if e.type is EventType.SHOT_START] for s in shots
             if any(e.type is EventType.SHOT_START for e in s.events[1:])})


def run_numbers(log: list[dict[str, Any]], tmp: Path) -> Numbers:
    """What the analysis loop does with the same events (its inputs given as the referee's)."""
    def no_verdicts(lines: list[dict[str, Any]], game: str) -> judging.MatchFold:
        return judging.MatchFold(game, (), {}, None, ())

    cfg = AnalyzeConfig(video=tmp / "none.mp4", out=tmp, inputs=[d for d in log if not is_ball_event(d)])
    run = _Run(cfg, Hooks(), no_verdicts)
    run.open_outputs(append=False)
    opened: dict[int, float] = {}
    held: dict[int, list[float]] = {}
    picture = np.zeros((18, 32, 3), np.uint8)
    for d in log:
        if not is_ball_event(d):
            continue
        e = Event.from_dict(d)
        before = run.recorder.shot
        run.on_event(e, lambda: picture)
        if run.recorder.shot != before:
            opened[run.recorder.shot] = e.t
        elif e.type is EventType.SHOT_START and run.recorder.active:
            held.setdefault(run.recorder.shot, []).append(e.t)
    run.close_outputs()
    return opened, held


@pytest.mark.parametrize("name", sorted(LOGS))
def test_engine_loop_and_report_number_shots_alike(name: str, tmp_path: Path) -> None:
    log = LOGS[name]
    numbers = engine_numbers(log)
    assert numbers[0] and numbers[1]  # shots, and a doubtful start held in one: the case is exercised
    assert report_numbers(log) == numbers
    assert run_numbers(log, tmp_path) == numbers


def test_numbering_rules() -> None:
    n = ShotNumbering()
    roles = [n.step(m) for m in (Mark.EVENT, Mark.DOUBTFUL_STROKE, Mark.DOUBTFUL_STROKE, Mark.EVENT, Mark.STROKE,
                                 Mark.SHOT_END, Mark.EVENT, Mark.LAG, Mark.STROKE, Mark.SHOT_END, Mark.STROKE)]
    assert roles == [Role.OUTSIDE, Role.OPENS, Role.HELD, Role.IN_SHOT, Role.OPENS, Role.IN_SHOT, Role.OUTSIDE,
                     Role.OUTSIDE, Role.OUTSIDE, Role.OUTSIDE, Role.OPENS]
    assert n.number == 3 and n.open
    assert n.step(Mark.RESET) is Role.OUTSIDE and not n.open


def test_events_between_shots_go_to_the_shot_the_engine_gives_them() -> None:
    """A ball disturbed after a shot ended is the next shot's (1.17 before its stroke); a late pot stays with the
    shot that ended: the report shows each under the shot whose verdict rests on it."""
    disturbed = {"type": "ball_disturbed", "t": 3.5, "frame": 105, "ball": "1"}
    late_pot = {"type": "pot", "t": 3.2, "frame": 96, "ball": "1", "pocket": "rear_left", "late": True}
    log = [*HEADER, start(1.0), end(3.0), late_pot, disturbed, start(4.0), end(6.0)]
    shots = [s for s in group_log(engine.hold_doubtful_starts(list(inputs.parse_log(log)))[0])
             if isinstance(s, ShotRecord)]
    assert [e.type for e in shots[1].before_events] == [EventType.BALL_DISTURBED]  # as the engine has it
    assert [e.type for e in shots[0].post_events] == [EventType.POT]
    views = group_shots([Event.from_dict(d) if is_ball_event(d) else str(d["type"]) for d in log], [])
    assert [e.type for e in views[1].before] == [EventType.BALL_DISTURBED]
    assert EventType.POT in [e.type for e in views[0].events] and not views[0].before
