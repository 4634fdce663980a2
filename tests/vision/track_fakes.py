"""Hand-made detections for tracker tests."""

from __future__ import annotations

import numpy as np

from vision.types import BallClass, Detections


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
