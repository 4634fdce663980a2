"""Ball physics for the synthetic world: closed-form free motion, impulse contacts, exact events."""

from synthetic.physics.params import Motion, PhysicsParams
from synthetic.physics.sim import Simulator
from synthetic.physics.stroke import Stroke
from synthetic.physics.timeline import to_timeline

__all__ = ["Motion", "PhysicsParams", "Simulator", "Stroke", "to_timeline"]
