"""One synthetic case: scenario -> timeline -> rendered video + exact ground truth (synthetic/truth.py).

`make_case("break", seed=1, out_dir=Path("out/break"))` writes out/break/{video.mp4, truth.json, truth.npz}.
Events come from the timeline (the physics), never from the pictures.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from calibration.camera import CameraModel
from calibration.table import DEFAULT_SPEC, Table
from synthetic.render.camera import default_camera
from synthetic.render.renderer import Renderer
from synthetic.render.style import RenderStyle
from synthetic.render.video import VideoWriter
from synthetic.truth import GroundTruth
from synthetic.world import Timeline
from vision.types import BallState

HIDDEN_SHARE = 0.5  # a ball is hidden when more than half of its disc is covered or outside the frame


@dataclass
class CaseStats:
    frames: int
    render_s: float  # rendering, noise and encoding, without the one-off static set-up
    setup_s: float


def load_scenario(name: str, seed: int, fps: float) -> tuple[Timeline, list[dict[str, Any]], Table, str]:
    """A scenario of the registry (synthetic.scenarios) played: its timeline, referee log, table and description."""
    import synthetic.scenarios as scenarios  # imported late: the physics is heavy and optional here

    build: Callable[..., tuple[Timeline, list[dict[str, Any]]]] = scenarios.build
    timeline, log = build(name, seed, fps)
    # The scenario names its table spec; the timeline does not carry it.
    spec = scenarios.SCENARIOS[name](seed)
    table_name = getattr(spec, "table", DEFAULT_SPEC)
    about = " ".join(str(getattr(spec, k, "")) for k in ("description", "notes")).strip()
    return timeline, list(log), Table.load(table_name), about


def pixel_truth(camera: CameraModel, timeline: Timeline) -> np.ndarray:
    """(F, B, 2) projected ball centres at their true 3D height; NaN when the ball is not on the table."""
    pos = timeline.pos_mm
    f, b, _ = pos.shape
    gone = np.isin(timeline.state, [BallState.POTTED, BallState.OFF_TABLE]) | ~np.all(np.isfinite(pos), axis=2)
    px = np.full((f, b, 2), np.nan)
    ok = ~gone
    if ok.any():
        px[ok] = camera.project(pos[ok])
    return px


def render_timeline(
    timeline: Timeline,
    table: Table,
    out_dir: Path,
    seed: int,
    size: tuple[int, int] = (1920, 1080),
    style: RenderStyle | None = None,
    scenario: str = "custom",
    log: list[dict[str, Any]] | None = None,
    notes: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> CaseStats:
    """Render a timeline into out_dir/video.mp4 and write its ground truth beside it."""
    style = style if style is not None else RenderStyle()
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    camera = default_camera(table, size[0], size[1], seed)
    renderer = Renderer(table, camera, style, seed, timeline.ids)
    t1 = time.perf_counter()
    f, b = timeline.n_frames, len(timeline.ids)
    frac = np.zeros((f, b))
    exposure = style.shutter / timeline.fps
    with VideoWriter(out_dir / "video.mp4", size[0], size[1], timeline.fps, style.crf, style.preset) as video:
        for i in range(f):
            caps = timeline.occluders[i] if timeline.occluders else []
            res = renderer.render(timeline.pos_mm[i], timeline.rot[i], timeline.vel_mm_s[i], caps, exposure, i)
            video.write(res.image)
            frac[i] = np.nan_to_num(res.visible_fraction, nan=0.0)
            if progress is not None:
                progress(i + 1, f)
    px = pixel_truth(camera, timeline)
    visible = np.isfinite(px[..., 0]) & (frac > HIDDEN_SHARE)
    hidden_note = (
        f"visible = on the table and more than {HIDDEN_SHARE:.0%} of the ball's image disc uncovered "
        "(by the arm or cue, or the frame edge); "
    )
    GroundTruth(
        scenario=scenario,
        table=table.spec,
        camera=camera,
        fps=float(timeline.fps),
        ids=tuple(timeline.ids),
        events=list(timeline.events),
        pos_mm=timeline.pos_mm,
        vel_mm_s=timeline.vel_mm_s,
        px=px,
        visible=visible,
        state=timeline.state,
        log=list(log or []),
        notes=hidden_note + f"seed={seed}; style={style!r}" + (f"; {notes}" if notes else ""),
    ).save(out_dir)
    return CaseStats(f, time.perf_counter() - t1, t1 - t0)


def make_case(
    scenario: str,
    seed: int,
    out_dir: Path,
    fps: float = 60.0,
    size: tuple[int, int] = (1920, 1080),
    style: RenderStyle | None = None,
) -> Path:
    """Simulate a registered scenario, render it and write video.mp4, truth.json, truth.npz; returns out_dir."""
    timeline, log, table, about = load_scenario(scenario, seed, fps)
    render_timeline(timeline, table, Path(out_dir), seed, size, style, scenario, log, about)
    return Path(out_dir)
