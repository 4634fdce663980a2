"""The live feed hub: every append to a match's log and every new fold is published to its subscribers.

Publishers may be request handlers (event loop thread) or the analysis worker thread; `publish` is
thread-safe. A slow subscriber's queue is bounded; when it overflows the subscriber is told to reconnect
(it then replays from the database by sequence number), so nothing is lost, only delayed.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from typing import Any

QUEUE_MAX = 1000


@dataclass
class Subscriber:
    match_id: int
    queue: asyncio.Queue[dict[str, Any]]
    loop: asyncio.AbstractEventLoop
    overflowed: bool = False


@dataclass
class LiveHub:
    _subs: list[Subscriber] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # Set when the service is told to stop: open feeds end (browsers reconnect to the next process), or
    # the server would wait for them forever before shutting down.
    closing: threading.Event = field(default_factory=threading.Event)

    def subscribe(self, match_id: int) -> Subscriber:
        sub = Subscriber(match_id, asyncio.Queue(QUEUE_MAX), asyncio.get_running_loop())
        with self._lock:
            self._subs.append(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        with self._lock:
            if sub in self._subs:
                self._subs.remove(sub)

    def publish(self, match_id: int, item: dict[str, Any]) -> None:
        with self._lock:
            subs = [s for s in self._subs if s.match_id == match_id]
        for s in subs:
            try:
                s.loop.call_soon_threadsafe(self._put, s, item)
            except RuntimeError:  # that subscriber's loop is closed
                self.unsubscribe(s)

    @staticmethod
    def _put(sub: Subscriber, item: dict[str, Any]) -> None:
        try:
            sub.queue.put_nowait(item)
        except asyncio.QueueFull:
            sub.overflowed = True

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subs)
