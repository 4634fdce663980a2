"""Spotting (1.25): one ball on the rear spot, several along the spotting line, around balls in the way."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.table import Table, list_specs
from rules.rack import full_rack
from rules.spotting import DEFAULT_GAP_MM, spot_balls

SPECS = list_specs()
TABLES = {name: Table.load(name) for name in SPECS}


def _sep(table: Table, gap: float = DEFAULT_GAP_MM) -> float:
    return table.spec.ball_diameter_mm + gap


def _search_key(table: Table, x: float) -> float:
    """Distance along the search path: rear side from the rear spot first, then the centre-spot side."""
    x0 = table.rear_line_x
    return x - x0 if x >= x0 else table.spec.bed_length_mm + (x0 - x)


def _oracle_first_free(table: Table, obstacles: list[tuple[float, float]], gap: float, step: float) -> float:
    """Brute force: scan the axis from the rear spot to the rear cushion, then towards the front, in steps."""
    r, sep = table.ball_radius, _sep(table, gap)
    obs = np.asarray(obstacles, dtype=float).reshape(-1, 2)
    x0 = table.rear_line_x
    rear = np.append(np.arange(x0, table.half_length - r, step), table.half_length - r)
    front = np.append(np.arange(x0, -table.half_length + r, -step), -table.half_length + r)
    for xs in (rear, front):
        if len(obs):
            dist = np.hypot(xs[:, None] - obs[None, :, 0], obs[None, :, 1]).min(axis=1)
            ok = dist >= sep - 1e-9
        else:
            ok = np.ones(len(xs), dtype=bool)
        if ok.any():
            return float(xs[int(np.argmax(ok))])
    raise AssertionError("oracle found no room")


def _assert_valid(table: Table, spotted: dict[str, tuple[float, float]], occupied: dict, gap: float) -> None:
    r = table.ball_radius
    placed = list(spotted.values())
    for i, p in enumerate(placed):
        assert p[1] == 0.0, "spotted balls stand on the long axis (1.25.2)"
        assert table.on_bed(p, margin_mm=r - 1e-9), f"{p} overlaps a cushion"
        for q in placed[i + 1 :]:
            assert table.ball_gap(p, q) >= gap - 1e-9, f"spotted balls {p} and {q} too close"
        for k, q in occupied.items():
            if k not in spotted:
                assert table.ball_gap(p, q) >= gap - 1e-9, f"spotted {p} too close to occupied {k} at {q}"


@pytest.mark.parametrize("spec", SPECS)
def test_one_ball_goes_on_the_rear_spot(spec: str) -> None:
    table = TABLES[spec]
    assert spot_balls(table, ["7"], {}) == {"7": table.markings["rear_spot"]}


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("count", [2, 3, 5])
def test_several_balls_line_up_towards_the_rear_cushion_not_touching(spec: str, count: int) -> None:
    table = TABLES[spec]
    balls = [str(i) for i in range(1, count + 1)]
    out = spot_balls(table, balls, {"C": (-900.0 * table.half_length / 1775, 100.0)})
    assert list(out) == balls, "the given order is kept"
    xs = [out[b][0] for b in balls]
    assert xs[0] == table.rear_line_x
    assert np.allclose(np.diff(xs), _sep(table)), "each as close as possible to the previous (1.25.2)"
    for a, b in itertools.pairwise(balls):
        assert table.ball_gap(out[a], out[b]) > 0.0, "not touching"


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize(
    ("name", "obstacle_dy", "expect_x_offset"),
    [
        # obstacle centre on the rear spot: first free point is one separation behind it
        ("on the spot", 0.0, "sep"),
        # obstacle 40 mm off the axis: the ball fits sqrt(sep^2 - 40^2) behind it
        ("near the line", 40.0, "chord"),
        # obstacle more than a separation off the axis is not in the way
        ("clear of the line", 1.01, "none"),
    ],
)
def test_ball_in_the_way_of_the_rear_spot(spec: str, name: str, obstacle_dy: float, expect_x_offset: str) -> None:
    table = TABLES[spec]
    sep = _sep(table)
    x0 = table.rear_line_x
    dy = obstacle_dy * sep if expect_x_offset == "none" else obstacle_dy
    out = spot_balls(table, ["3"], {"9": (x0, dy)})
    expected = {"sep": x0 + sep, "chord": x0 + math.sqrt(abs(sep**2 - dy**2)), "none": x0}[expect_x_offset]
    assert out["3"][0] == pytest.approx(expected, abs=1e-9), name
    _assert_valid(table, out, {"9": (x0, dy)}, DEFAULT_GAP_MM)


@pytest.mark.parametrize("spec", SPECS)
def test_gap_between_balls_in_the_way_is_used_when_big_enough(spec: str) -> None:
    table = TABLES[spec]
    sep, x0 = _sep(table), table.rear_line_x
    # blockers leave a hole [x0 - 10 + sep, x0 - 10 + 1.5 sep] for ball centres: room for one ball only
    occupied = {"1": (x0 - 10.0, 0.0), "2": (x0 - 10.0 + 2.5 * sep, 0.0)}
    out = spot_balls(table, ["5", "6", "7"], occupied)
    assert out["5"][0] == pytest.approx(x0 - 10.0 + sep)
    assert out["6"][0] == pytest.approx(x0 - 10.0 + 3.5 * sep), "the next goes behind the second blocker"
    assert out["7"][0] == pytest.approx(x0 - 10.0 + 4.5 * sep)
    _assert_valid(table, out, occupied, DEFAULT_GAP_MM)


@pytest.mark.parametrize("spec", SPECS)
def test_no_room_behind_the_spot_continues_towards_the_centre(spec: str) -> None:
    table = TABLES[spec]
    sep, x0, r = _sep(table), table.rear_line_x, table.ball_radius
    rear_room = int((table.half_length - r - x0) // sep) + 1  # balls that fit from the spot to the cushion
    balls = [str(i) for i in range(1, rear_room + 3)]
    out = spot_balls(table, balls, {})
    rear = [out[b][0] for b in balls[:rear_room]]
    front = [out[b][0] for b in balls[rear_room:]]
    assert rear[-1] <= table.half_length - r
    assert front == pytest.approx([x0 - sep, x0 - 2 * sep]), "as close to the rear spot as possible (1.25.2)"
    _assert_valid(table, out, {}, DEFAULT_GAP_MM)


@pytest.mark.parametrize("spec", SPECS)
def test_spotting_line_blocked_by_a_wall_of_balls(spec: str) -> None:
    table = TABLES[spec]
    sep, x0 = _sep(table), table.rear_line_x
    wall = {f"w{i}": (x0 + 0.6 * sep, (i - 1) * 0.9 * table.spec.ball_diameter_mm) for i in range(3)}
    wall["w3"] = (x0, 0.0)
    out = spot_balls(table, ["1", "2"], wall)
    # rear side is reachable only beyond the wall: nearest free point behind it
    assert out["1"][0] == pytest.approx(_oracle_first_free(table, list(wall.values()), DEFAULT_GAP_MM, 0.01), abs=0.02)
    _assert_valid(table, out, wall, DEFAULT_GAP_MM)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize(("gap", "into_apex"), [(DEFAULT_GAP_MM, False), (0.0, True)])
def test_spotting_against_a_rack_missing_its_apex(spec: str, gap: float, into_apex: bool) -> None:
    table = TABLES[spec]
    rack = full_rack(table)
    apex = rack.pop("4")
    out = spot_balls(table, ["4"], rack, gap_mm=gap)
    if into_apex:
        # with no gap required the empty apex slot, touching its two neighbours, is the nearest free point
        assert out["4"][0] == pytest.approx(apex[0], abs=1e-9)
    else:
        # the apex slot touches its neighbours, so "not touching" sends the ball behind the base row's middle
        base_x = rack["12"][0]
        assert out["4"][0] == pytest.approx(base_x + _sep(table, gap))
    _assert_valid(table, out, rack, gap - 1e-9)


@pytest.mark.parametrize(
    ("balls", "occupied", "gap", "match"),
    [
        (["1", "1"], {}, 0.5, "distinct"),
        (["1"], {}, -0.1, "gap_mm"),
        (["1"], {}, math.nan, "gap_mm"),
        (["1"], {"2": (math.nan, 0.0)}, 0.5, "finite"),
        (["1"], {"2": (0.0, math.inf)}, 0.5, "finite"),
    ],
)
def test_bad_input_raises(balls: list[str], occupied: dict, gap: float, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        spot_balls(TABLES["pyramid-12ft"], balls, occupied, gap_mm=gap)


def test_whole_axis_blocked_raises() -> None:
    table = TABLES["pyramid-9ft"]
    sep = _sep(table)
    n = int(table.spec.bed_length_mm // sep) + 2
    occupied = {f"o{i}": (-table.half_length + i * sep, 0.0) for i in range(n)}
    with pytest.raises(ValueError, match="no room"):
        spot_balls(table, ["1"], occupied)


def test_stale_position_of_the_ball_being_spotted_is_ignored() -> None:
    table = TABLES["pyramid-12ft"]
    out = spot_balls(table, ["4"], {"4": table.markings["rear_spot"]})
    assert out["4"] == table.markings["rear_spot"]


# --- properties ------------------------------------------------------------------------------------------


@st.composite
def layouts(draw: st.DrawFn) -> tuple[str, dict[str, tuple[float, float]], list[str], float]:
    """A table, a layout of up to 15 balls (biased towards the spotting line), and the balls to spot."""
    spec = draw(st.sampled_from(SPECS))
    table = TABLES[spec]
    r, d = table.ball_radius, table.spec.ball_diameter_mm
    n = draw(st.integers(0, 15))
    overlap_ok = draw(st.booleans())  # a glitchy layout with overlapping balls must not break spotting either
    occupied: dict[str, tuple[float, float]] = {}
    for i in range(n):
        near_line = draw(st.booleans())
        if near_line:
            x = draw(st.floats(table.rear_line_x - 3 * d, table.half_length - r))
            y = draw(st.floats(-1.5 * d, 1.5 * d))
        else:
            x = draw(st.floats(-table.half_length + r, table.half_length - r))
            y = draw(st.floats(-table.half_width + r, table.half_width - r))
        if overlap_ok or all(table.ball_gap((x, y), q) >= 0.0 for q in occupied.values()):
            occupied[f"o{i}"] = (x, y)
    k = draw(st.integers(1, 16 - len(occupied)))
    gap = draw(st.sampled_from([0.0, DEFAULT_GAP_MM, 2.0]))
    return spec, occupied, [f"s{i}" for i in range(k)], gap


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts())
def test_spotted_balls_never_overlap_and_stay_on_the_bed(case: tuple) -> None:
    spec, occupied, balls, gap = case
    table = TABLES[spec]
    out = spot_balls(table, balls, occupied, gap_mm=gap)
    assert list(out) == balls
    _assert_valid(table, out, occupied, gap)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts())
def test_each_spotted_ball_takes_the_free_point_nearest_the_rear_spot(case: tuple) -> None:
    spec, occupied, balls, gap = case
    table = TABLES[spec]
    out = spot_balls(table, balls, occupied, gap_mm=gap)
    obstacles = list(occupied.values())
    for b in balls:
        # one-sided: a grid scan may step over a hole narrower than its step, never find a nearer point
        scanned = _oracle_first_free(table, obstacles, gap, 0.05)
        assert _search_key(table, scanned) >= _search_key(table, out[b][0]) - 1e-6, f"ball {b}: {scanned} is free"
        obstacles.append(out[b])
