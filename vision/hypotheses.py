"""Where each active track may be this frame, for the assignment: its motion hypotheses (constant velocity
mirrored at a cushion, stopped, dropping into a pocket, a wide re-acquisition gate, a contact with another
ball) and the class / cannot-rest part of the cost matrix. `vision.assign` turns them into costs and solves.
"""

from __future__ import annotations

import numpy as np

from calibration.table import Table
from vision import kalman
from vision.assign import INVALID, Hypothesis, contact_pairs
from vision.bedgeom import cannot_rest_mask
from vision.identity import COLOURED_ID
from vision.trackstate import Track, TrackerConfig
from vision.types import BallClass, BallState


def hypotheses(
    active: list[Track], dt: float, t: float | None, table: Table, cfg: TrackerConfig
) -> list[list[Hypothesis]]:
    """Each active track's hypotheses, after its filter has predicted to time t (dt after the last frame)."""
    R = table.ball_radius
    out: list[list[Hypothesis]] = []
    for tr in active:
        p, v = tr.prev_xy, tr.prev_v
        s = kalman.innovation_std(tr.kf) * (1.0 + tr.misses)
        pred = tr.xy
        mirrored = mirror(table, pred)
        # a bounce loses an unknown part of the speed into the cushion (restitution ~0.5-0.9): the run after
        # the nose, half the mirror's shift, is uncertain by about half its length
        bounce = 0.25 * float(np.hypot(*(mirrored - pred)))
        # its std grows with the frames missed; the wider gate costs 4 ln(1 + misses) (see below)
        # a hidden ball was held where it was last seen: a speed re-seeded on its return is measured over the
        # time it was unseen, not over one frame (a hand-placed ball is no 12 m/s jump)
        span = dt if tr.state != BallState.HIDDEN else max(dt, (t or 0.0) - tr.seen_t)
        if tr.state == BallState.HIDDEN:
            # held where it went out of view (its filter held there too, trackstate.hold): found again in place, give
            # or take a nudge of the hand, whatever the time; it did not widen with the frames missed
            hs = [Hypothesis(p, max(s / (1.0 + tr.misses), R / 3.0), 2.0, p, span)]
        else:
            hs = [Hypothesis(mirrored, max(s, 2.0) + bounce, 4.0 * float(np.log1p(tr.misses)), p, span)]
        speed = float(np.hypot(*v))
        if tr.state == BallState.MOVING:
            hs.append(Hypothesis(p, 0.5 * speed * dt + 5.0, 2.0, p, dt))
            if near_pocket(table, pred):
                hs.append(Hypothesis(pred, max(s, 2.0), 0.5, p, dt))
        base = cfg.vmax_mm_s * dt / 3.0
        reach = base * (1.0 + tr.misses)
        if tr.state == BallState.HIDDEN:
            # a hidden ball rolls on no faster than it went out of view (cloth only slows it); one hidden at
            # rest moves only when struck, and shows again once out from under the hand (about 3 R) plus one
            # frame of flight at most. The 3-std gate covers that; grown with the frames missed alone, the
            # gate of a ball lifted off by hand took the next bridge hand on the table as a ball struck at
            # 12 m/s
            reach = (cfg.vmax_mm_s * dt + tr.hid_speed * span + 3.0 * R) / 3.0
        elif tr.misses and tr.state == BallState.MOVING and tr.moving_seen >= 2 and _into_pocket(table, p, pred, v):
            # rolling into a pocket's mouth, unseen: it dropped, or rattles back out of the jaws no faster than it
            # went in (its speed is known: seen twice moving), within that speed times the time unseen of where it
            # was last seen. Grown with the misses alone, the gate of a ball just potted took a ball 700 mm off
            # (seed-181 frame_free, 11 -> 4). A ball struck out of the jaws (first step: speed unknown) keeps it
            unseen = max(dt, (t or 0.0) - tr.seen_t)
            reach = min(reach, (2.0 * speed * unseen + 3.0 * R) / 3.0)
        # a wider gate is a less likely place (the 2-D Gaussian's normalisation, 4 ln(std)): a ball unseen for
        # seconds must not take a detection that a ball in view explains only a little worse
        hs.append(Hypothesis(p, reach, 6.0 + 4.0 * float(np.log(reach / base)), p, span))
        out.append(hs)
    # contacts between pairs: both balls may stop or start at the contact point
    for i, j, tc in contact_pairs(active, 2.0 * R + 6.0, dt):
        a, b = active[i], active[j]
        rel = float(max(np.hypot(*a.prev_v), np.hypot(*b.prev_v)))
        std = rel * (dt - tc) / 2.0 + 8.0
        for k, tr in ((i, a), (j, b)):
            pt = tr.prev_xy + tr.prev_v * tc
            out[k].append(Hypothesis(pt, std, 0.5, pt, max(dt - tc, 0.25 * dt)))
    return out


