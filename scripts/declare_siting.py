"""Declare the chroma siting in the H.264 parameter sets of existing synthetic videos, without re-encoding.

    python scripts/declare_siting.py sample_videos/*/video.mp4

The synthetic renderer converts with OpenCV, whose I420 takes each chroma sample from the top-left luma pixel
of its 2x2 block (chroma_sample_loc_type 2); videos rendered before `synthetic.render.video` said so in the
stream carry no chroma location, which readers take for the H.264 default ("left"). This rewrites the SPS
(FFmpeg's h264_metadata filter) and remuxes the packets as they are: the decoded pictures do not change.
"""

from __future__ import annotations

import sys
from pathlib import Path

from synthetic.render.video import declare_siting


def main(argv: list[str]) -> int:
    for name in argv:
        print(name, "rewritten" if declare_siting(Path(name)) else "already declared")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
