"""The words of a verdict: its explanation and its review flags."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rules.analysis import Restored, ShotFacts
from rules.chain import name
from rules.events import Event, doubtful, id_confidence, unnamed_of
from rules.fouls import Foul, FoulReport
from rules.games import Outcome, RuleSet
from rules.settings import RulesSettings
from rules.state import Decision, Game, MatchState
from rules.verdict import Result, Review, event_ref


def build_review(facts: ShotFacts, fouls: Sequence[Foul], extra: Sequence[str], cfg: RulesSettings,
                 matters: Callable[[Event], bool] | None = None,
                 touch_matters: Callable[[str], bool] | None = None) -> Review:
    """Mark the verdict for the referee when it rests on a low-confidence event or a near-tolerance gap;
    `matters` / `touch_matters` (rules.doubts): whether the decision changes without a doubtful event / with the
    struck ball's touch of a ball at the stroke read the other way (None: always)."""
    reasons = [*extra, *facts.review_notes]
    reasons += [note for other, note in facts.touch_doubts if touch_matters is None or touch_matters(other)]
    rests = list(facts.chain.rests_on)
    if facts.first_contact is not None:
        rests.insert(0, facts.first_contact)
    rests += [p.event for p in facts.potted] + facts.jumped + facts.disturbed + facts.disturbed_before
    if not facts.contact:
        rests += facts.ignored_contacts
    seen: set[int] = set()
    events = []
    for e in rests:
        if id(e) in seen:
            continue
        seen.add(id(e))
        if doubtful(e, cfg.review_confidence) and matters is not None and not matters(e):
            continue
        if e.confidence < cfg.review_confidence:
            reasons.append(f"{e.type} {'-'.join(e.agents)} at t={e.t:.3f} s has confidence {e.confidence:.2f}")
            events.append(event_ref(e))
        elif e.extra.get("review"):  # the vision layer itself asks for a look (e.g. a contact near its margin)
            reasons.append(f"{e.type} {'-'.join(e.agents)} at t={e.t:.3f} s is marked for review by vision")
            events.append(event_ref(e))
    for fi in facts.chain.frozen_review:
        gap = "declared, not measured" if fi.gap_mm != fi.gap_mm else f"gap {fi.gap_mm:.2f} mm"
        reasons.append(f"ball {fi.ball} frozen to the {fi.cushion} cushion? {gap}, tolerance "
                       f"{cfg.frozen_tol_mm:g} mm (1.20(2c)/(3c))")
        events.append({"type": "frozen", "ball": fi.ball, "cushion": fi.cushion,
                       "gap_mm": None if fi.gap_mm != fi.gap_mm else round(fi.gap_mm, 3)})
    if facts.chain.order_review:
        pairs = ", ".join("-".join(e.agents) for e in facts.chain.order_review)
        reasons.append(f"the chain passes through contacts {pairs} within {cfg.simultaneous_s * 1000:g} ms of each "
                       "other, whose order the camera cannot tell (RulesSettings.simultaneous_s)")
        events.extend(event_ref(e) for e in facts.chain.order_review)
    if facts.push is not None and facts.push.review:
        reasons.append(facts.push.text)
    for r in _restored_once(facts):
        if r.clause == "1.23.1" and not r.after_end:
            # Whether the fall changed the shot (1.23.2: replay) is a judgement the events cannot make.
            reasons.append(f"{name(r.ball)} fell into the {_pocket(r)} pocket by itself during the shot: if that "
                           "changed the shot, every ball is restored and the shot replayed (1.23.2)")
            events.append(event_ref(r.event))
    _ = fouls
    reasons = list(dict.fromkeys(reasons))
    return Review(bool(reasons), tuple(reasons), tuple(events))


def unnamed_review(
    rs: RuleSet, facts: ShotFacts, start: Event, nominated: Sequence[str | None], min_id: float
) -> list[str]:
    """Where the game counts ball numbers (71: a pot scores its number, a nomination names a ball), a pot or
    a nominated ball whose id vision could only label (extra `unnamed`), or a pot of a ball whose track may
    have swapped with another's (extra `id_confidence` below `min_id`, schema 1.8), leaves the points to the
    referee. In Free, Combined and Dynamic every ivory ball counts one and is never named: no flag there (2.1,
    3.1, 4.1 allow unnumbered balls)."""
    if not rs.numbered_values and rs.nominate.value == "none":
        return []
    out = [f"{name(p.ball)} potted: vision could not read its number (the label is its own), and the points "
           f"rest on it ({rs.clauses.get('pot', '')})".replace(" ()", "")
           for p in facts.potted if p.ball in unnamed_of(p.event)]
    out += [f"{name(p.ball)} potted: its track may have swapped with another ball's (identity confidence "
            f"{id_confidence(p.event):.2f}), and the points rest on which ball it was "
            f"({rs.clauses.get('pot', '')})".replace(" ()", "")
            for p in facts.potted if p.ball not in unnamed_of(p.event) and id_confidence(p.event) < min_id]
    start_unnamed = set(unnamed_of(start))
    for b in dict.fromkeys(x for x in nominated if x):
        if b in start_unnamed:
            out.append(f"the nominated {name(b)}: vision could not read which ball carries that number")
    return out


