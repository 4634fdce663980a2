"""The pyramid: full rack (1.8.1, 5.3), incomplete rack (1.8 note), recognising a rack."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.table import Table, list_specs
from rules.rack import (
    RUSSIAN_RACK_ORDER,
    full_rack,
    incomplete_rack,
    incomplete_slots,
    rack_looks_like,
)

SPECS = list_specs()
TABLES = {name: Table.load(name) for name in SPECS}
TOUCH_TOL = 1e-6


def _contact_components(table: Table, pts: list[tuple[float, float]]) -> int:
    """Number of connected groups of touching balls (gap within TOUCH_TOL)."""
    parent = list(range(len(pts)))

    def find(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i in range(len(pts)):
        for j in range(i + 1, len(pts)):
            if abs(table.ball_gap(pts[i], pts[j])) <= TOUCH_TOL:
                parent[find(i)] = find(j)
    return len({find(i) for i in range(len(pts))})


def _assert_pyramid_shape(table: Table, pos: dict[str, tuple[float, float]]) -> None:
    """Touching, no overlap, symmetric about the long axis, behind the rear spot, on the bed."""
    pts = list(pos.values())
    r = table.ball_radius
    for i, p in enumerate(pts):
        assert table.on_bed(p, margin_mm=r), f"{p} off the bed"
        assert p[0] >= table.rear_line_x - 1e-9, "nothing in front of the apex slot"
        for q in pts[i + 1 :]:
            assert table.ball_gap(p, q) >= -TOUCH_TOL, f"{p} and {q} overlap"
    assert _contact_components(table, pts) == 1, "every ball touches the group (1.8.1)"
    mirrored = sorted((round(x, 6), round(-y, 6)) for x, y in pts)
    assert mirrored == sorted((round(x, 6), round(y, 6)) for x, y in pts), "symmetric about the long axis"


def test_russian_order_rows_as_in_5_3() -> None:
    rows = [RUSSIAN_RACK_ORDER[r * (r + 1) // 2 : (r + 1) * (r + 2) // 2] for r in range(5)]
    assert rows == [("4",), ("5", "6"), ("7", "15", "8"), ("9", "14", "13", "10"), ("2", "1", "12", "11", "3")]
    assert sorted(RUSSIAN_RACK_ORDER, key=int) == [str(i) for i in range(1, 16)]


@pytest.mark.parametrize("spec", SPECS)
def test_full_rack_geometry(spec: str) -> None:
    table = TABLES[spec]
    pos = full_rack(table)
    d = table.spec.ball_diameter_mm
    assert set(pos) == set(RUSSIAN_RACK_ORDER)
    assert pos["4"] == table.markings["rear_spot"], "apex on the rear spot (1.8.1)"
    base = [pos[b] for b in ("2", "1", "12", "11", "3")]
    assert len({round(x, 9) for x, _ in base}) == 1, "base parallel to the rear cushion"
    assert base[0][0] > pos["4"][0], "base towards the rear cushion"
    assert [y for _, y in base] == pytest.approx([2 * d, d, 0.0, -d, -2 * d]), "row read from +y (left)"
    # each row listed from +y: ball 5 left of 6, ball 2 on the far left, 3 on the far right
    assert pos["5"][1] > 0 > pos["6"][1]
    _assert_pyramid_shape(table, pos)
    # equilateral: the three corner balls are equally far apart
    corners = [np.array(pos[b]) for b in ("4", "2", "3")]
    sides = [np.linalg.norm(corners[i] - corners[(i + 1) % 3]) for i in range(3)]
    assert sides == pytest.approx([4 * d] * 3)


@pytest.mark.parametrize("spec", SPECS)
def test_full_rack_matches_table_model(spec: str) -> None:
    table = TABLES[spec]
    for order in (list(RUSSIAN_RACK_ORDER), [str(i) for i in range(1, 16)]):
        ours, model = full_rack(table, order), table.rack_positions(order)
        assert list(ours) == list(model)
        for b in order:
            assert ours[b] == pytest.approx(model[b], abs=1e-9)


@pytest.mark.parametrize(
    "order", [["1"] * 15, [str(i) for i in range(1, 15)], [str(i) for i in range(1, 17)]], ids=["dup", "14", "16"]
)
def test_full_rack_rejects_bad_order(order: list[str]) -> None:
    with pytest.raises(ValueError, match="15 distinct"):
        full_rack(TABLES["pyramid-12ft"], order)


# (row, index from +y) slots per count, worked out by hand from the 1.8 note: full rows from the apex; the
# base row from its middle outwards; apex moved into the base row when the parity does not allow symmetry.
APEX = (0, 0)
ROW1 = [(1, 0), (1, 1)]
ROW2 = [(2, 0), (2, 1), (2, 2)]
ROW3 = [(3, j) for j in range(4)]
EXPECTED_SLOTS = {
    1: [APEX],
    2: ROW1,  # 1 ball in a 2-slot row cannot be symmetric: the apex ball joins it
    3: [APEX, *ROW1],
    4: [APEX, *ROW1, (2, 1)],
    5: [*ROW1, *ROW2],
    6: [APEX, *ROW1, *ROW2],
    7: [*ROW1, *ROW2, (3, 1), (3, 2)],
    8: [APEX, *ROW1, *ROW2, (3, 1), (3, 2)],
    9: [*ROW1, *ROW2, *ROW3],
    10: [APEX, *ROW1, *ROW2, *ROW3],
    11: [APEX, *ROW1, *ROW2, *ROW3, (4, 2)],
    12: [*ROW1, *ROW2, *ROW3, (4, 1), (4, 2), (4, 3)],
    13: [APEX, *ROW1, *ROW2, *ROW3, (4, 1), (4, 2), (4, 3)],
    14: [*ROW1, *ROW2, *ROW3, *[(4, j) for j in range(5)]],
    15: [APEX, *ROW1, *ROW2, *ROW3, *[(4, j) for j in range(5)]],
}


@pytest.mark.parametrize(("n", "slots"), sorted(EXPECTED_SLOTS.items()))
def test_incomplete_slots_table(n: int, slots: list[tuple[int, int]]) -> None:
    assert incomplete_slots(n) == slots


@pytest.mark.parametrize("n", [0, 16, -1])
def test_incomplete_rack_rejects_bad_count(n: int) -> None:
    with pytest.raises(ValueError, match=r"1\.\.15"):
        incomplete_slots(n)


def test_incomplete_rack_rejects_repeated_balls() -> None:
    with pytest.raises(ValueError, match="distinct"):
        incomplete_rack(TABLES["pyramid-12ft"], ["1", "2", "1"])


@pytest.mark.parametrize("spec", SPECS)
def test_fifteen_ball_incomplete_rack_is_the_full_rack(spec: str) -> None:
    table = TABLES[spec]
    order = list(RUSSIAN_RACK_ORDER)
    assert incomplete_rack(table, order) == full_rack(table, order)


@settings(max_examples=200, deadline=None)
@given(spec=st.sampled_from(SPECS), n=st.integers(1, 15), data=st.data())
def test_incomplete_rack_is_symmetric_touching_and_complete(spec: str, n: int, data: st.DataObject) -> None:
    table = TABLES[spec]
    balls = data.draw(st.permutations([str(i) for i in range(1, 16)]))[:n]
    pos = incomplete_rack(table, balls)
    assert list(pos) == balls, "every ball placed, in the given order"
    _assert_pyramid_shape(table, pos)
    full = set(full_rack(table, [str(i) for i in range(1, 16)]).values())
    assert set(pos.values()) <= full, "only slots of the standard triangle"
    # filled from the apex towards the base: every row but the last used one is full
    dx = table.spec.ball_diameter_mm * math.sqrt(3.0) / 2.0
    rows = [round((x - table.rear_line_x) / dx) for x, _ in pos.values()]
    last = max(rows)
    for r in range(1, last):
        assert rows.count(r) == r + 1, f"row {r} not full below a partly filled row"
    assert rows.count(0) <= 1
    assert rack_looks_like(table, pos, tol_mm=1.0, min_balls=1)


# --- recognising a rack --------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("full", True),
        ("full with cue in house", True),
        ("full, jittered within tol", True),
        ("full, one ball 3 tol off", False),
        ("full, one ball out on the bed", False),
        ("full, shifted a ball towards the centre", False),
        ("incomplete 12", True),
        ("incomplete 12, wrong pattern", False),
        ("two balls", False),
        ("empty", False),
    ],
)
def test_rack_looks_like(spec: str, case: str, expected: bool) -> None:
    table = TABLES[spec]
    tol = 5.0
    d = table.spec.ball_diameter_mm
    rng = np.random.default_rng(7)
    pos: dict[str, tuple[float, float]] = dict(full_rack(table))
    if case == "full with cue in house":
        pos["C"] = (table.house_line_x - 200.0, 30.0)
    elif case == "full, jittered within tol":
        pos = {k: (x + j[0], y + j[1]) for (k, (x, y)), j in zip(pos.items(), rng.uniform(-3, 3, (15, 2)), strict=True)}
    elif case == "full, one ball 3 tol off":
        x, y = pos["13"]
        pos["13"] = (x + 3 * tol, y)
    elif case == "full, one ball out on the bed":
        pos["13"] = (-500.0, 100.0)
    elif case == "full, shifted a ball towards the centre":
        pos = {k: (x - d, y) for k, (x, y) in pos.items()}
    elif case == "incomplete 12":
        pos = incomplete_rack(table, [str(i) for i in range(1, 13)])
    elif case == "incomplete 12, wrong pattern":
        pos = dict(list(full_rack(table).items())[:12])  # first 12 slots: base row not centred
    elif case == "two balls":
        pos = dict(list(pos.items())[:2])
    elif case == "empty":
        pos = {}
    assert rack_looks_like(table, pos, tol) is expected


@pytest.mark.parametrize("tol", [-1.0, 34.0, 100.0])
def test_rack_looks_like_rejects_ambiguous_tolerance(tol: float) -> None:
    with pytest.raises(ValueError, match="tol_mm"):
        rack_looks_like(TABLES["pyramid-12ft"], full_rack(TABLES["pyramid-12ft"]), tol)
