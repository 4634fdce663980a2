"""Table geometry from calibration/table.py: house line (1.9-1.10), frozen tolerance, pocket regions."""

from __future__ import annotations

import math

import pytest

from calibration.table import Half, HouseStatus, Table

T = Table.load("pyramid-12ft")
HX = T.house_line_x
R = T.ball_radius


@pytest.mark.parametrize(
    ("x", "tol", "status"),
    [
        (HX, 0.0, HouseStatus.ON_LINE),  # centre exactly on the line: outside the house (1.10)
        (HX - 0.01, 0.0, HouseStatus.IN),
        (HX + 0.01, 0.0, HouseStatus.OUT),
        (HX - 0.4, 0.5, HouseStatus.ON_LINE),
        (HX + 0.5, 0.5, HouseStatus.ON_LINE),
        (HX - 0.6, 0.5, HouseStatus.IN),
        (-T.half_length + R, 0.0, HouseStatus.IN),
        (0.0, 0.0, HouseStatus.OUT),
    ],
)
def test_house_status(x: float, tol: float, status: HouseStatus) -> None:
    assert T.house_status((x, 100.0), tol) is status
    assert T.in_house((x, 100.0), tol) is (status is HouseStatus.IN)


def test_house_line_is_through_the_front_spot() -> None:
    assert T.markings["front_spot"] == (HX, 0.0)
    assert pytest.approx(-T.spec.bed_length_mm / 4) == HX


def test_halves_and_rear_house() -> None:
    assert T.half((0.0, 0.0)) is Half.ON_LINE
    assert T.half((-1.0, 0.0)) is Half.FRONT
    assert T.half((1.0, 0.0)) is Half.REAR
    assert T.half((0.3, 0.0), line_tol_mm=0.5) is Half.ON_LINE
    assert not T.in_rear_house((T.rear_line_x, 0.0))
    assert T.in_rear_house((T.rear_line_x + 1.0, 0.0))


@pytest.mark.parametrize(
    ("gap", "tol", "frozen"),
    [(0.0, 0.5, True), (0.5, 0.5, True), (0.51, 0.5, False), (2.0, 1.0, False), (-0.2, 0.0, True)],
)
def test_frozen_tolerance(gap: float, tol: float, frozen: bool) -> None:
    xy = (1000.0, T.half_width - R - gap)  # against the left rear cushion
    found = T.frozen_cushions(xy, tol)
    assert ("left_rear" in [n for n, _ in found]) is frozen
    if frozen:
        assert dict(found)["left_rear"] == pytest.approx(gap, abs=1e-9)


def test_corner_ball_is_frozen_to_two_cushions() -> None:
    c = T.spec.corner_mouth_mm / math.sqrt(2)
    xy = (T.half_length - R, T.half_width - c - 5.0)  # against the rear cushion, beside the rear-left jaw
    names = [n for n, _ in T.frozen_cushions(xy, 0.5)]
    assert names == ["rear"]
    assert T.cushion_distance((0.0, T.half_width - 10.0), "left_rear") == math.inf  # at the middle pocket


@pytest.mark.parametrize(
    ("xy", "pocket"),
    [
        ((T.half_length, T.half_width), "rear_left"),
        ((-T.half_length + 5.0, -T.half_width + 5.0), "front_right"),
        ((0.0, T.half_width + 20.0), "middle_left"),
        ((0.0, -T.half_width), "middle_right"),
        ((0.0, 0.0), None),
        ((0.0, T.half_width - 3 * R), None),  # well inside the bed, in front of the middle pocket
        ((T.half_length - 300.0, T.half_width - R), None),  # along the cushion, far from the corner
    ],
)
def test_pocket_regions(xy: tuple[float, float], pocket: str | None) -> None:
    assert T.pocket_at(xy) == pocket


def test_nearest_pocket_and_bed() -> None:
    name, d = T.nearest_pocket((T.half_length - 10.0, -T.half_width + 10.0))
    assert name == "rear_right" and d < 50.0
    assert T.on_bed((0.0, 0.0)) and not T.on_bed((T.half_length + 1.0, 0.0))
    assert not T.on_bed((T.half_length - 10.0, 0.0), margin_mm=R)
