"""Cushion and pocket-jaw touches: a ball's centre comes within R of a nose segment and bounces off it.

The boundary is the six nose segments of `calibration.table`; each runs from jaw tip to jaw tip, so a
closest point at a segment's end is a touch of that pocket jaw (reported as the segment's cushion with
extra {"jaw": pocket}). The touch is confirmed by the velocity change along the contact normal (the
normal component reverses); its time is where the incoming line reaches distance R.

A ball at rest near a cushion and struck into it is back off the nose before two frames show it arriving
(12 mm at 1.3 m/s is a third of a frame at 30 fps), so no incoming line can be fitted: `driven_into`
proves that touch from the hit's impulse direction and the way it comes back (see there).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from calibration.table import Table
from vision.events.fit import first_time_within, fit_line, point_segment_distance
from vision.events.history import History
from vision.events.kink import _SLOW_REACH, Pieces, RestLookup, best_split, kink_confidence, pinned_bounce
from vision.events.settings import EventSettings, noise_model

# A touch read with the ball under a cover this many frames either side of it is reported for review
# (`under_cover`), at this confidence
COVER_SPAN = 2
COVERED_TOUCH_CONF = 0.45


@dataclass(frozen=True)
class Touch:
    ball: int
    t: float
    cushion: str
    jaw: str | None  # pocket name when the closest point is a jaw tip
    z: float
    margin_mm: float  # closest approach of the incoming line minus R (negative: it reaches the nose)
    confidence: float
    review: bool
    pieces: Pieces
    stopped: bool = False  # read from where the ball came to rest (`vision.events.nosestop`)
    why: str | None = None  # a reading's own account, for the referee


class Boundary:
    """The nose segments as arrays, with the pocket each segment end (jaw tip) belongs to."""

    def __init__(self, table: Table) -> None:
        self.names = list(table.cushions)
        self.a = np.array([table.cushions[n].a for n in self.names], dtype=float)
        self.b = np.array([table.cushions[n].b for n in self.names], dtype=float)
        self.normal = np.array([table.cushions[n].normal for n in self.names], dtype=float)  # into the bed
        self.jaw: dict[tuple[int, int], str] = {}
        for i, name in enumerate(self.names):
            for end, point in ((0, self.a[i]), (1, self.b[i])):
                for pk in table.pockets.values():
                    if min(np.hypot(*(point - pk.jaw_a)), np.hypot(*(point - pk.jaw_b))) < 1.0:
                        self.jaw[(i, end)] = pk.name
            del name

    def closest(self, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For points p (..., 2): distance to every segment (..., S), the closest points (..., S, 2) and
        the clamped segment parameter (..., S)."""
        ab = self.b - self.a
        rel = p[..., None, :] - self.a
        s = np.clip(np.sum(rel * ab, axis=-1) / np.sum(ab * ab, axis=-1), 0.0, 1.0)
        pts = self.a + s[..., None] * ab
        return np.linalg.norm(p[..., None, :] - pts, axis=-1), pts, s

    def distance(self, p: np.ndarray) -> np.ndarray:
        return self.closest(p)[0].min(axis=-1)

    def jaw_at(self, i: int, par: float) -> str | None:
        """The pocket whose jaw tip segment i's closest point is (at clamped parameter `par`), if it is an end."""
        end = 0 if par <= 1e-6 else 1 if par >= 1 - 1e-6 else -1
        return self.jaw.get((i, end)) if end >= 0 else None

    def near(self, p: np.ndarray, off: np.ndarray) -> np.ndarray:
        """Distance to the segments whose `off` is 0 (the others carry +inf)."""
        return (self.closest(p)[0] + off).min(axis=-1)


def _minima(
    hist: History, bound: Boundary, m: int, radius: float, s: EventSettings, turned: bool = False
) -> np.ndarray:
    """(B, S): ball b's sampled distance to nose segment k has a local minimum at counter m, near R.

    Per segment, not to the boundary as a whole: a ball driven into a corner meets both of its cushions
    within a frame or two, and the distance to the nearer one hides the second approach. Between frames the
    centre may come closer than the sample at m by about half the chord m-1 to m+1 (a ball running past);
    `turned`: or by the larger leg to or from the nose (a ball there and back within a frame, `turn_touch`)."""
    xy, ok = hist.filled(m - 1, m + 1)
    d = bound.closest(np.nan_to_num(xy, nan=1e9))[0]  # (3, B, S)
    step = (np.linalg.norm(xy[2] - xy[0], axis=-1) / 2.0)[:, None]
    if turned:
        step = np.maximum(step, np.maximum(d[0], d[2]) - d[1])
    near = d[1] <= radius + s.contact_gate_mm + step
    return np.asarray(ok[:, None] & near & (d[1] <= d[0]) & (d[1] < d[2]))


