"""What comes out before the look-ahead at 30 fps (`vision.events.early`): a stroke judged on a quiet table, the
hit of a ball the struck ball reaches at once, a pot the tracker called away from the lines; the events are those
the full reading finds; nothing out early passes a shot boundary still held."""

from __future__ import annotations

import numpy as np
import pytest

from bench.events_sim import Sim, SimResult
from bench.events_tracks import NoiseModel, noisy_states
from calibration.table import Table
from rules.events import Event, EventType
from vision.events import EventDetector

TABLE = Table.load()
R = TABLE.ball_radius
FPS = 30.0


def _stream(res: SimResult, seed: int, early: bool = True) -> list[tuple[Event, float]]:
    """Every event the detector puts out, fed frame by frame, with the stream time it came out at (None: at the
    flush)."""
    det = EventDetector(TABLE, FPS)
    det.early.active = early
    out: list[tuple[Event, float]] = []
    for st in noisy_states(res.t, res.pos, res.state, res.ids, NoiseModel(seed=seed)):
        out += [(e, float(st.t)) for e in det.update(st)]
    return out + [(e, np.inf) for e in det.flush()]


def _near_hit(gap_mm: float, speed: float) -> SimResult:
    """C struck at `speed` straight into 1 resting `gap_mm` in front of it, a third ball far off."""
    sim = Sim(TABLE, fps=FPS).place("C", (-700.0, 120.0)).place("1", (-700.0 + 2 * R + gap_mm, 120.0))
    return sim.place("9", (900.0, -400.0)).stroke(0.3, "C", (speed, 0.0)).run(2.5)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_stroke_on_a_quiet_table_is_out_within_100_ms(seed: int) -> None:
    # the look-ahead rules out a collision as the stroke's cause: with every other ball at rest and none near, there
    # is none to rule out (133 ms at 30 fps before: the onset's frame and three more)
    res = Sim(TABLE, fps=FPS).place("C", (-600.0, 100.0)).place("5", (700.0, -300.0))
    res = res.stroke(0.3, "C", (1400.0, 500.0)).run(2.0)
    starts = [(e, at - e.t) for e, at in _stream(res, seed) if e.type is EventType.SHOT_START]
    assert len(starts) == 1 and starts[0][0].ball == "C"
    assert starts[0][1] <= 0.1 + 1e-9, starts


def test_a_ball_the_struck_ball_reaches_at_once_is_out_sooner() -> None:
    # the hit on a ball a frame or two in front of the struck one is read from that ball's start, judged after the
    # look-ahead (121 ms on the recorded sets); read early where three samples past it show it beyond doubt, it is
    # out within 100 ms in about 11 of these 18 (where the start's reading needs a fourth sample, not: 110-150 ms)
    within = 0
    for gap_mm in (40.0, 60.0, 90.0):
        for speed in (800.0, 1400.0):
            for seed in (1, 2, 3):
                res = _near_hit(gap_mm, speed)
                early, full = (
                    [(e, at - e.t) for e, at in _stream(res, seed, flag) if e.type is EventType.BALL_CONTACT]
                    for flag in (True, False)
                )
                assert [set(e.balls or ()) for e, _ in early] == [{"C", "1"}] == [set(e.balls or ()) for e, _ in full]
                assert early[0][1] <= full[0][1] + 1e-9 and full[0][1] > 0.1
                within += early[0][1] <= 0.1 + 1e-9
    assert within >= 9, within


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_pot_in_a_corner_is_out_within_100_ms(seed: int) -> None:
    # a pot waited for the line reading to reach the frame it was gone in (117 ms at 30 fps on the recorded sets):
    # a ball that went into a corner far from both lines can have crossed neither there
    start = np.array([1300.0, 500.0])
    mouth = np.array(TABLE.pockets["rear_left"].mouth_centre)
    way = (mouth - start) / np.hypot(*(mouth - start))
    res = Sim(TABLE, fps=FPS).place("7", tuple(start)).place("2", (-900.0, -500.0))
    res = res.stroke(0.3, "7", tuple(way * 1500.0)).run(2.0)
    assert [e.pocket for e in res.events if e.type is EventType.POT] == ["rear_left"]
    pots = [(e, at - e.t) for e, at in _stream(res, seed) if e.type is EventType.POT]
    assert [e.pocket for e, _ in pots] == ["rear_left"] and pots[0][1] <= 0.1 + 1e-9, pots


def _key(e: Event) -> tuple[str, tuple[str, ...], str | None, str | None]:
    return e.type.value, e.agents, e.cushion, e.pocket


@pytest.mark.parametrize(
    "scenario",
    ["near_hit", "push", "touching_pair", "two_far", "middle_pot"],
)
def test_early_judgement_changes_when_events_come_out_not_what_they_are(scenario: str) -> None:
    sim = Sim(TABLE, fps=FPS)
    if scenario == "near_hit":
        res = _near_hit(50.0, 1800.0)
    elif scenario == "push":  # 1.19 geometry: the stroke waits for its push window
        res = sim.place("C", (-700.0, 0.0)).place("1", (-700.0 + 2 * R + 3.0, 0.0)).stroke(0.3, "C", (900.0, 0.0))
        res = res.run(2.5)
    elif scenario == "touching_pair":  # C into 1 frozen to 2
        res = sim.place("C", (-900.0, 0.0)).place("1", (-500.0, 0.0)).place("2", (-500.0 + 2 * R, 0.0))
        res = res.stroke(0.3, "C", (1600.0, 0.0)).run(3.0)
    elif scenario == "middle_pot":  # on the centre line: the pot waits for the crossing reading
        way = np.array([310.0, 387.5]) / np.hypot(310.0, 387.5)  # into middle_left, over the line in its mouth
        res = sim.place("4", (-300.0, 500.0)).stroke(0.3, "4", tuple(way * 1200.0)).run(2.5)
    else:  # two strokes, the second after the first shot ended
        res = sim.place("C", (-900.0, 300.0)).place("3", (600.0, -300.0)).stroke(0.3, "C", (0.0, -900.0))
        res = res.stroke(4.5, "3", (-800.0, 0.0)).run(7.0)
    for seed in (1, 2):
        early, full = _stream(res, seed), _stream(res, seed, early=False)
        assert [_key(e) for e, _ in early] == [_key(e) for e, _ in full]
        assert all(abs(a.t - b.t) <= 1.5 / FPS for (a, _), (b, _) in zip(early, full, strict=True))
        # no event comes out before a shot_start or shot_end dated before it
        for k, (e, _) in enumerate(early):
            later = [x for x, _ in early[k + 1:] if x.type in (EventType.SHOT_START, EventType.SHOT_END)]
            assert all(x.t >= e.t for x in later), (e, later)


def test_a_start_with_a_ball_within_reach_of_its_rest_is_not_judged_early(monkeypatch: pytest.MonkeyPatch) -> None:
    # an independent review: C struck into 1 resting 0.3 mm away; 1 leaves, C hardly moves, and 1's start was judged
    # alone on three samples (reach was measured from its samples after it left, not from its rest)
    from vision.events.early import EarlyLook

    asked: list[tuple[str, bool]] = []
    quiet = EarlyLook.quiet_start

    def spy(self: EarlyLook, det: EventDetector, o: object, n: int) -> bool:
        got = quiet(self, det, o, n)  # type: ignore[arg-type]
        asked.append((det.ids[o.ball], got))  # type: ignore[attr-defined]
        return got

    monkeypatch.setattr(EarlyLook, "quiet_start", spy)
    res = _near_hit(0.3, 2000.0)
    _stream(res, seed=1)
    assert asked and not any(got for _, got in asked), asked
