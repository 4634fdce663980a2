"""Event benchmark: precision / recall / F1 per event type against ground truth, timing error, first contact.

    python -m bench.events_bench                       # the built-in kinematic set, noisy truth tracks
    python -m bench.events_bench --cases physics --n 3 # synthetic.scenarios through the full physics
    python -m bench.events_bench --cases DIR           # synthetic case folders (truth.json + truth.npz)
    python -m bench.events_bench --cases DIR --source tracker
    python -m bench.events_bench --cases DIR --source recorded  # the tracker's states bench.replay recorded
    python -m bench.events_bench --cases DIR --analyzed WORK  # the events.jsonl that analyze wrote per case

A detected event matches a truth event of the same type and key (balls for a contact, ball and cushion
segment, ball and pocket, ball, line and direction, ...) within 2 frames; matching is greedy by time
error. Only detected events with confidence >= 0.5 count (lower ones are review flags). A missed truth event
that a review flag of the same type and key reports within the 2 frames is counted apart ("fn reported for
review", `reported_for_review`): still a miss in the F1, but one the detector put before the referee rather than
passed over (a middle-pocket pot whose centre meets the centre line at the mouth, where the truth's own margin
is a fraction of a millimetre).

Beside the headline, figures that say what the headline is made of (the matching is the same):
- "same-pair repeats within one frame period merged": a truth contact of a pair less than one frame period
  (1/fps) after that pair's previous truth contact counts as that one contact. One camera frame cannot show two
  touches of one pair (the kinematic break's rack repeats pairs within ~1 ms), so this is the observable set.
  The same for cushions, a ball's repeats on one segment (a ball rattling in a pocket's jaws touches one nose
  two or three times within a frame);
- "crossings at a middle pocket's mouth left out": a truth centre-line crossing of a ball that the truth pots
  in a middle pocket within `AT_MOUTH_S` (1 ms) of it is left out, with any detection it matches. A pot aimed
  at the middle of a middle pocket meets the line where it leaves the bed, and the truth's side is decided by a
  fraction of a millimetre (1 ms at the 3 m/s of a firm pot is 3 mm, `EventSettings.review_band_mm`): the
  detector is meant to flag these for review, and the figure counts how many of them it did. One-sided: a
  confident detection at a mouth where the truth has no crossing still counts as extra (the truth events hold
  no margin to leave it out by), so the figure's precision is, if anything, low;
- recall on truth contacts whose impulse is below 60 mm/s (`EventSettings.kink_min_mm_s`, the smallest
  velocity change the detector calls a kink) and at or above it: a diagnostic, nothing is removed. The impulse is
  the physics truth's `speed_mm_s` (normal closing speed: equal masses, each ball's velocity change along the
  line of centres is (1 + e)/2 of it); the kinematic truth has none, so it is read from the truth tracks (the
  larger of the two balls' velocity changes along the line of centres over the contact's frame).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from bench.events_cases import Case, folder_cases, kinematic_cases, physics_cases, rack_rank
from bench.events_tracks import NoiseModel
from bench.latency import Latencies, release_latencies
from bench.latency import headline as latency_headline
from bench.latency import summary as latency_summary
from calibration.table import Table
from rules.events import Event, EventType, Line
from vision.events import EventDetector
from vision.pipeline import event_settings

TARGETS = {"pot": 0.99, "cushion": 0.97, "ball_contact": 0.95, "line_cross": 0.99}
TOL_FRAMES = 2.0
SLOW_CONTACT_MM_S = 60.0  # EventSettings.kink_min_mm_s: the smallest velocity change the detector calls a kink
MIN_CONF = 0.5
AT_MOUTH_S = 1e-3  # a centre-line crossing this close before a middle-pocket pot met the line at the mouth


def _key(e: Event) -> Any:
    if e.type is EventType.BALL_CONTACT:
        return frozenset(e.balls or ())
    if e.type is EventType.CUSHION:
        return (e.ball, e.cushion)
    if e.type is EventType.LINE_CROSS:
        return (e.ball, str(e.line), str(e.to))
    if e.type is EventType.POT:
        return (e.ball, e.pocket)
    if e.type is EventType.SHOT_END:
        return None
    return e.ball


def match(
    truth: list[Event], found: list[Event], fps: float
) -> tuple[list[tuple[Event, Event]], list[Event], list[Event]]:
    """Greedy one-to-one matching by time error; returns (pairs, unmatched truth, unmatched found)."""
    cands = []
    for i, te in enumerate(truth):
        for j, fe in enumerate(found):
            if te.type is fe.type and _key(te) == _key(fe):
                err = abs(te.t - fe.t) * fps
                if err <= TOL_FRAMES:
                    cands.append((err, i, j))
    used_t: set[int] = set()
    used_f: set[int] = set()
    pairs = []
    for _, i, j in sorted(cands):
        if i in used_t or j in used_f:
            continue
        used_t.add(i)
        used_f.add(j)
        pairs.append((truth[i], found[j]))
    return (
        pairs,
        [e for i, e in enumerate(truth) if i not in used_t],
        [e for j, e in enumerate(found) if j not in used_f],
    )


def reported_for_review(missed: list[Event], events: list[Event], fps: float) -> list[tuple[Event, Event]]:
    """The missed truth events a review flag (confidence below MIN_CONF) reports: same type and key, within the
    matching tolerance; one flag per truth event, as `match` pairs them."""
    flags = [e for e in events if e.confidence < MIN_CONF]
    pairs, _, _ = match(missed, flags, fps)
    return pairs


def _etype(e: Event | tuple[Event, Event]) -> EventType:
    return e[0].type if isinstance(e, tuple) else e.type


def _prf(c: dict[str, int]) -> dict[str, float]:
    p = c["tp"] / max(c["tp"] + c["fp"], 1)
    r = c["tp"] / max(c["tp"] + c["fn"], 1)
    return {"precision": p, "recall": r, "f1": 2 * p * r / max(p + r, 1e-12), "n_truth": c["tp"] + c["fn"]}


def at_mouth(truth: list[Event]) -> list[Event]:
    """Truth centre-line crossings within AT_MOUTH_S before the same ball's pot in a middle pocket."""
    pots = [e for e in truth if e.type is EventType.POT and (e.pocket or "").startswith("middle")]
    return [
        e for e in truth
        if e.type is EventType.LINE_CROSS and e.line is Line.CENTRE
        and any(p.ball == e.ball and 0.0 <= p.t - e.t <= AT_MOUTH_S for p in pots)
    ]