def _other_nose(hist: History, bound: Boundary, ball: int, m: int, i: int, reach: float) -> bool:
    """Does the ball come within `reach` (plus a frame's run) of a nose other than segment i around m?"""
    t, xy = hist.track(ball, m - 2, m + 2)
    if len(t) < 2:
        return False
    step = float(np.max(np.linalg.norm(np.diff(xy, axis=0), axis=-1)))
    return bool(np.delete(bound.closest(xy)[0], i, axis=-1).min() <= reach + step)


def touch_candidates(
    hist: History, rest: RestLookup, bound: Boundary, m: int, radius: float, s: EventSettings
) -> list[int]:
    """Balls whose sampled distance to a nose segment has a local minimum at counter m, near R."""
    if not (hist.has(m - 1) and hist.has(m + 1)):
        return []
    t_m = hist.time(m)
    if not any(rest.moving_at(b, t_m) for b in range(len(hist.ids))):
        return []  # no ball moving: none can pass the test below
    hit = _minima(hist, bound, m, radius, s, turned=True).any(axis=1)
    return [int(b) for b in np.nonzero(hit)[0] if rest.moving_at(int(b), t_m)]


def verify_touches(
    hist: History,
    rest: RestLookup,
    bound: Boundary,
    s: EventSettings,
    ball: int,
    m: int,
    n_lo: int,
    n_hi: int,
    radius: float,
    fps: float,
) -> list[Touch]:
    """The ball's touch of the nose it comes closest to at counter m, from fitted pieces, or when they prove
    nothing from the normal velocity turned around between three samples (`turn_touch`); then those of the other
    noses whose distance has its minimum at m too, each judged on its own approach: in a corner pocket's mouth a
    ball meets one nose and the other's jaw within a frame (seed-67 jaw_rattle_no_pot: rear at 2.406 s, left_rear
    at 2.425 s, both minima at one sample), and the first hid the second (a 1.20 foul on a legal shot)."""
    # else a candidate for `turn_touch` only; a neighbour sample unseen (filled in on the straight between the
    # samples around it) hides a bounce in the gap, so the leg to or from the nose counts as for `turn_touch`
    gap = not bool(hist.valid[hist.idx(m - 1, m + 1), ball].all())
    segs = _minima(hist, bound, m, radius, s, turned=gap)[ball]
    found = _fitted_touch(hist, rest, bound, s, ball, m, n_lo, n_hi, radius, fps, segs) if segs.any() else None
    if found is None or found.confidence < 0.5:
        turned = turn_touch(hist, bound, s, ball, m, radius)
        if turned is not None and turned.confidence > (found.confidence if found is not None else 0.0):
            found = turned
    if found is None or int(segs.sum()) < 2:
        return [] if found is None else [found]  # the other noses only beside a touch found of the nearest
    out = [found]
    for i in np.nonzero(segs)[0]:
        if bound.names[i] == found.cushion:
            continue
        got = _fitted_touch(hist, rest, bound, s, ball, m, n_lo, n_hi, radius, fps, np.arange(len(segs)) == i)
        if got is not None and got.cushion == bound.names[i]:
            out.append(got)
    return out


def under_cover(hist: History, tc: Touch) -> Touch:
    """A touch read off samples of a ball under a cover (`History.read_weakly` within `COVER_SPAN` frames of it)
    is reported for review only: a centre read inside an arm's or the cue's blob wobbles by several mm, and one
    resting against a nose (a ball hanging on a pocket's lip) "bounces" off it (seed-107 hanging_ball_drops_later:
    two touches of a ball that never moved, which then counted as moved by the shot when it dropped later). Over
    the recorded output of eleven rendered sets, every touch asserted from such samples was false (5 of 5). A
    frame the ball was missed in (blur, not a cover) is no doubt: the touch is read across it."""
    if tc.confidence < 0.5:
        return tc
    n = hist.counter_at(tc.t)
    if not hist.read_weakly(tc.ball, n - COVER_SPAN, n + COVER_SPAN):
        return tc
    return replace(tc, confidence=COVERED_TOUCH_CONF, review=True)


