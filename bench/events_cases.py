"""Where the events bench's cases come from: the kinematic set, the full physics, or rendered case folders
(noisy truth, the real tracker, or what analyze wrote), each with its ground truth."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from bench.events_scenarios import kinematic_set
from bench.events_tracks import NoiseModel, noisy_states
from calibration.table import Table
from rules.events import Event, EventType
from vision.types import BallStates


@dataclass
class Case:
    name: str
    table: Table
    fps: float
    truth: list[Event]
    states: list[BallStates]
    impulse: dict[int, float] | None = None  # truth contact index -> impulse (mm/s), where not in its extra
    found: list[Event] | None = None  # events found already (analyze's events.jsonl), else detected from states


def truth_impulses(events: list[Event], t: np.ndarray, pos: np.ndarray, ids: tuple[str, ...]) -> dict[int, float]:
    """Each truth contact's impulse from the truth tracks (mm/s of velocity): the larger of the two balls'
    velocity changes along the line of centres, from the frame interval before the contact's frame to the one
    after it (other impulses in that frame add in: the camera sees only their sum too)."""
    out: dict[int, float] = {}
    for k, e in enumerate(events):
        if e.type is not EventType.BALL_CONTACT or not e.balls:
            continue
        i, j = (ids.index(b) for b in e.balls)
        f = int(np.searchsorted(t, e.t, side="right")) - 1  # the last frame at or before the contact
        if f < 1 or f + 2 >= len(t):
            continue
        xy = pos[[f - 1, f, f + 1, f + 2]][:, [i, j], :2]  # (4, 2, 2)
        dv = (xy[3] - xy[2]) / float(t[f + 2] - t[f + 1]) - (xy[1] - xy[0]) / float(t[f] - t[f - 1])
        u = np.array([np.interp(e.t, t, pos[:, j, d]) - np.interp(e.t, t, pos[:, i, d]) for d in range(2)])
        if not (np.isfinite(u).all() and np.isfinite(dv).all()):
            continue
        u = u / max(float(np.hypot(*u)), 1e-9)
        out[k] = max(abs(float(np.dot(dv[0], u))), abs(float(np.dot(dv[1], u))))
    return out


def flag_packs(events: list[Event], pos0: np.ndarray, ids: tuple[str, ...], radius: float,
               touch_mm: float = 1.0) -> list[Event]:
    """The truth's contacts of pairs that touched (gap < `touch_mm`) at the start marked `cluster`, as the
    physics truth marks them (the kinematic sim does not), so the outside-packs figure covers both sets."""
    out = []
    for e in events:
        if e.type is EventType.BALL_CONTACT and e.balls and not e.extra.get("cluster"):
            i, j = (ids.index(b) for b in e.balls)
            gap = float(np.hypot(*(pos0[i, :2] - pos0[j, :2]))) - 2 * radius
            if np.isfinite(gap) and gap < touch_mm:
                e = replace(e, extra={**e.extra, "cluster": True})
        out.append(e)
    return out


def rack_rank(table: Table) -> tuple[int, int]:
    """(touching pairs of the full rack, rank of the map from their impulses to the balls' velocity
    changes): pairs minus rank is how many impulse patterns through the pack leave every velocity unchanged,
    so no camera can tell them apart (a triangulated frame's self-stresses)."""
    rack = table.rack_positions(gap_mm=0.05)
    pos = np.array(list(rack.values()), float)
    r = table.ball_radius
    edges = [(i, j) for i in range(len(pos)) for j in range(i + 1, len(pos))
             if np.hypot(*(pos[i] - pos[j])) < 2 * r + 1.0]
    a = np.zeros((2 * len(pos), len(edges)))
    for k, (i, j) in enumerate(edges):
        u = (pos[j] - pos[i]) / np.hypot(*(pos[j] - pos[i]))
        a[2 * i : 2 * i + 2, k] -= u
        a[2 * j : 2 * j + 2, k] += u
    return len(edges), int(np.linalg.matrix_rank(a))


def kinematic_cases(n_per_kind: int, seed: int, fps: float, noise: NoiseModel) -> Iterator[Case]:
    table = Table.load()
    for k, (name, res) in enumerate(kinematic_set(table, fps, n_per_kind, seed)):
        nm = NoiseModel(noise.sigma_rest_mm, noise.sigma_moving_mm, noise.p_miss, noise.seed + k)
        states = noisy_states(res.t, res.pos, res.state, res.ids, nm)
        truth = flag_packs(res.events, res.pos[0], res.ids, table.ball_radius)
        yield Case(name, table, fps, truth, states, truth_impulses(truth, res.t, res.pos, res.ids))


def physics_cases(seeds: range, fps: float, noise: NoiseModel) -> Iterator[Case]:
    """The scenario registry of synthetic.scenarios played by the full physics (no video needed)."""
    import synthetic.scenarios as scenarios
    from synthetic.make import load_scenario

    k = 0
    for seed in seeds:
        for name in scenarios.SCENARIOS:
            timeline, _, table, _ = load_scenario(name, seed, fps)
            if not timeline.events:
                continue
            k += 1
            nm = NoiseModel(noise.sigma_rest_mm, noise.sigma_moving_mm, noise.p_miss, noise.seed + k)
            states = noisy_states(timeline.t, timeline.pos_mm, timeline.state, timeline.ids, nm)
            yield Case(f"{name}-{seed}", table, fps, timeline.events, states)


def folder_cases(root: Path, source: str, noise: NoiseModel, analyzed: Path | None = None) -> Iterator[Case]:
    """Cases of the folders below root; with `analyzed`, the events are those analyze wrote for each case to
    analyzed/<case name>/events.jsonl (the whole pipeline, identity news from the rules included), and a
    case with none is skipped with a note."""
    from synthetic.truth import GroundTruth

    folders = sorted(p.parent for p in root.rglob("truth.json"))
    if not folders:
        raise ValueError(f"no case folders (truth.json) below {root}")
    for k, folder in enumerate(folders):
        gt = GroundTruth.load(folder)
        table = Table(gt.table)
        if analyzed is not None:
            path = analyzed / folder.name / "events.jsonl"
            if not path.exists():
                print(f"  {folder.name}: no {path}, skipped")
                continue
            lines = path.read_text().splitlines()
            found = [Event.from_dict(json.loads(line)) for line in lines if line.strip()]
            yield Case(folder.name, table, gt.fps, gt.events, [], found=found)
            continue
        if source == "truth-noisy":
            t = np.arange(gt.n_frames) / gt.fps
            nm = NoiseModel(noise.sigma_rest_mm, noise.sigma_moving_mm, noise.p_miss, noise.seed + k)
            states = noisy_states(t, gt.pos_mm, gt.state, gt.ids, nm, visible=gt.visible)
        elif source == "recorded":
            got = _recorded_states(folder)
            if got is None:
                print(f"  {folder.name}: no recording (python -m bench.replay record --cases {root}), skipped")
                continue
            states = got
        else:
            states = _tracker_states(folder, gt, table)
        yield Case(folder.name, table, gt.fps, gt.events, states)


def _recorded_states(folder: Path) -> list[BallStates] | None:
    """The real tracker's states of a case as `bench.replay record` kept them (analyze's own run, identity
    news included), or None when the case has no recording."""
    import pickle

    from bench.replay import store

    path = store(folder) / "states.pkl"
    if not path.exists():
        return None
    with path.open("rb") as f:
        states: list[BallStates] = pickle.load(f)
    return states


def _tracker_states(folder: Path, gt: Any, table: Table) -> list[BallStates]:
    """BallStates from the real tracker (vision.tracker) run on the case video, seeded with the balls'
    positions of the first frame (what the rack or the referee gives it)."""
    from vision.pipeline import track_source
    from vision.source import FileSource
    from vision.tracker import BallTracker

    first = {
        ball: (float(gt.pos_mm[0, i, 0]), float(gt.pos_mm[0, i, 1]))
        for i, ball in enumerate(gt.ids)
        if np.isfinite(gt.pos_mm[0, i, :2]).all()
    }
    tracker = BallTracker(gt.camera, table, gt.ids, initial_positions=first)
    source = FileSource(folder / "video.mp4")
    states = list(track_source(source, tracker))
    if source.error:
        raise RuntimeError(f"{folder}/video.mp4: {source.error}")
    return states
