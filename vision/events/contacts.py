"""Ball-ball contacts: candidates where two centres come near 2R, confirmed by the kink they must show.

In a collision the impulse on each ball lies along the line of centres (b is pushed away from a, a back
from b), so the velocity change of at least one of them, projected on that line, must stand out of the
fit noise. Glancing hits give the object ball a small but exactly aligned change; a near miss gives none.
The contact time is where the pre-contact lines reach 2R (the kink of the stronger track if they never
do, which means the lines missed narrowly and only the kink proves the contact).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from calibration.table import Table
from vision.events.fit import first_time_within, fit_line
from vision.events.history import History
from vision.events.kink import Pieces, RestLookup, best_split, kink_confidence, kink_time_error
from vision.events.neighbours import rival_striker, stopped_short, through_neighbour, took_none, touching_other
from vision.events.settings import EventSettings, noise_model

# Each ball of a weak kink must show the impulse by at least one standard error of its own velocity change:
# noise alone puts one ball there 16 % of the time and both 2.5 %; in a collision of two moving balls both
# mostly are, when their combined reading is a weak kink (each carries about half of it)
_BOTH_SHOW_Z = 1.0
# A start from rest another moving ball could have caused as well (neighbours.rival_striker): for review, at this
_RIVAL_CONF = 0.45
_NEAR_CONF = 0.45  # a slow kiss whose margin lies within the review band: reported, not asserted
LEAVE_COS = float(np.cos(np.radians(40.0)))  # a ball hit at rest leaves within this of the line of centres


@dataclass(frozen=True)
class Contact:
    a: int
    b: int
    t: float
    z: float  # the stronger impulse in standard errors
    impulse_mm_s: float  # the stronger velocity change along the line of centres
    margin_mm: float  # closest approach of the pre-contact lines minus 2R (negative: they overlap)
    u: np.ndarray  # unit line of centres a -> b at contact
    confidence: float
    review: bool
    pieces: tuple[Pieces, Pieces]
    rival: bool = False  # a start from rest another moving ball could have caused as well (`rival_striker`)
    knocked: bool = False  # b, at rest, left the view inside the frame (`knocked`): nothing of its own motion seen


@dataclass(frozen=True)
class Window:
    """Where a candidate contact is tested: the track history and rest lookup, the settings, the counter m
    of the candidate, the first counter of the pre-contact fit (n_lo) and the last of the post-contact
    fit (n_hi), the ball radius (mm), the frame rate (frames/s) and the times of each ball's contacts and
    touches already found (its kinks)."""

    hist: History
    rest: RestLookup
    s: EventSettings
    m: int
    n_lo: int
    n_hi: int
    radius: float
    fps: float
    kinks: Mapping[int, Sequence[float]]
    table: Table | None = None  # the cushion noses, for a ball hit into one within its first frame


def pair_candidates(hist: History, rest: RestLookup, m: int, radius: float, s: EventSettings) -> list[tuple[int, int]]:
    """Pairs whose sampled centre distance has a local minimum at counter m, near enough to have touched."""
    if not (hist.has(m - 1) and hist.has(m + 1)):
        return []
    t_before = hist.time(m - 2)
    if not any(rest.moving_at(b, t_before) for b in range(len(hist.ids))):
        return []  # no ball moving before: no pair can pass the test below
    xy, ok = hist.filled(m - 1, m + 1)  # (3, B, 2), (B,)
    d = np.linalg.norm(xy[:, :, None, :] - xy[:, None, :, :], axis=-1)  # (3, B, B)
    step = np.linalg.norm(xy[2] - xy[0], axis=-1) / 2.0  # distance run per frame
    gate = 2 * radius + s.contact_gate_mm + step[:, None] + step[None, :]
    # or where it stopped closing at touching distance: a ball that runs into a still pack (an incomplete rack's
    # apex at the break) stops against the ball it hit and is pushed on behind it, so their distance has no
    # minimum (seed-101 break_incomplete_rack: C at 7 m/s into 1, then 1 mm a frame closer; no first contact).
    # It closed by more than the contact gate in that frame: a ball that ran in, not a crawl within the noise
    closing = d[0] - d[1]
    ran_in = (closing > step[:, None] + step[None, :]) & (closing > s.contact_gate_mm)
    stopped = ran_in & (d[1] - d[2] < 0.5 * closing)
    hit = (d[1] <= gate) & (d[1] <= d[0]) & ((d[1] < d[2]) | stopped) & ok[:, None] & ok[None, :]
    out = []
    for a, b in zip(*np.nonzero(np.triu(hit, 1)), strict=True):
        if not (rest.moving_at(int(a), t_before) or rest.moving_at(int(b), t_before)):
            continue  # neither ball moving before: noise, or an impulse through a cluster (judged at the start)
        if not d[1, a, b] < d[2, a, b] and not (rest.anchor_at(int(a), t_before) is not None
                                              or rest.anchor_at(int(b), t_before) is not None):
            continue  # stopped closing, but into no ball at rest: two balls rolling on together
        out.append((int(a), int(b)))
    return out


def verify_in(w: Window, a: int, b: int) -> Contact | None:
    """Test a candidate contact of balls a and b in window w."""
    still = [x for x in (a, b) if w.rest.anchor_at(x, w.hist.time(w.m - 2)) is not None]
    if still:
        # a resting ball set moving (b first: the caller names the starting ball b)
        x = b if b in still else a
        got = _from_rest(w, x, a if x == b else b)
        if got is not None and (got.confidence >= 0.5 or got.rival):
            return got  # a rival's doubt is about who struck x: a split reading the same start cannot lift it
        if len(still) == 2:
            # both at rest two frames back: the other one was struck a frame before it hit x, from a rest
            # apart from x (touching balls are the pack's business): its kink proves the hit where x's start,
            # turned at once by a third ball, cannot (seed-227 frame_free: C into 5, 3 mm off 15)
            y = a if x == b else b
            t_m2 = w.hist.time(w.m - 2)
            ay, ax = w.rest.anchor_at(y, t_m2), w.rest.anchor_at(x, t_m2)
            if w.rest.anchor_at(y, w.hist.time(w.m)) is not None or ay is None or ax is None or _kinks_in(w, y):
                return got  # (one set moving by a contact found: a chain the starts judge, not a stroke's run)
            if float(np.hypot(*(ay - ax))) - 2 * w.radius <= w.s.touch_tol_mm:
                return got
            other = _split_contact(w, a, b)
            return other if other is not None and (got is None or other.confidence > got.confidence) else got
        if got is not None:
            # the resting ball hardly moved (the impulse went on through the balls touching it, Newton's
            # cradle): the striker's own kink may prove the contact where the start cannot
            other = _split_contact(w, a, b)
            return other if other is not None and other.confidence > got.confidence else got
    return _split_contact(w, a, b) or _split_past_kinks(w, a, b)


def _split_past_kinks(w: Window, a: int, b: int) -> Contact | None:
    """The split test again with each ball's incoming piece started after its last kink already found in
    the window (a cushion a frame or two before the contact: C off the rear cushion into a ball 1.8 frames
    later). A line fitted across that bounce points nowhere, so the ball reads as kinked against the
    impulse, or not at all; the first test runs without this, and alone decides where it finds a contact."""
    hist = w.hist
    lo = {}
    for x in (a, b):
        before = _kinks_in(w, x)
        if before:
            lo[x] = hist.counter_at(max(before)) + 1
        # a ball that left its rest inside the window (struck two frames before the hit, at 30 fps): its
        # incoming piece starts at its first moving sample, a line through its rest samples points nowhere
        rest = [c for c in range(w.n_lo, w.m) if w.rest.anchor_at(x, hist.time(c)) is not None]
        if rest and rest[-1] < w.m - 2 and w.rest.anchor_at(x, hist.time(w.m)) is None:
            lo[x] = max(lo.get(x, w.n_lo), rest[-1] + 1)
    return _split_contact(w, a, b, lo) if lo else None


def _kinks_in(w: Window, x: int) -> list[float]:
    """Times of the contacts and touches of ball x already found inside the window, before its last frame."""
    t_lo, t_top = w.hist.time(w.n_lo), w.hist.time(w.m - 1)
    return [t for t in w.kinks.get(x, ()) if t_lo < t <= t_top]


def _split_contact(w: Window, a: int, b: int, lo: Mapping[int, int] | None = None) -> Contact | None:
    """Both balls' tracks split at the kink: the velocity changes along the line of centres (`lo`: per
    ball, the first counter of its incoming piece, where not n_lo)."""
    hist, rest, s, m, n_lo, n_hi, radius, fps = w.hist, w.rest, w.s, w.m, w.n_lo, w.n_hi, w.radius, w.fps
    # from_rest: a striker struck a frame or two before the hit runs from its rest centre; a free line through its
    # rest and moving samples is too slow and dates the hit late (seed-211 frame_dynamic: 15 ms, past a return).
    # Not a ball whose start was a contact already found: it may have been hit again inside that frame (seed-127
    # frame_russian71: 1 hit by C and at once into 6, then creeping; its "run" was 130 mm/s, C's second hit lost)
    runs = frozenset(x for x in (a, b) if not _kinks_in(w, x))
    found = best_split(hist, rest, s, (a, b), range(m - 2, m + 2), n_lo, n_hi, slow=True, lo=lo, from_rest=runs)
    if found is None:
        return None
    j, (pa, pb) = found
    dt = 1.0 / fps
    t_lo, t_hi = hist.time(min(j, m)) - dt, hist.time(max(j, m)) + 2 * dt

    def dist(ts: np.ndarray) -> np.ndarray:
        return np.linalg.norm(pb.pre.at(ts) - pa.pre.at(ts), axis=-1)

    t_touch, d_min, t_min = first_time_within(dist, t_lo, t_hi, 2 * radius)
    margin = d_min - 2 * radius
    t_c = t_touch
    if t_c is None:
        kinks = [p.kink_time() for p in (pa, pb)]
        strong = max(range(2), key=lambda i: float(np.hypot(*(pa, pb)[i].dv)))
        t_k = kinks[strong]
        t_c = float(np.clip(t_k, t_lo, t_hi)) if t_k is not None else t_min
    pos_a, pos_b = pa.pre.at(t_c), pb.pre.at(t_c)
    if t_touch is None:
        pos_a, pos_b = pa.post.at(t_c), pb.post.at(t_c)
    u = pos_b - pos_a
    norm = float(np.hypot(*u))
    if norm <= 1e-9:
        return None
    u = u / norm
    j_a = -float(np.dot(pa.dv, u))  # a is pushed back along -u
    j_b = float(np.dot(pb.dv, u))  # b is pushed away along +u
    z_a = j_a / max(pa.sigma_dv, 1e-9)
    z_b = j_b / max(pb.sigma_dv, 1e-9)
    against = [p for p, z in ((pa, z_a), (pb, z_b)) if z < -s.kink_z]
    if any(not p.at_rest_before for p in against):
        return None  # a moving ball kinked against the impulse: something else (a cushion) made this kink
    # (a resting ball may: the apex of a rack is hit and thrown back by the balls behind it)
    z_a, z_b = (max(z_a, 0.0), max(z_b, 0.0))
    z, impulse = (z_a, j_a) if z_a >= z_b else (z_b, j_b)
    kinked = pa if z_a >= z_b else pb
    if not (pa.at_rest_before or pb.at_rest_before) and j_a > 0 and j_b > 0:
        # one impulse, equal and opposite (equal masses): both balls measure it, and the weighted mean of
        # the two readings stands out of the noise where neither does alone (a slow touch)
        w_a, w_b = 1.0 / max(pa.sigma_dv, 1e-9) ** 2, 1.0 / max(pb.sigma_dv, 1e-9) ** 2
        j_ab = (j_a * w_a + j_b * w_b) / (w_a + w_b)
        z_ab = j_ab * float(np.sqrt(w_a + w_b))
        if z_ab > z:
            z, impulse = z_ab, j_ab
    t_k = kinked.kink_time()
    if z >= s.kink_z and t_k is not None and abs(t_k - t_c) < 3 * dt:
        gap_k = float(np.hypot(*(pb.pre.at(t_k) - pa.pre.at(t_k)))) - 2 * radius
        # the kink's time is known to sigma_t only, and the balls close by their closing speed in that time
        # (a break shot closes ~130 mm a frame at 60 fps: 1 ms of timing error is 8 mm of gap), unless another
        # ball touched the kinked one at the kink, which then explains it
        closing = abs(float(np.dot(pb.pre.v - pa.pre.v, u)))
        slack = s.kink_z * closing * kink_time_error(kinked, t_k, s)
        x, y = (a, b) if kinked is pa else (b, a)
        # a striker's line that ran into a ball at rest there met it, however late its kink: the kink is late
        # when the struck ball came back into it off a cushion within the frame (seed-191 frame_free: C into 3,
        # 3 on the cushion and back into C 23 ms later; C's one kink spans both)
        into_rest = t_touch is not None and gap_k < 0.0 and (pa.at_rest_before or pb.at_rest_before)
        apart = not into_rest and abs(gap_k) > s.contact_gate_mm + slack
        if abs(gap_k) > s.contact_gate_mm and (apart or touching_other(w, x, y, kinked.pre.at(t_k), t_k)):
            return None  # the kink happened with the balls apart: another collision made it
    # a weak kink read by both moving balls, each pushed away from the other (one impulse, equal and opposite),
    # is a collision's: its incoming lines hold the margin; otherwise the tracks may be straight through the
    # window (a near miss) and a line through each whole window pins the margin better
    both = not (pa.at_rest_before or pb.at_rest_before) and min(z_a, z_b) >= _BOTH_SHOW_Z
    if z < s.kink_z and not (z >= s.kink_z_review and both):
        margin = _straight_margin(w, a, b, t_lo, t_hi, margin)
    still = [(x, p, j) for x, p, j in ((a, pa, j_a), (b, pb, j_b)) if p.at_rest_before]
    sigma = float(np.hypot(pa.sigma_dv, pb.sigma_dv))
    conf, review = kink_confidence(z, impulse, margin, s)
    if margin > s.review_band_mm and len(still) == 1 and took_none(w, *still[0], impulse, sigma, t_c):
        conf, review = min(conf, 0.3), True  # the lines passed clear, and the ball at rest took nothing: a doubt
    if conf <= 0.0:
        return None
    return Contact(a, b, float(t_c), z, impulse, margin, u, conf, review, (pa, pb))


def _from_rest(w: Window, x: int, other: int) -> Contact | None:
    """A ball at rest set moving by a moving one: the resting ball's start alone dates and proves it.

    Its start time is the contact time and it leaves along the line of centres, so only the striker's
    position at that time is needed (from its samples); the striker's own track may hold another kink
    (a cushion just before) without spoiling the test.
    """
    hist, rest, s, m, n_lo, n_hi, radius, fps = w.hist, w.rest, w.s, w.m, w.n_lo, w.n_hi, w.radius, w.fps
    splits = [j for j in range(m - 2, m + 2) if rest.anchor_at(x, hist.time(j)) is not None]
    found = best_split(hist, rest, s, (x,), splits, n_lo, n_hi) if splits else None
    if found is None:
        return None
    j, (px,) = found
    v = px.post.v
    speed = float(np.hypot(*v))
    z = speed / max(px.post.sigma_v, 1e-9)
    if speed <= 1e-6:
        return None
    anchor = px.pre.p0
    t_c = px.post.t0 + float(np.dot(anchor - px.post.p0, v)) / (speed * speed)
    if not hist.time(n_lo) - 1.0 / fps <= t_c <= hist.time(n_hi):
        # The straight run traced back to the rest point lands outside the samples it was fitted in: the ball
        # did not leave at one speed (a push that built up, a slow start in noise), so it cannot date the contact.
        return _first_step(w, x, other, j, px)
    t_o, xy_o = hist.track(other, n_lo, n_hi)
    if len(t_o) < 2:
        return None
    p_o = np.array([np.interp(t_c, t_o, xy_o[:, 0]), np.interp(t_c, t_o, xy_o[:, 1])])
    rel = anchor - p_o
    dist = float(np.hypot(*rel))
    u = rel / max(dist, 1e-9)
    # the striker's interpolated place is off by at most the part of its step across t_c that it can have run
    # unseen: nothing at a sample, up to the step mid-frame (twice the bound: a stop inside the frame); not its
    # longest step in the window (seed-103 frame_russian71: C ran 93 mm a frame into 7 and stopped there at a
    # sample; 14, touching 7 behind, left along C's line 82 mm beyond C's reach, and was read as C's)
    k = min(max(int(np.searchsorted(t_o, t_c)), 1), len(t_o) - 1)
    frac = float(np.clip((t_c - t_o[k - 1]) / max(float(t_o[k] - t_o[k - 1]), 1e-9), 0.0, 1.0))
    step = 2.0 * min(frac, 1.0 - frac) * float(np.hypot(*(xy_o[k] - xy_o[k - 1])))
    if dist - 2 * radius > s.contact_gate_mm + step or float(np.dot(v, u)) < LEAVE_COS * speed:
        return _first_step(w, x, other, j, px)
    margin = dist - 2 * radius
    if through_neighbour(hist, rest, x, other, anchor, p_o, t_c - 1.0 / fps, dist, radius, s):
        return None
    impulse = speed
    slow_kiss = False
    if rest.moving_at(x, hist.time(n_hi)):
        # its start from rest is established (it left its rest position beyond the noise): the motion is
        # certain even when the short post-contact fit is not yet significant on its own
        z = max(z, s.kink_z)
        if rest.anchor_at(other, t_c - 1.0 / fps) is None and speed < s.kink_min_mm_s and margin <= s.review_band_mm:
            # and a moving ball ran in to touching at that start: the floor on a kink's speed change guards a
            # moving track's kink against its noise, which a start from rest is not; a slow kiss (C rolling
            # into 12 at 85 mm/s, 12 leaving at 50) is a contact however slow, but only where the centres met.
            # Its whole evidence is the touch, so a margin within the band is reported, not asserted; a clear
            # gap (a creep or a nudge beside a ball that stopped short) keeps the floor
            impulse = s.kink_min_mm_s
            slow_kiss = margin >= -s.review_band_mm
    conf, review = kink_confidence(z, impulse, margin if abs(margin) > s.review_band_mm else -1.0, s)
    if conf <= 0.0:
        return None
    if slow_kiss:
        conf, review = min(conf, _NEAR_CONF), True
    rival = rival_striker(w, x, other, anchor, t_c, v, px.post.sigma_v)
    if rival:
        # another moving ball was as near, and its line of centres fits the start as well or better: the start
        # proves one of them struck x, not this one (reported, not asserted; a later, longer fit may decide)
        conf, review = min(conf, _RIVAL_CONF), True
    a, b = (other, x)
    po = fixed_pieces(hist, s, other, t_o, xy_o, t_c, rest.anchor_at(other, t_c - 1.0 / fps) is not None)
    return Contact(a, b, float(t_c), z, speed, margin, u, conf, review, (po, px), rival)


def _pack_step(w: Window, x: int, other: int, anchor: np.ndarray, j: int, t_first: float) -> np.ndarray:
    """The first steps of the balls resting touching x (at counter j) first seen moving with it, at t_first:
    summed with x's own (equal masses), the momentum the striker's impulse gave them, along its line of centres
    with x, whichever way x itself went (seed-131 frame_russian71: C into 5, touching 15; 15 flew off and 5 left
    75 degrees off the line)."""
    total = np.zeros(2)
    for y in range(w.hist.xy.shape[1]):
        rest_y = w.rest.anchor_at(y, w.hist.time(j)) if y not in (x, other) else None
        if rest_y is None or float(np.hypot(*(rest_y - anchor))) - 2 * w.radius > w.s.touch_tol_mm:
            continue
        t_y, xy_y = w.hist.track(y, j + 1, j + 1)
        # moving just after t_first (a start dated at its first moving sample still rests "at" it)
        if len(t_y) and float(t_y[0]) == t_first and w.rest.anchor_at(y, t_first + 0.25 / w.fps) is None:
            total += xy_y[0] - rest_y
    return total


def _ways_off(w: Window, anchor: np.ndarray, u: np.ndarray, run: float) -> list[np.ndarray]:
    """Where a ball at `anchor` hit along u can have got in its first step of length `run`: along u, or, off
    the nose of a cushion it lies less than that step from (driven into it and back off it within the frame:
    30 fps, a ball 10 mm off the front cushion hit at 2 m/s), along u with its normal part turned back by the
    nose's restitution, anything from none (along the nose) to all (the mirror image): three of those."""
    ways = [u]
    if w.table is None:
        return ways
    for name, gap in w.table.cushion_gaps(anchor).items():
        normal = np.asarray(w.table.cushions[name].normal, dtype=float)  # into the bed
        u_n = float(np.dot(u, normal))
        if gap < run and u_n < 0.0:
            for e in (0.0, 0.5, 1.0):
                way = u - (1.0 + e) * u_n * normal
                ways.append(way / max(float(np.hypot(*way)), 1e-9))
    return ways


