"""Tracking benchmark over synthetic case folders (synthetic/make.py): detection recall and precision,
position RMSE (stationary / moving), identity switches (per shot), MOTA and IDF1 (motmetrics), HOTA, and
analysed frames per second (decode included) next to the bare decode rate of the same file.

By default the TRUE camera from truth.json is used, so tracking is measured apart from calibration;
`camera="calibration"` fits the camera from the first frame with the calibration package instead.

    python -m bench.tracking_bench /path/to/cases [--max-frames N] [--init truth|rack] [--cores 1]
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import motmetrics as mm
import numpy as np
from scipy.optimize import linear_sum_assignment

from bench.hota import hota
from calibration.camera import CameraModel
from calibration.table import Table
from rules.events import EventType
from synthetic.truth import GroundTruth, find_cases
from vision.source import FileSource
from vision.tracker import BallTracker
from vision.types import BallState, BallStates, Detections

IN_PLAY = (int(BallState.STATIONARY), int(BallState.MOVING))


@dataclass
class CaseResult:
    name: str
    frames: int = 0
    decode_fps: float = 0.0
    analysed_fps: float = 0.0
    decode_cpu_fps: float = 0.0  # frames per CPU second: what one core does when it is not shared
    analysed_cpu_fps: float = 0.0
    vis: int = 0  # visible ball-frames
    vis_found: int = 0
    rest_vis: int = 0  # visible ball-frames before the first shot (the rack)
    rest_found: int = 0
    dets: int = 0
    dets_true: int = 0
    dets_conf: int = 0  # detections with confidence >= 0.5
    dets_conf_true: int = 0
    sq_err: dict[str, list[float]] = field(default_factory=lambda: {"stationary": [], "moving": []})
    outliers: int = 0
    switches: int = 0
    shots: int = 0
    shots_clean: int = 0
    id_correct: int = 0
    mota: float = float("nan")
    idf1: float = float("nan")
    hota: dict[str, float] = field(default_factory=dict)
    error: str | None = None


def _pin_one_core(cores: int) -> None:
    """Measure on `cores` CPUs: pin the process and cap OpenCV's threads."""
    cv2.setNumThreads(cores)
    if hasattr(os, "sched_setaffinity"):
        avail = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, set(avail[:cores]))


def decode_rate(video: Path, threads: int, max_frames: int | None, fast: bool = False) -> tuple[float, float]:
    """Frames per wall second and per CPU second of bare decoding (to I420, as the analysis reads it)."""
    src = FileSource(video, i420=True, threads=threads, fast=fast)
    n = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in src:
        n += 1
        if max_frames is not None and n >= max_frames:
            break
    return n / max(time.perf_counter() - t0, 1e-9), n / max(time.process_time() - c0, 1e-9)


def camera_for(truth: GroundTruth, video: Path, which: str) -> CameraModel:
    if which == "truth":
        return truth.camera
    from calibration.api import calibrate_file  # the calibration package's automatic fit, only when asked

    cal, _ = calibrate_file(video, spec=truth.table.name)
    return cal.camera


def analyse_case(
    case: Path,
    camera: str = "truth",
    init: str = "truth",
    max_frames: int | None = None,
    threads: int = 1,
    fast_decode: bool = False,
) -> CaseResult:
    truth = GroundTruth.load(case)
    table = Table(truth.table)
    res = CaseResult(case.name)
    video = case / "video.mp4"
    res.decode_fps, res.decode_cpu_fps = decode_rate(video, threads, max_frames, fast_decode)
    cam = camera_for(truth, video, camera)
    initial = None
    if init == "truth":
        ok = np.isfinite(truth.pos_mm[0, :, 0]) & np.isin(truth.state[0], IN_PLAY)
        p0 = truth.pos_mm[0]
        initial = {b: (float(p0[k, 0]), float(p0[k, 1])) for k, b in enumerate(truth.ids) if ok[k]}
    tracker = BallTracker(cam, table, ids=truth.ids, initial_positions=initial)
    src = FileSource(video, i420=True, threads=threads, fast=fast_decode)
    states: list[BallStates] = []
    dets: list[Detections] = []
    t0, c0 = time.perf_counter(), time.process_time()
    for fr in src:
        states.append(tracker.update(fr.image, fr.t))
        dets.append(tracker.last_detections)
        if max_frames is not None and len(states) >= max_frames:
            break
    res.analysed_fps = len(states) / max(time.perf_counter() - t0, 1e-9)
    res.analysed_cpu_fps = len(states) / max(time.process_time() - c0, 1e-9)
    res.frames = len(states)
    res.error = src.error
    _score(res, truth, states, dets)
    return res


