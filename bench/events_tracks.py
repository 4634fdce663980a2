"""BallStates streams made from ground-truth trajectories with tracker-like noise: the detector's input
while developing, in tests and in `bench.events_bench` (source "truth-noisy").

Noise model (seeded): Gaussian per axis, `sigma_rest_mm` for a still ball rising to `sigma_moving_mm`
at 500 mm/s and above; each visible ball is missed (HIDDEN, last position kept) with probability
`p_miss` per frame. Positions are the truth's, so the detector must not rely on the tracker's velocity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.types import BallState, BallStates


@dataclass(frozen=True)
class NoiseModel:
    sigma_rest_mm: float = 1.5
    sigma_moving_mm: float = 5.0
    p_miss: float = 0.02
    seed: int = 0


def noisy_states(
    t: np.ndarray,
    pos: np.ndarray,
    state: np.ndarray,
    ids: tuple[str, ...],
    noise: NoiseModel | None = None,
    visible: np.ndarray | None = None,
) -> list[BallStates]:
    """One BallStates per frame from truth centres pos (F, B, 2 or 3) and truth states (F, B)."""
    nm = noise if noise is not None else NoiseModel()
    if pos.ndim != 3 or pos.shape[:2] != state.shape or pos.shape[1] != len(ids):
        raise ValueError(f"pos must be (F, B, 2|3) and state (F, B) with B={len(ids)}: {pos.shape}, {state.shape}")
    rng = np.random.default_rng(nm.seed)
    xy = np.asarray(pos[..., :2], dtype=float)
    f_count = len(t)
    vel = np.zeros_like(xy)
    if f_count > 1:
        vel[1:] = np.diff(xy, axis=0) / np.diff(t)[:, None, None]
        vel[0] = vel[1]
    vel = np.nan_to_num(vel)
    speed = np.hypot(vel[..., 0], vel[..., 1])
    sigma = nm.sigma_rest_mm + (nm.sigma_moving_mm - nm.sigma_rest_mm) * np.clip(speed / 500.0, 0.0, 1.0)
    meas = xy + rng.normal(size=xy.shape) * sigma[..., None]
    on = np.isin(state, [BallState.STATIONARY, BallState.MOVING]) & np.isfinite(xy).all(axis=-1)
    miss = rng.random(on.shape) < nm.p_miss
    if visible is not None:  # out of view: HIDDEN at its last position, as a random miss (not its truth state)
        miss |= ~visible.astype(bool)
    out = []
    last = np.full((len(ids), 2), np.nan)
    for f in range(f_count):
        st = state[f].astype(np.int8).copy()
        seen = on[f] & ~miss[f]
        hidden = on[f] & miss[f]
        st[hidden] = BallState.HIDDEN
        last[seen] = meas[f][seen]
        xy_f = np.where(seen[:, None], meas[f], last)
        out.append(
            BallStates(
                f,
                float(t[f]),
                ids,
                xy_f,
                np.where(seen[:, None], vel[f], 0.0),
                st,
                np.where(seen, 0.9, 0.0),
                np.ones(len(ids)),
            )
        )
    return out