def _first_step(w: Window, x: int, other: int, j: int, px: Pieces) -> Contact | None:
    """x turned within its first frame of motion (off a cushion it lay near, or into another ball), so its
    fitted start line points elsewhere: its first step alone, from the rest anchor to the first sample,
    runs along the line of centres. The contact is when the striker's incoming line reaches 2R from the
    anchor, between x's last rest sample and its first moving one; it must reach it in that interval."""
    hist, rest, s, n_lo, n_hi, radius, fps = w.hist, w.rest, w.s, w.n_lo, w.n_hi, w.radius, w.fps
    anchor = px.pre.p0
    t_x, xy_x = hist.track(x, j + 1, n_hi)
    if len(t_x) == 0:
        return None
    striker_rest = rest.anchor_at(other, hist.time(j))
    if striker_rest is not None:
        return _struck_into(w, x, other, j, px, striker_rest)  # a striker at rest has no incoming line
    first = xy_x[0] - anchor
    run = float(np.hypot(*first))
    if run <= s.onset_mm:
        return None  # the first step is within the rest noise: no direction
    t_o, xy_o = hist.track(other, n_lo, j)
    run_in = np.array([rest.anchor_at(other, float(t)) is None for t in t_o], dtype=bool)
    if run_in.sum() == 1 and not run_in[-1]:
        return None
    at_least = run_in.sum() == 1  # its speed is then a lower bound (see below)
    if run_in.sum() == 1 and len(t_o) >= 2:
        # struck one frame before the hit (30 fps): the line from its rest centre through its one moving
        # sample (dated at the last rest sample, so its speed is a lower bound and the contact no earlier)
        run_in[-2] = True
        xy_o = xy_o.copy()
        xy_o[-2] = rest.anchor_at(other, float(t_o[-2]))
    t_o, xy_o = t_o[run_in], xy_o[run_in]  # its incoming run only (not the rest before its own stroke)
    pre = fit_line(t_o, xy_o, noise_model(s)) if len(t_o) >= 2 else None
    if pre is None:
        return None
    t_j = hist.time(j)

    def dist(ts: np.ndarray) -> np.ndarray:
        return np.linalg.norm(pre.at(ts) - anchor, axis=-1)

    t_c, d_min, _ = first_time_within(dist, t_j - 0.5 / fps, float(t_x[0]), 2 * radius)
    meet: np.ndarray | None = None  # where it met x, when its line cannot date it
    if (t_c is None or t_c >= float(t_x[0])) and at_least and pre.speed > 0.0:
        # struck inside the frame before (seed-131 frame_dynamic: C at 2.6 m/s, 70 mm from 10, read at 1.2 m/s): at
        # its true speed its line reaches 2R sooner than this one says, before x's first moving sample. Where it
        # meets x is on the line all the same; x leaves at about the striker's speed (at most it), so the hit is
        # dated its first step at that (lower-bound) speed before that sample: an estimate, no earlier than t_j
        t_far = float(t_x[0]) + 2.0 * float(np.hypot(*(anchor - pre.p0))) / pre.speed
        t_meet, d_min, _ = first_time_within(dist, t_j - 0.5 / fps, t_far, 2 * radius)
        if t_meet is not None:
            t_c, meet = max(t_j, float(t_x[0]) - run / pre.speed), pre.at(t_meet)
    if t_c is None or t_c >= float(t_x[0]):
        return None
    u = anchor - (meet if meet is not None else pre.at(t_c))
    u = u / max(float(np.hypot(*u)), 1e-9)
    straight_off = float(np.dot(first, u)) >= LEAVE_COS * run
    if meet is not None and straight_off:
        # the line of centres is x's own way off its rest when it ran straight off: one sample's direction puts
        # the striker's line degrees off, and a cut's angle with it (seed-71 frame_dynamic: C 63 mm from 2, its
        # one step 10 degrees off, read 2 into the rear cushion at a grazing angle, a frame late)
        u = first / run
    pack = _pack_step(w, x, other, anchor, j, float(t_x[0])) + first
    along = any(float(np.dot(first, way)) >= LEAVE_COS * run for way in _ways_off(w, anchor, u, run))
    if not (along or float(np.dot(pack, u)) >= LEAVE_COS * float(np.hypot(*pack))):
        return None
    speed = run / max(float(t_x[0]) - t_c, 0.5 / fps)
    conf, review = kink_confidence(s.kink_z, speed, min(d_min - 2 * radius, -s.review_band_mm - 1.0), s)
    if conf <= 0.0:
        return None
    if meet is not None and not straight_off:
        # neither the striker's line (one sample) nor x's way (turned in its first frame) is read well: reported
        conf, review = min(conf, _NEAR_CONF), True
    t_all, xy_all = hist.track(other, n_lo, n_hi)
    if stopped_short(w, t_all, xy_all, t_c, anchor):
        return None
    # its incoming piece is its run in (not the rest before its stroke): its speed into the hit, which the ball
    # hit from rest near a cushion is driven into it with (seed-71 frame_dynamic: 2 into the rear cushion 38 mm
    # off, read a frame late from its own first step, turned at the nose)
    po = replace(fixed_pieces(hist, s, other, t_all, xy_all, t_c, False), pre=pre)
    return Contact(other, x, float(t_c), s.kink_z, speed, d_min - 2 * radius, u, conf, review, (po, px))


