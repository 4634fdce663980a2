"""Where ball identities come from in an analysis: stated positions (`--state` balls, `state` lines of the
referee inputs) and the rules engine's spotted balls (1.25), handed to the perception stage.

Vision names balls from the rack order at a break; anywhere else it needs a position map, or the ids of
ivory balls are labels (`BallStates.named` False, events `unnamed`). Everything here runs at the start, at a
verdict or at a stated time: nothing per frame beyond one time comparison while a statement is pending.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from rules.events import Event, EventType
from rules.inputs import ball_places

Positions = dict[str, tuple[float, float]]

# A state line stamped at or before this video time describes the first frame (the synthetic set stamps 0.0).
START_S = 0.1


def positions_of(balls: Any, where: str) -> Positions | None:
    """`balls` of a state line as ball id -> (x, y) mm; None when it is a list of ids (no places given).
    ValueError naming `where` for a malformed entry (rules.inputs.ball_places, the parser the log uses)."""
    if balls is None or isinstance(balls, list):
        return None
    return ball_places(balls, where)


# Referee inputs that take a ball off the table by hand (a penalty ball 2.7 / 3.7 / 4.7, a ball removed for a
# legally potted cue ball 3.5.2 / 4.5.2): vision is told the ball leaves, so its track does not live on unseen.
TAKE_OFF_INPUTS = ("penalty_ball", "remove_ball")


class Timed(NamedTuple):
    """A statement due at video time `t`: some balls' places, or balls taken off the table."""

    t: float
    places: Positions
    take_off: tuple[str, ...] = ()


@dataclass
class Statements:
    """Stated positions of one analysis: the one at the start, and later ones in time order."""

    initial: Positions | None = None
    source: str = ""
    timed: list[Timed] = field(default_factory=list)

    def due(self, t: float) -> list[Timed]:
        """The statements whose time has come (removed from the list)."""
        out = []
        while self.timed and self.timed[0].t <= t:
            out.append(self.timed.pop(0))
        return out

    def add(self, item: Timed) -> None:
        self.timed.append(item)
        self.timed.sort(key=lambda x: x.t)


def timed_of(d: Mapping[str, Any], where: str, now: float = 0.0) -> Timed | None:
    """What a referee input later than the start tells vision: an `identify` or `state` line's places, a
    penalty / removed ball taken off; at its `t` (not before `now`, nor START_S). None: nothing for vision."""
    at = max(float(d.get("t") or 0.0), now, START_S)
    if d.get("type") in TAKE_OFF_INPUTS and d.get("ball") is not None:
        return Timed(at, {}, (str(d["ball"]),))
    if d.get("type") not in ("state", "identify"):
        return None
    pos = positions_of(d.get("balls"), where)
    return None if pos is None else Timed(at, pos)


def statements(state: Mapping[str, Any] | None, inputs: Sequence[Mapping[str, Any]]) -> Statements:
    """Stated positions from `--state` (its `balls`, at the start), from `state` lines of the inputs (at
    their `t`; none or <= START_S: the start), from `identify` lines (some balls; at their `t`, at the
    earliest START_S, once the tracker holds the balls) and balls taken off by hand (penalty_ball,
    remove_ball, at their `t`). `--state` wins over a state line at the start."""
    st = Statements()
    for n, d in enumerate(inputs, 1):
        where = f"referee input {n} ({d.get('type')})"
        t = d.get("t")
        if d.get("type") == "state" and (t is None or float(t) <= START_S):
            pos = positions_of(d.get("balls"), where)
            if pos is not None and st.initial is None:
                st.initial, st.source = pos, f"the state line of the referee inputs (line {n})"
            continue
        item = timed_of(d, where)
        if item is not None:  # identify: some balls only, relabels the tracks there, never the first map
            st.timed.append(item)
    st.timed.sort(key=lambda x: x.t)
    if state is not None:
        pos = positions_of(state.get("balls"), "--state")
        if pos is not None:
            st.initial, st.source = pos, "--state"
    return st


def resting_positions(events: Sequence[Event]) -> Positions | None:
    """The balls at rest after the last finished shot (for a tracker restarted at a shot boundary)."""
    for e in reversed(events):
        if e.type is EventType.SHOT_END and e.positions:
            return dict(e.positions)
    return None


def spotted(verdict_raw: Mapping[str, Any]) -> Positions:
    """The balls a verdict spots (1.25): ball id -> (x, y) mm."""
    out: Positions = {}
    for s in verdict_raw.get("spotted") or []:
        try:
            out[str(s["ball"])] = (float(s["x"]), float(s["y"]))
        except (KeyError, TypeError, ValueError):
            continue  # a spotted entry without a place: nothing to tell the tracker
    return out


def opening_note(opening: str, st: Statements) -> tuple[str, str]:
    """(summary value, note for the user) on where the ball ids come from."""
    if st.initial is not None:
        return "stated", f"ball ids: from the stated position ({st.source}), {len(st.initial)} balls"
    if opening == "break":
        return "rack", "ball ids: from the rack order (5.3) and the coloured ball's colour"
    return "unknown", ("ball ids: UNKNOWN - the recording starts from a position and no position was stated "
                       "(give --state with \"balls\": {id: [x, y]} or a state line in --inputs); ivory balls "
                       "are followed under labels (events say `unnamed`, the video draws them as \"3?\"): "
                       "their events stand, their numbers (and Russian 71 pot values) are guesses and such pots "
                       "are marked for review")
