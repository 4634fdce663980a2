"""The rendered picture agrees with the camera model: ball images are centred on their projected centres."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.table import Table
from synthetic.render import RenderStyle, default_camera, get_renderer, render_frame

W, H = 960, 540


def _positions(table: Table) -> dict[str, tuple[float, float, float]]:
    r = table.ball_radius
    hl, hw = table.half_length, table.half_width
    return {
        "1": (0.0, 0.0, r),
        "2": (hl - r - 1.0, hw - r - 1.0, r),  # frozen into a corner: parallax with the cushion noses
        "3": (-hl + r + 0.5, 0.3 * hw, r),  # frozen to the front cushion
        "4": (0.4 * hl, -hw + r + 0.5, r),
        "5": (-0.6 * hl, -0.7 * hw, r),
        "C": (0.7 * hl, 0.55 * hw, r),
    }


def _centroid(frame: np.ndarray, empty: np.ndarray, near: np.ndarray, radius_px: float) -> np.ndarray:
    """Centroid of the filled blob that is brighter than the empty table near `near`."""
    diff = frame.astype(int) - empty.astype(int)
    mask = (diff.max(axis=2) > 25).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    best = None
    for c in contours:
        m = cv2.moments(c)
        if m["m00"] < 0.5 * np.pi * radius_px**2:
            continue
        xy = np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]])
        if best is None or np.linalg.norm(xy - near) < np.linalg.norm(best - near):
            best = xy
    assert best is not None, f"no ball blob near {near}"
    return best


@pytest.mark.parametrize("seed", [0, 7])
def test_projected_centres_match_rendered_balls(seed: int) -> None:
    table = Table.load()
    cam = default_camera(table, W, H, seed)
    style = RenderStyle().clean()
    empty = render_frame(table, cam, {}, style, seed)
    r_px = get_renderer(table, cam, style, seed).rays.focal * table.ball_radius / 3000.0
    for bid, p in _positions(table).items():
        frame = render_frame(table, cam, {bid: p}, style, seed)
        px = cam.project(np.array([p]))[0]
        got = _centroid(frame, empty, px, r_px)
        assert np.linalg.norm(got - px) < 1.5, f"ball {bid} at {p}: centroid {got} vs projected {px}"


def test_every_bed_corner_and_pocket_is_in_view() -> None:
    table = Table.load()
    for seed in range(20):
        cam = default_camera(table, 1920, 1080, seed)
        px = cam.project(np.array([pk.mouth_centre for pk in table.pockets.values()]))
        assert np.all((px > 0) & (px < [1920, 1080])), f"seed {seed}: a pocket is out of frame: {px}"
        width = np.ptp(cam.project(table.bed_corners)[:, 0])
        assert 0.55 * 1920 < width < 0.95 * 1920, f"seed {seed}: bed spans {width:.0f} px"


def test_frozen_ball_overlaps_the_cushion_in_the_image() -> None:
    """Parallax: a ball frozen to a far cushion rises above the nose (68 mm against 42 mm), so from a
    camera over the middle of the table its image covers part of the cushion, not only the cloth."""
    table = Table.load()
    cam = default_camera(table, W, H, 3)
    rend = get_renderer(table, cam, RenderStyle().clean(), 3)
    r = table.ball_radius
    m = rend.rays.margin
    for x in (table.half_length - r - 0.5, 0.0):
        box, sp = rend.ball_sprite("1", np.array([x, 0.0, r]))
        bed = np.isfinite(rend.background.bed_xy[box[1] + m : box[3] + m, box[0] + m : box[2] + m, 0])
        over_cushion = int(((sp.alpha > 0.5) & ~bed).sum())
        if x == 0.0:
            assert over_cushion == 0
        else:
            assert over_cushion > 0.05 * (sp.alpha > 0.5).sum(), f"{over_cushion} px over the cushion"


def test_lens_distortion_never_folds_inside_the_frame() -> None:
    """Every pixel of the frame must have a ray: r(1 + k1 r^2 + k2 r^4) keeps climbing out to the corners."""
    table = Table.load()
    for seed in range(40):
        for w, h in ((1920, 1080), (1280, 720)):
            cam = default_camera(table, w, h, seed)
            k1, k2 = cam.dist[0], cam.dist[1]
            assert -0.2 <= k1 <= -0.05
            corner = np.hypot(*np.maximum(cam.K[:2, 2], [w - cam.K[0, 2], h - cam.K[1, 2]])) / cam.K[0, 0]
            r = np.linspace(0.0, 2.0, 2001)
            rd = r * (1 + k1 * r**2 + k2 * r**4)
            top = int(np.argmax(np.diff(rd) <= 0)) if np.any(np.diff(rd) <= 0) else len(r) - 1
            assert rd[top] > corner, f"seed {seed}: the lens folds at r_d={rd[top]:.3f} < corner {corner:.3f}"


def test_a_ball_at_10_m_s_is_a_streak_along_its_motion() -> None:
    table = Table.load()
    cam = default_camera(table, W, H, 5)
    style = RenderStyle(noise_sigma=0.0)  # the default 1/120 s exposure at 60 fps
    empty = render_frame(table, cam, {}, style, 5)
    p = (0.0, 0.0, table.ball_radius)
    still = render_frame(table, cam, {"1": p}, style, 5)
    fast = render_frame(table, cam, {"1": p}, style, 5, vel_mm_s={"1": (10000.0, 0.0, 0.0)}, exposure_s=1 / 120)

    def extent(img: np.ndarray) -> tuple[int, int]:
        # Ivory over green cloth: the blue channel rises where the ball is (its shadow only darkens).
        ys, xs = np.nonzero(img[..., 0].astype(int) - empty[..., 0].astype(int) > 12)
        return int(np.ptp(xs)), int(np.ptp(ys))

    (sw, sh), (fw, fh) = extent(still), extent(fast)
    travel_px = 10000.0 / 120 * get_renderer(table, cam, style, 5).rays.focal / 3000.0
    assert fw > sw + 0.6 * travel_px, f"streak {fw} px wide, still ball {sw} px, travel {travel_px:.0f} px"
    assert abs(fh - sh) <= 0.25 * sh  # the long axis of the table runs along the image width
