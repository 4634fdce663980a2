"""Rest gaps at the stroke carry their sigma (schema 1.6): the rules flag a push or a freeze decided near its
tolerance on it."""

from __future__ import annotations

import numpy as np

from calibration.table import Table
from vision.events.settings import EventSettings
from vision.events.shots import rest_layout
from vision.pipeline import event_settings

TABLE = Table.load("pyramid-12ft")
R = TABLE.ball_radius


def test_pair_and_cushion_gaps_carry_their_sigmas() -> None:
    s = EventSettings(gap_sigma_mm=0.8, cushion_gap_sigma_mm=0.9)
    rack = TABLE.rack_positions(gap_mm=0.2)
    ids = (*rack, "C", "7")
    anchors = {i: np.array(rack[b]) for i, b in enumerate(rack)}
    anchors[len(rack)] = np.array([-900.0, 0.0])  # C touching 7, far from the rack
    anchors[len(rack) + 1] = np.array([-900.0 + 2 * R + 0.4, 0.0])
    anchors[len(rack) + 2] = np.array([-300.0, TABLE.half_width - R - 0.6])  # frozen to a long cushion
    ids = (*ids, "9")
    _, frozen, touching = rest_layout(TABLE, ids, anchors, s)
    by_pair = {frozenset(t["balls"]): t for t in touching}
    assert by_pair[frozenset(("C", "7"))]["gap_sigma_mm"] == 0.8
    assert abs(by_pair[frozenset(("C", "7"))]["gap_mm"] - 0.4) < 0.01
    assert by_pair[frozenset(("5", "8"))]["gap_sigma_mm"] == 0.8  # a rack's pairs too
    assert len(touching) == 30 + 1  # the rack's 30 touching pairs and C-7
    assert [f["gap_sigma_mm"] for f in frozen if f["ball"] == "9"] == [0.9]


def test_the_pipeline_reports_its_measured_gap_sigmas() -> None:
    s = event_settings()
    assert s.gap_sigma_mm >= 0.5 and s.cushion_gap_sigma_mm >= 0.5
    # the push band (0.5 mm + 2 sigmas) stays inside the pairs vision lists as touching
    assert 0.5 + 2 * s.gap_sigma_mm <= s.touch_tol_mm