def _score(res: CaseResult, truth: GroundTruth, states: list[BallStates], dets: list[Detections]) -> None:
    R = truth.table.ball_diameter_mm / 2.0
    shot_starts = sorted(e.frame for e in truth.events if e.type == EventType.SHOT_START)
    first_shot = shot_starts[0] if shot_starts else truth.n_frames
    acc = mm.MOTAccumulator(auto_id=False)
    hota_frames = []
    ids = np.arange(len(truth.ids))  # motmetrics wants numeric ids
    for f, (st, det) in enumerate(zip(states, dets, strict=True)):
        if f >= truth.n_frames:
            break
        pos = truth.pos_mm[f, :, :2]
        on_table = np.isfinite(pos[:, 0]) & np.isin(truth.state[f], IN_PLAY)
        vis = truth.visible[f] & on_table
        # detection recall / precision (identity-free)
        on_idx = np.nonzero(on_table)[0]
        matched_vis = 0
        n_match = 0
        if len(on_idx) and len(det):
            d = np.linalg.norm(pos[on_idx][:, None, :] - det.xy_mm[None, :, :], axis=2)
            rows, cols = linear_sum_assignment(d)
            good = d[rows, cols] <= R / 2
            n_match = int(good.sum())
            matched_vis = int(vis[on_idx[rows[good]]].sum())
            res.dets_conf_true += int((det.confidence[cols[good]] >= 0.5).sum())
        res.vis += int(vis.sum())
        res.vis_found += matched_vis
        res.dets += len(det)
        res.dets_true += n_match
        res.dets_conf += int((det.confidence >= 0.5).sum())
        if f < first_shot:
            res.rest_vis += int(vis.sum())
            res.rest_found += matched_vis
        # published tracks vs truth, by id
        order = [st.ids.index(b) for b in truth.ids]
        xy = st.xy_mm[order]
        present = np.isin(st.state[order], IN_PLAY)
        err = np.linalg.norm(xy - pos, axis=1)
        for k in np.nonzero(vis & present)[0]:
            if err[k] > 2 * R:
                res.outliers += 1
                continue
            res.id_correct += 1
            kind = "moving" if truth.state[f, k] == BallState.MOVING else "stationary"
            res.sq_err[kind].append(float(err[k] ** 2))
        g_ids, h_ids = ids[vis], ids[present]
        dist = mm.distances.norm2squared_matrix(pos[vis], xy[present], max_d2=(2 * R) ** 2)
        acc.update(list(g_ids), list(h_ids), dist, frameid=f)
        hota_frames.append((g_ids, pos[vis], h_ids, xy[present]))
    ev = acc.mot_events
    sw_frames = ev[ev["Type"] == "SWITCH"].index.get_level_values(0).to_numpy() if len(ev) else np.zeros(0)
    res.switches = len(sw_frames)
    bounds = [*shot_starts, 10**9] if shot_starts else [0, 10**9]
    res.shots = len(bounds) - 1
    for i in range(res.shots):
        lo = 0 if i == 0 else bounds[i]
        res.shots_clean += int(not np.any((sw_frames >= lo) & (sw_frames < bounds[i + 1])))
    summary = mm.metrics.create().compute(acc, metrics=["mota", "idf1"], name="c")
    res.mota, res.idf1 = float(summary["mota"].iloc[0]), float(summary["idf1"].iloc[0])
    res.hota = hota(hota_frames, d_max=2 * R)


def _rmse(v: list[float]) -> float:
    return float(np.sqrt(np.mean(v))) if v else float("nan")


def summarise(results: list[CaseResult]) -> dict[str, Any]:
    tot = lambda name: sum(getattr(r, name) for r in results)  # noqa: E731
    st = [x for r in results for x in r.sq_err["stationary"]]
    mv = [x for r in results for x in r.sq_err["moving"]]
    frames = tot("frames")
    return {
        "cases": len(results),
        "frames": frames,
        "recall": tot("vis_found") / max(tot("vis"), 1),
        "recall_rack": tot("rest_found") / max(tot("rest_vis"), 1),
        "precision": tot("dets_true") / max(tot("dets"), 1),
        "precision_conf50": tot("dets_conf_true") / max(tot("dets_conf"), 1),
        "rmse_stationary_mm": _rmse(st),
        "rmse_moving_mm": _rmse(mv),
        "track_outlier_share": tot("outliers") / max(tot("outliers") + tot("id_correct"), 1),
        "id_switches": tot("switches"),
        "shots": tot("shots"),
        "shots_without_switch": tot("shots_clean") / max(tot("shots"), 1),
        "mota": float(np.mean([r.mota for r in results])) if results else float("nan"),
        "idf1": float(np.mean([r.idf1 for r in results])) if results else float("nan"),
        "hota": float(np.mean([r.hota.get("HOTA", np.nan) for r in results])) if results else float("nan"),
        "analysed_fps": frames / max(sum(r.frames / max(r.analysed_fps, 1e-9) for r in results), 1e-9),
        "analysed_cpu_fps": frames / max(sum(r.frames / max(r.analysed_cpu_fps, 1e-9) for r in results), 1e-9),
        "decode_fps": frames / max(sum(r.frames / max(r.decode_fps, 1e-9) for r in results), 1e-9),
        "decode_cpu_fps": frames / max(sum(r.frames / max(r.decode_cpu_fps, 1e-9) for r in results), 1e-9),
        "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan"),
        "per_case": {r.name: _case_dict(r) for r in results},
    }