def _first_contacts(events: list[Event]) -> list[tuple[float, frozenset[str] | None]]:
    """(stroke time, first ball contact) of each shot (None for a shot without one)."""
    out: list[tuple[float, frozenset[str] | None]] = []
    open_shot = False
    for e in events:
        if e.type is EventType.SHOT_START and not e.extra.get("early"):
            out.append((e.t, None))
            open_shot = True
        elif e.type is EventType.BALL_CONTACT and open_shot and out and out[-1][1] is None:
            out[-1] = (out[-1][0], frozenset(e.balls or ()))
        elif e.type is EventType.SHOT_END:
            open_shot = False
    return out


def pair_key(e: Event) -> Hashable:
    return frozenset(e.balls or ())


def ball_segment_key(e: Event) -> Hashable:
    return (tuple(e.agents), e.cushion)


def merge_repeats(events: list[Event], fps: float, key: Callable[[Event], Hashable] = pair_key) -> list[Event]:
    """Truth events with repeats of one key (a pair's contacts by default) less than one frame period after its
    previous event dropped."""
    last: dict[Hashable, float] = {}
    out = []
    for e in sorted(events, key=lambda e: e.t):
        key_e = key(e)
        if e.t - last.get(key_e, -np.inf) >= 1.0 / fps:
            out.append(e)
        last[key_e] = e.t
    return out


