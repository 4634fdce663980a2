"""Centre-line and house-line crossings by the ball centre (1.9, 1.20 notes 3 and 4).

Each ball holds a side per line: front (-1), rear (+1), or "on" (0) when its rest centre lies within
`on_line_tol_mm` of the line. A moving ball crosses when its smoothed centre (a line fit over the
look-back and look-ahead frames) is more than `line_hysteresis_mm` past the line on the other side; the
time is where the fitted track meets the line. Reported readings:
- note 3: a ball whose rest centre is on the line (side 0) has not crossed by leaving it: no event;
  crossing back later is a crossing.
- a ball that creeps over the line and stops less than the hysteresis past it is reported when it comes
  to rest, with its margin and a confidence below 0.6 (for review).
- note 4: a touch of a middle-pocket jaw lying in the other half counts as a crossing into that half
  (extra {"jaw": pocket, "note4": true}); see `jaw_bounce`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.table import Table
from rules.events import Direction, Line
from vision.events.fit import fit_line
from vision.events.history import History
from vision.events.settings import EventSettings, noise_model

_UNKNOWN = 2


@dataclass(frozen=True)
class Crossing:
    ball: int
    line: Line
    to: Direction
    t: float
    confidence: float
    extra: dict[str, object]


class LineWatcher:
    def __init__(self, table: Table, s: EventSettings, n_balls: int, half_window: int) -> None:
        self.s = s
        self.lines = ((Line.CENTRE, 0.0), (Line.HOUSE, table.house_line_x))
        self.side = np.full((n_balls, len(self.lines)), _UNKNOWN, dtype=np.int8)
        # offset of the rest centre from each line when the ball last left rest; NaN once it has crossed
        self.start_off = np.full((n_balls, len(self.lines)), np.nan)
        self.hw = half_window
        # the long axis (y = 0) for the lag (1.7.2(1)): no events, the balls that crossed it in the shot
        self.axis_side = np.zeros(n_balls, dtype=np.int8)
        self.crossed_axis: set[int] = set()

    def on_rest(self, hist: History, b: int, anchor: np.ndarray, n: int) -> list[Crossing]:
        """A ball came to rest: settle its sides from the precise rest centre; a creep over a line that
        the moving test did not confirm is reported here."""
        out = []
        for i, (line, x_line) in enumerate(self.lines):
            off = float(anchor[0]) - x_line
            new = 0 if abs(off) <= self.s.on_line_tol_mm else int(np.sign(off))
            old = int(self.side[b, i])
            if old in (-1, 1) and new == -old:
                t = self._root(hist, b, x_line, n - 4 * self.hw, n)
                conf = 0.35 + 0.2 * min(1.0, abs(off) / self.s.line_hysteresis_mm)
                out.append(Crossing(b, line, _to(new), t, conf, {"margin_mm": round(abs(off), 2), "review": True}))
            self.side[b, i] = new
        return out

    def on_start(self, b: int, anchor: np.ndarray) -> None:
        """A ball leaves rest: its sides from the rest centre (every start, struck or hit)."""
        self.axis_side[b] = 0 if abs(float(anchor[1])) <= self.s.on_line_tol_mm else int(np.sign(anchor[1]))
        for i, (_, x_line) in enumerate(self.lines):
            off = float(anchor[0]) - x_line
            self.side[b, i] = 0 if abs(off) <= self.s.on_line_tol_mm else int(np.sign(off))
            self.start_off[b, i] = off

    def update(
        self, hist: History, m: int, moving: np.ndarray, kinks: dict[int, list[float]] | None = None
    ) -> list[Crossing]:
        """Crossings confirmed at counter m by the smoothed centres of the moving balls. The smoothing line
        is fitted on the samples between the ball's kinks (`kinks`: times of its contacts and touches),
        so a short excursion over the line before a bounce back is not averaged away."""
        out = []
        t_m = hist.time(m)
        for b in np.nonzero(moving)[0]:
            t, xy = hist.track(int(b), m - self.hw, m + self.hw)
            for t_k in (kinks or {}).get(int(b), []):
                keep = t < t_k if t_k > t_m else t > t_k
                if keep.sum() >= 2:
                    t, xy = t[keep], xy[keep]
            fit = fit_line(t, xy, noise_model(self.s))
            if fit is None:
                continue
            y_hat = float(fit.at(t_m)[1])
            if abs(y_hat) > self.s.line_hysteresis_mm:
                side_y = int(np.sign(y_hat))
                if self.axis_side[b] and side_y != self.axis_side[b]:
                    self.crossed_axis.add(int(b))
                self.axis_side[b] = side_y
            x_hat = float(fit.at(t_m)[0])
            x_far = float(fit.at(t[-1])[0])
            for i, (line, x_line) in enumerate(self.lines):
                off = x_hat - x_line
                if abs(off) <= self.s.line_hysteresis_mm:
                    continue
                new, old = int(np.sign(off)), int(self.side[b, i])
                if new == old:
                    continue
                self.side[b, i] = new
                if old in (0, _UNKNOWN):
                    self.start_off[b, i] = np.nan
                    continue  # note 3 (left the line it rested on) or a side not known yet
                t_x = self._root(hist, int(b), x_line, m - 2 * self.hw, m + self.hw, new, t_m)
                beyond = abs(x_far - x_line)
                extra: dict[str, object] = {}
                conf = 1.0
                start = float(self.start_off[b, i])
                self.start_off[b, i] = np.nan
                if abs(start) <= self.s.review_band_mm:
                    # it rested within millimetres of the line: did it start on it (note 3)? review
                    conf = 0.4
                    extra = {"margin_mm": round(abs(start), 2), "review": True, "from_rest_near_line": True}
                elif beyond < self.s.line_hysteresis_mm + self.s.review_band_mm:
                    conf = 0.6
                    extra = {"margin_mm": round(beyond, 2), "review": True}
                out.append(Crossing(int(b), line, _to(new), t_x, conf, extra))
        return out

    def on_gone(self, hist: History, b: int, n: int, t_end: float) -> list[Crossing]:
        """A ball went into a pocket: a crossing in its last unseen moment (a middle pocket sits on the
        centre line) is found by running its last straight piece on to t_end."""
        t, xy = hist.track(b, n - 2 * self.hw, n)
        fit = fit_line(t, xy, noise_model(self.s))
        if fit is None or abs(fit.v[0]) < 1e-6:
            return []
        out = []
        for i, (line, x_line) in enumerate(self.lines):
            old = int(self.side[b, i])
            x_end = float(fit.at(t_end)[0]) - x_line
            if old not in (-1, 1) or np.sign(x_end) != -old:
                continue
            t_x = float(np.clip(fit.t0 + (x_line - fit.p0[0]) / fit.v[0], t[-1], t_end))
            self.side[b, i] = -old
            out.append(Crossing(b, line, _to(-old), t_x, 0.8, {"into_pocket": True}))
        return out

    def jaw_bounce(self, b: int, pocket: str, jaw_x: float, t: float) -> Crossing | None:
        """Note 4: a middle-pocket jaw in the other half touched while the centre stays in its own half."""
        if not pocket.startswith("middle") or abs(jaw_x) < 1e-6:
            return None
        i = 0  # the centre line
        jaw_side, own = int(np.sign(jaw_x)), int(self.side[b, i])
        if own not in (-1, 1) or jaw_side == own:
            return None
        return Crossing(b, Line.CENTRE, _to(jaw_side), t, 0.9, {"jaw": pocket, "note4": True})

    def _root(self, hist: History, b: int, x_line: float, n0: int, n1: int, to: int = 0, t_at: float = np.inf) -> float:
        """When the track over n0..n1 meets the line: the crossing of consecutive samples (towards side
        `to` when given, the last one at or before `t_at`), refined by a local line fit around it."""
        t, xy = hist.track(b, n0, n1)
        if len(t) == 0:
            return hist.time(n1)
        x = xy[:, 0] - x_line
        flip = np.sign(x[:-1]) != np.sign(x[1:])
        if to:
            flip &= np.sign(x[1:]) == to
        flips = np.nonzero(flip)[0]
        if len(flips) == 0:
            return float(t[-1] if abs(x[-1]) < abs(x[0]) else t[0])
        before = flips[t[flips] <= t_at]
        k = int(before[-1] if len(before) else flips[0])
        lo, hi = max(0, k - self.hw + 1), min(len(t), k + self.hw + 1)
        fit = fit_line(t[lo:hi], xy[lo:hi], noise_model(self.s))
        if fit is None or abs(fit.v[0]) < 1e-6:
            return float(t[k] + (t[k + 1] - t[k]) * x[k] / (x[k] - x[k + 1]))
        t_root = fit.t0 + (x_line - fit.p0[0]) / fit.v[0]
        return float(np.clip(t_root, t[max(lo, k - 1)], t[min(hi - 1, k + 2)]))


def _to(side: int) -> Direction:
    return Direction.REAR if side > 0 else Direction.FRONT
