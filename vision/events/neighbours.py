"""The other balls around a contact: a second moving ball that could have struck the same resting ball, a
ball touching the kinked one, a resting neighbour the striker reached first (Newton's cradle), a ball the
striker stopped against before its line reached the one that left."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from vision.events.fit import fit_line
from vision.events.history import History
from vision.events.kink import Pieces, RestLookup
from vision.events.settings import EventSettings, noise_model

if TYPE_CHECKING:
    from vision.events.contacts import Window

# A start from rest two moving balls could have caused: unless the other's line of centres is farther from the
# direction of start by more than this (or two sigmas of that direction), the contact is for review
RIVAL_MIN_DEG = 5.0


def rival_striker(w: Window, x: int, striker: int, anchor: np.ndarray, t_c: float, v: np.ndarray,
                   sigma_v: float) -> bool:
    """Was another moving ball within the gate of x (resting at `anchor`) when x started, with its line of
    centres not clearly farther from x's direction of start than the striker's (by that direction's noise:
    two sigmas, at least `RIVAL_MIN_DEG`)? A ball at rest leaves along the line of centres of what hit it,
    so then the start does not say which of the two struck it."""
    speed = float(np.hypot(*v))
    s, radius = w.s, w.radius

    def angle(q: np.ndarray) -> float:
        rel = anchor - q
        c = float(np.dot(v, rel)) / max(speed * float(np.hypot(*rel)), 1e-9)
        return float(np.degrees(np.arccos(np.clip(c, -1.0, 1.0))))

    def where(y: int) -> tuple[np.ndarray, float] | None:
        ty, xy = w.hist.track(y, w.n_lo, w.n_hi)
        if len(ty) < 2 or not float(ty[0]) <= t_c <= float(ty[-1]):
            return None
        q = np.array([np.interp(t_c, ty, xy[:, 0]), np.interp(t_c, ty, xy[:, 1])])
        return q, float(np.max(np.hypot(*np.diff(xy, axis=0).T)))

    mine = where(striker)
    if mine is None:
        return False
    noise = max(2.0 * float(np.degrees(sigma_v / max(speed, 1e-9))), RIVAL_MIN_DEG)
    for y in range(len(w.hist.ids)):
        if y in (x, striker) or w.rest.anchor_at(y, t_c - 1.0 / w.fps) is not None:
            continue  # a ball at rest beside x is a pack's business (clusters), not a rival striker
        was = w.rest.anchor_at(y, w.hist.time(w.n_lo))
        if was is not None and float(np.hypot(*(was - anchor))) - 2 * radius <= s.cause_gap_mm:
            continue  # it rested touching x a moment ago: a pack set moving, whose impulses add (clusters)
        got = where(y)
        if got is None:
            continue
        q, step = got
        if float(np.hypot(*(q - anchor))) - 2 * radius > s.contact_gate_mm + step:
            continue
        if angle(q) < angle(mine[0]) + noise:
            return True  # not clearly the worse fit: the start cannot tell which of the two struck x
    return False


def touching_other(w: Window, x: int, partner: int, p_x: np.ndarray, t: float) -> bool:
    """Was a ball other than `partner` within the contact gate of ball x (at p_x) at time t? Its position
    is its rest anchor, or its samples interpolated at t."""
    for y in range(len(w.hist.ids)):
        if y in (x, partner):
            continue
        q = w.rest.anchor_at(y, t)
        if q is None:
            ty, xy = w.hist.track(y, w.n_lo, w.n_hi)
            if len(ty) < 2 or not float(ty[0]) <= t <= float(ty[-1]):
                continue
            q = np.array([np.interp(t, ty, xy[:, 0]), np.interp(t, ty, xy[:, 1])])
        if abs(float(np.hypot(*(q - p_x))) - 2 * w.radius) <= w.s.contact_gate_mm:
            return True
    return False


def through_neighbour(
    hist: History,
    rest: RestLookup,
    x: int,
    striker: int,
    anchor: np.ndarray,
    p_striker: np.ndarray,
    t_before: float,
    dist: float,
    radius: float,
    s: EventSettings,
) -> bool:
    """Did the striker reach a resting ball touching x before x itself? Then it struck that one, which
    passed the impulse on to x (Newton's cradle): x's start proves no contact with the striker. The
    striker's centre at x's start is compared with both rest centres from the same samples, so its own
    error cancels; a neighbour is preferred only when nearer by more than the position noise."""
    for y in range(len(hist.ids)):
        if y in (x, striker):
            continue
        q = rest.anchor_at(y, t_before)
        if q is None or float(np.hypot(*(q - anchor))) - 2 * radius > s.cause_gap_mm:
            continue  # not at rest touching x
        if float(np.hypot(*(q - p_striker))) < dist - 2 * s.noise_moving_mm:
            return True
    return False


def stopped_short(w: Window, t: np.ndarray, xy: np.ndarray, t_c: float, anchor: np.ndarray) -> bool:
    """The striker's own way after t_c, run back to t_c, starts clear of the ball by more than a contact gate and
    three sigmas (its noise, and its fitted speed's error over the run back): it stopped against another ball its
    line ran past first (seed-149 frame_free: C into 5, which passed the hit on to 15 touching it behind; C's line
    ran on to 15, which left along it). Read only on the striker's next two samples within two frames of t_c, and
    not when a cushion lay within its reach of them (a bounce inside the frame folds the way back)."""
    s, radius, fps = w.s, w.radius, w.fps
    after = (t > t_c) & (t <= t_c + 2.0 / fps + 1e-9)
    if after.sum() < 2:
        return False
    tt, pp = t[after][:2], xy[after][:2]
    post = fit_line(tt, pp, noise_model(s))
    if post is None:
        return False
    back = post.at(t_c)
    if w.table is not None:
        reach = float(np.hypot(*(pp[-1] - back)))
        if min(w.table.cushion_gaps(pp[0]).values(), default=np.inf) <= reach:
            return False
    sigma = float(np.hypot(noise_model(s)(post.speed), post.sigma_v * abs(t_c - float(tt.mean()))))
    gap = float(np.hypot(*(back - anchor))) - 2 * radius
    return gap > s.contact_gate_mm + 3.0 * sigma


def took_none(w: Window, x: int, p: Pieces, j: float, impulse: float, sigma: float, t: float) -> bool:
    """Ball x, at rest before and passed clear by the other's lines, free (no ball or cushion nose within 2R,
    which could take the impulse on or send it back inside a frame), was seen after the kink without the
    impulse the other ball's kink gives it, by `kink_z_review` of both balls' errors (`sigma`): equal masses, it
    would have left at that speed along the line of centres. The kink may well be something else (the cloth slowing a
    ball that came back off another: seed-233 frame_russian71, C's slowdown read as a hit on 10, 15 mm off its
    line and never moved, and taken for the shot's first contact)."""
    if p.post.n < 3 or impulse - max(j, 0.0) <= w.s.kink_z_review * max(sigma, 1e-9):
        return False
    anchor = w.rest.anchor_at(x, t - 1.0 / w.fps)
    if anchor is None or w.table is None or w.table.frozen_cushions(anchor, 2 * w.radius):
        return False
    for y in range(len(w.hist.ids)):
        other = w.rest.anchor_at(y, t - 1.0 / w.fps) if y != x else None
        if other is not None and w.table.ball_gap(anchor, other) <= 2 * w.radius and not _left_across(
                w, y, other, anchor, t):
            return False  # the impulse went on into that ball (a cradle, or a gap closed inside the frame)
    return True


def _left_across(w: Window, y: int, rest_y: np.ndarray, rest_x: np.ndarray, t: float) -> bool:
    """Did ball y, at rest beside x, leave after t more than 60 degrees off the line of centres from x to it? An
    impulse passed on through x leaves along that line: y was hit from elsewhere (seed-271 frame_free: C passed
    11 mm from 5 and hit 15, 7 mm beside it; 15 left 62 degrees off the line from 5 and C's kink was read as a
    hit on 5, which never moved, at 1.0 and as the shot's first contact)."""
    c = w.hist.counter_at(t)
    _, xy = w.hist.track(y, c, c + 3)
    if not len(xy):
        return False
    d = xy[-1] - rest_y
    run, line = float(np.hypot(*d)), rest_y - rest_x
    if run <= 2 * w.s.onset_mm:
        return False  # not seen to leave (yet): it may have taken the impulse on
    return float(np.dot(d, line)) < 0.5 * run * float(np.hypot(*line))

