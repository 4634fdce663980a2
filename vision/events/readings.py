"""Events from readings: the ball_contact of a contact reading and the cushion event of a touch reading, as the
full reading (`EventDetector`) and the early one (`EarlyLook`) both put them out."""

from __future__ import annotations

from typing import Any

import numpy as np

from rules.events import Event, EventType
from vision.events.contacts import Contact
from vision.events.cushions import Touch
from vision.events.settings import EventSettings


def contact_event(c: Contact, ids: tuple[str, ...], radius: float, s: EventSettings) -> Event:
    """The ball_contact event of a contact reading (frame 0: the emitter stamps it)."""
    # the striker first: the faster ball before the contact
    a, b = (c.a, c.b) if c.pieces[0].pre.speed >= c.pieces[1].pre.speed else (c.b, c.a)
    extra: dict[str, Any] = {}
    if c.review or abs(c.margin_mm) <= s.review_band_mm:
        extra["margin_mm"] = round(c.margin_mm, 2)
    if c.review:
        extra["review"] = True
    if c.rival:
        extra["why"] = "another moving ball was as near when the resting ball started, as well aligned"
        extra["rival"] = True  # 1.9: the doubt is which ball struck, not whether one did (rules.doubts)
    pa, pb = c.pieces
    if pa.at_rest_before and pb.at_rest_before and (
        float(np.hypot(*(pa.pre.p0 - pb.pre.p0))) - 2 * radius <= s.frozen_tol_mm
    ):
        # both at rest, touching: an impulse passed on through touching balls (two at rest apart met
        # within the frame of a stroke: an ordinary hit)
        extra["cluster"] = True
    return Event(EventType.BALL_CONTACT, c.t, 0, float(round(c.confidence, 4)), balls=(ids[a], ids[b]), extra=extra)


def touch_event(tc: Touch, ids: tuple[str, ...], s: EventSettings) -> Event:
    """The cushion event of a touch reading (frame 0: the emitter stamps it)."""
    extra: dict[str, Any] = {}
    if tc.jaw is not None:
        extra["jaw"] = tc.jaw
    if tc.review or abs(tc.margin_mm) <= s.review_band_mm:
        extra["margin_mm"] = round(tc.margin_mm, 2)
    if tc.review:
        extra["review"] = True
    if tc.stopped:
        extra["stopped_at_nose"] = True
    if tc.why is not None:
        extra["why"] = tc.why
    return Event(EventType.CUSHION, tc.t, 0, float(round(tc.confidence, 4)), ball=ids[tc.ball], cushion=tc.cushion,
                 extra=extra)
