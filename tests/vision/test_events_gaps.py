"""Rest gaps at the stroke carry their sigma (schema 1.6): the rules flag a push or a freeze decided near its
tolerance on it."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.table import Table
from vision.events.settings import EventSettings
from vision.events.shots import rest_layout
from vision.pipeline import event_settings

TABLE = Table.load("pyramid-12ft")
R = TABLE.ball_radius


def test_pair_and_cushion_gaps_carry_their_sigmas() -> None:
    s = EventSettings(gap_sigma_mm=0.8, cushion_gap_sigma_mm=0.9)
    rack = TABLE.rack_positions([str(i) for i in range(1, 14)] + ["r14", "r15"], gap_mm=0.2)
    del rack["r14"], rack["r15"]  # two places of the base row free for the balls placed elsewhere
    anchors = {i: np.array(rack[b]) for i, b in enumerate(rack)}
    ids = (*rack, "C", "14", "15")
    anchors[len(rack)] = np.array([-900.0, 0.0])  # C touching 14, far from the rack
    anchors[len(rack) + 1] = np.array([-900.0 + 2 * R + 0.4, 0.0])
    anchors[len(rack) + 2] = np.array([-300.0, TABLE.half_width - R - 0.6])  # 15 frozen to a long cushion
    _, frozen, touching = rest_layout(TABLE, ids, anchors, s)
    by_pair = {frozenset(t["balls"]): t for t in touching}
    assert by_pair[frozenset(("C", "14"))]["gap_sigma_mm"] == 0.8
    assert abs(by_pair[frozenset(("C", "14"))]["gap_mm"] - 0.4) < 0.01
    assert by_pair[frozenset(("5", "8"))]["gap_sigma_mm"] == 0.8  # a rack's pairs too
    assert len(touching) == 30 - 5 + 1  # the rack's 30 touching pairs less the 5 of the two free places, and C-14
    assert [f["gap_sigma_mm"] for f in frozen if f["ball"] == "15"] == [0.9]


@pytest.mark.parametrize("s", [event_settings(), EventSettings()], ids=["pipeline", "defaults"])
def test_the_review_bands_stay_inside_what_vision_lists(s: EventSettings) -> None:
    """The rules flag a push within 2 sigmas of 0.5 mm and a freeze within 2 sigmas of 1 mm (RulesSettings): a
    gap in those bands must be listed (with its sigma), not left for the rules to read off the positions."""
    assert s.gap_sigma_mm >= 0.5 and s.cushion_gap_sigma_mm >= 0.5
    assert 0.5 + 2 * s.gap_sigma_mm <= s.touch_tol_mm
    assert 1.0 + 2 * s.cushion_gap_sigma_mm <= s.frozen_tol_mm
