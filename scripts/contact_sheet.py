"""Contact sheet of rendered frames (docs/contact_sheet.png): whole views under several seeds and styles,
and 1:1 crops, to judge by eye whether it passes for an overhead camera over a real table.

    python scripts/contact_sheet.py [-o docs/contact_sheet.png]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import cv2
import numpy as np

from calibration.table import Table
from rules.events import BALL_IDS
from synthetic.render import default_camera, get_renderer, get_style
from synthetic.render.demo import arm_and_cue, random_rotations

TILE = (640, 360)


def _scatter(table: Table, rng: np.random.Generator, n: int) -> dict[str, tuple[float, float, float]]:
    """n balls at random non-overlapping places on the bed."""
    r = table.ball_radius
    out: dict[str, tuple[float, float, float]] = {}
    ids = list(BALL_IDS)
    rng.shuffle(ids)
    while len(out) < n:
        p = rng.uniform([-table.half_length + r, -table.half_width + r], [table.half_length - r, table.half_width - r])
        if all(math.hypot(p[0] - q[0], p[1] - q[1]) > 2.05 * r for q in out.values()):
            out[ids[len(out)]] = (float(p[0]), float(p[1]), r)
    return out


def render_tile(kind: str, seed: int, style_name: str, size: tuple[int, int]) -> np.ndarray:
    table = Table.load()
    cam = default_camera(table, size[0], size[1], seed)
    rend = get_renderer(table, cam, get_style(style_name), seed)
    rng = np.random.default_rng(seed)
    r = table.ball_radius
    ids = rend.ids
    pos = np.full((len(ids), 3), np.nan)
    vel = np.zeros((len(ids), 3))
    rot = random_rotations(len(ids), rng)
    caps = []
    if kind == "rack":
        for bid, (x, y) in table.rack_positions().items():
            pos[ids.index(bid)] = (x, y, r)
        cx, cy = table.house_line_x - 150.0, 120.0
        pos[ids.index("C")] = (cx, cy, r)
        caps = arm_and_cue((cx, cy), math.atan2(-cy, table.rear_line_x - cx), r, 40.0)
    else:
        for bid, p in _scatter(table, rng, 11 if kind == "play" else 16).items():
            pos[ids.index(bid)] = p
        if kind == "play":
            for k in rng.choice(np.flatnonzero(np.isfinite(pos[:, 0])), 3, replace=False):
                a = rng.uniform(0, 2 * math.pi)
                vel[k] = (*(rng.uniform(1500, 9000) * np.array([math.cos(a), math.sin(a)])), 0.0)
    exposure = get_style(style_name).shutter / 60.0
    return rend.render(pos, rot, vel, caps, exposure, seed).image


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("-o", "--out", type=Path, default=Path("docs/contact_sheet.png"))
    args = ap.parse_args()
    tiles: list[np.ndarray] = []
    full = [("rack", 1, "default"), ("play", 2, "default"), ("spread", 3, "default"),
            ("play", 4, "blue"), ("rack", 5, "dim"), ("play", 6, "pool")]
    for kind, seed, style in full:
        img = render_tile(kind, seed, style, (1920, 1080))
        tiles.append(cv2.resize(img, TILE, interpolation=cv2.INTER_AREA))
    # 1:1 crops: the rack and arm, moving balls, a pocket and cushion.
    rack = render_tile("rack", 1, "default", (1920, 1080))
    play = render_tile("play", 2, "default", (1920, 1080))
    table = Table.load()
    for img, seed, xy in ((rack, 1, (table.rear_line_x + 150.0, 0.0)), (rack, 1, (table.house_line_x - 300, 200.0)),
                          (play, 2, (table.half_length, table.half_width))):
        cam = default_camera(table, 1920, 1080, seed)
        u, v = cam.project(np.array([[xy[0], xy[1], 0.0]]))[0]
        x0 = int(np.clip(u - TILE[0] / 2, 0, 1920 - TILE[0]))
        y0 = int(np.clip(v - TILE[1] / 2, 0, 1080 - TILE[1]))
        tiles.append(img[y0 : y0 + TILE[1], x0 : x0 + TILE[0]])
    rows = [np.hstack(tiles[i : i + 3]) for i in range(0, len(tiles), 3)]
    sheet = np.vstack(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(args.out), sheet)
    print(f"{args.out}: {sheet.shape[1]}x{sheet.shape[0]}, {len(tiles)} tiles")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
