"""A ring buffer of recent BallStates: the look-back and look-ahead the detectors fit tracks on."""

from __future__ import annotations

import numpy as np

from vision.types import BallState, BallStates

_SEEN = (BallState.STATIONARY, BallState.MOVING)
# A ball's position confidence under this: its disc was found inside an occluder's blob (the detector scales those
# by OCCLUDED_CONF = 0.4 at most), so the ball was partly covered
COVERED_CONF = 0.5


class History:
    """The last `size` frames of every ball; frame numbers here are the detector's own counter n = 0, 1, ...

    A sample is valid when the tracker saw the ball (STATIONARY or MOVING) at a finite position; hidden,
    unknown and gone balls leave gaps that the fits skip.
    """

    def __init__(self, ids: tuple[str, ...], size: int) -> None:
        if size < 4:
            raise ValueError(f"history size must be at least 4 frames, got {size}")
        self.ids = ids
        self.size = size
        b = len(ids)
        self.t = np.zeros(size)
        self.frame = np.zeros(size, dtype=np.int64)
        self.xy = np.full((size, b, 2), np.nan)
        self.valid = np.zeros((size, b), dtype=bool)
        self.state = np.full((size, b), BallState.UNKNOWN, dtype=np.int8)
        self.id_conf = np.ones((size, b))
        self.named = np.ones((size, b), dtype=bool)  # the ball's number is known (BallStates.named)
        self.conf = np.ones((size, b))  # position confidence: under 0.5 a disc read inside an occluder's blob
        self.newest = -1  # counter of the newest frame
        self._filled: tuple[tuple[int, int, int, int], tuple[np.ndarray, np.ndarray]] | None = None

    def push(self, s: BallStates) -> int:
        if s.ids != self.ids:
            raise ValueError(f"BallStates.ids changed: expected {self.ids}, got {s.ids}")
        self.newest += 1
        k = self.newest % self.size
        self.t[k] = s.t
        self.frame[k] = s.frame
        self.xy[k] = s.xy_mm
        self.state[k] = s.state
        self.valid[k] = ((s.state == _SEEN[0]) | (s.state == _SEEN[1])) & np.isfinite(s.xy_mm).all(axis=1)
        conf = s.id_confidence
        self.id_conf[k] = np.clip(np.where(np.isnan(conf), 1.0, conf), 0.0, 1.0)
        self.named[k] = True if s.named is None else s.named  # None: a recording made before the field
        self.conf[k] = np.clip(np.nan_to_num(s.confidence, nan=1.0), 0.0, 1.0)  # as id_conf: unknown is no doubt
        return self.newest

    @property
    def oldest(self) -> int:
        return max(0, self.newest - self.size + 1)

    def has(self, n: int) -> bool:
        return self.oldest <= n <= self.newest

    def idx(self, n0: int, n1: int) -> np.ndarray:
        """Ring indices of counters n0..n1 inclusive, clipped to what is held."""
        n0, n1 = max(n0, self.oldest), min(n1, self.newest)
        return np.arange(n0, n1 + 1) % self.size if n1 >= n0 else np.zeros(0, dtype=np.int64)

    def time(self, n: int) -> float:
        return float(self.t[n % self.size])

    def frame_no(self, n: int) -> int:
        return int(self.frame[n % self.size])

    def track(self, ball: int, n0: int, n1: int) -> tuple[np.ndarray, np.ndarray]:
        """(times (K,), centres (K, 2)) of the valid samples of one ball in n0..n1."""
        k = self.idx(n0, n1)
        ok = self.valid[k, ball]
        return self.t[k][ok], self.xy[k, ball][ok]

    def filled(self, n0: int, n1: int, pad: int = 2) -> tuple[np.ndarray, np.ndarray]:
        """Centres (K, B, 2) of counters n0..n1 with unseen samples interpolated from the seen ones within
        `pad` frames (a missed frame must not hide a bounce), and the mask (B,) of balls fully filled.
        The last answer is kept until the next push (contacts and cushions ask the same): do not modify it."""
        key = (n0, n1, pad, self.newest)
        if self._filled is not None and self._filled[0] == key:
            return self._filled[1]
        k = self.idx(n0, n1)
        xy = self.xy[k].copy()
        ok = self.valid[k].all(axis=0)
        for b in np.nonzero(~ok & self.valid[k].any(axis=0))[0]:
            t, pts = self.track(int(b), n0 - pad, n1 + pad)
            if len(t) < 2:
                continue
            tk = self.t[k]
            if tk[0] < t[0] - 1e-9 or tk[-1] > t[-1] + 1e-9:
                continue  # would extrapolate
            xy[:, b, 0] = np.interp(tk, t, pts[:, 0])
            xy[:, b, 1] = np.interp(tk, t, pts[:, 1])
            ok[b] = True
        self._filled = (key, (xy, ok))
        return xy, ok

    def read_weakly(self, ball: int, n0: int, n1: int) -> bool:
        """Was the ball seen in any frame of n0..n1 with its disc inside an occluder's blob (`COVERED_CONF`)?"""
        k = self.idx(n0, n1)
        return bool(np.any(self.valid[k, ball] & (self.conf[k, ball] < COVERED_CONF)))

    def covered(self, ball: int, n0: int, n1: int) -> bool:
        """Was the ball under a cover in any frame of n0..n1: held hidden by the tracker (an occluder over it) or
        read weakly? A ball the tracker gave up (UNKNOWN: lifted off) is not covered."""
        k = self.idx(n0, n1)
        return bool(np.any(self.state[k, ball] == BallState.HIDDEN)) or self.read_weakly(ball, n0, n1)

    def dt(self) -> float:
        """The median frame interval of what is held (1/fps)."""
        k = self.idx(self.newest - 30, self.newest)
        if len(k) < 2:
            return 0.0
        return float(np.median(np.diff(self.t[k])))

    def counter_at(self, t: float) -> int:
        """The counter of the last frame at or before time t (the oldest held if t is earlier)."""
        k = self.idx(self.oldest, self.newest)
        times = self.t[k]
        j = int(np.searchsorted(times, t, side="right")) - 1
        return self.oldest + max(j, 0)