def run(
    cases_dir: str | Path | None = None,
    source: str = "truth-noisy",
    *,
    n_per_kind: int = 12,
    seed: int = 0,
    fps: float = 60.0,
    noise: NoiseModel | None = None,
    verbose: bool = True,
    analyzed: Path | None = None,
) -> dict[str, Any]:
    """Run the benchmark; print and return the figures. `analyzed`: a folder of analyze outputs, one per case
    (`bench.verdicts_bench --work` leaves one), whose events are scored instead of detecting them here."""
    if source not in ("truth-noisy", "tracker", "recorded"):
        raise ValueError(f"source must be 'truth-noisy', 'tracker' or 'recorded', got {source!r}")
    nm = noise if noise is not None else NoiseModel()
    if str(cases_dir) == "physics":
        if source != "truth-noisy":
            raise ValueError("the physics set has no video: use source='truth-noisy' or give --cases")
        cases: Iterator[Case] = physics_cases(range(seed, seed + n_per_kind), fps, nm)
        label = f"physics scenarios (seeds {seed}..{seed + n_per_kind - 1})"
    elif cases_dir is None or str(cases_dir) == "kinematic":
        if source != "truth-noisy":
            raise ValueError("the kinematic set has no video: use source='truth-noisy' or give --cases")
        cases = kinematic_cases(n_per_kind, seed, fps, nm)
        label = f"kinematic set ({n_per_kind} per kind, seed {seed})"
    else:
        cases = folder_cases(Path(cases_dir), source, nm, analyzed)
        label = str(cases_dir)
        if analyzed is not None:
            source = f"analyze ({analyzed})"
    # the real tracker's states are judged with its own noise model, as analyze does; noisy truth with the default
    settings = event_settings() if source in ("tracker", "recorded") else None
    counts: dict[str, dict[str, int]] = {str(t): {"tp": 0, "fp": 0, "fn": 0, "fn_review": 0} for t in EventType}
    errors: dict[str, list[float]] = {str(t): [] for t in EventType}
    first_ok = first_n = n_cases = 0
    kind_counts: dict[str, dict[str, int]] = {}
    by_rate: dict[str, dict[str, dict[str, int]]] = {}  # frame rate -> target type -> tp / fp / fn
    solo = {"tp": 0, "fp": 0, "fn": 0}
    merged = {"tp": 0, "fp": 0, "fn": 0}
    merged_cushions = {"tp": 0, "fp": 0, "fn": 0}
    lines_clear = {"tp": 0, "fp": 0, "fn": 0}
    mouth = {"n": 0, "flagged": 0}
    by_speed = {"slow": [0, 0], "fast": [0, 0], "unknown": [0, 0]}  # [found, truth] below / at or above 60 mm/s
    flagged = False  # does the truth mark the contacts inside packs (synthetic.physics does)?
    misses: list[str] = []
    latency = Latencies()  # release latencies, where the events are detected here
    t_start = time.time()
    for case in cases:
        n_cases += 1
        if case.found is not None:
            events = case.found
        elif case.states:  # frame by frame, as analyze feeds it: when each event came out is measured too
            det = EventDetector(case.table, case.fps, settings, case.states[0].ids)
            events, lat = release_latencies(det, case.states)
            latency.merge(lat)
        else:
            events = []
        found = [e for e in events if e.confidence >= MIN_CONF]
        pairs, fn, fp = match(case.truth, found, case.fps)
        flagged_fn = {id(te): fe for te, fe in reported_for_review(fn, events, case.fps)}
        kind = case.name.rsplit("-", 1)[0].rstrip("_0123456789") or case.name
        kc = kind_counts.setdefault(kind, {"tp": 0, "fp": 0, "fn": 0})
        rate = by_rate.setdefault(f"{case.fps:g} fps", {t: {"tp": 0, "fp": 0, "fn": 0} for t in TARGETS})
        for group, sign in ((pairs, "tp"), (fn, "fn"), (fp, "fp")):
            for e in group:
                et = _etype(e)
                kc[sign] += int(et in (EventType.BALL_CONTACT, EventType.CUSHION))
                if str(et) in rate:
                    rate[str(et)][sign] += 1
        for te, fe in pairs:
            counts[str(te.type)]["tp"] += 1
            errors[str(te.type)].append(abs(te.t - fe.t) * case.fps)
        for e in fn:
            counts[str(e.type)]["fn"] += 1
            flag = flagged_fn.get(id(e))
            counts[str(e.type)]["fn_review"] += int(flag is not None)
            said = f" (reported for review, confidence {flag.confidence:.2f})" if flag is not None else ""
            misses.append(f"{case.name}: missed{said} {e.to_json()[:140]}")
        for e in fp:
            counts[str(e.type)]["fp"] += 1
            misses.append(f"{case.name}: extra  {e.to_json()[:140]}")
        # contacts outside packs of touching balls (the truth flags contacts of pairs that touched at the
        # stroke with extra "cluster", the detector its impulses read through packs), the figure that speaks of
        # single collisions
        solo_t = [e for e in case.truth if e.type is EventType.BALL_CONTACT and not e.extra.get("cluster")]
        # a detection that is one of the truth's pack contacts (same pair, within the tolerance) is in a pack
        # whatever the detector read it as (two pack balls meeting again as they spread, in the same frame)
        packed = [e for e in case.truth if e.type is EventType.BALL_CONTACT and e.extra.get("cluster")]
        solo_f = [e for e in found if e.type is EventType.BALL_CONTACT and not e.extra.get("cluster")
                  and not any(_key(p) == _key(e) and abs(p.t - e.t) * case.fps <= TOL_FRAMES for p in packed)]
        sp, sfn, sfp = match(solo_t, solo_f, case.fps)
        flagged = flagged or any(e.extra.get("cluster") for e in case.truth)
        solo["tp"] += len(sp)
        solo["fn"] += len(sfn)
        solo["fp"] += len(sfp)
        found_c = [e for e in found if e.type is EventType.BALL_CONTACT]
        truth_c = [e for e in case.truth if e.type is EventType.BALL_CONTACT]
        mp, mfn, mfp = match(merge_repeats(truth_c, case.fps), found_c, case.fps)
        merged["tp"] += len(mp)
        merged["fn"] += len(mfn)
        merged["fp"] += len(mfp)
        found_k = [e for e in found if e.type is EventType.CUSHION]
        truth_k = [e for e in case.truth if e.type is EventType.CUSHION]
        mp, mfn, mfp = match(merge_repeats(truth_k, case.fps, ball_segment_key), found_k, case.fps)
        merged_cushions["tp"] += len(mp)
        merged_cushions["fn"] += len(mfn)
        merged_cushions["fp"] += len(mfp)
        doubt = at_mouth(case.truth)
        mouth["n"] += len(doubt)
        mouth["flagged"] += sum(id(e) in flagged_fn for e in doubt)
        gone = {id(e) for e in doubt} | {id(fe) for te, fe in pairs if any(te is e for e in doubt)}
        for group, sign in ((pairs, "tp"), (fn, "fn"), (fp, "fp")):
            lines_clear[sign] += sum(
                _etype(e) is EventType.LINE_CROSS and not {id(x) for x in (e if isinstance(e, tuple) else (e,))} & gone
                for e in group
            )
        hit = {id(te) for te, _ in pairs}
        for k, e in enumerate(case.truth):
            if e.type is not EventType.BALL_CONTACT:
                continue
            v = e.extra.get("speed_mm_s", (case.impulse or {}).get(k))
            band = "unknown" if v is None else "slow" if float(v) < SLOW_CONTACT_MM_S else "fast"
            by_speed[band][0] += int(id(e) in hit)
            by_speed[band][1] += 1
        tf, ff = _first_contacts(case.truth), _first_contacts(found)
        for t_shot, want in tf:  # the detected shot whose stroke is within 2 frames of the true one
            first_n += 1
            near = [c for t, c in ff if abs(t - t_shot) * case.fps <= TOL_FRAMES]
            got = near[0] if near else None
            first_ok += int(bool(near) and got == want)
            if not near:  # counted wrong: no stroke found there to have a first contact
                misses.append(f"{case.name}: first contact {sorted(want or [])}: no shot_start detected within "
                              f"{TOL_FRAMES:g} frames of the stroke at {t_shot:.3f} s")
            elif got != want:
                misses.append(f"{case.name}: first contact {sorted(want or [])} detected {sorted(got or [])}")
    by_kind = {kind: {k: round(v, 3) for k, v in _prf(c).items()} for kind, c in sorted(kind_counts.items())}
    per_type: dict[str, dict[str, float]] = {}
    for name, c in counts.items():
        if c["tp"] + c["fp"] + c["fn"] == 0:
            continue
        p = c["tp"] / max(c["tp"] + c["fp"], 1)
        r = c["tp"] / max(c["tp"] + c["fn"], 1)
        f1 = 2 * p * r / max(p + r, 1e-12)
        med = float(np.median(errors[name])) if errors[name] else float("nan")
        per_type[name] = {**c, "precision": p, "recall": r, "f1": f1, "median_dt_frames": med}
    all_err = [x for name, v in errors.items() if name != "shot_end" for x in v]
    result: dict[str, Any] = {
        "cases": label,
        "source": source,
        "n_cases": n_cases,
        "per_type": per_type,
        "median_timing_error_frames": float(np.median(all_err)) if all_err else float("nan"),
        "first_contact_right": first_ok / max(first_n, 1),
        "n_shots": first_n,
        "seconds": round(time.time() - t_start, 1),
        "contacts_and_cushions_by_kind": by_kind,
        "f1_by_frame_rate": {rate: {t: round(_prf(c)["f1"], 3) for t, c in v.items() if c["tp"] + c["fn"] + c["fp"]}
                             for rate, v in sorted(by_rate.items(), key=lambda kv: float(kv[0].split()[0]))},
        "ball_contact_outside_clusters": {k: round(v, 3) for k, v in _prf(solo).items()} if flagged else {},
        "ball_contact_repeats_merged": {k: round(v, 3) for k, v in _prf(merged).items()},
        "cushion_repeats_merged": {k: round(v, 3) for k, v in _prf(merged_cushions).items()},
        "line_cross_at_mouth_left_out": {
            **{k: round(v, 3) for k, v in _prf(lines_clear).items()},
            "left_out": mouth["n"],
            "flagged": mouth["flagged"],
        },
        "ball_contact_recall_by_impulse": {
            k: {"found": f, "truth": n, "recall": round(f / n, 3) if n else None} for k, (f, n) in by_speed.items()
        },
        "mismatches": misses,
    }
    if latency.released or latency.at_end:
        result["latency"] = latency_summary(latency)
        result["moment_events_within_100ms"] = latency_headline(latency)
    result["targets"] = _targets(result)
    for name in TARGETS:  # flat headline figures for `pyramid-monitor bench` summary table
        result[f"{name}_f1"] = result["targets"][f"{name}_f1"]["value"]
    if verbose:
        _print(result, misses)
    return result


