"""Truth events no camera can see: a hand's touch (1.17) that moved its ball less than a centre's rest noise.

The synthetic world's hand gives a ball a random push between shots (`synthetic.scenarios.frames`, up to
150 mm/s each way); a slow one stops within a millimetre, and the truth counts the foul all the same. A ball's
centre at rest is read to about 1 mm (`SUB_NOISE_MM`, the stationary RMSE of docs/architecture.md), and an
untouched ball found clear again after a hand passed over it comes back up to 2.7 mm off (vision.events.
covershift): such a touch is not in the footage. The verdicts bench names the shots whose truth verdict may rest
on one and prints its agreement with and without them; the headline keeps them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rules.events import Event, EventType
from service.pipeline.compare import diff_shot

SUB_NOISE_MM = 1.0


@dataclass(frozen=True)
class UnseenTouch:
    shot_t: float  # start of the truth shot it belongs to
    ball: str
    moved_mm: float


def unseen_touches(truth: Sequence[Event], pos_mm: np.ndarray, ids: Sequence[str]) -> list[UnseenTouch]:
    """Each truth `ball_disturbed` that moved its ball less than SUB_NOISE_MM (on the truth positions `pos_mm`,
    frames x balls x 2+, from the frame before it to the next shot_start or shot_end), with the shot it counts for:
    the next one to start when it came between shots, else the one running."""
    starts = sorted(e.t for e in truth if e.type is EventType.SHOT_START)
    bounds = sorted((e.t, e.frame) for e in truth if e.type in (EventType.SHOT_START, EventType.SHOT_END))
    out = []
    for e in truth:
        ball = e.ball
        if e.type is not EventType.BALL_DISTURBED or ball is None or ball not in ids:
            continue
        later = [f for t, f in bounds if t > e.t]
        until = min(later[0] if later else len(pos_mm) - 1, len(pos_mm) - 1)
        i = list(ids).index(ball)
        moved = float(np.hypot(*(pos_mm[until, i, :2] - pos_mm[max(e.frame - 1, 0), i, :2])))
        if moved >= SUB_NOISE_MM:
            continue
        during = bool(e.extra.get("during_shot"))
        shot = [t for t in starts if t <= e.t] if during else [t for t in starts if t >= e.t]
        if shot:
            out.append(UnseenTouch(shot[-1] if during else shot[0], ball, moved))
    return out


def diff_time(diff: str) -> float | None:
    """The truth shot's start time in a verdict diff line ("shot N at T s: ...")."""
    shot = diff_shot(diff)
    return shot[1] if shot else None


def split(touches: Sequence[UnseenTouch], diffs: Sequence[str]) -> tuple[int, int]:
    """(shots with an unseen touch, how many of them disagree) for one case (diff times carry two decimals)."""
    shots = sorted({round(u.shot_t, 6) for u in touches})
    wrong = [t for t in (diff_time(d) for d in diffs) if t is not None]
    return len(shots), sum(any(abs(s - w) <= 0.006 for w in wrong) for s in shots)
