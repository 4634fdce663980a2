"""The pyramid: full rack (1.8.1, 5.3), incomplete rack (1.8 note), and recognising a rack in positions.

Slots are those of the standard triangle (1.8.1: "a standard triangle is used"): apex on the rear spot,
rows towards the rear cushion, base parallel to it, neighbours touching. Row r (0 = apex) holds r + 1
slots at x = rear spot + r * D * sqrt(3) / 2, slot j at y = (r / 2 - j) * D, so j = 0 is the +y (left,
seen from the front end) side. An incomplete rack uses a subset of these slots, so its apex slot stays on
the rear spot even when the apex ball has been moved into the base row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from calibration.table import Table

ROWS = 5
FULL_RACK_SIZE = ROWS * (ROWS + 1) // 2

# 5.3, apex first, row by row, each row listed from +y (left, seen from the front end) to -y (right):
#           4
#         5   6
#       7  15   8
#     9  14  13  10
#   2   1  12  11   3
# The seed lists the rows without naming a side; this project reads each row from the breaker's left.
RUSSIAN_RACK_ORDER: tuple[str, ...] = (
    "4",
    "5", "6",
    "7", "15", "8",
    "9", "14", "13", "10",
    "2", "1", "12", "11", "3",
)  # fmt: skip

Point = tuple[float, float]
Slot = tuple[int, int]  # (row, index within the row from +y)


def slot_position(table: Table, slot: Slot) -> Point:
    """Table mm of a slot of the standard triangle (balls touching)."""
    row, j = slot
    if not (0 <= row < ROWS and 0 <= j <= row):
        raise ValueError(f"no slot {slot!r} in a {ROWS}-row triangle")
    d = table.spec.ball_diameter_mm
    return (table.rear_line_x + row * d * math.sqrt(3.0) / 2.0, (row / 2.0 - j) * d)


def full_rack(table: Table, order: Sequence[str] | None = None) -> dict[str, Point]:
    """The 15-ball pyramid (1.8.1); `order` apex first, each row from +y; default the Russian order (5.3)."""
    ids = list(RUSSIAN_RACK_ORDER) if order is None else list(order)
    if len(ids) != FULL_RACK_SIZE or len(set(ids)) != FULL_RACK_SIZE:
        raise ValueError(f"a full rack needs {FULL_RACK_SIZE} distinct balls, got {len(ids)}: {ids!r}")
    slots = [(r, j) for r in range(ROWS) for j in range(r + 1)]
    return {b: slot_position(table, s) for b, s in zip(ids, slots, strict=True)}


def incomplete_slots(n: int) -> list[Slot]:
    """The slots an n-ball pyramid fills (1.8 note), apex first, each row from +y.

    Full rows from the apex; the remaining m balls go into the next row (the base) from its middle
    outwards. A row of odd length takes an odd count symmetrically (middle slot first), a row of even
    length an even count: when m has the wrong parity the apex ball moves into the base row.
    """
    if not 1 <= n <= FULL_RACK_SIZE:
        raise ValueError(f"a pyramid holds 1..{FULL_RACK_SIZE} balls, got {n}")
    full_rows = 0
    while (full_rows + 1) * (full_rows + 2) // 2 <= n:
        full_rows += 1
    m = n - full_rows * (full_rows + 1) // 2
    slots = [(r, j) for r in range(full_rows) for j in range(r + 1)]
    if m == 0:
        return slots
    base = full_rows  # row index of the partly filled base row; it has base + 1 slots
    if m % 2 != (base + 1) % 2:
        slots.remove((0, 0))  # the apex ball moves into the base row (1.8 note)
        m += 1
    first = (base + 1 - m) // 2  # middle outwards, symmetric: a centred run of m slots
    slots.extend((base, j) for j in range(first, first + m))
    return slots


def incomplete_rack(table: Table, balls: Sequence[str]) -> dict[str, Point]:
    """An incomplete pyramid of `balls` (1.8 note, 1.12, 1.27), filled apex first in the given order."""
    if len(set(balls)) != len(balls):
        raise ValueError(f"balls to rack must be distinct, got {balls!r}")
    slots = incomplete_slots(len(balls))
    return {b: slot_position(table, s) for b, s in zip(balls, slots, strict=True)}


def rack_looks_like(
    table: Table,
    positions: dict[str, Point],
    tol_mm: float,
    *,
    cue_ball: str = "C",
    min_balls: int = 3,
) -> bool:
    """True when the balls other than `cue_ball` stand as a racked pyramid on the rear spot.

    Every such ball must lie within `tol_mm` of a distinct slot of the full pyramid (15 balls) or of the
    incomplete pyramid of their count (1.8 note); ball ids are not checked (the order of 5.3 is the
    referee's business). Fewer than `min_balls` balls is not a rack: one ball on the rear spot is what
    spotting (1.25.2) also produces. `tol_mm` must stay under half a ball, else slots are ambiguous.
    """
    d = table.spec.ball_diameter_mm
    if not 0.0 <= tol_mm < d / 2.0:
        raise ValueError(f"tol_mm must be within [0, {d / 2.0}) (half a ball), got {tol_mm!r}")
    pts = [p for k, p in positions.items() if k != cue_ball]
    if len(pts) < max(min_balls, 1) or len(pts) > FULL_RACK_SIZE:
        return False
    targets = [slot_position(table, s) for s in incomplete_slots(len(pts))]
    used: set[int] = set()
    for x, y in pts:
        # Slots are a ball apart and tol_mm is under half a ball, so at most one slot can match.
        hits = [i for i, (sx, sy) in enumerate(targets) if math.hypot(x - sx, y - sy) <= tol_mm]
        if not hits or hits[0] in used:
            return False
        used.add(hits[0])
    return True
