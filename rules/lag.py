"""The lag for the break (1.7), judged from the lag's events.

Both players shoot at once from the house, each on his own side of the long axis, to the rear cushion and
back; the ball that stops nearer the front cushion wins (1.7.1). A lag is lost automatically (1.7.2) if
the ball (1) goes into the opponent's long half, (2) does not reach the rear cushion, (3) is potted,
(4) jumps off, (5) touches a long cushion, or (6) touches the rear cushion more than once. Both lost, or no
telling which ball is nearer: replay (1.7.3).

Readings committed here: a ball's own half is the side of the long axis its centre starts on (its first
known position, normally from `shot_start`); it has gone into the opponent's half when it is reported in
`crossed_long_axis` or when any later reported position has its centre beyond the axis by more than
`axis_tol_mm` (a centre on the axis has not crossed, as with the centre line, note 3 of 1.20). Rest
positions alone cannot show a ball that crossed and came back, hence `crossed_long_axis`. Touching the
front cushion, or the other lag ball, is no loss by itself. Distances to the front cushion closer than
`tie_tol_mm` cannot be told apart: replay.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from calibration.table import Table
from rules.events import Event, EventType

LONG_CUSHIONS = frozenset({"left_front", "left_rear", "right_front", "right_rear"})
DEFAULT_TIE_TOL_MM = 2.0
DEFAULT_REVIEW_MM = 10.0
DEFAULT_MIN_CONFIDENCE = 0.5


@dataclass(frozen=True)
class LagResult:
    """Who won the lag, or a replay; `reasons` per player, each citing its clause."""

    winner: str | None
    replay: bool
    reasons: dict[str, str]
    review: tuple[str, ...] = field(default_factory=tuple)  # why the referee should look (low confidence, close call)

    def to_dict(self) -> dict[str, object]:
        return {
            "winner": self.winner,
            "replay": self.replay,
            "reasons": dict(self.reasons),
            "review": list(self.review),
        }


@dataclass(frozen=True)
class _Loss:
    clause: str
    text: str


def judge_lag(
    table: Table,
    events: Sequence[Event],
    balls: Mapping[str, str],
    crossed_long_axis: set[str] | frozenset[str] | None = None,
    *,
    axis_tol_mm: float = 0.0,
    tie_tol_mm: float = DEFAULT_TIE_TOL_MM,
    review_mm: float = DEFAULT_REVIEW_MM,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
) -> LagResult:
    """Judge a lag: `balls` maps each of the two lag balls to its player (1.7)."""
    if len(balls) != 2 or len(set(balls.values())) != 2:
        raise ValueError(f"a lag needs two balls of two different players, got {dict(balls)!r}")
    crossed = set(crossed_long_axis or ())
    unknown = crossed - set(balls)
    if unknown:
        raise ValueError(f"crossed_long_axis names balls not in the lag: {sorted(unknown)}")
    ordered = sorted(events, key=lambda e: (e.t, e.frame))  # stable: same-time events keep their order
    track = {b: _positions(ordered, b) for b in balls}
    starts = {b: _start_position(ordered, b) for b in balls}
    sides = _start_sides(starts, axis_tol_mm)
    review = [
        f"ball {e.agents[0] if len(e.agents) == 1 else '-'.join(e.agents)}: {e.type} event at t={e.t:.3f} s "
        f"has confidence {e.confidence:.2f}"
        for e in ordered
        if e.confidence < min_confidence and set(e.agents) & set(balls)
    ]
    losses = {b: _losses(ordered, b, track[b], sides[b], b in crossed, axis_tol_mm) for b in balls}
    for b, side in sides.items():
        if side == 0:
            review.append(f"ball {b}: start side unknown, 1.7.2(1) judged only from crossed_long_axis")
        elif not any(e.type is EventType.SHOT_START and e.positions and b in e.positions for e in ordered):
            review.append(f"ball {b}: no shot_start position, start side taken from its first reported position")
    side_a, side_b = sides.values()
    if side_a != 0 and side_a == side_b:
        review.append("both balls started on the same side of the long axis (1.7.1 wants different sides)")

    decision = _decide(table, ordered, balls, losses, tie_tol_mm)
    if decision.winner is not None and decision.margin_mm is not None and decision.margin_mm <= review_mm:
        review.append(f"close lag: the balls stopped {decision.margin_mm:.1f} mm apart from the front cushion")
    return LagResult(decision.winner, decision.winner is None, decision.reasons, tuple(review))


@dataclass(frozen=True)
class _Decision:
    winner: str | None
    reasons: dict[str, str]
    margin_mm: float | None = None  # how much nearer the winner stopped, when decided on distance


def _decide(
    table: Table,
    events: Sequence[Event],
    balls: Mapping[str, str],
    losses: dict[str, list[_Loss]],
    tie_tol_mm: float,
) -> _Decision:
    """1.7.2 automatic losses first, then the ball nearer the front cushion (1.7.1), else a replay (1.7.3)."""
    reasons: dict[str, str] = {}
    lost = [b for b in balls if losses[b]]
    for b in lost:
        reasons[balls[b]] = "; ".join(f"{loss.clause}: ball {b} {loss.text}" for loss in losses[b])
    if len(lost) == 2:
        return _Decision(None, {p: r + "; both lags lost: replay (1.7.3)" for p, r in reasons.items()})
    if len(lost) == 1:
        (winner_ball,) = (b for b in balls if b not in lost)
        reasons[balls[lost[0]]] += " (lag lost automatically)"
        reasons[balls[winner_ball]] = f"1.7.2: ball {winner_ball} wins, the opponent's lag is lost automatically"
        return _Decision(balls[winner_ball], reasons)

    rest = {b: _rest_position(events, b) for b in balls}
    missing = [b for b, p in rest.items() if p is None]
    if missing:
        why = f"1.7.3: rest position of ball(s) {', '.join(missing)} unknown: replay"
        return _Decision(None, {balls[b]: why for b in balls})
    dist = {b: _front_distance(table, p) for b, p in rest.items() if p is not None}
    a, b = sorted(balls, key=lambda k: dist[k])
    diff = dist[b] - dist[a]
    if diff <= tie_tol_mm:
        return _Decision(
            None,
            {
                balls[k]: f"1.7.3: ball {k} stopped {dist[k]:.1f} mm from the front cushion; {diff:.1f} mm apart "
                f"is within {tie_tol_mm:g} mm, nearer ball undecidable: replay"
                for k in balls
            },
        )
    reasons[balls[a]] = f"1.7.1: ball {a} stopped {dist[a]:.1f} mm from the front cushion, {diff:.1f} mm nearer: wins"
    reasons[balls[b]] = f"1.7.1: ball {b} stopped {dist[b]:.1f} mm from the front cushion, {diff:.1f} mm farther"
    return _Decision(balls[a], reasons, diff)


def _positions(events: Sequence[Event], ball: str) -> list[tuple[float, float]]:
    """Every reported position of `ball`, in time order (shot_start / shot_end `positions`)."""
    return [
        (float(e.positions[ball][0]), float(e.positions[ball][1]))
        for e in events
        if e.positions is not None and ball in e.positions
    ]


def _rest_position(events: Sequence[Event], ball: str) -> tuple[float, float] | None:
    """The ball's position in the last shot_end that reports it (a start position is no rest position)."""
    for e in reversed(events):
        if e.type is EventType.SHOT_END and e.positions is not None and ball in e.positions:
            return (float(e.positions[ball][0]), float(e.positions[ball][1]))
    return None


