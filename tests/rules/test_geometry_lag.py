"""The lag for the break (1.7): automatic losses, the nearer ball, replays."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.table import Table, list_specs
from rules.events import Event, EventType
from rules.lag import LagResult, judge_lag

SPECS = list_specs()
TABLES = {name: Table.load(name) for name in SPECS}
BALLS = {"1": "anna", "2": "boris"}  # ball 1 starts on the left (+y), ball 2 on the right


def _lag(
    table: Table,
    rest: dict[str, tuple[float, float] | None],
    extra: list[Event] | None = None,
    rear_hits: dict[str, int] | None = None,
    start: dict[str, tuple[float, float]] | None = None,
) -> list[Event]:
    """A lag's events: start in the house either side of the axis, rear cushion once each, rest positions.

    Rest positions are (distance from the front cushion nose to the ball's surface, y) in mm.
    """
    hl, r = table.half_length, table.ball_radius
    y0 = table.half_width / 3
    start = start or {"1": (table.house_line_x - 100.0, y0), "2": (table.house_line_x - 100.0, -y0)}
    events = [Event(EventType.SHOT_START, 0.0, 0, ball="1", positions=start)]
    hits = {"1": 1, "2": 1} if rear_hits is None else rear_hits
    for b, n in hits.items():
        events += [Event(EventType.CUSHION, 1.0 + 0.5 * i, 30 + i, ball=b, cushion="rear") for i in range(n)]
    events += extra or []
    positions = {b: (-hl + r + d, y) for b, p in rest.items() if p is not None for d, y in [p]}
    events.append(Event(EventType.SHOT_END, 6.0, 180, positions=positions))
    return events


def _ev(kind: EventType, ball: str, t: float = 2.0, **kw: str) -> Event:
    return Event(kind, t, int(t * 30), ball=ball, **kw)  # type: ignore[arg-type]


LEFT, RIGHT = 150.0, -150.0
CASES: list[tuple[str, dict, list[Event], dict | None, set[str] | None, str | None, dict[str, str]]] = [
    # (name, rest, extra events, rear hits, crossed, winner, clause expected in each player's reason)
    ("nearer wins", {"1": (100.0, LEFT), "2": (300.0, RIGHT)}, [], None, None, "anna",
     {"anna": "1.7.1", "boris": "1.7.1"}),
    ("nearer wins, right side", {"1": (500.0, LEFT), "2": (20.0, RIGHT)}, [], None, None, "boris",
     {"anna": "1.7.1", "boris": "1.7.1"}),
    ("frozen to the front cushion wins", {"1": (0.0, LEFT), "2": (5.0, RIGHT)}, [_ev(EventType.CUSHION, "1", 4.0,
     cushion="front")], None, None, "anna", {"anna": "1.7.1", "boris": "1.7.1"}),
    ("touching each other is no loss", {"1": (100.0, LEFT), "2": (300.0, RIGHT)},
     [Event(EventType.BALL_CONTACT, 3.0, 90, balls=("1", "2"))], None, None, "anna", {"anna": "1.7.1"}),
    ("long cushion loses", {"1": (100.0, LEFT), "2": (300.0, RIGHT)},
     [_ev(EventType.CUSHION, "1", cushion="left_rear")], None, None, "boris", {"anna": "1.7.2(5)"}),
    ("front long cushion loses", {"1": (100.0, LEFT), "2": (300.0, RIGHT)},
     [_ev(EventType.CUSHION, "1", 4.0, cushion="left_front")], None, None, "boris", {"anna": "1.7.2(5)"}),
    ("short of the rear cushion", {"1": (100.0, LEFT), "2": (300.0, RIGHT)}, [], {"2": 1}, None, "boris",
     {"anna": "1.7.2(2)", "boris": "1.7.2"}),
    ("rear cushion twice", {"1": (100.0, LEFT), "2": (300.0, RIGHT)}, [], {"1": 2, "2": 1}, None, "boris",
     {"anna": "1.7.2(6)"}),
    ("potted", {"1": None, "2": (300.0, RIGHT)}, [_ev(EventType.POT, "1", 4.0, pocket="front_left")], None, None,
     "boris", {"anna": "1.7.2(3)"}),
    ("jumped", {"1": None, "2": (300.0, RIGHT)}, [_ev(EventType.OFF_TABLE, "1", 3.0)], None, None, "boris",
     {"anna": "1.7.2(4)"}),
    ("crossed and came back", {"1": (100.0, LEFT), "2": (300.0, RIGHT)}, [], None, {"1"}, "boris",
     {"anna": "1.7.2(1)"}),
    ("rests in the opponent's half", {"1": (100.0, -5.0), "2": (300.0, RIGHT)}, [], None, None, "boris",
     {"anna": "1.7.2(1)"}),
    ("rests on the axis: not crossed", {"1": (100.0, 0.0), "2": (300.0, RIGHT)}, [], None, None, "anna",
     {"anna": "1.7.1"}),
    ("both lose: replay", {"1": (100.0, LEFT), "2": (300.0, RIGHT)}, [_ev(EventType.CUSHION, "2",
     cushion="right_rear")], {"2": 1}, None, None, {"anna": "1.7.3", "boris": "1.7.3"}),
    ("tie: replay", {"1": (100.0, LEFT), "2": (101.0, RIGHT)}, [], None, None, None,
     {"anna": "1.7.3", "boris": "1.7.3"}),
    ("rest unknown: replay", {"1": (100.0, LEFT), "2": None}, [], None, None, None, {"boris": "1.7.3"}),
    ("other balls ignored", {"1": (100.0, LEFT), "2": (300.0, RIGHT)}, [_ev(EventType.CUSHION, "7",
     cushion="left_rear"), _ev(EventType.POT, "C", pocket="middle_left")], None, None, "anna", {"anna": "1.7.1"}),
]  # fmt: skip


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize(
    ("name", "rest", "extra", "rear_hits", "crossed", "winner", "clauses"), CASES, ids=[c[0] for c in CASES]
)
def test_lag_table(
    spec: str,
    name: str,
    rest: dict,
    extra: list[Event],
    rear_hits: dict | None,
    crossed: set[str] | None,
    winner: str | None,
    clauses: dict[str, str],
) -> None:
    table = TABLES[spec]
    res = judge_lag(table, _lag(table, rest, extra, rear_hits), BALLS, crossed)
    assert isinstance(res, LagResult)
    assert res.winner == winner, res.reasons
    assert res.replay is (winner is None)
    assert set(res.reasons) == {"anna", "boris"}
    for player, clause in clauses.items():
        assert clause in res.reasons[player], res.reasons[player]


def test_all_grounds_are_listed() -> None:
    table = TABLES["pyramid-12ft"]
    extra = [_ev(EventType.CUSHION, "1", cushion="left_rear"), _ev(EventType.POT, "1", 3.0, pocket="middle_right")]
    res = judge_lag(table, _lag(table, {"1": None, "2": (300.0, RIGHT)}, extra, {"1": 2, "2": 1}), BALLS, {"1"})
    for clause in ("1.7.2(1)", "1.7.2(3)", "1.7.2(5)", "1.7.2(6)"):
        assert clause in res.reasons["anna"]
    assert "1.7.2(2)" not in res.reasons["anna"]


def test_start_side_from_the_opponent_when_own_start_is_on_the_axis() -> None:
    table = TABLES["pyramid-12ft"]
    start = {"1": (table.house_line_x - 100.0, 0.0), "2": (table.house_line_x - 100.0, -200.0)}
    # ball 1 starts on the axis: its side is the left one, so resting at y < 0 is in boris's half
    events = _lag(table, {"1": (100.0, -20.0), "2": (300.0, RIGHT)}, start=start)
    res = judge_lag(table, events, BALLS)
    assert res.winner == "boris" and "1.7.2(1)" in res.reasons["anna"]


def test_axis_tolerance() -> None:
    table = TABLES["pyramid-12ft"]
    events = _lag(table, {"1": (100.0, -3.0), "2": (300.0, RIGHT)})
    assert judge_lag(table, events, BALLS).winner == "boris"
    assert judge_lag(table, events, BALLS, axis_tol_mm=5.0).winner == "anna"


def test_review_flags_low_confidence_and_close_calls() -> None:
    table = TABLES["pyramid-12ft"]
    shaky = Event(EventType.CUSHION, 2.0, 60, confidence=0.3, ball="2", cushion="right_rear")
    res = judge_lag(table, _lag(table, {"1": (100.0, LEFT), "2": (300.0, RIGHT)}, [shaky]), BALLS)
    assert res.winner == "anna" and any("confidence 0.30" in r for r in res.review)
    close = judge_lag(table, _lag(table, {"1": (100.0, LEFT), "2": (106.0, RIGHT)}), BALLS)
    assert close.winner == "anna" and any("close lag" in r for r in close.review)
    clear = judge_lag(table, _lag(table, {"1": (100.0, LEFT), "2": (300.0, RIGHT)}), BALLS)
    assert clear.review == ()
    assert json.loads(json.dumps(close.to_dict()))["review"] == list(close.review)


def test_start_from_rest_positions_only_is_flagged() -> None:
    table = TABLES["pyramid-12ft"]
    events = [e for e in _lag(table, {"1": (100.0, LEFT), "2": (300.0, RIGHT)}) if e.type is not EventType.SHOT_START]
    res = judge_lag(table, events, BALLS)
    assert res.winner == "anna"
    assert any("no shot_start position" in r for r in res.review)


@pytest.mark.parametrize(
    ("balls", "crossed", "match"),
    [
        ({"1": "anna"}, None, "two balls"),
        ({"1": "anna", "2": "anna"}, None, "two different players"),
        ({"1": "anna", "2": "boris", "3": "carl"}, None, "two balls"),
        (BALLS, {"9"}, "crossed_long_axis"),
    ],
)
def test_bad_input_raises(balls: dict[str, str], crossed: set[str] | None, match: str) -> None:
    table = TABLES["pyramid-12ft"]
    with pytest.raises(ValueError, match=match):
        judge_lag(table, _lag(table, {"1": (1.0, LEFT), "2": (2.0, RIGHT)}), balls, crossed)


# --- properties ----------------------------------------------------------------------------------------

FOULS = {
    "long": lambda b: [_ev(EventType.CUSHION, b, cushion="left_rear" if b == "1" else "right_front")],
    "pot": lambda b: [_ev(EventType.POT, b, 4.0, pocket="front_left")],
    "off": lambda b: [_ev(EventType.OFF_TABLE, b, 3.0)],
}


def _mirror(e: Event) -> Event:
    """The same event seen with left and right swapped (y -> -y)."""
    swap = {"left": "right", "right": "left"}
    cushion = e.cushion and "_".join(swap.get(p, p) for p in e.cushion.split("_"))
    pocket = e.pocket and "_".join(swap.get(p, p) for p in e.pocket.split("_"))
    positions = e.positions and {k: (x, -y) for k, (x, y) in e.positions.items()}
    return Event(e.type, e.t, e.frame, e.confidence, e.ball, e.balls, cushion, e.line, e.to, pocket, positions)


@settings(max_examples=120, deadline=None)
@given(
    spec=st.sampled_from(SPECS),
    d1=st.floats(0.0, 1500.0),
    d2=st.floats(0.0, 1500.0),
    y1=st.floats(-200.0, 400.0),
    y2=st.floats(-400.0, 200.0),
    fouls1=st.sets(st.sampled_from(sorted(FOULS))),
    fouls2=st.sets(st.sampled_from(sorted(FOULS))),
    hits1=st.integers(0, 3),
    hits2=st.integers(0, 3),
)
def test_lag_properties(
    spec: str,
    d1: float,
    d2: float,
    y1: float,
    y2: float,
    fouls1: set[str],
    fouls2: set[str],
    hits1: int,
    hits2: int,
) -> None:
    table = TABLES[spec]
    extra = [e for f in sorted(fouls1) for e in FOULS[f]("1")] + [e for f in sorted(fouls2) for e in FOULS[f]("2")]
    events = _lag(table, {"1": (d1, y1), "2": (d2, y2)}, extra, {"1": hits1, "2": hits2})
    res = judge_lag(table, events, BALLS)
    # every player gets a reason citing a clause of 1.7, and the result is either a winner or a replay
    assert set(res.reasons) == {"anna", "boris"}
    assert all(reason.startswith("1.7.") for reason in res.reasons.values())
    assert (res.winner is None) == res.replay
    # a foul in either lag can never let that lag win
    lost1 = bool(fouls1) or hits1 != 1 or y1 < 0
    lost2 = bool(fouls2) or hits2 != 1 or y2 > 0
    if lost1:
        assert res.winner != "anna"
    if lost2:
        assert res.winner != "boris"
    if lost1 and lost2:
        assert res.replay
    if not lost1 and not lost2 and abs(d1 - d2) > 2.0:
        assert res.winner == ("anna" if d1 < d2 else "boris")
    # invariances: the order of the balls, the order of same-time events, and a mirror image do not matter
    swapped = judge_lag(table, events, {"2": "boris", "1": "anna"})
    assert (swapped.winner, swapped.replay) == (res.winner, res.replay)
    mirrored = judge_lag(table, [_mirror(e) for e in events], BALLS)
    assert (mirrored.winner, mirrored.replay) == (res.winner, res.replay)
