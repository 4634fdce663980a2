"""Where illegally potted and jumped balls are spotted (1.25).

The spotting line is the long axis (y = 0) from the rear spot to the middle of the rear cushion. A ball
to be spotted goes to the free point of that line nearest the rear spot on the rear side; when the rear
side is full it goes to the free point nearest the rear spot on the centre-spot side (1.25.2). "Free"
means that its surface stays at least `gap_mm` from every ball already on the bed or already spotted
(1.25.2: as close as possible, but not touching) and it does not overlap the rear cushion.

Reading committed here: taking, ball after ball, the free point nearest the rear spot gives both "each as
close as possible to the previous" (the previous spotted ball is the nearest obstacle behind it) and
"as close as possible to the rear spot and to the balls in the way" (1.25.2). When even the centre-spot side
has no room up to the centre spot, the search goes on along the axis to the front cushion; only a bed with
the whole long axis blocked raises.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from calibration.table import Table

DEFAULT_GAP_MM = 0.5
_EPS_MM = 1e-9  # a point this close to the end of a blocked interval is at the end: rounding, not overlap

Point = tuple[float, float]


def spot_balls(
    table: Table,
    balls: Sequence[str],
    occupied: dict[str, Point],
    *,
    gap_mm: float = DEFAULT_GAP_MM,
) -> dict[str, Point]:
    """Positions (table mm) for `balls`, spotted in the given order around the `occupied` balls (1.25).

    One ball on a free rear spot lands on the rear spot (1.25.2). Entries of `occupied` whose id is one of
    `balls` are ignored: a ball being spotted is not on the bed, whatever an earlier frame said.
    Raises ValueError for a repeated ball, a negative gap, a non-finite position, or no room left on the axis.
    """
    if len(set(balls)) != len(balls):
        dupes = sorted({b for b in balls if balls.count(b) > 1})
        raise ValueError(f"balls to spot must be distinct, repeated: {dupes}")
    if not math.isfinite(gap_mm) or gap_mm < 0.0:
        raise ValueError(f"gap_mm must be a finite number >= 0, got {gap_mm!r}")
    bad = {k: p for k, p in occupied.items() if not (math.isfinite(p[0]) and math.isfinite(p[1]))}
    if bad:
        raise ValueError(f"occupied positions must be finite mm, got {bad!r}")
    r = table.ball_radius
    sep = 2.0 * r + gap_mm  # centre distance at which two balls are gap_mm apart
    x_spot = table.rear_line_x
    x_rear = table.half_length - r  # touching the rear cushion nose, not overlapping it
    x_front = -table.half_length + r
    obstacles: list[Point] = [(float(x), float(y)) for k, (x, y) in occupied.items() if k not in balls]
    out: dict[str, Point] = {}
    for ball in balls:
        blocked = _blocked_intervals(obstacles, sep)
        x = _first_free_towards_rear(x_spot, blocked)
        if x > x_rear:
            x = _first_free_towards_front(x_spot, blocked)
            if x < x_front:
                raise ValueError(f"no room on the long axis to spot ball {ball!r} ({len(obstacles)} balls on it)")
        out[ball] = (x, 0.0)
        obstacles.append((x, 0.0))
    return out


def _blocked_intervals(obstacles: Iterable[Point], sep: float) -> list[tuple[float, float]]:
    """Open x-intervals of the axis y = 0 where a ball centre would come closer than `sep` to an obstacle."""
    out = []
    for ox, oy in obstacles:
        if abs(oy) < sep:
            h = math.sqrt(sep * sep - oy * oy)
            out.append((ox - h, ox + h))
    out.sort()
    return out


def _first_free_towards_rear(x: float, blocked: list[tuple[float, float]]) -> float:
    """Smallest x' >= x outside every open interval (the intervals are sorted by their lower end)."""
    for lo, hi in blocked:
        if lo + _EPS_MM < x < hi - _EPS_MM:
            x = hi
    # One sorted pass suffices: an interval starting before the current x was already seen, and x only grows.
    return x


def _first_free_towards_front(x: float, blocked: list[tuple[float, float]]) -> float:
    """Largest x' <= x outside every open interval."""
    for lo, hi in sorted(blocked, key=lambda iv: iv[1], reverse=True):
        if lo + _EPS_MM < x < hi - _EPS_MM:
            x = lo
    return x