def _start_position(events: Sequence[Event], ball: str) -> tuple[float, float] | None:
    """The ball's position in the first shot_start that reports it, else its first reported position."""
    for e in events:
        if e.type is EventType.SHOT_START and e.positions is not None and ball in e.positions:
            return (float(e.positions[ball][0]), float(e.positions[ball][1]))
    pts = _positions(events, ball)
    return pts[0] if pts else None


def _start_sides(starts: dict[str, tuple[float, float] | None], axis_tol_mm: float) -> dict[str, int]:
    """+1 / -1 for the side of the long axis each ball starts on; 0 when unknown.

    A ball whose own start is unknown or on the axis takes the side opposite its opponent's (1.7.1: the
    players stand on different sides).
    """
    sides = {b: (_sign(p[1], axis_tol_mm) if p is not None else 0) for b, p in starts.items()}
    a, b = sides
    if sides[a] == 0 and sides[b] != 0:
        sides[a] = -sides[b]
    elif sides[b] == 0 and sides[a] != 0:
        sides[b] = -sides[a]
    return sides


def _sign(y: float, tol: float) -> int:
    return 0 if abs(y) <= tol else (1 if y > 0 else -1)


def _losses(
    events: Sequence[Event],
    ball: str,
    track: list[tuple[float, float]],
    side: int,
    crossed: bool,
    axis_tol_mm: float,
) -> list[_Loss]:
    """Every 1.7.2 ground on which `ball` loses, in clause order."""
    out: list[_Loss] = []
    beyond = [p for p in track if side != 0 and _sign(p[1], axis_tol_mm) == -side]
    if crossed:
        out.append(_Loss("1.7.2(1)", "crossed the long axis into the opponent's half"))
    elif beyond:
        out.append(_Loss("1.7.2(1)", f"was seen in the opponent's half (y = {beyond[0][1]:.1f} mm)"))
    mine = [e for e in events if e.ball == ball]
    cushions = [e.cushion for e in mine if e.type is EventType.CUSHION]
    rear = cushions.count("rear")
    if rear == 0:
        out.append(_Loss("1.7.2(2)", "did not reach the rear cushion"))
    pots = [e for e in mine if e.type is EventType.POT]
    if pots:
        out.append(_Loss("1.7.2(3)", f"was potted in {pots[0].pocket}"))
    if any(e.type is EventType.OFF_TABLE for e in mine):
        out.append(_Loss("1.7.2(4)", "jumped off the table"))
    long_hits = sorted({c for c in cushions if c in LONG_CUSHIONS})
    if long_hits:
        out.append(_Loss("1.7.2(5)", f"touched the long cushion {', '.join(long_hits)}"))
    if rear > 1:
        out.append(_Loss("1.7.2(6)", f"touched the rear cushion {rear} times"))
    return out


def _front_distance(table: Table, xy: tuple[float, float]) -> float:
    """Gap between the ball's surface and the front cushion nose, mm (1.7.1: nearer the front cushion)."""
    return float(xy[0]) + table.half_length - table.ball_radius
