"""bench.gaps: the measured rest gaps at a stroke against the truth, and how often the truth lay within two of
the reported sigmas."""

from __future__ import annotations

import math

from bench.gaps import rest_gaps, summary
from calibration.table import Table
from rules.events import Event, EventType

TABLE = Table.load("pyramid-12ft")
D = TABLE.spec.ball_diameter_mm


def start(t: float, positions: dict[str, tuple[float, float]], **kw: object) -> Event:
    return Event(EventType.SHOT_START, t, round(t * 60), ball="C", positions=positions, **kw)  # type: ignore[arg-type]


def test_rows_errors_and_coverage() -> None:
    y9 = TABLE.half_width - TABLE.ball_radius - 0.5  # ball 9 0.5 mm off the left cushion
    truth_pos = {"C": (-900.0, 0.0), "7": (-900.0 + D + 0.6, 0.0), "3": (500.0, 0.0), "9": (-300.0, y9)}
    truth = [start(1.0, truth_pos, frozen=({"ball": "9", "cushion": "left_front", "gap_mm": 0.5},))]
    found = [start(1.01, {**truth_pos, "7": (-900.0 + D - 0.3, 0.0)},
                   touching=({"balls": ["C", "7"], "gap_mm": -0.3, "gap_sigma_mm": 0.4},),
                   frozen=({"ball": "9", "cushion": "left_front", "gap_mm": 1.1, "gap_sigma_mm": 1.0},))]
    rows = rest_gaps("case", truth, found, TABLE)
    pair = [r for r in rows if r.kind == "ball"]
    assert [(r.key, round(r.truth_mm, 2), r.measured_mm) for r in pair] == [("7-C", 0.6, -0.3)]
    cushion = [r for r in rows if r.kind == "cushion"]
    assert [(r.key, round(r.truth_mm, 2), r.measured_mm) for r in cushion] == [("9 left_front", 0.5, 1.1)]
    s = summary(rows)
    assert math.isclose(s["ball"]["rms_mm"], 0.9, abs_tol=1e-6)
    assert s["ball"]["within_2_sigma"] == 0.0  # 0.9 mm off on a 0.4 mm sigma: outside
    assert s["cushion"]["within_2_sigma"] == 1.0


def test_a_start_vision_missed_makes_no_row() -> None:
    truth = [start(1.0, {"C": (-900.0, 0.0), "7": (-900.0 + D, 0.0)})]
    assert rest_gaps("case", truth, [start(2.0, {"C": (-900.0, 0.0)})], TABLE) == []


def test_a_pair_vision_measured_too_wide_to_list_counts_as_unlisted() -> None:
    """Touching in truth, measured 3.6 mm apart (beyond the touching list): no sigma, so it is outside every review
    band; the summary says so instead of leaving it out of the coverage quietly."""
    truth = [start(1.0, {"C": (-900.0, 0.0), "7": (-900.0 + D + 0.5, 0.0)})]
    found = [start(1.0, {"C": (-900.0, 0.0), "7": (-900.0 + D + 3.6, 0.0)}, touching=())]
    rows = rest_gaps("case", truth, found, TABLE)
    assert [(r.listed, round(r.measured_mm or 0.0, 2)) for r in rows] == [(False, 3.6)]
    s = summary(rows)
    assert s["ball"]["unlisted"] == 1.0 and math.isnan(s["ball"]["within_2_sigma"])
