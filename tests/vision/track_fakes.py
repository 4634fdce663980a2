"""Hand-made detections for tracker tests, and hand-made tracker output for event tests."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from bench.events_tracks import NoiseModel, noisy_states
from vision.types import BallClass, BallState, BallStates, Detections


def dets(points: list[tuple[float, float]], cls: list[BallClass] | None = None, seed: int = 0) -> Detections:
    """Detections at the given table points with 0.5 mm of seeded noise."""
    rng = np.random.default_rng(seed)
    xy = np.asarray(points, dtype=float).reshape(-1, 2) + rng.normal(0.0, 0.5, (len(points), 2))
    n = len(xy)
    return Detections(
        xy,
        np.full(n, 0.95),
        np.array(cls if cls is not None else [BallClass.IVORY] * n, dtype=object),
        np.zeros((n, 2)),
        np.full(n, 15.0),
    )


def still_then(fps: float, rest: np.ndarray, after: np.ndarray, state_after: np.ndarray) -> list[BallStates]:
    """Tracker output: ball 5 at rest at `rest` for 1 s, then at `after` (one row per frame) with the tracker
    states `state_after`; ball C at rest far off throughout; a smooth tracker's noise (seed 4)."""
    n0 = int(fps)
    pos = np.zeros((n0 + len(after), 2, 2))
    pos[:, 0] = (-800.0, 0.0)
    pos[:n0, 1] = rest
    pos[n0:, 1] = after
    state = np.full(pos.shape[:2], BallState.STATIONARY, dtype=np.int8)
    state[n0:, 1] = state_after
    t = np.arange(len(pos)) / fps
    return noisy_states(t, pos, state, ("C", "5"), NoiseModel(0.7, 1.5, 0.0, 4))


def recorded_states(path: Path) -> list[BallStates]:
    """Tracker output recorded from a rendered case (tests/vision/data/*.npz: ids, frame, t, xy, vel, state,
    conf, idc per frame)."""
    d = np.load(path)
    ids = tuple(str(x) for x in d["ids"])
    return [
        BallStates(int(d["frame"][k]), float(d["t"][k]), ids, d["xy"][k].astype(float), d["vel"][k].astype(float),
                   d["state"][k], d["conf"][k].astype(float), d["idc"][k].astype(float))
        for k in range(len(d["t"]))
    ]


def noisy_with_a_miss(t: np.ndarray, pos: np.ndarray, state: np.ndarray, ids: tuple[str, ...], seed: int, f: int,
                      ball: str) -> list[BallStates]:
    """Noisy truth states (no random misses) with `ball` unseen on frame f: HIDDEN at its last position, as the
    tracker publishes a missed ball."""
    states = noisy_states(t, pos, state, ids, NoiseModel(seed=seed, p_miss=0.0))
    k = states[f].ids.index(ball)
    st, xy = states[f].state.copy(), states[f].xy_mm.copy()
    st[k], xy[k] = BallState.HIDDEN, states[f - 1].xy_mm[k]
    states[f] = replace(states[f], state=st, xy_mm=xy)
    return states
