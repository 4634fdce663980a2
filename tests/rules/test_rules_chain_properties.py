"""Properties of the 1.20 token model over random event sequences (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.chain import judge_chain
from rules.events import Direction, Event, EventType, Line
from rules.settings import RulesSettings

BALLS = ["C", "3", "7", "9"]
CUSHIONS = ["front", "rear", "left_front", "left_rear", "right_front", "right_rear"]
CFG = RulesSettings()


@st.composite
def events(draw: st.DrawFn) -> list[Event]:
    n = draw(st.integers(0, 12))
    out: list[Event] = []
    for i in range(n):
        kind = draw(st.sampled_from(["contact", "cushion", "cross", "pot"]))
        t = 0.1 * (i + 1)
        if kind == "contact":
            a, b = draw(st.lists(st.sampled_from(BALLS), min_size=2, max_size=2, unique=True))
            out.append(Event(EventType.BALL_CONTACT, t, i, balls=(a, b)))
        elif kind == "cushion":
            out.append(Event(EventType.CUSHION, t, i, ball=draw(st.sampled_from(BALLS)),
                             cushion=draw(st.sampled_from(CUSHIONS))))
        elif kind == "cross":
            out.append(Event(EventType.LINE_CROSS, t, i, ball=draw(st.sampled_from(BALLS)), line=Line.CENTRE,
                             to=draw(st.sampled_from(list(Direction)))))
        else:
            out.append(Event(EventType.POT, t, i, ball=draw(st.sampled_from(BALLS)), pocket="rear_left"))
    return out


def first_contact(evs: list[Event]) -> int | None:
    return next((i for i, e in enumerate(evs) if e.type is EventType.BALL_CONTACT and e.balls and "C" in e.balls),
                None)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(evs=events(), extra=events())
def test_a_legal_chain_stays_legal_whatever_follows(evs: list[Event], extra: list[Event]) -> None:
    """Note 1 orders events; nothing after the chain is complete can undo it."""
    fc = first_contact(evs)
    a = judge_chain(evs, fc, None, {}, CFG)
    shifted = [Event(e.type, e.t + 10.0, e.frame, ball=e.ball, balls=e.balls, cushion=e.cushion, line=e.line,
                     to=e.to, pocket=e.pocket) for e in extra]
    b = judge_chain([*evs, *shifted], fc, None, {}, CFG)
    if a.legal:
        assert b.legal and b.clause == a.clause and b.text == a.text


@settings(max_examples=100, deadline=None, derandomize=True)
@given(evs=events(), prefix=events())
def test_events_before_the_first_contact_do_not_count(evs: list[Event], prefix: list[Event]) -> None:
    """Only events after the first cue-ball contact count (1.20: 'после соударения битка')."""
    pre = [e for e in prefix if e.type is not EventType.BALL_CONTACT]
    fc = first_contact(evs)
    if fc is None:
        return
    a = judge_chain(evs, fc, None, {}, CFG)
    b = judge_chain([*pre, *evs], fc + len(pre), None, {}, CFG)
    assert (a.legal, a.clause) == (b.legal, b.clause)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(evs=events(), perm=st.permutations(["3", "7", "9"]))
def test_the_chain_does_not_depend_on_ball_numbers(evs: list[Event], perm: list[str]) -> None:
    mapping = dict(zip(["3", "7", "9"], perm, strict=True)) | {"C": "C"}

    def rename(e: Event) -> Event:
        return Event(e.type, e.t, e.frame, ball=mapping.get(e.ball) if e.ball else None,
                     balls=(mapping[e.balls[0]], mapping[e.balls[1]]) if e.balls else None,
                     cushion=e.cushion, line=e.line, to=e.to, pocket=e.pocket)

    fc = first_contact(evs)
    a = judge_chain(evs, fc, None, {}, CFG)
    b = judge_chain([rename(e) for e in evs], fc, None, {}, CFG)
    assert (a.legal, a.clause) == (b.legal, b.clause)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(evs=events())
def test_no_contact_no_chain(evs: list[Event]) -> None:
    assert not judge_chain(evs, None, None, {}, CFG).legal