def _struck_into(w: Window, x: int, other: int, j: int, px: Pieces, anchor_o: np.ndarray) -> Contact | None:
    """The striker was at rest at j too (at anchor_o): struck and into x within one frame (30 fps: C 53 mm from 1 at
    2.9 m/s, 1 against the cushion and off it before the next frame). Neither has a line to fit; what
    proves the contact is that both are first seen moving on the same frame, apart before (not touching),
    the striker's first step runs at x (within 40 degrees of the line of their rest centres) and covers the
    gap to touching (less the contact gate and the noise), and x left away from it (it may have turned off a
    cushion on the way, so only its side of the line is asked; or, frozen to it, come straight back off it:
    then by its next sample it runs along a way off the nose). Dated where that step reaches 2R, at the
    frame's start if the stroke came then (a lower bound)."""
    hist, s, n_hi, radius = w.hist, w.s, w.n_hi, w.radius
    anchor_x = px.pre.p0
    t_x, xy_x = hist.track(x, j + 1, n_hi)
    t_o, xy_o = hist.track(other, j + 1, n_hi)
    if len(t_o) == 0 or len(t_x) == 0 or t_o[0] != t_x[0]:
        return None
    rel = anchor_x - anchor_o
    dist = float(np.hypot(*rel))
    u = rel / max(dist, 1e-9)
    step = xy_o[0] - anchor_o
    run = float(np.hypot(*step))
    need = dist - 2 * radius
    if need <= s.cause_gap_mm:
        return None  # touching at rest: an impulse passed on (the pack's momentum judges those)
    if run <= s.onset_mm or float(np.dot(step, u)) < LEAVE_COS * run:
        return None
    if float(np.dot(step, u)) < need - s.contact_gate_mm - 2 * s.noise_moving_mm:
        return None  # it stopped short of x: something else set x moving
    if float(np.dot(xy_x[0] - anchor_x, u)) <= s.onset_mm:
        # lying within a step of a cushion, x was driven into it and back off it inside the frame, so its first
        # sample shows no run along the line of centres (and it may have met the striker again on the way
        # back): its run by its next sample leaves along a way off the nose (2 mm off the rear cushion, 60 fps)
        far = xy_x[min(1, len(xy_x) - 1)] - anchor_x
        run_x = float(np.hypot(*far))
        ways = _ways_off(w, anchor_x, u, run_x)[1:]
        if run_x <= s.onset_mm or not any(float(np.dot(far, way)) >= LEAVE_COS * run_x for way in ways):
            return None
    t_j, dt = hist.time(j), float(t_o[0]) - hist.time(j)
    t_c = t_j + dt * float(np.clip(need / max(float(np.dot(step, u)), 1e-9), 0.0, 1.0))
    speed = run / max(dt, 1e-9)
    conf, review = kink_confidence(s.kink_z, speed, -s.review_band_mm - 1.0, s)
    if conf <= 0.0:
        return None
    t_all, xy_all = hist.track(other, w.n_lo, n_hi)
    po = fixed_pieces(hist, s, other, t_all, xy_all, t_c, True)
    return Contact(other, x, float(t_c), s.kink_z, speed, need, u, conf, review, (po, px))


