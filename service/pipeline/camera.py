"""Is the camera still where it was calibrated? A bumped camera must show as a degraded analysis, not as
silent wrong verdicts (issue 7).

The check is the calibration package's `CalibrationMonitor` (edge maps in thin bands around the cushion lines,
compared with the first frame's, median over the four sides, confirmed over several looks) with its own
per-side score (`_SideMonitor`: are the line pixels still edges?), fed only one frame every CHECK_EVERY_S of
video, so the per-frame cost is a counter. A side whose band holds no edge in the
reference view (a cushion out of the picture, a featureless test clip) is not judged; with fewer than
MIN_SIDES judged sides the view is not judged at all. When the view has changed for CONFIRM_S the run gets a
`camera` log line (rules.inputs: the engine ignores it) at the last check that still matched, and
`service.judging.fold` flags every verdict from then on for review, naming the reason.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from calibration.monitor import CalibrationMonitor
from calibration.result import Calibration, CalibrationMethod, CalibrationStatus, Quality
from service.pipeline.components import CalibrationView
from vision.source import YUVFrame

# One look every half second of video: a knock is seen within a few seconds, at 0.55 ms of CPU per look at
# 1080p (a quarter-size grey copy, two Sobel passes), i.e. ~0.02 ms per frame at 60 fps.
CHECK_EVERY_S = 0.5
# The view must stay changed this long: a player leaning over a cushion or a passing body covers a side
# for a moment and moves on; a knocked camera stays where it was knocked.
CONFIRM_S = 2.0
# A side is judged only when its reference band holds an edge: a standard deviation of the Sobel magnitude
# (quarter-size grey, 3x3 kernels) of 8, about a 2-grey-level step; a cloth-to-rail edge gives tens.
MIN_EDGE_STD = 8.0
MIN_SIDES = 3  # of the four; the median of fewer says little
# A band's line pixels: at least half its 99th-percentile edge strength in the calibrated view (the cloth-to-
# cushion and cushion-to-rail edges, not the cloth's texture).
LINE = 0.5
# A line pixel is kept while it holds 70 % of its edge strength (times the whole picture's change in edge
# strength, for the lights); the ridge is 2-3 px wide at quarter size, so a shift of 2 px (8 px at full size,
# about 25 mm of table at 720p) takes most pixels off it.
KEEP = 0.7
# A side matches while half its line pixels are kept; the view has moved when the median side does not.
THRESHOLD = 0.5


def _luma(image: np.ndarray) -> np.ndarray:
    """The grey picture of a frame: the Y plane of a planar one (no conversion), or the BGR frame itself."""
    if image.ndim == 3 or isinstance(image, YUVFrame):  # a YUVFrame's array is its Y plane
        return image
    return image[: image.shape[0] * 2 // 3]  # contiguous I420: the Y plane is the top two thirds


def as_calibration(view: CalibrationView) -> Calibration:
    """The calibration package's object for a view (a camera model alone, from a file, gets placeholders for
    the evidence the monitor does not read)."""
    if isinstance(view.native, Calibration):
        return view.native
    corners = view.camera.project(np.column_stack([view.table.bed_corners, np.zeros(4)]))
    quality = Quality(CalibrationMethod.MANUAL, math.nan, 0, (0.0, 0.0, 0.0, 0.0), 0, 0, 0.0)
    return Calibration(view.camera, view.table.spec.name, view.table, math.nan, corners, {}, quality,
                       [f"camera model from {view.source}"])


class _SideMonitor(CalibrationMonitor):
    """The monitor's bands and edge maps, scored by whether the cushion lines are still where they were: per
    side, the share of the calibrated view's line pixels that keep their edge strength. A ball resting against
    a cushion adds edges to the band (it drove the monitor's own correlation score to 0.3 after the break of
    out/looks/blue/break) but covers little of the line; a moved camera takes the line off those pixels."""

    judged: list[bool] | None = None

    def score(self, frame: np.ndarray) -> float:
        cur = self._edges(frame).ravel()
        if self._ref is None:
            self._ref, self._ref_mean = cur, max(float(cur.mean()), 1e-6)
            self._lines = []
            for band in self._bands:
                idx = np.flatnonzero(band.ravel())
                vals = cur[idx]
                ok = idx.size > 0 and float(vals.std()) >= MIN_EDGE_STD
                self._lines.append(idx[vals >= LINE * np.percentile(vals, 99)] if ok else idx[:0])
            self.judged = [i.size > 0 for i in self._lines]
            return 1.0
        assert self.judged is not None
        if sum(self.judged) < MIN_SIDES:
            return 1.0  # nothing to judge the view by: never reported moved
        gain = float(np.clip(cur.mean() / self._ref_mean, 0.25, 4.0))  # lights dimmed or raised
        kept = [float(np.mean(cur[i] >= KEEP * gain * self._ref[i])) for i in self._lines if i.size]
        return float(np.median(kept))


class ViewWatch:
    """Feed every frame with `update`; it answers with a `camera` log line once, when the view has moved."""

    def __init__(self, view: CalibrationView, fps: float) -> None:
        self.every = max(1, round(fps * CHECK_EVERY_S))
        confirm = max(2, math.ceil(CONFIRM_S / CHECK_EVERY_S))
        self.monitor = _SideMonitor(as_calibration(view), check_every=1, threshold=THRESHOLD, confirm=confirm)
        self._n = -1
        self._t_ok = 0.0  # the last look that still matched the reference view
        self._t_bad: float | None = None  # the first look of the current run of changed views
        self.done = False

    @property
    def judging(self) -> bool:
        """False when the reference view had too few cushion edges to judge by."""
        return self.monitor.judged is None or sum(self.monitor.judged) >= MIN_SIDES

    def update(self, image: np.ndarray, t: float) -> dict[str, Any] | None:
        self._n += 1
        if self.done or self._n % self.every:
            return None
        status = self.monitor.update(_luma(image)[::2, ::2])  # every other pixel: the look is at quarter size
        score = self.monitor.last_score
        if score >= THRESHOLD:
            self._t_ok, self._t_bad = t, None
        elif self._t_bad is None:
            self._t_bad = t
        if status is not CalibrationStatus.BUMPED:
            return None
        self.done = True
        bad = t if self._t_bad is None else self._t_bad
        why = (f"the camera's view changed between {self._t_ok:.2f} s and {bad:.2f} s and stayed changed (at "
               f"{t:.2f} s only {score:.0%} of the cushion lines' pixels were still edges on the median side, "
               f"{THRESHOLD:.0%} needed): the calibration no longer fits, so ball positions, events and verdicts "
               f"from {self._t_ok:.2f} s on are doubtful; re-calibrate and analyse that part again")
        return {"type": "camera", "t": round(self._t_ok, 3), "status": "moved", "why": why}