def _into_pocket(table: Table, p: np.ndarray, pred: np.ndarray, v: np.ndarray) -> bool:
    """Is a ball at p (predicted at pred) in a pocket's mouth, moving into the pocket?"""
    for q in (p, pred):
        name = pocket_near(table, q)
        if name is not None:
            return float(np.dot(v, np.asarray(table.pockets[name].outward))) > 0.0
    return False


def pocket_near(table: Table, p: np.ndarray) -> str | None:
    """pocket_at, skipped for the bulk of the bed far from every pocket (it is called a lot)."""
    x, y = abs(float(p[0])), abs(float(p[1]))
    if y < table.half_width - 200.0 or not (x > table.half_length - 200.0 or x < 200.0):
        return None
    return table.pocket_at(p)


def near_pocket(table: Table, p: np.ndarray) -> bool:
    return pocket_near(table, p) is not None


def mirror(table: Table, p: np.ndarray) -> np.ndarray:
    """Reflect a prediction that went through a cushion back onto the bed (not in pocket mouths)."""
    if near_pocket(table, p):
        return p
    # Python floats: called per track and frame, on two numbers
    q = [float(p[0]), float(p[1])]
    for a, lim in enumerate((table.half_length - table.ball_radius, table.half_width - table.ball_radius)):
        if q[a] > lim:
            q[a] = 2 * lim - q[a]
        elif q[a] < -lim:
            q[a] = -2 * lim - q[a]
    return np.array(q)


def class_cost(
    active: list[Track], xy_mm: np.ndarray, cls: np.ndarray, foreign: np.ndarray, smeared: np.ndarray | None,
    table: Table, cfg: TrackerConfig,
) -> np.ndarray:
    """Extra cost of each track taking each detection: the other class (coloured vs ivory), a colour no ball
    of the set has (`ColourModel.foreign`; `smeared`: per track, may its ball read so this frame, see
    `TrackSet._may_smear`), or, for a track not moving, a place where no ball can rest."""
    pen = cfg.class_penalty
    is_col = np.array([c == BallClass.COLOURED for c in cls], dtype=bool)
    is_iv = np.array([c == BallClass.IVORY for c in cls], dtype=bool)
    out = np.zeros((len(active), len(xy_mm)))
    # where no ball can rest (reaching into a cushion, or over a pocket's hole) a detection is a flying or
    # falling ball (a moving track may take it) or a hand (a resting ball must not follow it)
    off = cannot_rest_mask(table, xy_mm) * INVALID
    # a ball reads its own colour unless its disc is smeared over the cloth: a reading of no ball's colour is
    # the hand, the sleeve or the cue over it, never the ball itself. Only a ball blurred by more than half its
    # radius within a frame reads there now and then: it may take such a reading at the class penalty
    fgn = np.asarray(foreign, dtype=bool)
    sharp = fgn * INVALID
    for i, tr in enumerate(active):
        out[i] = pen * (is_iv if tr.ball == COLOURED_ID else is_col)
        if smeared is not None and smeared[i]:
            # smeared means it moved half a radius within the frame: a foreign reading nearer its last place
            # than that is not this ball
            near = np.hypot(*(xy_mm - tr.prev_xy).T) < 0.5 * table.ball_radius
            out[i] += np.where(fgn & near, INVALID, fgn * pen)
        elif tr.odd_colour_xy is not None and tr.state != BallState.MOVING:
            # revived from such a reading (its colour under the light there): at rest where it was, it is this ball
            near = np.hypot(*(xy_mm - tr.odd_colour_xy).T) < 0.5 * table.ball_radius
            out[i] += np.where(near, 0.0, sharp)
        else:
            out[i] += sharp
        if tr.state != BallState.MOVING:
            out[i] += off
    return out


def owned_cost(active: list[Track], xy_mm: np.ndarray, radius: float) -> np.ndarray:
    """Extra cost: a detection within half a radius of a ball seen at rest in the last frame is that ball's, for
    every track not moving. Another ball can be there only once this one has left, and a ball leaves its rest
    struck (a moving striker may follow through onto the spot: moving tracks keep their costs), never so that a
    ball held hidden or at rest elsewhere jumps onto it. Without this, a hidden ball's wide gate took a resting
    ball in view 216 mm away while that ball took a hand's disc beside it (seed-59 frame_russian71, 7 / 12)."""
    out = np.zeros((len(active), len(xy_mm)))
    rest = [i for i, tr in enumerate(active) if tr.state == BallState.STATIONARY and tr.misses == 0]
    if not rest or not len(xy_mm):
        return out
    p = np.array([active[i].xy for i in rest])
    near = _pairwise(p, xy_mm) < 0.5 * radius
    covered = near.any(axis=0)
    owner = np.where(covered, np.array(rest)[near.argmax(axis=0)], -1)  # resting balls are 2 R apart at least
    still = np.array([tr.state != BallState.MOVING for tr in active])
    rows = np.arange(len(active))[:, None]
    out[(owner[None, :] >= 0) & (owner[None, :] != rows) & still[:, None]] = INVALID
    return out


