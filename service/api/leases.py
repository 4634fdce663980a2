"""Who runs an analysis: a server identity that cannot collide, and the lock on an analysis's output folder.

Servers that share a database lease the analyses they run (service.api.db). A lease names its holder by a
`ServerId`: host name and pid for people, a random token, and the kernel's boot id, PID namespace and the
process's start time, so a holder is only ever declared dead by a server that can see it: one on the same
boot of the same kernel in the same PID namespace, where "no such pid" (or a pid now started at another
time) means the holder is gone. Anywhere else (another host, another container with the same host name)
nothing is concluded and the lease simply lapses.

The database writes of an analysis are fenced by the lease's epoch (db.Fence). Its output folder (events.jsonl,
the checkpoint, the annotated parts) is not in the database: a worker holds an OS lock on the folder while it
runs, so a server that took the analysis over touches the files only once the old worker has stopped.
"""

from __future__ import annotations

import fcntl
import os
import socket
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

LOCK_FILE = ".lock"


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii") as f:
            return f.read().strip()
    except OSError:
        return ""


def boot_id() -> str:
    """The kernel's id of this boot ('' where /proc does not give it)."""
    return _read("/proc/sys/kernel/random/boot_id")


def pid_namespace() -> str:
    """The inode of this process's PID namespace ('' where it cannot be read)."""
    try:
        link = os.readlink("/proc/self/ns/pid")  # "pid:[4026531836]"
    except OSError:
        return ""
    return link.partition("[")[2].rstrip("]")


def start_ticks(pid: int) -> str:
    """When process `pid` started (clock ticks after boot, /proc/<pid>/stat field 22); '' if unknown."""
    stat = _read(f"/proc/{pid}/stat")
    fields = stat.rpartition(")")[2].split()  # the command name, in parentheses, may hold spaces
    return fields[19] if len(fields) > 19 else ""


@dataclass(frozen=True)
class ServerId:
    host: str
    pid: int
    token: str
    boot: str
    pidns: str
    start: str

    @classmethod
    def mine(cls) -> ServerId:
        pid = os.getpid()
        return cls(socket.gethostname(), pid, uuid.uuid4().hex[:12], boot_id(), pid_namespace(), start_ticks(pid))

    def __str__(self) -> str:
        return ":".join((self.host, str(self.pid), self.token, self.boot, self.pidns, self.start))

    @classmethod
    def parse(cls, owner: str) -> ServerId | None:
        parts = owner.split(":")
        if len(parts) != 6 or not parts[1].isdigit():
            return None  # an owner written before this format: only its lease's lapse frees it
        return cls(parts[0], int(parts[1]), *parts[2:])


def seen_dead(owner: str, me: ServerId) -> bool:
    """True only when the holder `owner` is certainly gone: it ran on this boot in this PID namespace and its
    pid no longer exists, or now belongs to a process started at another time. Anything else is not seen."""
    other = ServerId.parse(owner)
    if other is None or not me.boot or not me.pidns or (other.boot, other.pidns) != (me.boot, me.pidns):
        return False
    try:
        os.kill(other.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        pass
    now = start_ticks(other.pid)
    return bool(now and other.start and now != other.start)


class FolderBusy(Exception):
    """Another worker (a server whose lease was taken over, not stopped yet) still holds the output folder."""


class FolderLock:
    """An exclusive OS lock (flock) on `<out>/.lock`, held while a worker writes the folder. Released when
    closed, or by the kernel when the process dies."""

    def __init__(self, out: Path) -> None:
        out.mkdir(parents=True, exist_ok=True)
        self.path = out / LOCK_FILE
        self._f: TextIO | None = self.path.open("a", encoding="utf-8")

    def try_take(self, holder: str = "") -> bool:
        """Take the lock without waiting; the file then names `holder`, for a waiter to say who holds it."""
        assert self._f is not None
        try:
            fcntl.flock(self._f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        if holder:
            self._f.truncate(0)
            self._f.write(holder + "\n")
            self._f.flush()
        return True

    def holder(self) -> str:
        """Who last took the lock (as it named itself), or "" when nobody said."""
        try:
            return (self.path.read_text(encoding="utf-8", errors="replace").strip())[:300]
        except OSError:
            return ""

    def close(self) -> None:
        if self._f is not None:
            self._f.close()  # closing the descriptor drops the lock
            self._f = None