def fixed_pieces(
    hist: History, s: EventSettings, ball: int, t: np.ndarray, xy: np.ndarray, t_c: float, at_rest: bool
) -> Pieces:
    """Straight pieces of a striker's samples before and after t_c (for its pre-contact speed)."""
    before, after = t <= t_c, t > t_c
    pre = fit_line(t[before], xy[before], noise_model(s)) if before.sum() >= 2 else None
    post = fit_line(t[after], xy[after], noise_model(s)) if after.sum() >= 2 else None
    whole = fit_line(t, xy, noise_model(s))
    assert whole is not None
    return Pieces(pre or whole, post or whole, 0.0, at_rest)


def _straight_margin(w: Window, a: int, b: int, t_lo: float, t_hi: float, margin: float) -> float:
    """Closest approach minus 2R of single lines through each whole window: with no kink (a near miss)
    the tracks are straight, and the longer fit pins the margin down better than the split pieces."""
    hist, s, n_lo, n_hi, radius = w.hist, w.s, w.n_lo, w.n_hi, w.radius
    fits = []
    for x in (a, b):
        t, xy = hist.track(x, n_lo, n_hi)
        f = fit_line(t, xy, noise_model(s))
        if f is None:
            return margin
        fits.append(f)
    ts = np.linspace(t_lo, t_hi, 201)
    d = np.linalg.norm(fits[1].at(ts) - fits[0].at(ts), axis=-1)
    return float(d.min()) - 2 * radius
