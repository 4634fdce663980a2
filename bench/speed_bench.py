"""Whole-pipeline speed on one core at 1920x1080 60 fps, next to the bare decode rate.

    python -m bench.speed_bench                 # renders (once, cached) a 1080p60 synthetic break
    python -m bench.speed_bench --video FILE    # any video

The process pins itself to one CPU and caps OpenCV, FFmpeg and BLAS threads at one. Figures: bare decode
(PyAV, planar YUV, no colour conversion), the analysis (decode + detection + tracking + events + rules,
what `analyze --no-video` runs) and the analysis with annotated.mp4 encoding. The one-off automatic
calibration on the first frame is timed apart. Target: the analysis at >= 2x real time (120 fps at 60 fps).

The analysis is timed `--repeat` times (3 by default) and judged on the median CPU rate: on this machine the
same run varies by up to a quarter from one minute to the next (101 to 135 fps seen within ten minutes, load
average under 1), more than any change measured here, so one run says little. Every run's rate is printed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from pathlib import Path
from typing import Any

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import cv2  # noqa: E402

DEFAULT_DIR = Path("out/bench-cases/speed")
SAMPLES = Path("sample_videos")
TARGET_X = 2.0


def pin_one_core() -> int:
    """One CPU for every thread of this process (those started before too: affinity is per thread on Linux)
    and one OpenCV thread; returns the CPU, -1 where affinity cannot be set."""
    cv2.setNumThreads(1)
    if hasattr(os, "sched_setaffinity"):
        cpu = sorted(os.sched_getaffinity(0))[-1]
        for tid in _threads():
            with contextlib.suppress(OSError):  # a thread that ended meanwhile
                os.sched_setaffinity(tid, {cpu})
        os.sched_setaffinity(0, {cpu})
        return cpu
    return -1


def _threads() -> list[int]:
    """Thread ids of this process (Linux /proc; empty elsewhere)."""
    try:
        return [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        return []


def _cpus_used() -> set[int]:
    """The CPUs this process's threads may run on (the union of their affinities)."""
    cpus: set[int] = set()
    for tid in _threads() or [0]:
        with contextlib.suppress(OSError):
            cpus |= os.sched_getaffinity(tid)
    return cpus


def default_video(scenario: str = "break", seed: int = 0) -> Path:
    """The bundled 1080p60 sample (sample_videos/break) when present, else a synthetic case rendered once."""
    from service.pipeline.video import probe

    sample = SAMPLES / scenario / "video.mp4"
    if sample.exists():
        try:
            meta = probe(sample)
        except ValueError:
            meta = None
        if meta is not None and (meta.width, meta.height) == (1920, 1080) and round(meta.fps) == 60:
            return sample
    case = DEFAULT_DIR / f"{scenario}-{seed}-1920x1080-60"
    if not (case / "video.mp4").exists():
        from synthetic.make import make_case

        print(f"rendering {case} (once) ...", flush=True)
        make_case(scenario, seed, case, fps=60.0, size=(1920, 1080))
    return case / "video.mp4"


def decode_fps(video: Path, max_frames: int, skip_b_deblock: bool = False) -> tuple[float, float, int]:
    """(wall-clock fps, CPU-time fps, frames) of bare decoding; `skip_b_deblock` as analysis decodes."""
    from service.pipeline.video import ReadStatus, read_frames

    status = ReadStatus()
    n, t0, c0 = 0, time.perf_counter(), time.process_time()
    for _ in read_frames(video, status, threads=1, i420=True, skip_b_deblock=skip_b_deblock):
        n += 1
        if n >= max_frames:
            break
    return n / max(time.perf_counter() - t0, 1e-9), n / max(time.process_time() - c0, 1e-9), n


def pipeline_fps(video: Path, max_frames: int, annotate: bool, out: Path) -> dict[str, float]:
    """Frames per second of the analysis after its first frame (which carries the calibration)."""
    from service.pipeline.run import AnalyzeConfig, Hooks, analyze

    marks: list[float] = []
    cpu: list[float] = []
    threads = [0]

    def progress(done: int, total: int, t: float) -> None:
        marks.append(time.perf_counter())
        cpu.append(time.process_time())
        if len(marks) % 100 == 1:  # the most threads seen while analysing (decoder, encoder, BLAS, OpenCV)
            threads[0] = max(threads[0], len(_threads()))

    calibration = video.parent / "truth.json" if os.environ.get("PYRAMID_SPEED_TRUTH_CAMERA") else None
    cfg = AnalyzeConfig(video=video, out=out, annotate=annotate, threads=1, max_frames=max_frames,
                        calibration=calibration)
    t0 = time.perf_counter()
    analyze(cfg, Hooks(on_progress=progress))
    total = time.perf_counter() - t0
    if len(marks) < 2:
        return {"fps": 0.0, "first_frame_s": total, "frames": float(len(marks))}
    steady = (len(marks) - 1) / (marks[-1] - marks[0])
    steady_cpu = (len(cpu) - 1) / max(cpu[-1] - cpu[0], 1e-9)
    return {"fps": steady, "cpu_fps": steady_cpu, "first_frame_s": marks[0] - t0, "frames": float(len(marks)),
            "finish_s": t0 + total - marks[-1], "threads": float(threads[0])}