def _fitted_touch(
    hist: History,
    rest: RestLookup,
    bound: Boundary,
    s: EventSettings,
    ball: int,
    m: int,
    n_lo: int,
    n_hi: int,
    radius: float,
    fps: float,
    segs: np.ndarray,
) -> Touch | None:
    """`segs` (S,): the nose segments whose sampled distance has its minimum at m (`_minima`, as
    `verify_touches` read them)."""
    # a slow ball's incoming line over a longer straight piece (kink.pieces): a soft touch changes the normal
    # speed by ~100-300 mm/s, which the short window's velocity error (~65 mm/s at 60 fps) cannot prove
    found = best_split(hist, rest, s, (ball,), range(m - 2, m + 2), n_lo, n_hi, slow=True,
                        from_rest=frozenset((ball,)))
    if found is None:
        return None
    j, (pc,) = found
    if pc.at_rest_before:
        return None  # a ball leaving a cushion from rest: see the frozen-ball rule in the detector
    if pc.pre.rms_mm > 2.0 * noise_model(s)(pc.pre.speed):
        # the incoming piece is no straight line: another kink inside it (a ball hit a few frames before
        # the cushion); fit the incoming line on the last three samples before the split only
        short = best_split(hist, rest, s, (ball,), [j], j - 2, n_hi)
        if short is not None and not short[1][0].at_rest_before:
            j, (pc,) = short
    dt = 1.0 / fps
    t_lo, t_hi = hist.time(min(j, m)) - dt, hist.time(max(j, m)) + 2 * dt
    # only the segments this ball comes closest to at m: in a corner each cushion has its own approach
    off = np.where(segs, 0.0, np.inf)

    def locate(pc: Pieces) -> tuple[float, float, np.ndarray]:
        """(touch time, closest approach of the incoming line minus R, centre at the touch)."""
        t_touch, d_min, t_min = first_time_within(lambda ts: bound.near(pc.pre.at(ts), off), t_lo, t_hi, radius)
        if t_touch is not None:
            return t_touch, d_min - radius, pc.pre.at(t_touch)
        t_k = pc.kink_time()
        t_c = float(np.clip(t_k, t_lo, t_hi)) if t_k is not None else t_min
        return t_c, d_min - radius, pc.post.at(t_c)

    t_c, margin, p = locate(pc)
    dists, pts, par = bound.closest(p)
    i = int(np.argmin(dists + off))
    n = p - pts[i]
    norm = float(np.hypot(*n))
    if norm <= 1e-9:
        return None
    n = n / norm
    jaw = bound.jaw_at(i, float(par[i]))
    corner = _other_nose(hist, bound, ball, m, i, radius + s.contact_gate_mm)

    def judge(j: int, pc: Pieces, t_c: float, margin: float, n: np.ndarray, jaw: str | None) -> Touch | None:
        if corner and float(np.dot(pc.post.v, n)) <= 0.0:
            return None  # not leaving this nose: the kink is the other cushion's
        if float(np.dot(pc.pre.v, n)) > 2 * pc.pre.sigma_v + s.kink_min_mm_s:
            return None  # moving away from the boundary already: not a bounce off it
        impulse = float(np.dot(pc.dv, n))
        z = impulse / max(pc.sigma_dv, 1e-9)
        t_k = pc.kink_time()
        # where the incoming line was at the kink, to within its own uncertainty (a short piece is not sure)
        slack = s.contact_gate_mm + 2.0 * (pc.pre.sigma_v * abs(t_k - pc.pre.t0) if t_k is not None else 0.0)
        near_nose = t_k is None or abs(float(bound.near(pc.pre.at(t_k), off)) - radius) <= slack
        if z >= s.kink_z and t_k is not None and abs(t_k - t_c) < 3 * dt and not near_nose:
            return None  # the kink happened away from the nose: a ball made it
        conf, review = kink_confidence(z, impulse, margin, s)
        if conf <= 0.0:
            return None
        return Touch(ball, float(t_c), bound.names[i], jaw, z, margin, conf, review, pc)

    found_2d = judge(j, pc, t_c, margin, n, jaw)
    if not corner and (found_2d is None or found_2d.confidence < 0.5):
        pinned = _pinned_touch(hist, s, ball, j, n_lo, n_hi, pc, pts[i], n, radius, fps)
        if pinned is not None:
            t_p, z_p, dv_p = pinned
            conf, review = kink_confidence(z_p, dv_p, margin, s)
            if conf > (found_2d.confidence if found_2d is not None else 0.0):
                return Touch(ball, t_p, bound.names[i], jaw, z_p, margin, conf, review, pc)
    if found_2d is not None or not corner:
        return found_2d
    if _path_gap(bound, pc, i, t_lo, t_hi, radius) > s.contact_gate_mm:
        # its path (incoming line to the kink, outgoing after it) never came near this nose: projected on the
        # nose's normal, a bounce off the next nose along reads as this one's (seed-83 frame_free: 8 off the
        # right_rear nose of a middle pocket was also given the right_front nose, 85 mm across the mouth)
        return None
    # a corner: the two bounces may be a frame apart, one kink to the eye. Along this nose's normal the
    # other (perpendicular) bounce leaves the speed unchanged, so the track projected on it shows this
    # bounce alone; it is one only if the ball leaves this nose (a bounce reverses the normal speed, the
    # other cushion's friction only slows it along it; a slow ball leaves within a noise sigma or two of
    # the nose, so the sign is what is asked)
    off = np.where(np.arange(len(off)) == i, 0.0, np.inf)
    # the normal at the closest point, radial from a jaw tip when that point is the segment's end; a ball
    # rattling at the tip may be touching the flat nose beside it, whose own normal then separates the bounces
    best: Touch | None = None
    for axis_n in _normals(bound, i, n):
        along = best_split(hist, rest, s, (ball,), range(m - 2, m + 2), n_lo, n_hi, axis=(pts[i], axis_n))
        if along is None or along[1][0].at_rest_before:
            continue
        j, (pc,) = along
        t_c, margin, _ = locate(pc)
        # along the segment's own normal the touch is of its flat nose, not of the jaw tip
        got = judge(j, pc, t_c, margin, axis_n, jaw if axis_n is n else None)
        if got is not None and (best is None or got.confidence > best.confidence):
            best = got
    return best


