"""Disturbance or not: a ball at rest that moves with no stroke and no collision (1.17), read off its run and
off where it rests after it.

A slow start with no cause is a disturbance only if the ball was displaced. A hand, a sleeve or the cue over a
resting ball shifts its tracked centre a few mm while it covers it (the tracker sees part of the ball, or the
occluder's edge), and the centre comes back when it leaves: that start moved nothing (`came_back`). A real
disturbance leaves the ball elsewhere: no friction and no cloth bring a rolling ball back onto the spot it
left, only a collision or a cushion, and either would be the start's cause.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.events.history import COVERED_CONF, History
from vision.events.motion import Onset
from vision.events.settings import EventSettings, frames
from vision.events.strokes import FOLLOW_GAIN, RunFit
from vision.types import BallState

# How long a slow start with no cause waits to show where its ball rests: a ball below the stroke speed
# between shots (100 mm/s) stops within ~1 s at the cloth's rolling deceleration (~100 mm/s^2), a push of
# 50 mm/s in ~0.5 s; an occluder passing over a ball uncovers it within that time in the cases seen (the cue
# withdrawn, a hand passing). Past it the start is judged on its run alone, as before this reading existed.
SETTLE_WAIT_S = 1.0
# The longest a would-be disturbance waits for a cover to lift before it is judged on what was seen (`covered_now`):
# a player leaning over the table to aim covers a ball for a second or two; the judgement holds later events back
COVER_WAIT_MAX_S = 3.0
# How long after a start its launch may stay covered and still count as unseen (`left_covered`): a ball
# leaving at a few hundred mm/s is a radius clear of the hand's edge within ~0.2 s
LAUNCH_SEEN_S = 0.2
# A ball read weakly (inside an occluder's blob) this long before it left, and through its launch, left covered
# too: the cue's tip reaches a ball's blob in its last frame before the strike, a hand lies over it first
COVERED_BEFORE_S = 0.2


def launched_covered(hist: History, o: Onset, fps: float) -> bool | None:
    """Was the ball under a cover from its first moving sample through its launch (`LAUNCH_SEEN_S`, two samples at
    least), with no clear sample: held hidden or read weakly (`COVERED_CONF`) in every one? A cue's tip merges
    with a ball's blob in the frame it strikes; an arm lying over a ball drags its tracked centre along (seed-137
    frame_free: 11 beside the rear cushion read at 0.27 while "rolling" 25 mm at 100 mm/s under a player's arm,
    then found back on its place: a stroke of 11, a 1.5.3 foul and a 1.14.2 on the real shot). Such a start is
    judged on where the ball rests. None while every sample so far is covered but the launch is not yet all held."""
    n = frames(LAUNCH_SEEN_S, fps, 2)
    after = hist.idx(o.n_first, min(hist.newest, o.n_first + n - 1))
    if not bool(np.all(_covered(hist, after, o.ball))):
        return False
    return True if len(after) >= n else None


def _clear(hist: History, k: np.ndarray, b: int) -> np.ndarray:
    """Per sample counter in k: ball b seen clear (valid, not held hidden, read at `COVERED_CONF` or above)."""
    return hist.valid[k, b] & (hist.conf[k, b] >= COVERED_CONF) & (hist.state[k, b] != BallState.HIDDEN)


def _covered(hist: History, k: np.ndarray, b: int) -> np.ndarray:
    """Per sample counter in k: ball b under a cover (held hidden, or read weakly); neither clear nor lost."""
    return (hist.state[k, b] == BallState.HIDDEN) | (hist.valid[k, b] & (hist.conf[k, b] < COVERED_CONF))


def covered_wobble(hist: History, o: Onset, s: EventSettings, fps: float) -> bool | None:
    """Did the ball leave its rest in covered samples only (held hidden or read weakly, `COVERED_CONF`) and sit on
    its place again in its first clear ones (half a rest window, three at least, all within `rest_radius_mm` of
    its anchor, or of where it was last seen clear before)? Then nothing moved: an arm over touching balls reads
    their merged centres apart (seed-149 frame_free: 5, 6 and 15 read 13 mm off for three frames, each the others'
    cause, two pack contacts in a shot where C touched nothing). False for a start whose first moving sample is
    clear, that was lost rather than covered, or that is found elsewhere; None while it is still covered (up to
    `SETTLE_WAIT_S`, well inside the history) or its clear run is not yet all seen."""
    b = o.ball
    k = hist.idx(o.n_first, hist.newest)
    if len(k) == 0:
        return None
    clear = _clear(hist, k, b)
    first = int(np.argmax(clear)) if bool(clear.any()) else len(k)
    if first == 0 or not bool(_covered(hist, k[:first], b).all()):
        return False  # seen leaving, or lost (potted, taken off) rather than covered: judged as any start
    if first == len(k):
        # still covered: wait, within the history the start is judged on
        return None if hist.time(hist.newest) - o.t < SETTLE_WAIT_S else False
    need = frames(0.5 * s.rest_window_s, fps, 3)
    if len(k) - first < need:
        return None
    if not bool(clear[first : first + need].all()):
        return False
    run = k[first : first + need]
    # its place: the rest it left, or where it was last seen clear before (a rest the tracker settled on under the
    # cover is the cover's: seed-163 hanging_ball_drops_later, 12 read 10 mm off for half a second under an arm,
    # "rested" there, then "left" back onto its place; a 1.17 on a legal shot)
    homes = [o.anchor]
    before = hist.idx(hist.oldest, o.n_first - 1)
    seen = before[_clear(hist, before, b)]
    if len(seen):
        homes.append(hist.xy[seen[-1], b])
    return any(bool(np.all(np.hypot(*(hist.xy[run, b] - h).T) <= s.rest_radius_mm)) for h in homes)


def came_back(hist: History, o: Onset, homes: list[np.ndarray], s: EventSettings, fps: float) -> bool:
    """Did the ball's centre come back onto a rest position it had (`homes`: its anchor before the start, or
    before the slow start this one followed) after the start and sit there: every sample of a run of half a
    rest window (at least three samples) within `rest_radius_mm` of it? A ball that left by more than
    `onset_mm` is not found back within the rest radius, still, unless something sent it back; with no cause
    of its start, nothing did: its centre only wobbled under a cover."""
    t, xy = hist.track(o.ball, o.n_first, hist.newest)
    if len(t) == 0:
        return False
    need = frames(0.5 * s.rest_window_s, fps, 3)
    home = np.min([np.hypot(*(xy - h).T) for h in homes], axis=0) <= s.rest_radius_mm
    run = 0
    for k in range(len(t)):
        if not home[k]:
            run = 0
            continue
        seen = k > 0 and float(t[k] - t[k - 1]) <= s.start_seen_s + 1e-9  # a run seen, not bridged over a gap
        run = run + 1 if seen and run > 0 else 1
        if run >= need:
            return True
    return False


def left_covered(hist: History, o: Onset, fps: float) -> bool:
    """Did the ball leave its rest position while covered: from its last clear sample before the start to its
    first clear one after it (within `LAUNCH_SEEN_S`), at least two frames, every one of them held hidden by
    the tracker (an occluder over it) or read weakly (`COVERED_CONF`: a disc inside an occluder's blob, or a
    frame it was missed), and at least one held hidden? The cue's tip strikes a ball the camera sees (the
    bridge hand and the arm are behind it): a tip that touches the ball's blob as it strikes makes a weak
    reading or a missed frame, never the ball lost under it; what hides a ball as it starts is a hand, a
    sleeve, an arm. The hand may hide the ball only once it is moving (seed-53 foul_ball_touched_by_hand: read
    weakly under the hand for 0.3 s, lost for four frames just after it left, found clear 10 mm on), so the
    launch counts up to the first clear sample. A ball read weakly for `COVERED_BEFORE_S` before it left and
    through at least two frames of its launch left covered too, though never lost: a tip merges with the
    ball's blob only in the frame it strikes. One clear reading alone right after a cover that long does not end
    it (the hand's edge parting from the ball)."""
    k = hist.idx(o.n_first - hist.size, o.n_first - 1)
    if len(k) == 0:
        return False
    clear = np.nonzero(hist.valid[k, o.ball] & (hist.conf[k, o.ball] >= COVERED_CONF))[0]
    long_cover = frames(COVERED_BEFORE_S, fps, 2)
    if len(clear) and int(clear[-1]) >= long_cover and (len(clear) < 2 or int(clear[-1]) - int(clear[-2]) > long_cover):
        # one clear reading after a cover of `COVERED_BEFORE_S` or more is the hand's edge parting from the ball, no
        # cover lifted (seed-137 frame_dynamic: 1 read weakly under a hand for a second, hidden a frame, clear once
        # on its place, then 25 mm off and rolling at 100 mm/s: a stroke at 709 mm/s for a hand's push)
        clear = clear[:-1]
    before = k[int(clear[-1]) + 1 :] if len(clear) else k  # covered longer than the history holds: all of it
    after = hist.idx(o.n_first, min(hist.newest, o.n_first + frames(LAUNCH_SEEN_S, fps, 2)))
    seen = np.nonzero(hist.valid[after, o.ball] & (hist.conf[after, o.ball] >= COVERED_CONF))[0]
    gap = np.concatenate([before, after[: int(seen[0])] if len(seen) else after])
    hidden = hist.state[gap, o.ball] == BallState.HIDDEN
    # or read weakly for a while before it left as well as through its launch: a hand laid over it (seed-67
    # frame_dynamic, seed-89 frame_free: pushed at 150 mm/s under a hand read weakly 0.3 s before and 0.2 s
    # after, never lost, and called a stroke); a cue's tip merges with a ball's blob only as it strikes
    covered_long = len(before) >= frames(COVERED_BEFORE_S, fps, 2) and len(gap) - len(before) >= 2
    return len(gap) >= 2 and (bool(hidden.any()) or covered_long) and bool(np.all(hidden | hist.valid[gap, o.ball]))


def covered_now(hist: History, b: int, s: EventSettings, fps: float) -> bool:
    """Is the ball under a cover now (`History.covered`) in any of its last half rest window's frames (at least
    three)? Where a covered ball rests shows only once it has been seen clear for that long: as long as
    `came_back` needs to find it back on its place. A ball the tracker gave up (lifted off) will not show again."""
    return hist.covered(b, hist.newest - frames(0.5 * s.rest_window_s, fps, 3) + 1, hist.newest)


def impulse_or_push(fit: RunFit, floor: float, s: EventSettings) -> tuple[bool, float, dict[str, Any]]:
    """Stroke or disturbance from a start's run: (disturbed, confidence, extra). A stroke is an impulse at
    or above the stroke speed `floor`; a run that sped up beyond what follow spin gives (`FOLLOW_GAIN`) was
    pushed, whatever its speed; a call within `push_z` standard errors of either line is flagged for review."""
    extra: dict[str, Any] = {"speed_sigma_mm_s": round(fit.sigma_v, 1)}
    excess = fit.gain - (FOLLOW_GAIN - 1.0) * max(fit.v, 0.0)  # speed-up beyond what a stroke can give
    z_push = excess / max(fit.sigma_gain, 1e-9)
    pushed = z_push >= s.kink_z and excess >= s.kink_min_mm_s
    z_speed = (fit.v - floor) / max(fit.sigma_v, 1e-9)
    disturbed = pushed or z_speed < 0
    if pushed:
        extra["accelerating"] = True
        extra["speed_gain_mm_s"] = round(fit.gain, 1)
    why = []
    if abs(z_speed) < s.push_z and not pushed:
        why.append(f"launch speed {fit.v:.0f} +- {fit.sigma_v:.0f} mm/s against the stroke speed {floor:.0f} mm/s")
    if not pushed and s.kink_z_review <= z_push and excess >= s.kink_min_mm_s:
        why.append(f"the run sped up by {fit.gain:.0f} mm/s: a push?")
    if why:
        extra["review"] = True
        extra["why"] = "; ".join(why)
    conf = 0.9 if not why else 0.6
    return disturbed, conf, extra


def covered_push(fit: RunFit | None, speed: float, s: EventSettings) -> tuple[float, dict[str, Any]] | None:
    """A start that left covered (`left_covered`) slower than `early_stroke_min_speed_mm_s` (600 mm/s), between
    shots too: (confidence, extra) of a disturbance, always for review (the hand that moved it was seen, the
    touch was not), or None when it ran faster. Between shots a stroke may be slower (100 mm/s), but not one
    struck out of sight: a hand pushing a ball goes up to a few hundred mm/s (the renders' up to 210), and a
    slow stroke is aimed in view."""
    v = fit.v if fit is not None else speed
    if v >= s.early_stroke_min_speed_mm_s:
        return None
    extra: dict[str, Any] = {"covered": True, "review": True,
                             "why": f"left its rest position unseen under a hand or an arm, at {v:.0f} mm/s"}
    if fit is not None:
        extra["speed_sigma_mm_s"] = round(fit.sigma_v, 1)
    return 0.6, extra
