"""Calibration accuracy on synthetic frames with a known camera.

Each case: `default_camera(seed)` (tilted, off-centre, barrel distortion), balls on the cloth, a forearm and
cue reaching over a long cushion, the renderer's lamps. Errors are in table mm: the estimated image
positions of the bed corners and spots are cast through the TRUE camera onto the bed and compared with
the table model's points.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from functools import lru_cache
from typing import Any

import numpy as np

from calibration.camera import CameraModel
from calibration.result import SPOT_NAMES, CalibrationError
from calibration.table import Table
from synthetic.render import default_camera, get_style, render_frame
from synthetic.render.style import STYLES, RenderStyle
from synthetic.world import Capsule


def make_case(
    table: Table, seed: int, width: int = 1920, height: int = 1080, style: str | RenderStyle = "default",
    arm: bool = True, n_balls: int = 10,
) -> tuple[CameraModel, np.ndarray]:
    """The true camera and one rendered frame for a seed (style: a preset's name or a RenderStyle)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xCA11B]))
    cam = default_camera(table, width, height, seed)
    r = table.ball_radius
    ids = ["C", *[str(i) for i in range(1, 16)]][:n_balls]
    pos = {
        b: (float(rng.uniform(-table.half_length + r, table.half_length - r)),
            float(rng.uniform(-table.half_width + r, table.half_width - r)), r)
        for b in ids
    }
    occ: list[Capsule] = []
    if arm:
        x0 = float(rng.uniform(-0.6, 0.6) * table.half_length)
        sy = float(rng.choice([-1.0, 1.0]))
        hand = (x0, sy * (table.half_width - 200.0), 160.0)
        occ = [
            Capsule((x0 + 120.0, sy * (table.half_width + 450.0), 420.0), hand, 45.0, (120, 150, 200)),
            Capsule(hand, (x0 + 900.0, sy * (table.half_width - 380.0), 60.0), 9.0, (60, 130, 180)),
        ]
    look = get_style(style) if isinstance(style, str) else style
    img = render_frame(table, cam, pos, look, seed=seed, occluders=occ)
    return cam, img


@lru_cache(maxsize=4)
def cached_case(spec: str, seed: int, style: str = "default") -> tuple[CameraModel, np.ndarray]:
    """make_case at 1920x1080 with an arm, kept for reuse (tests share frames: rendering is slow)."""
    return make_case(Table.load(spec), seed, style=style)


def errors_mm(table: Table, true_cam: CameraModel, corners_px: np.ndarray, spots_px: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Distances (mm) on the bed between where the true camera puts the estimated pixels and the truth."""
    c = np.linalg.norm(true_cam.unproject(corners_px, 0.0)[:, :2] - table.bed_corners, axis=1)
    truth = np.array([table.markings[n] for n in SPOT_NAMES])
    s = np.linalg.norm(true_cam.unproject(spots_px, 0.0)[:, :2] - truth, axis=1)
    return c, s


# Looks the renderer has no preset for, built here: other cloths than its green, blue and red
EXTRA_LOOKS: dict[str, RenderStyle] = {
    "grey-cloth": RenderStyle(cloth_bgr=(105, 105, 100)),
    "dim-red": replace(STYLES["dim"], cloth_bgr=(40, 36, 150)),
}


def look_of(name: str) -> RenderStyle:
    """A renderer preset or one of EXTRA_LOOKS."""
    return EXTRA_LOOKS[name] if name in EXTRA_LOOKS else get_style(name)


def all_looks() -> list[str]:
    """Every renderer preset (but "clean", default's geometry without noise) and the extra looks."""
    return [s for s in STYLES if s != "clean"] + list(EXTRA_LOOKS)


def run(n: int = 8, seed: int = 0, table_spec: str = "pyramid-12ft", style: str = "default", width: int = 1920,
        height: int = 1080, arm: bool = True) -> dict[str, Any]:
    """Calibrate n rendered frames (seeds seed..seed+n-1); print a table and return the figures."""
    from calibration.auto import calibrate_image

    table = Table.load(table_spec)
    corner_err: list[float] = []
    spot_err: list[float] = []
    resid: list[float] = []
    times: list[float] = []
    failures: list[str] = []
    print(f"calibration bench: {n} frames {width}x{height}, table {table_spec}, style {style}, arm {arm}")
    print(f"{'seed':>5} {'corner RMS mm':>14} {'corner max':>11} {'spot RMS mm':>12} {'resid mm':>9} {'time s':>7}")
    for k in range(n):
        s = seed + k
        cam, img = make_case(table, s, width, height, look_of(style), arm)
        t0 = time.perf_counter()
        try:
            cal = calibrate_image(img, table, table_spec)
        except CalibrationError as exc:
            failures.append(f"seed {s}: {exc}")
            print(f"{s:>5} FAILED: {exc}")
            continue
        times.append(time.perf_counter() - t0)
        spots = np.array([cal.markings_px[n_] for n_ in SPOT_NAMES])
        c, sp = errors_mm(table, cam, cal.bed_corners_px, spots)
        corner_err += c.tolist()
        spot_err += sp.tolist()
        resid.append(cal.rms_mm)
        print(f"{s:>5} {_rms(c):>14.2f} {c.max():>11.2f} {_rms(sp):>12.2f} {cal.rms_mm:>9.2f} {times[-1]:>7.2f}")
    out = {
        "frames": n,
        "failures": len(failures),
        "corner_rms_mm": _rms(np.asarray(corner_err)),
        "corner_max_mm": float(max(corner_err)) if corner_err else math.nan,
        "spot_rms_mm": _rms(np.asarray(spot_err)),
        "residual_rms_mm": float(np.mean(resid)) if resid else math.nan,
        "seconds_per_calibration": float(np.mean(times)) if times else math.nan,
        "failure_messages": failures,
    }
    print(f"ALL   bed-corner RMS {out['corner_rms_mm']:.2f} mm (max {out['corner_max_mm']:.2f}), "
          f"spot RMS {out['spot_rms_mm']:.2f} mm, residual {out['residual_rms_mm']:.2f} mm, "
          f"failures {len(failures)}/{n}, {out['seconds_per_calibration']:.2f} s per calibration "
          f"(target: corners and spots <= 1.5 mm RMS)")
    return out


def _rms(a: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.asarray(a) ** 2))) if len(a) else math.nan


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("-n", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--table", default="pyramid-12ft")
    ap.add_argument("--style", default="default",
                    help=f"a look: {', '.join(all_looks())}; 'all' runs each and prints a summary")
    ap.add_argument("--no-arm", action="store_true")
    a = ap.parse_args()
    if a.style != "all":
        run(a.n, a.seed, a.table, a.style, arm=not a.no_arm)
    else:
        rows = {look: run(a.n, a.seed, a.table, look, arm=not a.no_arm) for look in all_looks()}
        print(f"\n{'look':>13} {'failed':>7} {'corner RMS':>11} {'corner max':>11} {'spot RMS':>9} {'s/calib':>8}")
        for look, r in rows.items():
            print(f"{look:>13} {r['failures']:>4}/{r['frames']:<2} {r['corner_rms_mm']:>11.2f} "
                  f"{r['corner_max_mm']:>11.2f} {r['spot_rms_mm']:>9.2f} {r['seconds_per_calibration']:>8.2f}")
