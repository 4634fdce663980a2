"""Turning a finished simulation into a `synthetic.world.Timeline` for the renderer."""

from __future__ import annotations

import numpy as np

from synthetic.physics.occluders import occluders_at
from synthetic.physics.params import Motion
from synthetic.physics.sim import Simulator
from synthetic.world import Timeline
from vision.types import BallState

_STATE_OF = np.array(
    [
        BallState.STATIONARY,  # STATIONARY
        BallState.MOVING,  # SPINNING: a ball spinning on the spot is moving (1.14.1)
        BallState.MOVING,  # ROLLING
        BallState.MOVING,  # SLIDING
        BallState.MOVING,  # AIRBORNE
        BallState.POTTED,  # POTTED
        BallState.OFF_TABLE,  # OFF_TABLE
        BallState.POTTED,  # ABSENT: on a shelf
    ],
    dtype=np.int8,
)
assert len(_STATE_OF) == len(Motion)


def to_timeline(sim: Simulator, occluders: bool = True) -> Timeline:
    """Frames sampled so far, events in time order, and the player's occluders per frame."""
    f = sim.frames
    if not f.t:
        raise ValueError("the simulation has no frames yet: run it first")
    t = np.asarray(f.t)
    mode = np.stack(f.mode)
    pos = np.stack(f.pos)
    vel = np.stack(f.vel)
    out = mode >= int(Motion.POTTED)
    pos[out & (mode != int(Motion.OFF_TABLE))] = np.nan  # a jumped ball stays in view in flight/on the rail
    vel[out] = 0.0
    occ = [occluders_at(sim.actions, float(tt), sim.R, sim.table.half_width) for tt in t] if occluders else []
    events = sorted(sim.events, key=lambda e: e.t)
    return Timeline(
        fps=sim.fps,
        t=t,
        pos_mm=pos,
        vel_mm_s=vel,
        rot=np.stack(f.rot),
        state=_STATE_OF[mode],
        events=events,
        ids=sim.ids,
        occluders=occ,
    )
