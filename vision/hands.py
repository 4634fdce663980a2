"""Hands and arms the detector took for balls, told by shape, not colour.

A ball is a rigid sphere of the known radius R: two balls' centres are never closer than 2R. The detector
splits any lit blob bigger than a ball into discs of radius R, so a hand or a forearm seen against the cloth
(a rounded, elongated blob: under a dim or warm light its colour can read like a ball's and its sleeve can
vanish into the cloth, so that nothing reaches over the rail to mark it as an arm) comes out as a row of
OVERLAPPING discs. Detections closer than `OVERLAP_R` radii are therefore parts of one object that is no ball,
whatever the light, the skin or the sleeve; and a detection within a hand's reach of such an object may be
held by that hand (a ball being put down, the hand's own wrist), so it is not yet a ball back in play: a ball
put down stays where it is once the hand has gone.
"""

from __future__ import annotations

import numpy as np

# two detections closer than this many ball radii cannot both be balls: at least 2R apart for rigid balls,
# less 0.3 R for the centre error of a ball partly seen (a shadow or an occluder shifts it by a few mm)
OVERLAP_R = 1.7
# a ball within this many radii of a hand's disc may still be in that hand: the palm's centre to the
# fingertips is about a hand's width and a half (~100 mm), plus the held ball's own radius (~140 mm in all)
HAND_REACH_R = 4.0


def overlapping(xy_mm: np.ndarray, radius_mm: float) -> np.ndarray:
    """Per detection: another detection lies closer than OVERLAP_R radii (the two are no pair of balls)."""
    xy = np.asarray(xy_mm, dtype=float).reshape(-1, 2)
    if len(xy) < 2:
        return np.zeros(len(xy), dtype=bool)
    d = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    np.fill_diagonal(d, np.inf)
    out: np.ndarray = d.min(axis=1) < OVERLAP_R * radius_mm
    return out


def in_hand(xy_mm: np.ndarray, radius_mm: float) -> np.ndarray:
    """Per detection: part of a hand (it overlaps another) or within a hand's reach of one."""
    xy = np.asarray(xy_mm, dtype=float).reshape(-1, 2)
    hand = overlapping(xy, radius_mm)
    if not hand.any():
        return hand
    h = xy[hand]
    d = np.hypot(xy[:, None, 0] - h[None, :, 0], xy[:, None, 1] - h[None, :, 1])
    out: np.ndarray = hand | (d.min(axis=1) < HAND_REACH_R * radius_mm)
    return out