def run(video: Path | None = None, max_frames: int = 600, verbose: bool = True, repeat: int = 3) -> dict[str, Any]:
    cpu = pin_one_core()
    video = video or default_video()
    from service.pipeline.video import probe

    meta = probe(video)
    dec, dec_cpu, _ = decode_fps(video, max_frames)
    fast, fast_cpu, _ = decode_fps(video, max_frames, skip_b_deblock=True)
    out_root = Path("out/bench-speed")
    runs = [pipeline_fps(video, max_frames, False, out_root / "analysis") for _ in range(max(1, repeat))]
    ana = dict(sorted(runs, key=lambda r: r["cpu_fps"])[(len(runs) - 1) // 2])  # median (the lower of two)
    ann = pipeline_fps(video, max_frames, True, out_root / "annotated")
    res = {
        "video": str(video),
        "size": f"{meta.width}x{meta.height}",
        "video_fps": meta.fps,
        "cpu": cpu,
        "frames": int(ana["frames"]),
        "decode_fps": dec,
        "pipeline_fps": ana["fps"],
        "pipeline_x_realtime": ana["fps"] / meta.fps if meta.fps else 0.0,
        "decode_cpu_fps": dec_cpu,
        "decode_as_analysed_fps": fast,
        "decode_as_analysed_cpu_fps": fast_cpu,
        "pipeline_cpu_fps": ana["cpu_fps"],
        "pipeline_cpu_x_realtime": ana["cpu_fps"] / meta.fps if meta.fps else 0.0,
        "pipeline_cpu_fps_runs": [r["cpu_fps"] for r in runs],
        "annotated_fps": ann["fps"],
        "annotated_cpu_fps": ann["cpu_fps"],
        "load_avg_1min": os.getloadavg()[0] if hasattr(os, "getloadavg") else -1.0,
        "annotated_x_realtime": ann["fps"] / meta.fps if meta.fps else 0.0,
        "first_frame_s": ana["first_frame_s"],
        "target_x_realtime": TARGET_X,
        "threads_seen": int(max(ana.get("threads", 0), ann.get("threads", 0))),
        "cpus_allowed": len(_cpus_used()),
        "opencv_threads": cv2.getNumThreads(),
    }
    if verbose:
        print(f"speed bench: {video} ({res['size']} at {meta.fps:.0f} fps), one core (cpu {cpu}), "
              f"{res['frames']} frames")
        print("  (wall = frames per elapsed second on the pinned core; cpu = frames per CPU second this process got,"
              " i.e. the rate on an idle core)")
        print(f"  {'':36s}{'wall fps':>10s}{'cpu fps':>10s}{'x real time (cpu)':>20s}")
        print(f"  {'bare decode (PyAV, YUV planes)':36s}{dec:10.1f}{dec_cpu:10.1f}{dec_cpu / meta.fps:20.2f}")
        print(f"  {'  as analysis decodes (B deblock off)':36s}{fast:10.1f}{fast_cpu:10.1f}"
              f"{fast_cpu / meta.fps:20.2f}")
        print(f"  {'analysis (analyze --no-video)':36s}{ana['fps']:10.1f}{ana['cpu_fps']:10.1f}"
              f"{ana['cpu_fps'] / meta.fps:20.2f}   target >= {TARGET_X:.0f}x")
        if len(runs) > 1:
            rates = ", ".join(f"{r['cpu_fps']:.1f}" for r in runs)
            print(f"  {'':36s}(median of {len(runs)} runs, cpu fps: {rates})")
        print(f"  {'analysis + annotated.mp4':36s}{ann['fps']:10.1f}{ann['cpu_fps']:10.1f}"
              f"{ann['cpu_fps'] / meta.fps:20.2f}")
        print(f"  load average while measuring: {res['load_avg_1min']:.1f}; threads seen {res['threads_seen']}, all on "
              f"{res['cpus_allowed']} CPU(s); OpenCV threads {res['opencv_threads']}; BLAS threads capped at "
              f"{os.environ.get('OPENBLAS_NUM_THREADS')} (set before numpy loads)")
        print(f"  first frame (automatic calibration) {ana['first_frame_s']:7.2f} s, once per video")
    return res


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--video", type=Path, default=None)
    p.add_argument("--max-frames", type=int, default=600)
    p.add_argument("--repeat", type=int, default=3, help="timed runs of the analysis; the median is reported")
    a = p.parse_args(argv)
    run(a.video, a.max_frames, repeat=a.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
