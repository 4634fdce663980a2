"""Is the first shot of a recording a break, or a shot from a position? Decided from what the camera saw.

A break needs a pyramid racked on the rear spot and the cue ball in the house (1.8, 1.11). The rules
package's `rules.rack.rack_looks_like` decides first; failing it, a local test that forgives up to two balls
vision missed in the tight triangle: every object ball seen within a tolerance of a place of the full rack
(ids ignored: numbers are hard to read on a tight rack), at least 13 places filled. And the coloured ball
in the house.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from calibration.table import Table
from rules.rack import rack_looks_like


class Opening(StrEnum):
    BREAK = "break"
    POSITION = "position"


@dataclass(frozen=True)
class OpeningDecision:
    opening: Opening
    reason: str


def _local_rack_test(positions: dict[str, tuple[float, float]], table: Table, tol_mm: float) -> tuple[bool, str]:
    places = np.array(list(table.rack_positions().values()))
    balls = np.array([p for b, p in positions.items() if b != "C"], dtype=float).reshape(-1, 2)
    if len(balls) < 12:
        return False, f"only {len(balls)} object ball{'' if len(balls) == 1 else 's'} on the table"
    d = np.linalg.norm(balls[:, None, :] - places[None, :, :], axis=2)
    off = int((d.min(axis=1) > tol_mm).sum())
    filled = int((d.min(axis=0) <= tol_mm).sum())
    if off or filled < 13:
        return False, f"{off} object ball(s) away from the rack, {filled}/15 rack places filled"
    return True, f"{filled}/15 rack places filled around the rear spot"


def decide_opening(
    positions: dict[str, tuple[float, float]] | None, table: Table, tol_mm: float = 15.0
) -> OpeningDecision:
    """Break or position from the ball positions at rest before the first stroke."""
    if not positions:
        return OpeningDecision(Opening.POSITION, "no ball positions before the first shot were seen")
    cue = positions.get("C")
    racked = rack_looks_like(table, positions, tol_mm, min_balls=12)
    why = "pyramid racked on the rear spot (rules.rack)"
    if not racked:
        # rules.rack wants an exact (possibly incomplete) pyramid; a full rack where vision missed a ball or
        # two in the tight triangle is still a rack to the eye.
        racked, why = _local_rack_test(positions, table, tol_mm)
    if not racked:
        return OpeningDecision(Opening.POSITION, why)
    if cue is None or not table.in_house(cue):
        return OpeningDecision(Opening.POSITION, f"{why}, but the cue ball is not in the house")
    return OpeningDecision(Opening.BREAK, f"{why}; cue ball in the house")