def _restored_once(facts: ShotFacts) -> list[Restored]:
    """Each restored ball once (a ball may rattle in a pocket's events more than once)."""
    out: dict[str, Restored] = {}
    for r in facts.restored:
        out.setdefault(r.ball, r)
    return list(out.values())


def _pocket(r: Restored) -> str:
    return (r.event.pocket or "a").replace("_", " ")


def restored_text(r: Restored) -> str:
    """The sentence for a `pot` that is no pot of the shot."""
    if r.clause == "1.22.5":
        text = f"{name(r.ball)} jumped back out of the {_pocket(r)} pocket onto the bed: not potted, no foul (1.22.5)."
    else:
        when = "after the shot" if r.after_end else "during the shot, untouched"
        text = (f"{name(r.ball)} fell into the {_pocket(r)} pocket by itself {when}: put back where it stood, "
                "no foul (1.23.1).")
    return text[0].upper() + text[1:]


def _cited(f: Foul) -> str:
    """A foul's reason with its clause, once."""
    return f.reason if f.reason.endswith(f"({f.clause})") else f"{f.reason} ({f.clause})"


def _pts(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def explanation(st: MatchState, rs: RuleSet, facts: ShotFacts, rep: FoulReport, fouls: Sequence[Foul],
                after: Sequence[Foul], out: Outcome, notes: Sequence[str], spotted: Sequence[dict[str, object]],
                next_player: str | None, result: Result, winner: str | None, is_break: bool,
                decisions: Sequence[Decision], readings: Sequence[str] = (), theirs: Sequence[Foul] = ()) -> str:
    """One paragraph: the chain or the failed rule, the pots, the penalty, who plays next."""
    parts: list[str] = []
    if is_break and rep.brk is not None:
        if rep.brk.legal:
            parts.append(f"Legal break: {rep.brk.text} ({rep.brk.clause}).")
        else:
            parts.append(f"Illegal break: {rep.brk.text} ({rep.brk.clause}).")
    elif facts.chain.legal:
        parts.append(f"Chain: {facts.chain.text}.")
    elif st.game is Game.RUSSIAN71 and st.veterans and facts.contact:
        parts.append("1.20 waived for veterans (5.5.8 note).")
    listed_fouls = [f for f in fouls if not (is_break and f.clause == "1.12.1")]  # said above already
    if listed_fouls:
        listed = "; ".join(_cited(f) for f in listed_fouls)
        parts.append(f"Foul: {listed}." + (" One penalty for all (1.29.2)." if len(fouls) > 1 else ""))
        if facts.potted:
            parts.append("Every ball potted in it is illegal (1.22.3).")
    if after:
        parts.append("After the shot: " + "; ".join(_cited(f) for f in after)
                     + "; the pots stand (1.22).")
    if theirs:
        parts.append("Foul by " + "; ".join(f"{f.offender}: {_cited(f)}" for f in theirs)
                     + "; the striker's shot is judged on its own.")
    for n in notes:
        parts.append(n[0].upper() + n[1:] + ("" if n.endswith(".") else "."))
    parts.extend(restored_text(r) for r in _restored_once(facts))
    if out.counted:
        parts.append("Counted: " + ", ".join(f"{b} ({_pts(v)})" for b, v in out.counted) + ".")
    if spotted:
        parts.append("Spotted (1.25): " + ", ".join(
            f"{s['ball']} at ({s['x']}, {s['y']})" for s in spotted) + ".")
    pen = {p: v for p, v in out.points.items() if v and (fouls or after or theirs)}
    if pen:
        parts.append("Points: " + ", ".join(f"{p} {_pts(v)}" for p, v in pen.items())
                     + f" ({rs.clauses['foul_points']}).")
    if result is Result.CONTINUE:
        if next_player is not None:
            parts.append(f"Next: {next_player}.")
        else:
            parts.append("Next: decided by a lag (5.5.7).")
    elif result is Result.DRAW:
        parts.append("The frame is drawn (001)." if st.game is Game.CLASSIC71 else "The frame is drawn.")
    elif winner is not None:
        parts.append(f"{winner} wins the {'match' if result is Result.MATCH_WON else 'frame'}.")
    owed = [d for d in decisions if d.kind.value not in ("nomination", "cue_ball_choice")]  # owed every shot
    if owed:
        parts.append("Owed: " + "; ".join(f"{d.kind.value.replace('_', ' ')} by {d.by} ({d.clause})"
                                           for d in owed) + ".")
    for r in readings:
        parts.append(f"Rests on {r}.")
    return " ".join(parts)
