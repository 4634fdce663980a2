"""Ground truth agrees with the trajectories: every event happens where the balls really are."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from calibration.table import Table
from rules.events import EventType
from rules.rack import full_rack
from synthetic.physics import Simulator, Stroke

TABLE = Table.load()
R = TABLE.ball_radius


class Recording(Simulator):
    """A simulator that keeps the ball positions at the moment each event is written."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.snap: list[np.ndarray] = []

    def _emit(self, etype: EventType, t: float | None = None, **kw: Any) -> None:
        super()._emit(etype, t, **kw)
        self.snap.append(self.pos.copy())


def played_break(seed: int, seconds: float | None = 2.5) -> Recording:
    rng = np.random.default_rng(seed)
    s = Recording(TABLE, 30.0)
    for b, xy in full_rack(TABLE).items():
        s.place(b, xy)
    cue = (-1100.0, float(rng.uniform(-200, 200)))
    s.place("C", cue)
    a = math.atan2(float(rng.uniform(-10, 10)) - cue[1], TABLE.rear_line_x - cue[0])
    s.strike(Stroke("C", float(rng.uniform(6000, 8500)), a, height=float(rng.uniform(-0.3, 0.3))))
    if seconds is None:
        s.run_until_rest(30.0)
    else:
        s.run(seconds, stop_at_rest=True)
    return s


def test_events_agree_with_positions() -> None:
    checked = {EventType.BALL_CONTACT: 0, EventType.CUSHION: 0, EventType.POT: 0}
    for seed in (1, 2):
        s = played_break(seed)
        for e, pos in zip(s.events, s.snap, strict=True):
            if e.type is EventType.BALL_CONTACT:
                a, b = (s.index(x) for x in e.balls or ())
                assert abs(np.linalg.norm(pos[a] - pos[b]) - 2 * R) < 2e-3, e
            elif e.type is EventType.CUSHION:
                i = s.index(e.ball or "")
                if "jaw" in e.extra:
                    jaws = [TABLE.pockets[e.extra["jaw"]].jaw_a, TABLE.pockets[e.extra["jaw"]].jaw_b]
                    d = min(float(np.hypot(pos[i, 0] - j[0], pos[i, 1] - j[1])) for j in jaws)
                else:
                    d = TABLE.cushion_distance(pos[i, :2], e.cushion or "")
                assert abs(d - R) < 2e-3, e
            elif e.type is EventType.POT:
                i = s.index(e.ball or "")
                pk = TABLE.pockets[e.pocket or ""]
                rel = pos[i, :2] - np.asarray(pk.mouth_centre)
                assert abs(float(rel @ np.asarray(pk.outward))) < 1e-3, e  # on the mouth line
                assert abs(float(rel @ np.array([-pk.outward[1], pk.outward[0]]))) <= pk.mouth_mm / 2, e
            else:
                continue
            checked[e.type] += 1
    assert checked[EventType.BALL_CONTACT] > 10 and checked[EventType.CUSHION] > 5


def test_break_event_types_and_first_contact() -> None:
    s = played_break(3, seconds=None)
    types = [e.type for e in s.events]
    assert types[0] is EventType.SHOT_START and types[-1] is EventType.SHOT_END
    assert {EventType.BALL_CONTACT, EventType.CUSHION, EventType.LINE_CROSS} <= set(types)
    first = next(e for e in s.events if e.type is EventType.BALL_CONTACT)
    assert set(first.balls or ()) == {"C", "4"}  # the apex ball of the Russian rack
    times = [e.t for e in sorted(s.events, key=lambda e: e.t)]
    assert all(0 <= t <= s.t + 1e-9 for t in times)
    # every object ball that moved and is still on the bed came to rest inside the bed
    end = s.events[-1].positions or {}
    assert all(TABLE.on_bed(xy, R - 1e-6) for xy in end.values())


def test_simulation_is_deterministic() -> None:
    a, b = played_break(5, 1.0), played_break(5, 1.0)
    assert [e.to_dict() for e in a.events] == [e.to_dict() for e in b.events]
    assert np.array_equal(np.stack(a.frames.pos), np.stack(b.frames.pos), equal_nan=True)


def test_impulse_through_balls_resting_in_contact_is_logged() -> None:
    """A pair left touching at rest (here: remembered from an earlier shot) and hit again is a new contact.

    Fails when the contact set keeps a resting pair: the second ball of the cradle would move with no contact.
    """
    s = Simulator(TABLE, 60.0)
    s.place("1", (0.0, 0.0))
    s.place("2", (2 * R, 0.0))
    s.place("C", (-600.0, 0.0))
    a, b = s.index("1"), s.index("2")
    s._pairs_in_contact.add((min(a, b), max(a, b)))  # as a settled cluster leaves it
    s._walls_in_contact.add((b, "rear"))  # a stale wall memory must not hide anything either
    s.strike(Stroke("C", 1500.0, 0.0))
    s.run_until_rest(10.0)
    pairs = [frozenset(e.balls or ()) for e in s.events if e.type is EventType.BALL_CONTACT]
    assert frozenset(("C", "1")) in pairs
    assert frozenset(("1", "2")) in pairs