def _path_gap(bound: Boundary, pc: Pieces, i: int, t_lo: float, t_hi: float, radius: float) -> float:
    """How near the ball's path came to nose segment i, minus R: the incoming line up to the kink, the outgoing
    one after it (the middle of the window when the pieces show no kink time)."""
    t_k = pc.kink_time()
    t_m = float(np.clip(t_k, t_lo, t_hi)) if t_k is not None else 0.5 * (t_lo + t_hi)
    pts = np.vstack([pc.pre.at(np.linspace(t_lo, t_m, 50)), pc.post.at(np.linspace(t_m, t_hi, 50))])
    return float(np.min(bound.closest(pts)[0][:, i])) - radius


def _normals(bound: Boundary, i: int, n: np.ndarray) -> list[np.ndarray]:
    """n, and segment i's own nose normal (on n's side: a ball in a pocket's mouth lies behind the nose line)
    when it differs from n by more than a few degrees."""
    own = bound.normal[i] if float(np.dot(bound.normal[i], n)) >= 0.0 else -bound.normal[i]
    return [n] if float(np.dot(own, n)) > np.cos(np.radians(5.0)) else [n, own]


_GOF_CHI2 = 9.21  # chi-square of 2 degrees of freedom at 1 %: the pinned V fits no worse than free pieces


def _pinned_touch(
    hist: History,
    s: EventSettings,
    ball: int,
    j: int,
    n_lo: int,
    n_hi: int,
    pc: Pieces,
    nose: np.ndarray,
    n: np.ndarray,
    radius: float,
    fps: float,
) -> tuple[float, float, float] | None:
    """A soft touch the free pieces cannot prove (the few samples after it give its speed to ~100 mm/s):
    (time, z, normal speed change) from the V pinned at the nose (`kink.pinned_bounce`), or None. It holds
    when the free incoming line is seen heading into the nose, the V with its apex at distance R fits as
    well as free lines (the centre did reach the nose), the normal velocity reverses by kink_z standard
    errors and at least kink_min_mm_s, and the ball leaves no faster along the normal than it came (a
    cushion gives back less than it took; a ball hit near the cushion is no bounce)."""
    noise = noise_model(s)
    # the incoming line over the longer look-back whatever the ball's speed, as long as it stays straight: a
    # ball running fast along the cushion comes in slowly along the normal, and it is the normal speed that
    # must be known (a rolling ball runs straight; a hit inside the piece shows as residuals)
    pre = pc.pre
    lo = j - _SLOW_REACH * (j - n_lo)
    t_long, xy_long = hist.track(ball, lo, j)
    long = fit_line(t_long, xy_long, noise)
    if long is not None and long.n > pre.n and long.rms_mm <= 1.5 * noise(long.speed):
        pre = long
    else:
        lo = j - _SLOW_REACH * (j - n_lo) if pre.n > len(hist.track(ball, n_lo, j)[0]) else n_lo
    if float(np.dot(pre.v, n)) > -2.0 * pre.sigma_v:
        return None  # not seen to head into the nose
    t, xy = hist.track(ball, lo, n_hi)
    if len(t) < 5:
        return None
    u = (xy - nose) @ n - radius
    sigma = np.where(t <= hist.time(j), noise(pre.speed), noise(pc.post.speed))
    dt = 1.0 / fps
    b = pinned_bounce(t, u, sigma, hist.time(j) - 6.0 * dt, hist.time(j) + 2.5 * dt)
    if b is None or not (b.v_in < 0.0 < b.v_out) or b.chi2 - b.chi2_free > _GOF_CHI2:
        return None
    dv = b.v_out - b.v_in
    if b.z < s.kink_z or dv < s.kink_min_mm_s:
        return None
    if b.v_out > -b.v_in + 3.0 * float(np.hypot(b.sigma_in, b.sigma_out)):
        return None  # left faster than it came: driven off, not bounced
    return b.t, b.z, dv