def _case_dict(r: CaseResult) -> dict[str, Any]:
    return {
        "frames": r.frames,
        "recall": r.vis_found / max(r.vis, 1),
        "precision": r.dets_true / max(r.dets, 1),
        "rmse_stationary_mm": _rmse(r.sq_err["stationary"]),
        "rmse_moving_mm": _rmse(r.sq_err["moving"]),
        "switches": r.switches,
        "shots": r.shots,
        "mota": r.mota,
        "hota": r.hota.get("HOTA", float("nan")),
        "analysed_fps": r.analysed_fps,
        "decode_fps": r.decode_fps,
        "analysed_cpu_fps": r.analysed_cpu_fps,
        "decode_cpu_fps": r.decode_cpu_fps,
        "error": r.error,
    }


def run(
    cases_dir: Path | str,
    camera: str = "truth",
    init: str = "truth",
    max_frames: int | None = None,
    cores: int = 1,
    verbose: bool = True,
    fast_decode: bool = False,
) -> dict[str, Any]:
    """Benchmark every case folder below cases_dir; prints a table when verbose and returns the figures."""
    _pin_one_core(cores)
    cases = find_cases(Path(cases_dir))
    if not cases:
        raise ValueError(f"no case folders (truth.json + video.mp4) below {cases_dir}")
    results = []
    for case in cases:
        r = analyse_case(case, camera, init, max_frames, threads=cores, fast_decode=fast_decode)
        results.append(r)
        if verbose:
            c = _case_dict(r)
            print(
                f"{r.name:28s} frames={c['frames']:5d} recall={c['recall']:.4f} precision={c['precision']:.4f} "
                f"rmse_st={c['rmse_stationary_mm']:.2f} rmse_mv={c['rmse_moving_mm']:.2f} sw={c['switches']} "
                f"mota={c['mota']:.3f} hota={c['hota']:.3f} fps={c['analysed_fps']:.0f} "
                f"(cpu {c['analysed_cpu_fps']:.0f}) decode={c['decode_fps']:.0f} (cpu {c['decode_cpu_fps']:.0f})"
                + (f" ERROR {r.error}" if r.error else ""),
                flush=True,
            )
    out = summarise(results)
    if verbose:
        print_summary(out, cores)
    return out


def print_summary(s: dict[str, Any], cores: int) -> None:
    print(f"--- {s['cases']} cases, {s['frames']} frames, {cores} core(s) ---")
    print(f"detection recall (visible balls, match <= R/2): {s['recall'] * 100:.2f} %  (target >= 99.5 %)")
    print(f"detection recall before the first shot (rack):  {s['recall_rack'] * 100:.2f} %")
    print(f"detection precision:                            {s['precision'] * 100:.2f} %  "
          f"(confidence >= 0.5: {s['precision_conf50'] * 100:.2f} %)")
    print(f"position RMSE stationary:                       {s['rmse_stationary_mm']:.2f} mm  (target <= 2 mm)")
    print(f"position RMSE moving:                           {s['rmse_moving_mm']:.2f} mm  (target <= 6 mm)")
    print(f"track outliers (> 2R from its ball, excluded):  {s['track_outlier_share'] * 100:.2f} %")
    print(f"identity switches: {s['id_switches']}; shots without a switch: "
          f"{s['shots_without_switch'] * 100:.1f} % of {s['shots']}  (target >= 98 %)")
    print(f"MOTA {s['mota']:.4f}  IDF1 {s['idf1']:.4f}  HOTA {s['hota']:.4f}")
    print(f"analysed fps (decode included), wall clock: {s['analysed_fps']:.1f}  (target >= 120); "
          f"bare decode: {s['decode_fps']:.1f}")
    print(f"analysed fps per CPU second (one core, as if not shared): {s['analysed_cpu_fps']:.1f}; "
          f"bare decode: {s['decode_cpu_fps']:.1f}; machine load average {s['load_average']:.1f}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("cases_dir", type=Path)
    p.add_argument("--camera", choices=("truth", "calibration"), default="truth")
    p.add_argument("--init", choices=("truth", "rack"), default="truth",
                   help="initial identities: truth's first frame, or the rack order (break cases)")
    p.add_argument("--max-frames", type=int, default=None)
    p.add_argument("--cores", type=int, default=1)
    p.add_argument("--fast-decode", action="store_true", help="skip H.264 deblocking (decode and analysis)")
    a = p.parse_args(argv)
    run(a.cases_dir, a.camera, a.init, a.max_frames, a.cores, fast_decode=a.fast_decode)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
