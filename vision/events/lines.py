"""Centre-line and house-line crossings by the ball centre (1.9, 1.20 notes 3 and 4).

Each ball holds a side per line: front (-1), rear (+1), or "on" (0) when its rest centre lies within
`on_line_tol_mm` of the line. A moving ball crosses when its smoothed centre (a line fit over the
look-back and look-ahead frames) is more than `line_hysteresis_mm` past the line on the other side; the
time is where the fitted track meets the line. Reported readings:
- note 3: a ball whose rest centre is on the line (side 0) has not crossed by leaving it: no event;
  crossing back later is a crossing.
- a ball that creeps over the line and stops less than the hysteresis past it is reported when it comes
  to rest, with its margin and a confidence below 0.6 (for review); asked again at the shot's end with the
  settled rest centre (a ball called at rest while it still crept may cross at rest).
- note 4: a touch of a middle-pocket jaw lying in the other half counts as a crossing into that half
  (extra {"jaw": pocket, "note4": true}); see `jaw_bounce`.
- a side change that the track only shows as a jump, a step between two samples faster than the ball runs
  on both sides of it by more than `JUMP_EXCESS_MM_S` and a share of that speed (`settings.is_jump`; the
  tracker lost the ball and found it elsewhere, or a ball put back by hand), is not a crossing: no event.
- a ball potted in a middle pocket crosses the centre line only if its centre meets the line before it
  passes the mouth line (where it leaves the bed); a centre within `review_band_mm` of the line at the
  mouth, on either side, is reported for review.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.table import Table
from rules.events import Direction, Line
from vision.events.fit import LineFit, fit_line
from vision.events.history import History
from vision.events.settings import MAX_SPEED_MM_S, EventSettings, is_jump, noise_model
from vision.types import BallState

_UNKNOWN = 2
SURE_SAMPLES = 2  # a crossing out early: this many samples past the line (`sure_crossings`)


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
        self.table = table
        self.lines = ((Line.CENTRE, 0.0), (Line.HOUSE, table.house_line_x))
        self.side = np.full((n_balls, len(self.lines)), _UNKNOWN, dtype=np.int8)
        # offset of the rest centre from each line when the ball last left rest; NaN once it has crossed
        self.start_off = np.full((n_balls, len(self.lines)), np.nan)
        self.hw = half_window
        self.early_until: dict[tuple[int, int], int] = {}  # (ball, line): a crossing out early, the window it spans
        # the long axis (y = 0) for the lag (1.7.2(1)): no events, the balls that crossed it in the shot
        self.axis_side = np.zeros(n_balls, dtype=np.int8)
        self.crossed_axis: set[int] = set()
        self.crept: set[tuple[int, int]] = set()  # (ball, line) a creep was reported over at its last stop
        # balls gone into a pocket or off the bed, (ball, last counter, end time): read by `on_gone` once the line
        # test has caught up with the frames before (the pot is found ahead of the look-ahead analysis)
        self.going: list[tuple[int, int, float]] = []

    def on_rest(
        self, hist: History, b: int, anchor: np.ndarray, n: int, settled: float | None = None
    ) -> list[Crossing]:
        """A ball came to rest: settle its sides from the precise rest centre; a creep over a line that
        the moving test did not confirm is reported here. `settled` (when the ball was called at rest): asked
        again at the shot's end with the rest centre settled since; a ball called at rest while it still crept
        may have crossed at rest: dated at its first sample over the line since then (or then). Not a line
        a creep was already reported over at that stop (the settled centre may fall back within the noise)."""
        out = []
        for i, (line, x_line) in enumerate(self.lines):
            off = float(anchor[0]) - x_line
            new = 0 if abs(off) <= self.s.on_line_tol_mm else int(np.sign(off))
            old = int(self.side[b, i])
            creep = abs(off) <= self.s.line_hysteresis_mm + self.s.review_band_mm  # farther: the moving test's
            if settled is not None and (b, i) in self.crept:
                continue  # its creep over this line was reported when it stopped: the settled centre adds noise
            if old in (-1, 1) and new == -old and creep:
                t, step = self._root(hist, b, x_line, n - 4 * self.hw, n, new)
                if step is None:  # a slow creep comes to rest long after it crossed: since it was last seen over
                    t, step = self._root(hist, b, x_line, hist.oldest, n, new)
                if step is not None:
                    seen = not self._jump(hist, b, *step)  # seen to creep over it, not a jump of its centre
                elif seen := settled is not None:  # crossed at rest: its first sample over the line since then
                    tk, xy = hist.track(b, hist.counter_at(settled), n)
                    over = (tk >= settled) & (np.sign(xy[:, 0] - x_line) == new)
                    t = float(tk[int(np.argmax(over))]) if over.any() else settled
                if seen:
                    conf = 0.35 + 0.2 * min(1.0, abs(off) / self.s.line_hysteresis_mm)
                    extra: dict[str, object] = {"margin_mm": round(abs(off), 2), "review": True}
                    out.append(Crossing(b, line, _to(new), t, conf, extra))
                    self.crept.add((b, i))
            self.side[b, i] = new
        return out

    def on_start(self, b: int, anchor: np.ndarray) -> None:
        """A ball leaves rest: its sides from the rest centre (every start, struck or hit)."""
        self.crept = {k for k in self.crept if k[0] != b}
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
        out: list[Crossing] = []
        t_m = hist.time(m)
        code = hist.state[m % hist.size]
        gone = (code == BallState.POTTED) | (code == BallState.OFF_TABLE)
        if gone.any():
            self.side[gone] = _UNKNOWN  # off the bed: a ball put back is placed, not rolled there
            self.start_off[gone] = np.nan
        balls = np.nonzero(moving)[0]
        if len(balls) == 0:
            return out + self.drain(hist, m)
        going = {g[0] for g in self.going}
        idle = self._idle(hist, m, t_m, balls)
        for j, b in enumerate(balls):
            ball_kinks = (kinks or {}).get(int(b), [])
            if idle[j] and not ball_kinks:
                continue  # its smoothed centre cannot change a side this frame: the fit would change nothing
            t, xy = hist.track(int(b), m - self.hw, m + self.hw)
            raw = self._rattling(t, xy, t_m)
            if b in going and raw is None:
                continue  # its last straight piece into the pocket is `on_gone`'s: it may drop before the line
            for t_k in ball_kinks:
                keep = t < t_k if t_k > t_m else t > t_k
                if keep.sum() >= 2:
                    t, xy = t[keep], xy[keep]
            fit = fit_line(t, xy, noise_model(self.s))
            if fit is None:
                continue
            at_m = fit.at(t_m)
            y_hat = float(at_m[1])
            if abs(y_hat) > self.s.line_hysteresis_mm:
                side_y = int(np.sign(y_hat))
                if self.axis_side[b] and side_y != self.axis_side[b]:
                    self.crossed_axis.add(int(b))
                self.axis_side[b] = side_y
            x_hat = float(at_m[0]) if raw is None else raw
            x_far = float(fit.at(t[-1])[0]) if raw is None else raw
            for i, (line, x_line) in enumerate(self.lines):
                off = x_hat - x_line
                if abs(off) <= self.s.line_hysteresis_mm or self.early_until.get((int(b), i), -1) >= m:
                    continue  # (a crossing out early: its window still holds samples from before it)
                new, old = int(np.sign(off)), int(self.side[b, i])
                if new == old:
                    continue
                self.side[b, i] = new
                if old in (0, _UNKNOWN):
                    self.start_off[b, i] = np.nan
                    continue  # note 3 (left the line it rested on) or a side not known yet
                t_x, step = self._root(hist, int(b), x_line, m - 2 * self.hw, m + self.hw, new, t_m, raw is not None)
                if step is None:  # not seen on the old side lately: when was it last?
                    t_x, step = self._root(hist, int(b), x_line, hist.oldest, m + self.hw, new, t_m)
                start = float(self.start_off[b, i])
                self.start_off[b, i] = np.nan
                if step is None or self._jump(hist, int(b), *step):
                    continue  # never seen on the old side, or the tracked centre jumped: no ball rolled over
                beyond = abs(x_far - x_line)
                extra: dict[str, object] = {}
                conf = 1.0
                if abs(start) <= self.s.review_band_mm:
                    # it rested within millimetres of the line: did it start on it (note 3)? review
                    conf = 0.4
                    extra = {"margin_mm": round(abs(start), 2), "review": True, "from_rest_near_line": True}
                elif beyond < self.s.line_hysteresis_mm + self.s.review_band_mm:
                    conf = 0.6
                    extra = {"margin_mm": round(beyond, 2), "review": True}
                out.append(Crossing(int(b), line, _to(new), t_x, conf, extra))
        return out + self.drain(hist, m)

    def sure_crossings(
        self, hist: History, n: int, balls: list[int], kinks: dict[int, list[float]]
    ) -> list[Crossing]:
        """Crossings beyond doubt on the newest samples, before the smoothed reading reaches them: the ball's last
        `SURE_SAMPLES` samples (the newest frame's among them) all over the line on its new side by the hysteresis
        and twice their noise, the newest by the review band too (as the smoothed reading asks of its far end); one
        before them (over twice the half window) on its old side beyond the hysteresis; no kink of it over the
        window; no pocket within reach (the centre line runs through the middle mouths); and it did not rest within
        the band of the line (note 3). The smoothed reading leaves that line alone for the ball until its window has
        passed the crossing (`early_until`)."""
        out: list[Crossing] = []
        hyst = self.s.line_hysteresis_mm  # of a smoothed centre: these are single samples, with their noise
        clear = hyst + self.s.review_band_mm
        reach = 4.0 * self.table.ball_radius
        mouths = np.array([pk.mouth_centre for pk in self.table.pockets.values()], dtype=float)
        noise = noise_model(self.s)
        for b in balls:
            t, xy = hist.track(b, n - 2 * self.hw - SURE_SAMPLES, n)
            if len(t) <= SURE_SAMPLES or abs(t[-1] - hist.time(n)) > 1e-9 or any(g[0] == b for g in self.going):
                continue
            if any(hist.time(n - 2 * self.hw) <= k for k in kinks.get(b, [])):
                continue
            if float(np.min(np.hypot(*(mouths - xy[-1]).T))) < reach:
                continue
            sigma = noise(float(np.hypot(*(xy[-1] - xy[-2]))) / max(float(t[-1] - t[-2]), 1e-9))
            for i, (line, x_line) in enumerate(self.lines):
                old, off = int(self.side[b, i]), xy[:, 0] - x_line
                start = float(self.start_off[b, i])
                if old not in (-1, 1) or abs(start) <= self.s.review_band_mm:
                    continue
                before, last = off[:-SURE_SAMPLES], off[-SURE_SAMPLES:]
                if not (np.any(before * old > hyst) and np.all(last * -old > hyst + 2 * sigma)
                        and last[-1] * -old > clear + 2 * sigma):
                    continue
                t_x, step = self._root(hist, b, x_line, n - 2 * self.hw - SURE_SAMPLES, n, -old)
                if step is None or self._jump(hist, b, *step):
                    continue
                self.side[b, i] = -old
                self.start_off[b, i] = np.nan
                self.early_until[(b, i)] = n + self.hw
                out.append(Crossing(b, line, _to(-old), t_x, 1.0, {}))
        self.early_until = {k: v for k, v in self.early_until.items() if v >= n - 4 * self.hw}
        return out

    def _idle(self, hist: History, m: int, t_m: float, balls: np.ndarray) -> np.ndarray:
        """Per moving ball (without kinks near m): is its line fit over m - hw .. m + hw at t_m certain to
        leave every side as it is? The fitted value at t_m is a weighted mean of the samples with weights
        w_i = 1/n + (t_m - t_mean)(t_i - t_mean)/Sxx (summing to 1), so it lies within
        [min - N (max - min), max + N (max - min)], N the sum of the negative weights' magnitudes; a ball
        whose interval stays on its known side of each line (or within the hysteresis of a line it has no
        side of) keeps its sides, whatever the fit. Fewer than two samples: no fit, nothing changes."""
        k = hist.idx(m - self.hw, m + self.hw)
        if len(k) < 2:
            return np.ones(len(balls), dtype=bool)  # fewer than two samples: no fit
        ok = hist.valid[np.ix_(k, balls)]  # (W, M)
        xy = hist.xy[np.ix_(k, balls)]  # (W, M, 2)
        tk = hist.t[k]
        if ok.all():  # the common case: every sample seen, one set of weights for all
            dt = tk - tk.mean()
            sxx = float(dt @ dt)
            if not sxx > 1e-12:
                return np.zeros(len(balls), dtype=bool)
            w = 1.0 / len(tk) + (t_m - tk.mean()) * dt / sxx
            neg = np.full(len(balls), float(-w[w < 0.0].sum()))
            lo, hi = xy.min(axis=0), xy.max(axis=0)  # (M, 2)
            few = np.zeros(len(balls), dtype=bool)
        else:
            n = ok.sum(axis=0)
            few = n < 2
            okf = ok.astype(float)
            t_mean = (tk[:, None] * okf).sum(axis=0) / np.maximum(n, 1)
            dt = (tk[:, None] - t_mean) * okf
            sxx = (dt * dt).sum(axis=0)
            with np.errstate(divide="ignore", invalid="ignore"):
                w = okf / np.maximum(n, 1) + (t_m - t_mean) * dt / sxx
            neg = np.where(sxx > 1e-12, -np.minimum(w, 0.0).sum(axis=0), np.inf)
            lo = np.where(ok[..., None], xy, np.inf).min(axis=0)
            hi = np.where(ok[..., None], xy, -np.inf).max(axis=0)
        with np.errstate(invalid="ignore"):  # a ball seen once: 0 x inf; it is one of `few`, kept whatever this says
            spread = (hi - lo) * neg[:, None]
        slack = 1e-3  # mm, far above the rounding of the fit
        lo, hi = lo - spread - slack, hi + spread + slack
        # (M, 3): the long axis (y = 0), then each line (x = x_line), and the side held of each
        lo_c = np.column_stack([lo[:, 1], lo[:, 0] - self.lines[0][1], lo[:, 0] - self.lines[1][1]])
        hi_c = np.column_stack([hi[:, 1], hi[:, 0] - self.lines[0][1], hi[:, 0] - self.lines[1][1]])
        side = np.column_stack([self.axis_side[balls], self.side[balls]])
        hyst = self.s.line_hysteresis_mm
        above, below = lo_c >= -hyst, hi_c <= hyst
        keep = np.where(side == 1, above, np.where(side == -1, below, above & below)).all(axis=1)
        return np.asarray(few | (keep & np.isfinite(neg)))

    def on_gone(self, hist: History, b: int, n: int, t_end: float) -> list[Crossing]:
        """A ball went into a pocket: a crossing in its last unseen moment (a middle pocket sits on the
        centre line) is found by running its last straight piece on; it counts only where the centre meets
        the line before it passes the mouth line of the pocket (it has left the bed there). The ball's sides
        are unknown afterwards (a ball put back on the bed is placed, not rolled there)."""
        t, xy = hist.track(b, n - 2 * self.hw, n)
        fit = fit_line(t, xy, noise_model(self.s))
        out = []
        if fit is not None and abs(fit.v[0]) >= 1e-6 and len(t):
            t_mouth, x_mouth = self._mouth(fit, float(t[-1]), t_end)
            for i, (line, x_line) in enumerate(self.lines):
                old = int(self.side[b, i])
                past = (x_mouth - x_line) * -old  # > 0: the centre is over the line when it leaves the bed
                if old not in (-1, 1) or past < -self.s.review_band_mm:
                    continue
                t_x = float(np.clip(fit.t0 + (x_line - fit.p0[0]) / fit.v[0], t[0], t_mouth))
                conf, extra = 0.8, dict[str, object](into_pocket=True)
                if abs(past) <= self.s.review_band_mm:  # it meets the line within millimetres of the mouth
                    conf, extra = 0.4, {**extra, "margin_mm": round(abs(past), 2), "review": True}
                out.append(Crossing(b, line, _to(-old), t_x, conf, extra))
        self.side[b] = _UNKNOWN
        self.start_off[b] = np.nan
        return out

    def gone(self, b: int, n: int, t_end: float) -> None:
        """Ball b left the bed after counter n (into a pocket, or off it): its last crossing is read when the
        line test reaches n (`on_gone`, returned by `update` or `drain`)."""
        self.going.append((b, n, t_end))

    def may_cross(self, hist: History, b: int, n: int) -> bool:
        """May the reading of ball b, gone after counter n, still find a crossing? Not when its samples the line test
        has yet to read (and some before), and the mouth it went into, lie on one side of each line, two radii clear
        of it: its pot need not wait for that reading."""
        _, xy = hist.track(b, n - 4 * self.hw, n)
        if not len(xy):
            return True
        pk = min(self.table.pockets.values(), key=lambda q: float(np.hypot(*(xy[-1] - q.mouth_centre))))
        xs = np.append(xy[:, 0], pk.mouth_centre[0])
        clear = 2.0 * self.table.ball_radius
        return any(not (np.all(xs - x_line > clear) or np.all(xs - x_line < -clear)) for _, x_line in self.lines)

    def drain(self, hist: History, m: int | None = None) -> list[Crossing]:
        """The `on_gone` readings of balls gone after counters up to m (all, when None)."""
        ready = [g for g in self.going if m is None or g[1] <= m]
        self.going = [g for g in self.going if g not in ready]
        return [cr for b, n, t_end in ready for cr in self.on_gone(hist, b, n, t_end)]

    def _mouth(self, fit: LineFit, t_last: float, t_end: float) -> tuple[float, float]:
        """(time, x) where the fitted track passes the mouth line of the nearest pocket (the tracker may
        still see it falling beyond), at the latest t_end."""
        p_last = fit.at(t_last)
        pk = min(self.table.pockets.values(), key=lambda q: float(np.hypot(*(p_last - q.mouth_centre))))
        out = np.asarray(pk.outward)
        depth = float(np.dot(p_last - np.asarray(pk.mouth_centre), out))  # < 0: still on the bed side
        rate = float(np.dot(fit.v, out))
        t_m = t_end if rate <= 1e-9 else min(t_end, t_last - depth / rate)
        return t_m, float(fit.at(t_m)[0])

    def jaw_bounce(self, b: int, pocket: str, jaw_x: float, t: float) -> Crossing | None:
        """Note 4: a middle-pocket jaw in the other half touched while the centre stays in its own half."""
        if not pocket.startswith("middle") or abs(jaw_x) < 1e-6:
            return None
        i = 0  # the centre line
        jaw_side, own = int(np.sign(jaw_x)), int(self.side[b, i])
        if own not in (-1, 1) or jaw_side == own:
            return None
        return Crossing(b, Line.CENTRE, _to(jaw_side), t, 0.9, {"jaw": pocket, "note4": True})

    def _rattling(self, t: np.ndarray, xy: np.ndarray, t_m: float) -> float | None:
        """The centre's own x at t_m when the ball bounces between a middle pocket's jaws over these samples
        (t, xy: the window around t_m), else None. The centre line runs through the mouth, and a rattle there
        crosses it every bounce (seed-241 frame_free: 6 sampled 5.6 mm front, 5.9 mm rear, 2.6 mm front in three
        frames): a line fitted over the window averages the bounces away, so the samples are read as they are.
        A bounce: two consecutive steps across the pocket that turn back on each other, each longer than twice
        the noise of their difference (2 sqrt(2) sigma at their speed), within the run of samples about t_m (it
        and both neighbours at least) that lie within touching (plus `contact_gate_mm`) of one of that mouth's
        jaws: nothing else there turns a ball back."""
        at = np.nonzero(np.abs(t - t_m) < 1e-9)[0]
        if len(at) == 0 or not 0 < int(at[0]) < len(t) - 1:
            return None
        k = int(at[0])
        reach = self.table.ball_radius + self.s.contact_gate_mm
        for pk in self.table.pockets.values():
            jaws = np.array([pk.jaw_a, pk.jaw_b], dtype=float)
            if not pk.name.startswith("middle") or float(np.min(np.hypot(*(xy[k] - jaws).T))) > reach:
                continue  # (most calls end here: the ball is not in a middle mouth)
            near = np.min(np.hypot(*(xy[:, None, :] - jaws[None]).transpose(2, 0, 1)), axis=1) <= reach
            if not near[k - 1 : k + 2].all():
                continue
            lo, hi = k, k  # the run of near samples about k
            while lo > 0 and near[lo - 1]:
                lo -= 1
            while hi < len(t) - 1 and near[hi + 1]:
                hi += 1
            dx = np.diff(xy[lo : hi + 1, 0])
            speed = np.hypot(*np.diff(xy[lo : hi + 1], axis=0).T) / np.maximum(np.diff(t[lo : hi + 1]), 1e-9)
            noise = noise_model(self.s)
            big = np.abs(dx) > 2.0 * np.sqrt(2.0) * np.array([noise(float(v)) for v in speed])
            if np.any(big[:-1] & big[1:] & (np.sign(dx[:-1]) != np.sign(dx[1:]))):
                return float(xy[k, 0])
        return None

    def _root(
        self, hist: History, b: int, x_line: float, n0: int, n1: int, to: int = 0, t_at: float = np.inf,
        raw: bool = False,
    ) -> tuple[float, tuple[float, float] | None]:
        """When the track over n0..n1 meets the line: the crossing of consecutive samples (towards side
        `to` when given, the last one at or before `t_at`), refined by a local line fit around it (`raw`: not,
        between the two samples); and the times of those two samples (None when no pair straddles the line)."""
        t, xy = hist.track(b, n0, n1)
        if len(t) == 0:
            return hist.time(n1), None
        x = xy[:, 0] - x_line
        flip = np.sign(x[:-1]) != np.sign(x[1:])
        if to:
            flip &= np.sign(x[1:]) == to
        flips = np.nonzero(flip)[0]
        if len(flips) == 0:
            return float(t[-1] if abs(x[-1]) < abs(x[0]) else t[0]), None
        before = flips[t[flips] <= t_at]
        k = int(before[-1] if len(before) else flips[0])
        step = (float(t[k]), float(t[k + 1]))
        lo, hi = max(0, k - self.hw + 1), min(len(t), k + self.hw + 1)
        fit = None if raw else fit_line(t[lo:hi], xy[lo:hi], noise_model(self.s))
        if fit is None or abs(fit.v[0]) < 1e-6:
            return float(t[k] + (t[k + 1] - t[k]) * x[k] / (x[k] - x[k + 1])), step
        t_root = fit.t0 + (x_line - fit.p0[0]) / fit.v[0]
        return float(np.clip(t_root, t[max(lo, k - 1)], t[min(hi - 1, k + 2)])), step

    def _jump(self, hist: History, b: int, t_a: float, t_b: float) -> bool:
        """Is the step between the samples at t_a and t_b a jump of the tracked centre? Between two samples
        a ball runs no faster than it does just before or just after them (friction only slows it; a hit in
        between shows in the speed after), so a step much faster than both is no motion of the ball."""
        n_a, n_b = hist.counter_at(t_a), hist.counter_at(t_b)
        t, xy = hist.track(b, n_a - self.hw, n_b + self.hw)
        speed = np.hypot(*np.diff(xy, axis=0).T) / np.maximum(np.diff(t), 1e-9)
        k = int(np.searchsorted(t, t_a))  # the step t_a -> t_b
        if k >= len(speed) or speed[k] > MAX_SPEED_MM_S:
            return True
        near = np.delete(speed, k)
        near = near[near <= MAX_SPEED_MM_S]  # steps that can be motion, on either side
        if len(t[: k + 1]) < 2 and len(t[k + 1 :]) < 2:
            return False  # nothing seen around it to compare with
        return is_jump(float(speed[k]), float(near.max()) if len(near) else 0.0)


def _to(side: int) -> Direction:
    return Direction.REAR if side > 0 else Direction.FRONT