def _turns_at(xy: np.ndarray, bound: Boundary, i: int, radius: float, tol: float) -> bool:
    """Do the leg in (samples 0 -> 1) and the leg out (2 -> 3), run on, meet within `tol` of touching nose i,
    between the two samples about the apex? A turn off another nose, projected on this one's normal, also
    looks like a turn (seed-83: 8 off right_rear beside a middle pocket, read against right_front's jaw tip)."""
    d_in, d_out = xy[1] - xy[0], xy[3] - xy[2]
    den = float(d_in[0] * d_out[1] - d_in[1] * d_out[0])
    if abs(den) <= 1e-9 * max(float(np.hypot(*d_in) * np.hypot(*d_out)), 1e-12):
        return False  # parallel legs: no turn point
    w = xy[2] - xy[1]  # xy1 + a d_in = xy2 - c d_out
    a = float(w[0] * d_out[1] - w[1] * d_out[0]) / den
    c = float(d_in[0] * w[1] - d_in[1] * w[0]) / den
    if a < -0.5 or c < -0.5:
        return False  # the legs meet behind the samples: no turn between them
    turn = xy[1] + a * d_in
    return abs(float(bound.closest(turn)[0][i]) - radius) <= tol


def _segment_gap(a0: np.ndarray, a1: np.ndarray, b0: np.ndarray, b1: np.ndarray) -> float:
    """Shortest distance between the segments a0-a1 and b0-b1 (2-D)."""
    da, db = a1 - a0, b1 - b0
    den = float(da[0] * db[1] - da[1] * db[0])
    if abs(den) > 1e-12:
        r = b0 - a0
        f, g = float(r[0] * db[1] - r[1] * db[0]) / den, float(r[0] * da[1] - r[1] * da[0]) / den
        if 0.0 <= f <= 1.0 and 0.0 <= g <= 1.0:
            return 0.0  # they cross
    d = point_segment_distance
    return min(d(a0, b0, b1), d(a1, b0, b1), d(b0, a0, a1), d(b1, a0, a1))


def turn_touch(hist: History, bound: Boundary, s: EventSettings, ball: int, m: int, radius: float) -> Touch | None:
    """A touch seen on three samples only: the ball runs at the nose between counters m-1 and m and is turned
    back from it between m and m+1 (a ball struck a few centimetres off a cushion at 30 fps is there and
    back within a frame, and often meets another ball a frame later: no line can be fitted to either side).
    Or on four, when the turn fell midway between two samples about as near the nose (m-1 and m): the leg in
    ends at m-1 and the leg out starts at m (seed-103 frame_free: 9 off a ball into the front cushion and back
    within a frame, its samples before and after the apex 0.2 mm apart; the three-sample test saw no leg in).

    Along the normal at the closest point at m: the incoming leg runs at the nose by more than the position
    noise (2 sigma), the change of the normal velocity over the turn (the second difference, times a frame)
    exceeds kink_z sigma (kink_z_review with at least kink_min_mm_s of it: graded by `kink_confidence`), and
    the nose lies within the incoming leg's run of the sample at the apex (run straight on, the ball would be
    past it a frame later). Only an impulse changes the velocity by that much
    within a frame (rolling friction and spin take tenths of a second), and only the nose or a ball on the
    nose side of it gives an impulse away from the nose: no other ball within reach in that frame may lie
    there. Its out leg may still point at the nose (there and back slower in one frame). Timed inside the
    frame by equal speeds in and out."""
    segs = _minima(hist, bound, m, radius, s, turned=True)[ball]
    for flat, later in ((False, False), (True, False), (True, True)):
        got = _turn(hist, bound, s, ball, m, radius, segs, flat, later)
        if got is not None:
            return got
    return None