def _targets(res: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for name, goal in TARGETS.items():
        f1 = res["per_type"].get(name, {}).get("f1", float("nan"))
        out[f"{name}_f1"] = {"value": f1, "target": goal, "ok": bool(f1 >= goal)}
    fc = res["first_contact_right"]
    out["first_contact"] = {"value": fc, "target": 0.99, "ok": bool(fc >= 0.99)}
    med = res["median_timing_error_frames"]
    out["median_timing_frames"] = {"value": med, "target": 1.0, "ok": bool(med <= 1.0)}
    return out


def _print(res: dict[str, Any], misses: list[str]) -> None:
    print(f"events bench: {res['cases']}, source {res['source']}, {res['n_cases']} cases, {res['seconds']} s")
    print(f"{'type':<15}{'tp':>6}{'fp':>6}{'fn':>6}{'prec':>8}{'recall':>8}{'F1':>8}{'med dt(fr)':>12}"
          f"{'fn reported for review':>24}")
    for name, v in res["per_type"].items():
        print(
            f"{name:<15}{v['tp']:>6}{v['fp']:>6}{v['fn']:>6}{v['precision']:>8.3f}{v['recall']:>8.3f}"
            f"{v['f1']:>8.3f}{v['median_dt_frames']:>12.2f}{v['fn_review']:>24}"
        )
    print(f"median timing error (all but shot_end): {res['median_timing_error_frames']:.2f} frames")
    print(f"first contact right: {res['first_contact_right']:.3f} of {res['n_shots']} shots")
    if "latency" in res:
        lat = res["latency"]
        parts = [f"{k} {lat[k]['median_ms']:.0f} / {lat[k]['p95_ms']:.0f}" for k in
                 ("ball_contact", "cushion", "line_cross", "pot") if k in lat]
        print(f"released after (median / 95th percentile, ms of stream time): {', '.join(parts)}; "
              f"within 100 ms, pack contacts left out: {res['moment_events_within_100ms']:.1%} "
              "(python -m bench.latency for every type)")
    sc = res["ball_contact_outside_clusters"]
    if sc:
        print(
            f"ball contacts outside packs of touching balls: P {sc['precision']:.3f}  R {sc['recall']:.3f}  "
            f"F1 {sc['f1']:.3f}  ({sc['n_truth']:.0f} true)"
        )
    else:
        print("ball contacts outside packs of touching balls: n/a (this truth does not flag packs)")
    mc = res["ball_contact_repeats_merged"]
    print(
        f"ball_contact, same-pair repeats within one frame period merged: P {mc['precision']:.3f}  "
        f"R {mc['recall']:.3f}  F1 {mc['f1']:.3f}  ({mc['n_truth']:.0f} true)"
    )
    mk = res["cushion_repeats_merged"]
    print(
        f"cushion, a ball's repeats on one segment within one frame period merged: P {mk['precision']:.3f}  "
        f"R {mk['recall']:.3f}  F1 {mk['f1']:.3f}  ({mk['n_truth']:.0f} true)"
    )
    ml = res["line_cross_at_mouth_left_out"]
    print(
        f"line_cross, crossings at a middle pocket's mouth left out: P {ml['precision']:.3f}  R {ml['recall']:.3f}  "
        f"F1 {ml['f1']:.3f}  ({ml['n_truth']:.0f} true; {ml['left_out']} left out, {ml['flagged']} of them "
        "reported for review)"
    )
    sp = res["ball_contact_recall_by_impulse"]
    parts = [
        f"{label} {sp[k]['found']}/{sp[k]['truth']}" + (f" = {sp[k]['recall']:.3f}" if sp[k]["truth"] else "")
        for k, label in (("slow", "< 60 mm/s"), ("fast", ">= 60 mm/s"), ("unknown", "unknown"))
        if sp[k]["truth"] or k != "unknown"
    ]
    print("ball_contact recall by impulse: " + ", ".join(parts))
    pairs, rank = rack_rank(Table.load())
    print(f"the full rack: {pairs} touching pairs, their impulses -> velocity changes of rank {rank}: "
          f"{pairs - rank} patterns of impulse through the pack move no ball differently, so no camera sees them")
    for rate, v in res["f1_by_frame_rate"].items():
        print(f"F1 at {rate}: " + ", ".join(f"{t} {f1:.3f}" for t, f1 in v.items()))
    print("ball contacts + cushions by scenario kind:")
    for kind, v in res["contacts_and_cushions_by_kind"].items():
        print(f"  {kind:<24} P {v['precision']:.3f}  R {v['recall']:.3f}  F1 {v['f1']:.3f}  ({v['n_truth']:.0f} true)")
    for name, v in res["targets"].items():
        print(f"  target {name:<22} {v['value']:.3f} (>= / <= {v['target']}) {'OK' if v['ok'] else 'MISSED'}")
    firsts = [m for m in misses if "first contact" in m]
    if firsts:
        print("shots whose first contact is wrong:")
        for line in firsts:
            print("  " + line)
    others = [m for m in misses if "first contact" not in m]
    if others:
        print(f"first 40 of {len(others)} event mismatches:")
        for line in others[:40]:
            print("  " + line)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Event detector benchmark")
    ap.add_argument(
        "--cases",
        default=None,
        help="folder of synthetic cases (truth.json + truth.npz [+ video.mp4]), 'physics' (synthetic.scenarios "
        "played by the physics, --n seeds) or 'kinematic' (default: bench.events_scenarios, --n per kind)",
    )
    ap.add_argument("--source", default="truth-noisy", choices=("truth-noisy", "tracker", "recorded"))
    ap.add_argument("--n", type=int, default=12, help="kinematic set: shots per kind")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print the result dict as JSON at the end")
    ap.add_argument("--analyzed", type=Path, default=None,
                    help="with --cases DIR: score the events.jsonl analyze wrote per case below this folder "
                    "(the work folder of bench.verdicts_bench) instead of detecting events")
    args = ap.parse_args(argv)
    if args.analyzed is not None and args.cases in (None, "physics", "kinematic"):
        ap.error("--analyzed needs --cases DIR (the case folders the analyze outputs belong to)")
    res = run(args.cases, args.source, n_per_kind=args.n, seed=args.seed, analyzed=args.analyzed)
    if args.json:
        print(json.dumps(res, indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
