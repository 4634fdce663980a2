"""Pots, jumps and hanging balls, from the tracker's POTTED / OFF_TABLE states and from vanishing tracks.

- The tracker marks a ball POTTED: a pot in the pocket whose mouth is nearest the last seen centre
  (confidence lowered when that mouth is farther than `pocket_reach_mm`). The time is half a frame after
  the last frame the ball was seen on the bed.
- A moving ball that goes unseen for `vanish_s`: off_table (0.6) when its last centre reached into a cushion
  (no ball on the bed can be there: it was in the air, `vision.bedgeom`); else a pot (0.8) when that centre
  was near a pocket mouth and heading into it (when its last reading was under a cover, `COVERED_CONF`, only
  once unseen for `DOUBT_WAIT_S`, and then at 0.45 for review: a sleeve over a hanging ball hides it too); else
  off_table for review (0.45) when it reached into a
  cushion further than a ball on the bed is seen to (`BED_REACH_MM`), outside the mouth regions, and stayed
  unseen for `DOUBT_WAIT_S` (an arm over a ball at the rail hides it too); off_table (0.6) when it was off the
  bed elsewhere.
- A ball that rattles in the jaws and comes back is never marked gone, so it is not a pot (1.22.5).
- A ball that comes to rest hanging in a mouth (centre farther out than a ball frozen to the cushion could
  be) and drops later is a pot with extra {"hanging": true}, plus {"late": true} when the shot had ended (1.23);
  dropped also when it is still seen clear (not under a cover, `COVERED_CONF`) with its centre past the mouth
  line (0.9: the tracker may keep seeing a ball lying in the pocket), or when the tracker gives it up with its
  place in view and empty (0.8: a ball knocked in from the jaws falls under the ball that hit it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from calibration.table import Table
from vision.bedgeom import AIRBORNE_OVERLAP_MM, BED_REACH_MM, cushion_overlap_mm
from vision.events.history import COVERED_CONF, History
from vision.events.settings import EventSettings
from vision.types import BallState

DOUBT_WAIT_S = 0.5  # a moving ball lost in the doubtful reach into a cushion: off the table if unseen this long


@dataclass(frozen=True)
class Gone:
    ball: int
    kind: str  # "pot" or "off_table"
    t: float
    pocket: str | None
    confidence: float
    extra: dict[str, object] = field(default_factory=dict)


class PotWatcher:
    def __init__(self, table: Table, s: EventSettings, n_balls: int, fps: float) -> None:
        self.table = table
        self.s = s
        self.fps = fps
        self.gone = np.zeros(n_balls, dtype=bool)
        self.last_t = np.full(n_balls, np.nan)
        self.last_xy = np.full((n_balls, 2), np.nan)
        self.prev_xy = np.full((n_balls, 2), np.nan)
        self.last_conf = np.ones(n_balls)
        self.hanging: dict[int, str] = {}
        self.left: dict[int, str] = {}  # balls that started from hanging in a mouth: the pocket
        # potted from hanging, still seen past the mouth line: the pocket (read live by the motion tracker)
        self.beyond: dict[int, str] = {}

    def on_rest(self, b: int, anchor: np.ndarray) -> None:
        """Remember a ball resting in a pocket mouth (hanging)."""
        if b in self.beyond:
            return  # potted from hanging, lying in the pocket
        pocket = self.table.pocket_at(anchor)
        inside = min(self.table.half_length - abs(anchor[0]), self.table.half_width - abs(anchor[1]))
        if pocket is not None and inside < self.table.ball_radius - self.s.frozen_tol_mm:
            self.hanging[b] = pocket
        else:
            self.hanging.pop(b, None)

    def on_start(self, b: int) -> None:
        if b in self.hanging:
            self.left[b] = self.hanging.pop(b)

    def _past_mouth(self, b: int, xy: np.ndarray) -> str | None:
        """The pocket of a ball that hung in its mouth, when its centre is now past the mouth line (off the
        bed, where the physics pots a ball) by more than twice a resting centre's noise: it dropped, whatever
        the tracker still sees of it in the pocket."""
        name = self.hanging.get(b) or self.left.get(b) or self.beyond.get(b)
        if name is None:
            return None
        return name if self._depth(name, xy) > 2.0 * self.s.noise_rest_mm else None

    def _back_on_bed(self, b: int, xy: np.ndarray) -> bool:
        """A ball potted while seen past the mouth line is back in play only once seen on the bed side of that
        line by as much as it had to be past it (hysteresis: a centre jittering about the line is not a return)."""
        return self._depth(self.beyond[b], xy) < -2.0 * self.s.noise_rest_mm

    def _depth(self, pocket: str, xy: np.ndarray) -> float:
        """How far the centre is past the pocket's mouth line (mm; < 0 on the bed side)."""
        pk = self.table.pockets[pocket]
        return float(np.dot(xy - np.asarray(pk.mouth_centre), np.asarray(pk.outward)))

    def update(self, hist: History, n: int, moving: np.ndarray, shot_running: bool) -> list[Gone]:
        k = n % hist.size
        t_now = hist.time(n)
        out = []
        valid, state = hist.valid[k], hist.state[k]
        for b in range(len(self.gone)):
            if valid[b]:
                past = self._past_mouth(b, hist.xy[k, b])
                if b in self.beyond and (past is not None or not self._back_on_bed(b, hist.xy[k, b])):
                    continue  # potted, still seen in the pocket (or at its mouth line: noise, not a return)
                # a reading under a cover (an arm over the mouth drags the centre: seed-151 hanging_ball_drops_later,
                # 12 read 16 mm past the line at 0.13 as the stroke was played, then back on the lip) proves no drop
                if past is not None and not self.gone[b] and hist.conf[k, b] >= COVERED_CONF:
                    self.hanging[b] = past
                    self.left.pop(b, None)
                    out.append(self._pot(b, t_now - 0.5 / self.fps, 0.9, shot_running))
                    self.gone[b], self.beyond[b] = True, past
                    continue
                self.beyond.pop(b, None)
                if self.gone[b]:
                    self.gone[b] = False  # back in play (spotted, or it jumped back)
                self.prev_xy[b] = self.last_xy[b]
                self.last_t[b], self.last_xy[b] = t_now, hist.xy[k, b]
                self.last_conf[b] = hist.conf[k, b]
                continue
            if self.gone[b] or not np.isfinite(self.last_t[b]):
                continue
            t_gone = float(self.last_t[b]) + 0.5 / self.fps
            code = BallState(int(state[b]))
            if code is BallState.POTTED:
                _, dist = self.table.nearest_pocket(self.last_xy[b])
                if dist > self.s.pocket_reach_mm and not moving[b]:
                    self.gone[b] = True  # a resting ball lifted off far from any pocket (a penalty ball, 1.6)
                    continue
                out.append(self._pot(b, t_gone, 1.0, shot_running))
            elif code is BallState.OFF_TABLE:
                out.append(Gone(b, "off_table", t_gone, None, 1.0))
            elif code is BallState.UNKNOWN and b in self.hanging:
                # hanging in a mouth, then gone with its place in view and empty (the tracker's "lifted"): it
                # dropped, unseen because the ball that knocked it in covered the mouth as it fell
                out.append(self._pot(b, t_gone, 0.8, shot_running))
            elif moving[b] and t_now - self.last_t[b] >= self.s.vanish_s:
                gone = self._vanished(b, t_gone, shot_running, t_now - float(self.last_t[b]))
                if gone is None:
                    continue
                out.append(gone)
            else:
                continue
            self.gone[b] = True
        return out

    def at_end(self, t_end: float, since: float, shot_running: bool) -> list[Gone]:
        """End of stream: a ball hanging in a mouth, unseen for the last two frames or more and since the running
        shot began (or, between shots, since the last one ended), dropped, or a cover hides it; the recording
        ended before the tracker could tell (it gives a ball up only after its place has been in view and empty
        for a while): a pot for review, not silence (seed-137 and -151 hanging_ball_drops_later: 12 dropped 0.6 s
        before the end). One unseen since before that shot's boundary is left alone: its pot could not be placed
        in the right shot."""
        out = []
        for b in list(self.hanging):
            t = float(self.last_t[b]) + 0.5 / self.fps
            if self.gone[b] or not np.isfinite(t) or t_end - t < 1.0 / self.fps or t < since:
                continue
            pocket = self.hanging[b]
            gone = self._pot(b, t, 0.45, shot_running)
            why = (f"hanging in the {pocket} mouth, unseen for the last {t_end - t + 0.5 / self.fps:.2f} s of the "
                   "recording: dropped, or covered?")
            out.append(Gone(b, "pot", gone.t, gone.pocket, gone.confidence, {**gone.extra, "review": True, "why": why}))
            self.gone[b] = True
        return out

    def _pot(self, b: int, t: float, conf: float, shot_running: bool) -> Gone:
        xy = self.last_xy[b]
        name, dist = self.table.nearest_pocket(xy)
        if dist > self.s.pocket_reach_mm:
            conf = min(conf, 0.6)
        extra: dict[str, object] = {}
        if b in self.hanging:
            name = self.hanging.pop(b)
            extra["hanging"] = True
            if not shot_running:
                extra["late"] = True
        return Gone(b, "pot", t, name, conf, extra)

    def _vanished(self, b: int, t: float, shot_running: bool, unseen_s: float) -> Gone | None:
        """A moving ball lost from view: potted near a mouth, off the table beyond the bed, else hidden."""
        xy = self.last_xy[b]
        reach = cushion_overlap_mm(self.table, xy)
        if reach > AIRBORNE_OVERLAP_MM:
            return Gone(b, "off_table", t, None, 0.6)  # last seen reaching into a cushion: in the air over it
        name, dist = self.table.nearest_pocket(xy)
        if dist <= self.s.pocket_reach_mm:
            heading = xy - self.prev_xy[b]
            outward = np.asarray(self.table.pockets[name].outward)
            into = not np.all(np.isfinite(heading)) or float(np.dot(heading, outward)) >= 0
            if into and self.last_conf[b] >= COVERED_CONF:
                return self._pot(b, t, 0.8, shot_running)
            # read under an arm or the cue when it was lost: its "motion" may be the cover's edge, and what
            # hides it the cover; a ball that shows again was not potted. A ball hanging on a mouth's lip rests
            # off the bed: lost there under an arm whichever way its centre wobbled, it is hidden, not off the
            # table (seed-107 hanging_ball_drops_later: off_table, then a 1.17 for its return)
            if into or self.last_conf[b] < COVERED_CONF:
                if unseen_s < DOUBT_WAIT_S:
                    return None
                gone = self._pot(b, t, 0.45, shot_running)
                why = (f"lost at the {name} mouth under a cover (last read at position confidence "
                       f"{self.last_conf[b]:.2f}), not seen for {unseen_s:.1f} s")
                return Gone(b, "pot", t, gone.pocket, gone.confidence, {**gone.extra, "review": True, "why": why})
        if reach > BED_REACH_MM and self.table.pocket_at(xy) is None:
            if unseen_s < DOUBT_WAIT_S:
                return None  # an arm over a ball at the rail hides it as well: wait for it to show again
            why = (f"last seen {reach:.1f} mm into the cushion (a ball on the bed reaches {BED_REACH_MM:.1f} mm at "
                   f"most, one in the air {AIRBORNE_OVERLAP_MM:.0f} mm or more), not seen for {unseen_s:.1f} s")
            return Gone(b, "off_table", t, None, 0.45, {"review": True, "reach_mm": round(reach, 1), "why": why})
        if not self.table.on_bed(xy, margin_mm=self.table.ball_radius * 0.5):
            return Gone(b, "off_table", t, None, 0.6)
        return None  # hidden mid-table (an arm over it): wait for the tracker
