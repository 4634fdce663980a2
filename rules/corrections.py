"""Corrected events: an `override` may remove or add ball events of its shot, or correct its shot_start.

The log itself is never edited: the shot is judged from its events with the corrections applied, and the
verdict records what was corrected and why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rules.events import Event
from rules.records import ShotRecord

_T_TOL = 1e-3


def _matches(e: Event, sel: Mapping[str, Any]) -> bool:
    d = e.to_dict()
    for k, v in sel.items():
        if k == "t":
            if abs(e.t - float(v)) > _T_TOL:
                return False
        elif k == "balls":
            if e.balls is None or sorted(e.balls) != sorted(str(b) for b in v):
                return False
        elif str(d.get(k)) != str(v):
            return False
    return True


def corrected(rec: ShotRecord) -> tuple[ShotRecord, list[str]]:
    """The shot with its overrides' event corrections applied, and a note per correction.

    `override.events = {"remove": [selector, ...], "add": [event, ...]}`: a selector names an event by
    its fields (`type`, `t`, `ball`, `balls`, `cushion`, `pocket`); `override.start = {field: value}`
    corrects the shot_start (e.g. the struck `ball`). Raises ValueError naming the override's line when a
    selector matches no event of the shot.
    """
    if not any(ov.get("events") or ov.get("start") for ov in rec.overrides):
        return rec, []
    events = list(rec.events)
    start = rec.start
    notes: list[str] = []
    for ov in rec.overrides:
        spec = ov.get("events") or {}
        for sel in spec.get("remove", []):
            hit = [e for e in events if _matches(e, sel)]
            if not hit:
                raise ValueError(f"line {ov.line}: override removes an event shot {rec.number} does not have: {sel}")
            for e in hit:
                events.remove(e)
            notes.append(f"removed {len(hit)} event(s) {dict(sel)}")
        for d in spec.get("add", []):
            try:
                events.append(Event.from_dict({"frame": rec.start.frame, "confidence": 1.0, **d}))
            except ValueError as exc:
                raise ValueError(f"line {ov.line}: override adds a bad event: {exc}") from exc
            notes.append(f"added {d.get('type')} event at t={d.get('t')}")
        if ov.get("start"):
            start = Event.from_dict({**start.to_dict(), **dict(ov.get("start"))})
            notes.append(f"shot_start corrected: {dict(ov.get('start'))}")
    return replace(rec, start=start, events=sorted(events, key=lambda e: e.t)), notes
