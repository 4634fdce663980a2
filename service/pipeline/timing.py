"""Dropped and duplicated frames, found from the presentation timestamps (pure logic).

A frame whose timestamp is not after the previous one is a duplicate: it is skipped, so the tracker never
sees time stand still. A gap of more than 1.5 frame periods is a drop: the frames are not invented; the
gap is recorded, and the tracker gets the true time step from the timestamps.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class FrameVerdict(StrEnum):
    OK = "ok"
    DUPLICATE = "duplicate"
    AFTER_GAP = "after_gap"


@dataclass
class TimingIssue:
    kind: FrameVerdict
    frame: int
    t: float
    missing: int = 0  # frames missing before this one (AFTER_GAP)

    def describe(self) -> str:
        if self.kind is FrameVerdict.DUPLICATE:
            return f"duplicated frame at {self.t:.3f} s (frame {self.frame}), skipped"
        return f"{self.missing} frame(s) missing before {self.t:.3f} s (frame {self.frame})"


@dataclass
class TimingMonitor:
    """Feed it every decoded frame's timestamp in order; it classifies each frame and keeps a tally."""

    fps: float
    last_t: float | None = None
    duplicates: int = 0
    dropped: int = 0
    issues: list[TimingIssue] = field(default_factory=list)
    max_issues: int = 200  # keep memory bounded on a badly broken stream; counts stay exact

    def observe(self, frame: int, t: float) -> FrameVerdict:
        if self.fps <= 0:
            raise ValueError(f"TimingMonitor needs a positive fps, got {self.fps}")
        period = 1.0 / self.fps
        prev, self.last_t = self.last_t, t if self.last_t is None else max(t, self.last_t)
        if prev is None:
            return FrameVerdict.OK
        dt = t - prev
        if dt <= 0.25 * period:
            self.duplicates += 1
            self._note(TimingIssue(FrameVerdict.DUPLICATE, frame, t))
            return FrameVerdict.DUPLICATE
        if dt > 1.5 * period:
            missing = round(dt / period) - 1
            self.dropped += missing
            self._note(TimingIssue(FrameVerdict.AFTER_GAP, frame, t, missing))
            return FrameVerdict.AFTER_GAP
        return FrameVerdict.OK

    def _note(self, issue: TimingIssue) -> None:
        if len(self.issues) < self.max_issues:
            self.issues.append(issue)

    def summary(self) -> str:
        if not self.duplicates and not self.dropped:
            return "frame timing: regular"
        return f"frame timing: {self.dropped} dropped frame(s), {self.duplicates} duplicated frame(s)"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["issues"] = [{**asdict(i), "kind": str(i.kind)} for i in self.issues]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TimingMonitor:
        issues = [TimingIssue(FrameVerdict(i["kind"]), int(i["frame"]), float(i["t"]), int(i["missing"]))
                  for i in d.get("issues", [])]
        return cls(float(d["fps"]), d.get("last_t"), int(d["duplicates"]), int(d["dropped"]), issues)
