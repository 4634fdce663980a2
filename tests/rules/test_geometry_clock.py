"""The shot clock of 1.26: 45 s, warning 10 s before, extensions that double the time."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.clock import ClockStatus, ShotClock


@pytest.mark.parametrize(
    ("elapsed", "status", "remaining"),
    [
        (0.0, ClockStatus.OK, 45.0),
        (34.9, ClockStatus.OK, 10.1),
        (35.0, ClockStatus.WARNING, 10.0),  # 1.26: announced 10 s before the time runs out
        (44.9, ClockStatus.WARNING, 0.1),
        (45.0, ClockStatus.WARNING, 0.0),  # reaching the limit is still in time
        (45.01, ClockStatus.OVERRUN, 0.0),  # 1.26: overrun is a foul
        (300.0, ClockStatus.OVERRUN, 0.0),
    ],
)
def test_default_clock(elapsed: float, status: ClockStatus, remaining: float) -> None:
    clock = ShotClock()
    assert clock.status(elapsed) is status
    assert clock.remaining(elapsed) == pytest.approx(remaining)


@pytest.mark.parametrize(
    ("elapsed", "status"),
    [(45.01, ClockStatus.OK), (79.9, ClockStatus.OK), (80.0, ClockStatus.WARNING), (90.0, ClockStatus.WARNING),
     (90.5, ClockStatus.OVERRUN)],
)  # fmt: skip
def test_extension_doubles_the_time(elapsed: float, status: ClockStatus) -> None:
    clock = ShotClock().with_extension()
    assert clock.time_s == 90.0
    assert clock.status(elapsed) is status


@pytest.mark.parametrize(("deciding", "extensions"), [(False, 1), (True, 2)])
def test_extensions_per_frame(deciding: bool, extensions: int) -> None:
    clock = ShotClock.for_frame(deciding)
    assert clock.extensions_left == extensions
    used = 0
    while True:
        try:
            clock = clock.with_extension()
        except ValueError as exc:
            assert "no extension left" in str(exc)
            break
        used += 1
        assert clock.time_s == 2 * clock.limit_s
        clock = clock.next_shot()
        assert clock.time_s == clock.limit_s, "an extension lasts one shot"
    assert used == extensions


def test_one_extension_per_shot() -> None:
    clock = ShotClock.for_frame(deciding=True).with_extension()
    with pytest.raises(ValueError, match="already extended"):
        clock.with_extension()


@pytest.mark.parametrize(("elapsed", "ok"), [(None, True), (0.0, True), (44.0, True), (45.0, True), (45.5, False)])
def test_extension_must_be_asked_in_time(elapsed: float | None, ok: bool) -> None:
    clock = ShotClock()
    if ok:
        assert clock.with_extension(elapsed).time_s == 90.0
    else:
        with pytest.raises(ValueError, match="ran out"):
            clock.with_extension(elapsed)


def test_clock_is_a_value() -> None:
    clock = ShotClock()
    extended = clock.with_extension()
    assert clock.extensions_left == 1 and not clock.extended, "with_extension returns a new clock"
    assert extended != clock
    assert ShotClock.for_frame(False) == ShotClock()


def test_custom_limits() -> None:
    clock = ShotClock.for_frame(False, limit_s=60.0, warning_s=15.0)
    assert clock.status(44.9) is ClockStatus.OK
    assert clock.status(45.0) is ClockStatus.WARNING
    assert clock.with_extension().warning_at_s == 105.0


@pytest.mark.parametrize(
    "kwargs",
    [{"limit_s": 0.0}, {"limit_s": -5.0}, {"limit_s": math.inf}, {"warning_s": 45.0}, {"warning_s": -1.0},
     {"extensions_left": -1}],
)  # fmt: skip
def test_bad_clock_raises(kwargs: dict) -> None:
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        ShotClock(**kwargs)


@pytest.mark.parametrize("elapsed", [-0.1, math.nan, math.inf])
def test_bad_elapsed_raises(elapsed: float) -> None:
    with pytest.raises(ValueError, match="elapsed_s"):
        ShotClock().status(elapsed)
    with pytest.raises(ValueError, match="elapsed_s"):
        ShotClock().remaining(elapsed)


@given(
    limit=st.floats(1.0, 600.0),
    warn_frac=st.floats(0.0, 0.99),
    extended=st.booleans(),
    a=st.floats(0.0, 2000.0),
    b=st.floats(0.0, 2000.0),
)
def test_status_only_moves_forward_and_agrees_with_remaining(
    limit: float, warn_frac: float, extended: bool, a: float, b: float
) -> None:
    clock = ShotClock(limit_s=limit, warning_s=warn_frac * limit)
    if extended:
        clock = clock.with_extension()
    order = [ClockStatus.OK, ClockStatus.WARNING, ClockStatus.OVERRUN]
    lo, hi = sorted((a, b))
    assert order.index(clock.status(lo)) <= order.index(clock.status(hi))
    assert clock.remaining(lo) >= clock.remaining(hi)
    assert (clock.status(hi) is ClockStatus.OVERRUN) == (hi > clock.time_s)
    if clock.status(hi) is ClockStatus.OK:
        assert clock.remaining(hi) > clock.warning_s
