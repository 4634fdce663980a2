"""Per-shot pictures for the report, kept within a fixed memory budget.

During a shot the recorder holds: the frame at the stroke (downscaled), the pixel track of every ball, the
contact points, and up to `strip_max` sampled frames (the sampling stride doubles whenever the buffer
fills, so a long shot costs no more than a short one). At the shot's end the thumbnail is written to disk;
when its verdict is a foul or carries a review flag, the frame strip is written too. Nothing else stays.

Between shots it keeps the last BETWEEN_FRAMES small frames, one every BETWEEN_STEP_S: a ball disturbed
before a stroke (1.17) is judged with the next shot, and the frames around the disturbance open that shot's
strip, so the referee sees what the foul rests on.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from rules.events import Event, EventType

# Between shots: one small frame every 0.25 s, the last 3 s (12 frames of about 240x135 px, ~1.2 MB at most):
# a disturbance is confirmed by the event detector within about a second of its start, so its frames are
# still held when the event arrives.
BETWEEN_STEP_S = 0.25
BETWEEN_FRAMES = 12
# The frames kept for a disturbance: from this long before it to this long after it (s).
DISTURBED_BEFORE_S, DISTURBED_AFTER_S = 0.5, 1.0
DISTURBED_MAX = 4  # strip frames of a disturbance at most

_PALETTE = [(int(b), int(g), int(r)) for b, g, r in
            [(60, 60, 230), (60, 200, 60), (230, 120, 40), (40, 200, 230), (200, 60, 200), (200, 200, 40)]]


def ball_colour(ball: str) -> tuple[int, int, int]:
    if ball == "C":
        return (0, 215, 255)
    return _PALETTE[int(ball) % len(_PALETTE)] if ball.isdigit() else (255, 255, 255)


def _label(img: np.ndarray, balls_px: dict[str, tuple[float, float]], scale: float, t: float | None) -> None:
    """Draw each ball's id beside it and the video time in the corner of a strip frame (in place)."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    for ball, (x, y) in balls_px.items():
        org = (round(x * scale) + 4, round(y * scale) - 4)
        cv2.putText(img, ball, org, font, 0.35, (0, 0, 0), 2, cv2.LINE_AA)
        cv2.putText(img, ball, org, font, 0.35, ball_colour(ball), 1, cv2.LINE_AA)
    if t is not None:
        cv2.putText(img, f"{t:.2f} s", (4, 14), font, 0.4, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(img, f"{t:.2f} s", (4, 14), font, 0.4, (255, 255, 255), 1, cv2.LINE_AA)


def shot_thumb_path(out: Path, shot: int) -> Path:
    return out / "shots" / f"shot-{shot:03d}.jpg"


def shot_strip_path(out: Path, shot: int) -> Path:
    return out / "shots" / f"strip-{shot:03d}.jpg"


@dataclass
class ShotRecorder:
    out: Path
    width: int = 480  # thumbnail width, px
    strip_width: int = 240
    strip_max: int = 12
    track_max: int = 2000  # points per ball track
    shot: int = 0
    active: bool = False
    _scale: float = 1.0
    _full_width: int = 1
    _base: np.ndarray | None = None
    _tracks: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    _contacts: list[tuple[float, float]] = field(default_factory=list)
    _strip: list[np.ndarray] = field(default_factory=list)
    _stride: int = 1
    _count: int = 0
    # strips of shots awaiting a verdict: (frames from before the stroke, frames of the shot)
    _ended: dict[int, tuple[list[np.ndarray], list[np.ndarray]]] = field(default_factory=dict)
    _between: deque[tuple[float, np.ndarray]] = field(default_factory=lambda: deque(maxlen=BETWEEN_FRAMES))
    _between_t: float = float("-inf")
    _disturbed: list[float] = field(default_factory=list)  # times of balls disturbed since the last shot
    _before: list[np.ndarray] = field(default_factory=list)  # this shot's frames from before its stroke

    def start(self, image: np.ndarray) -> None:
        if self.active:  # a new stroke before the last shot ended (1.14.2): close that one first
            self.end()
        self.shot += 1
        self.active = True
        self._before = [f for ft, f in self._between
                        if any(d - DISTURBED_BEFORE_S <= ft <= d + DISTURBED_AFTER_S for d in self._disturbed)]
        if len(self._before) > DISTURBED_MAX:  # evenly over the disturbance, its start included
            keep = np.linspace(0, len(self._before) - 1, DISTURBED_MAX).round().astype(int).tolist()
            self._before = [self._before[i] for i in keep]
        self._between.clear()
        self._disturbed = []
        self._scale = self.width / image.shape[1]
        self._full_width = image.shape[1]  # the frame's width: ball pixel positions are in its pixels
        self._base = cv2.resize(image, (self.width, round(image.shape[0] * self._scale)), interpolation=cv2.INTER_AREA)
        self._tracks, self._contacts, self._strip = {}, [], []
        self._stride, self._count = 1, 0

    def add_frame(self, image: Callable[[], np.ndarray], balls_px: dict[str, tuple[float, float]],
                  t: float | None = None) -> None:
        """`image` is called only when this frame is sampled for the strip (it may convert colours). A sampled
        frame is labelled with its video time `t` and each ball's id, so a referee can find it in the video
        and tell the balls apart."""
        if not self.active:
            if t is not None and t - self._between_t >= BETWEEN_STEP_S:
                self._between_t = t
                self._between.append((t, self._small(image(), balls_px, t)))
            return
        for ball, p in balls_px.items():
            track = self._tracks.setdefault(ball, [])
            q = (p[0] * self._scale, p[1] * self._scale)
            if not track or abs(track[-1][0] - q[0]) + abs(track[-1][1] - q[1]) > 1.5:
                track.append(q)
                if len(track) > self.track_max:  # a very long shot: keep every other point
                    track[:] = track[::2]
        if self._count % self._stride == 0:
            self._strip.append(self._small(image(), balls_px, t))
            if len(self._strip) >= self.strip_max:
                self._strip = self._strip[::2]
                self._stride *= 2
        self._count += 1

    def _small(self, img: np.ndarray, balls_px: dict[str, tuple[float, float]], t: float | None) -> np.ndarray:
        """A strip frame: `img` (any size) at strip width, labelled with the time and the ball ids."""
        s = self.strip_width / img.shape[1]
        small = cv2.resize(img, (self.strip_width, round(img.shape[0] * s)), interpolation=cv2.INTER_AREA)
        full = self._full_width if self._full_width > 1 else img.shape[1]
        _label(small, balls_px, self.strip_width / full, t)
        return small

    def disturbed(self, t: float) -> None:
        """A ball was disturbed at video time `t` (between shots: the frames around it open the next strip)."""
        if not self.active:
            self._disturbed.append(t)

    def add_contact(self, p_px: tuple[float, float] | None) -> None:
        if self.active and p_px is not None:
            self._contacts.append((p_px[0] * self._scale, p_px[1] * self._scale))

    def end(self) -> Path | None:
        """Write the thumbnail of the shot that just ended; keep its strip until its verdict is known."""
        if not self.active or self._base is None:
            return None
        img = self._base.copy()
        for ball, track in self._tracks.items():
            if len(track) >= 2:
                pts = np.round(np.array(track)).astype(np.int32).reshape(-1, 1, 2)
                cv2.polylines(img, [pts], False, ball_colour(ball), 2, cv2.LINE_AA)
                _label(img, {ball: track[-1]}, 1.0, None)  # which ball ran this track: its id where it stopped
        for x, y in self._contacts:
            cv2.circle(img, (round(x), round(y)), 7, (0, 0, 255), 2, cv2.LINE_AA)
        path = shot_thumb_path(self.out, self.shot)
        path.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 80])
        self._ended[self.shot] = (self._before, self._strip)
        self._strip, self._before = [], []
        for old in [k for k in self._ended if k <= self.shot - 4]:  # verdicts come within a shot or two
            del self._ended[old]
        self.active = False
        return path

    def write_strip(self, shot: int, n: int = 6) -> Path | None:
        """The frame strip of a recently ended shot (call once its verdict says foul or review)."""
        before, frames = self._ended.get(shot, ([], []))
        if not frames and not before:
            return None
        idx: list[int] = (np.linspace(0, len(frames) - 1, min(n, len(frames))).round().astype(int).tolist()
                          if frames else [])
        strip = np.hstack([*before, *(frames[i] for i in idx)])
        path = shot_strip_path(self.out, shot)
        path.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(path), strip, [cv2.IMWRITE_JPEG_QUALITY, 75])
        return path


def event_label(e: Event) -> str:
    """A short caption for an event, for the annotated video and the timeline."""
    if e.type is EventType.BALL_CONTACT and e.balls:
        return f"{e.balls[0]}-{e.balls[1]} contact"
    if e.type is EventType.CUSHION:
        return f"{e.ball} cushion {e.cushion}"
    if e.type is EventType.LINE_CROSS:
        return f"{e.ball} crosses {e.line} line"
    if e.type is EventType.POT:
        return f"{e.ball} potted {e.pocket}"
    if e.type is EventType.SHOT_START:
        return f"shot: {e.ball or 'C'} struck"
    return f"{e.type}" + (f" {e.ball}" if e.ball else "")