def _turn(
    hist: History, bound: Boundary, s: EventSettings, ball: int, m: int, radius: float, segs: np.ndarray, flat: bool,
    later: bool,
) -> Touch | None:
    """`turn_touch` on samples m-1, m, m+1, or with `flat` on m-2, m-1, m, m+1 (the apex between m-1 and m), or
    with `later` too on m-1, m, m+1, m+2 (between m and m+1: the earlier of the two was the nearer, so the
    candidate came at it). `segs`: the noses with a distance minimum at m (`_minima`)."""
    lo = m - 1 - int(flat) + int(later)
    t, xy = hist.track(ball, lo, lo + 2 + int(flat))
    if len(t) != 3 + int(flat):
        return None
    dists, pts, par = bound.closest(xy[1] if later else xy[-2])
    i = int(np.argmin(np.where(segs, dists, np.inf))) if segs.any() else int(np.argmin(dists))
    if dists[i] <= 1e-9:
        return None
    n = ((xy[1] if later else xy[-2]) - pts[i]) / float(dists[i])  # into the bed
    u = (xy - pts[i]) @ n - radius  # normal distance beyond touching, per sample
    leg_in, leg_out = float(u[0] - u[1]), float(u[-1] - u[-2])
    noise = noise_model(s)
    dt_in, dt_out = float(t[1] - t[0]), float(t[-1] - t[-2])
    sigma = max(noise(float(np.hypot(*(xy[1] - xy[0]))) / dt_in), noise(float(np.hypot(*(xy[-1] - xy[-2]))) / dt_out))
    # the second difference of three independent samples (variance 6 sigma^2), or the two legs' sum (4 sigma^2)
    z = (leg_in + leg_out) / (sigma * (2.0 if flat else np.sqrt(6.0)))
    if leg_in < 2.0 * np.sqrt(2.0) * sigma or z < s.kink_z_review:
        return None  # not seen running at the nose, or no turn beyond the noise (`kink_confidence` grades the rest)
    near = float(min(u[1], u[-2]))  # the apex sample's (either of the two about the apex)
    if near > leg_in + 2.0 * np.sqrt(2.0) * sigma:
        return None  # the nose lies beyond a frame's run: something else turned it
    a, b = xy[1], xy[-2]  # the samples before and after the apex (one sample when not flat)
    if flat and not _turns_at(xy, bound, i, radius, s.contact_gate_mm):
        return None
    apex = 0.5 * (a + b) - n * max(float(np.mean(u[1:-1])), 0.0)
    reach = 2.0 * radius + 2.0 * np.sqrt(2.0) * sigma
    k = hist.idx(lo + 1, lo + 2)  # the frame of the apex
    oxy, ok = hist.xy[k], hist.valid[k].all(axis=0)
    for other in np.nonzero(ok)[0]:
        if other == ball:
            continue
        q0, q1 = oxy[0, other], oxy[1, other]
        gap = min(_segment_gap(a, apex, q0, q1), _segment_gap(apex, b if flat else xy[2], q0, q1))
        if gap <= reach and float(np.dot(q0 - a, n)) < 2.0 * sigma:
            return None  # a ball within reach that is not behind it (away from the nose) may have turned it
    t_c = float(t[1]) + float(t[2] - t[1]) * float(np.clip(u[1] / max(u[1] + u[2], 1e-9), 0.0, 1.0))
    dv = leg_in / dt_in + leg_out / dt_out
    if z < s.kink_z and dv < s.kink_min_mm_s:
        return None  # a weak turn is graded only with a real change of speed behind it
    margin = float(u[1]) - leg_in  # the incoming leg run on for one more frame ends this far beyond the nose
    conf, review = kink_confidence(float(z), dv, margin, s)
    if conf <= 0.0:
        return None
    jaw = bound.jaw_at(i, float(par[i]))
    line_in = fit_line(t[:2], xy[:2], noise)
    line_out = fit_line(t[-2:], xy[-2:], noise)
    if line_in is None or line_out is None:
        return None
    pieces = Pieces(line_in, line_out, 0.0, False)
    return Touch(ball, t_c, bound.names[i], jaw, float(z), margin, conf, review, pieces)
