"""`pyramid-monitor calibrate`: find the table in a frame and write calibration.json."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "calibrate the camera from an overhead image or video of the table"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="IMAGE_OR_VIDEO", help="a frame (png/jpg) or a video of the table")
    parser.add_argument("--table", default="pyramid-12ft", help="table spec: a preset name or a JSON file")
    parser.add_argument("--corners", help="manual fallback: the four bed corners in pixels, "
                        "x1,y1,...,x4,y4 in the order front_right, front_left, rear_left, rear_right")
    parser.add_argument("--lens-images", nargs="+", type=Path, help="checkerboard images (9x6 inner corners) "
                        "for the lens, used with --corners")
    parser.add_argument("--overlay", type=Path, help="write the frame with the fit drawn over it (png)")
    parser.add_argument("-o", "--output", type=Path, default=Path("calibration.json"), help="calibration file")


def run(args: argparse.Namespace) -> int:
    import cv2

    from calibration.api import calibrate_file
    from calibration.manual import parse_corners
    from calibration.overlay import draw_overlay
    from calibration.result import CalibrationError

    try:
        corners = parse_corners(args.corners) if args.corners else None
        cal, frame = calibrate_file(args.source, args.table, corners, args.lens_images)
        args.output.parent.mkdir(parents=True, exist_ok=True)
        cal.save(args.output)
        if args.overlay is not None and not cv2.imwrite(str(args.overlay), draw_overlay(frame, cal)):
            raise CalibrationError(f"cannot write the overlay to {args.overlay}")
    except CalibrationError as exc:
        print(f"calibration failed: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"calibration failed: {exc}", file=sys.stderr)
        return 2
    q = cal.quality
    print(f"{cal.table_spec}: residual {cal.rms_mm:.2f} mm RMS, confidence {q.confidence:.2f} ({q.method}), "
          f"{q.edge_points} cushion points, {q.spots_found} spots, {q.pockets_found} pockets -> {args.output}")
    for note in cal.notes:
        print(f"  {note}")
    return 0
