"""The annotated video: tracks, ball ids, events and verdicts drawn on each frame, encoded in parts."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from rules.events import Event
from service.pipeline.video import SegmentWriter, concat_parts
from service.report.shots import ball_colour, event_label

TRAIL = 40  # frames of track drawn behind each ball
EVENT_SHOW_S = 2.0
VERDICT_SHOW_S = 4.0
CHAR_PX = 8  # width of a character of the verdict text (Hershey simplex at scale 0.45), for wrapping
VERDICT_LINES = 3  # a verdict's text is wrapped to at most this many lines (the clauses come first)


def _wrap(text: str, width: int, max_lines: int) -> list[str]:
    """Split `text` into lines of at most `width` characters at spaces; the last line ends in '...' if cut."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word[:width])
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1][:width - 3] + "..."
    return lines


@dataclass
class Annotator:
    parts_dir: Path
    fps: float
    scale: float = 0.5
    part: int = 0
    _writer: SegmentWriter | None = None
    _trails: dict[str, deque[tuple[int, int]]] = field(default_factory=dict)
    _events: deque[tuple[float, str]] = field(default_factory=lambda: deque(maxlen=6))
    # Recent verdicts, each shown for VERDICT_SHOW_S: two can come at one shot end (a shot without its own
    # end is judged when the next one ends), and each must be seen.
    _verdicts: deque[tuple[float, str, bool]] = field(default_factory=lambda: deque(maxlen=3))
    _status: str = ""

    def note_event(self, e: Event) -> None:
        self._events.append((e.t, event_label(e)))

    def note_verdict(self, t: float, text: str, foul: bool) -> None:
        self._verdicts.append((t, text, foul))

    def set_status(self, text: str) -> None:
        self._status = text

    def draw(self, image: np.ndarray, frame: int, t: float, balls_px: dict[str, tuple[float, float]],
             unnamed: Collection[str] = ()) -> None:
        """One frame with the balls' tracks and ids (`unnamed`: ids that are labels, drawn with a '?')."""
        h, w = image.shape[:2]
        size = (max(2, round(w * self.scale)) // 2 * 2, max(2, round(h * self.scale)) // 2 * 2)
        img = cv2.resize(image, size, interpolation=cv2.INTER_AREA) if self.scale != 1.0 else image.copy()
        s = size[0] / w
        seen = set()
        for ball, (x, y) in balls_px.items():
            p = (round(x * s), round(y * s))
            trail = self._trails.setdefault(ball, deque(maxlen=TRAIL))
            trail.append(p)
            seen.add(ball)
            col = ball_colour(ball)
            if len(trail) >= 2:
                cv2.polylines(img, [np.array(trail, np.int32).reshape(-1, 1, 2)], False, col, 1, cv2.LINE_AA)
            cv2.circle(img, p, max(4, round(12 * s)), col, 1, cv2.LINE_AA)
            label = f"{ball}?" if ball in unnamed else ball
            cv2.putText(img, label, (p[0] + 6, p[1] - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.4, col, 1, cv2.LINE_AA)
        for ball in [b for b in self._trails if b not in seen]:
            del self._trails[ball]
        y = 18
        cv2.putText(img, f"{t:7.2f}s  {self._status}", (8, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1,
                    cv2.LINE_AA)
        for et, label in self._events:
            if t - et <= EVENT_SHOW_S:
                y += 16
                cv2.putText(img, label, (8, y), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (200, 255, 200), 1, cv2.LINE_AA)
        bottom = size[1]
        for vt, text, foul in reversed(self._verdicts):  # the latest at the bottom
            if t - vt > VERDICT_SHOW_S:
                continue
            lines = _wrap(text, max(20, (size[0] - 16) // CHAR_PX), VERDICT_LINES)
            top = bottom - 8 - 17 * len(lines)
            cv2.rectangle(img, (0, top), (size[0], bottom), (40, 40, 220) if foul else (40, 160, 40), -1)
            for i, line in enumerate(lines):
                cv2.putText(img, line, (8, top + 17 * (i + 1)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1,
                            cv2.LINE_AA)
            bottom = top - 2
        if self._writer is None:
            self.parts_dir.mkdir(parents=True, exist_ok=True)
            self._writer = SegmentWriter(self.part_path(self.part), self.fps, size[0], size[1])
        self._writer.write(img, frame)

    def part_path(self, n: int) -> Path:
        return self.parts_dir / f"part-{n:04d}.mp4"

    def cut(self) -> None:
        """Close the current part (at a checkpoint); the next frame opens a new one."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
            self.part += 1

    def parts(self) -> list[Path]:
        return sorted(self.parts_dir.glob("part-*.mp4"))

    def join(self, out: Path, keep_parts: bool) -> None:
        """Join the parts into `out` (atomically); the parts are dropped unless a resume may still need them."""
        parts = self.parts()
        if not parts:
            return
        concat_parts(parts, out.with_name(out.name + ".tmp"))
        os.replace(out.with_name(out.name + ".tmp"), out)
        if keep_parts:
            return
        for p in parts:
            p.unlink()
        if not any(self.parts_dir.iterdir()):
            self.parts_dir.rmdir()