def leave_cost(active: list[Track], xy_mm: np.ndarray, weak: np.ndarray, radius: float) -> np.ndarray:
    """Extra cost: a ball hidden at rest leaves its place only for a detection that shows a ball clear of the
    occluder (a ball struck out from under a hand shows whole once out); a `weak` detection (low confidence,
    under the occluder) away from its place is the hand or what it carries (the cue ball in hand carried over a
    covered ball was taken for that ball struck away: a phantom stroke)."""
    out = np.zeros((len(active), len(xy_mm)))
    if not weak.any():
        return out
    for i, tr in enumerate(active):
        if tr.state == BallState.HIDDEN and tr.hid_speed <= 0.0:
            out[i] = (weak & (np.hypot(*(xy_mm - tr.xy).T) > radius)) * INVALID
    return out


def clutter_cost(active: list[Track], xy_mm: np.ndarray, clutter_xy: np.ndarray, radius: float) -> np.ndarray:
    """Extra cost: a ball seen at rest in the last frame is not the object no track took in that frame
    elsewhere (a cue's ferrule behind the cue ball, a hand, a chalk cube): a detection still where such an
    object was is out of reach of every track not moving that was seen at rest, but within a radius of its
    place (there the two merge). Seed-61 frame_dynamic 127.5 s: the struck cue ball read foreign under the
    tip, so its resting track jumped 220 mm back onto the ferrule's disc, and the next ball it hit was taken
    for the struck one. Nor is a moving ball such an object beyond a radius of where it is predicted: an object
    that stayed put while the ball was elsewhere is no ball arriving there (seed-223 frame_dynamic 65.1 s: C, just
    struck into 9 and sent back by it, read no ball's colour under the tip and jumped 230 mm onto a hand's disc that had
    lain there for seconds)."""
    out = np.zeros((len(active), len(xy_mm)))
    # seen in the last frame only: a track that missed its ball then left that ball's reading unclaimed (a slow
    # ball read off-colour for a frame must get it back however far its coasting prediction ran on)
    rows = [i for i, tr in enumerate(active)
            if tr.state in (BallState.STATIONARY, BallState.MOVING) and tr.misses == 0]
    if not rows or not len(xy_mm) or not len(clutter_xy):
        return out
    stays = _pairwise(xy_mm, clutter_xy).min(axis=1) < 0.5 * radius
    far = _pairwise(np.array([active[i].xy for i in rows]), xy_mm) > radius
    out[rows] = (stays[None, :] & far) * INVALID
    return out


def overlap_cost(
    active: list[Track], xy_mm: np.ndarray, seen_xy: np.ndarray, radius: float, held_xy: np.ndarray
) -> np.ndarray:
    """Extra cost: a track not moving does not take a detection lying over the place of another resting ball
    (centres nearer than 1.5 R: half a radius of overlap) that is still seen there this frame by a detection
    the first overlaps (nearer than 1.75 R: two balls cannot overlap, give or take the noise), nor one over two
    resting balls' places, one of them seen so: such a disc is a merged or shaded image (seed-199 frame_free:
    an arm's shadow over 8, touching 6, left a disc on the seam between them, 32 mm from each; 8, 6 and a ball
    hidden under the hand took it in turn: a phantom disturbance and two contacts). A ball struck into one
    touching it is no exception: that one's own detection has left with it, two radii off. `seen_xy`: every
    detection of the frame; `held_xy`: the places of resting balls whose detection repeated (not in `active`)."""
    out = np.zeros((len(active), len(xy_mm)))
    # at rest, or hidden at rest (a hand over it): both stay on their places until struck
    rest = [j for j, tr in enumerate(active)
            if tr.state == BallState.STATIONARY or (tr.state == BallState.HIDDEN and tr.hid_speed <= 0.0)]
    places = np.vstack([np.array([active[j].xy for j in rest]).reshape(-1, 2), held_xy.reshape(-1, 2)])
    if not len(places) or not len(xy_mm) or not len(seen_xy):
        return out
    owner = np.array(rest + [-1] * (len(places) - len(rest)))  # index into `active` (-1: a held ball)

    on_place = _pairwise(places, seen_xy) < 0.5 * radius  # (places, seen): its ball seen on its place
    d = _pairwise(places, xy_mm)
    over = (d < 1.5 * radius) & (d >= 0.5 * radius)  # (places, dets): over a resting ball's place
    overlaps = _pairwise(seen_xy, xy_mm) < 1.75 * radius  # (seen, dets)
    inside = over & ((on_place.astype(int) @ overlaps.astype(int)) > 0)  # ... overlapping its ball seen there
    seam = (over.sum(axis=0) >= 2) & inside.any(axis=0)
    for i, tr in enumerate(active):
        if tr.state == BallState.MOVING:
            continue
        out[i] = (inside[owner != i].any(axis=0) | seam) * INVALID
    return out


def _pairwise(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distances (len(a), len(b)) between two sets of table points."""
    return np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
