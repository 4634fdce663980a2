"""The decoder's planes reach vision without a copy and give exactly what the contiguous I420 array gives;
the coarse change grid reduces only the part of the frame it samples, with the same values as the whole."""

from __future__ import annotations

import av
import cv2
import numpy as np
import pytest

from calibration.table import Table
from synthetic.render import default_camera, get_style, render_frame
from vision.rectify import ChangeRectifier, Rectifier
from vision.siting import ChromaSiting
from vision.source import YUVFrame, bgr_of, small_bgr, yuv_frame

TABLE = Table.load("pyramid-12ft")
R = TABLE.ball_radius
W, H = 640, 360


def planes_frame(i420: np.ndarray) -> np.ndarray:
    """The frame as the decoder hands it out: an av.VideoFrame's own planes."""
    return yuv_frame(av.VideoFrame.from_ndarray(i420, format="yuv420p"))


def test_yuv_frame_views_the_planes_and_converts_like_i420() -> None:
    yy, xx = np.mgrid[0:96, 0:160]
    bgr = np.dstack([xx * 1.5, yy * 2.5, 255 - xx]).astype(np.uint8)  # smooth: shrinking commutes nearly
    i420 = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420)
    yf = planes_frame(i420)
    assert isinstance(yf, YUVFrame) and yf.shape == (96, 160) and yf.u.shape == yf.v.shape == (48, 80)
    assert np.array_equal(yf.i420(), i420)
    assert np.array_equal(bgr_of(yf), cv2.cvtColor(i420, cv2.COLOR_YUV2BGR_I420))
    small = small_bgr(yf, 30)  # halved twice (96 x 160 -> 24 x 40: 40 >= 30, a third halving would not be)
    assert small.shape == (24, 40, 3) and np.array_equal(small, small_bgr(i420, 30))
    full = cv2.resize(bgr_of(i420), (40, 24), interpolation=cv2.INTER_AREA).astype(int)
    assert np.abs(small.astype(int) - full).mean() < 3  # the same picture, shrunk in another order
    assert small_bgr(yf, 100).shape == (96, 160, 3)  # no halving keeps 100 px: the whole frame


@pytest.fixture(scope="module")
def frames() -> tuple[object, list[np.ndarray]]:
    """Two I420 frames of one camera: balls at rest, then a bright disc (a ball rolled in) on the bed."""
    cam = default_camera(TABLE, width=W, height=H, seed=3)
    img = render_frame(TABLE, cam, {"C": (-300.0, 100.0, R), "1": (500.0, -200.0, R)}, style=get_style("default"),
                       seed=3)
    moved = img.copy()
    u, v = cam.project(np.array([[0.0, 0.0, R]]))[0]
    cv2.circle(moved, (round(u), round(v)), 6, (230, 230, 230), -1)
    return cam, [cv2.cvtColor(x, cv2.COLOR_BGR2YUV_I420) for x in (img, moved)]


def test_rectifier_reads_planes_exactly_as_i420(frames: tuple[object, list[np.ndarray]]) -> None:
    cam, i420s = frames
    rect = Rectifier(cam, TABLE)  # type: ignore[arg-type]
    a, b = ChangeRectifier(rect), ChangeRectifier(rect)
    for i420 in i420s:
        pa = [p.copy() for p in a.update(i420)]
        pb = b.update(planes_frame(i420))
        assert all(np.array_equal(x, y) for x, y in zip(pa, pb, strict=True))
        assert np.array_equal(a.changed, b.changed)
    assert not a.full and 0 < a.resampled_share < 0.2  # the second frame re-sampled only around the disc


def test_coarse_grid_of_the_cropped_frame_equals_the_whole(frames: tuple[object, list[np.ndarray]]) -> None:
    cam, i420s = frames
    cr = ChangeRectifier(Rectifier(cam, TABLE))  # type: ignore[arg-type]
    assert cr._crop != (0, 0, W // 4, H // 4)  # the bed does not fill this view: a real crop
    rect, b = cr.rect, cr.BLOCK
    rows = np.minimum(np.arange(cr.bh) * b + b // 2, rect.h - 1)
    cols = np.minimum(np.arange(cr.bw) * b + b // 2, rect.w - 1)
    cx, cy = rect.map_x[rows][:, cols], rect.map_y[rows][:, cols]
    m1, m2 = cv2.convertMaps((cx + 0.5) / 4 - 0.5, (cy + 0.5) / 4 - 0.5, cv2.CV_16SC2)
    for i420 in i420s:
        small = cv2.resize(cv2.resize(i420[:H], (W // 2, H // 2), interpolation=cv2.INTER_AREA), (W // 4, H // 4),
                           interpolation=cv2.INTER_AREA)
        whole = cv2.remap(small, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        assert np.array_equal(cr.coarse(i420), whole)
        assert np.array_equal(cr.coarse(planes_frame(i420)), whole)


def _crossing(profile: np.ndarray, level: float) -> float:
    """Sub-pixel position of the first crossing of `level` along a 1-D profile."""
    p = profile.astype(float)
    j = int(np.argmax(np.abs(np.diff(np.sign(p - level)))))
    return j + (level - p[j]) / (p[j + 1] - p[j])


def _edge(x: np.ndarray, at: float) -> np.ndarray:
    """A soft step (60 -> 200) centred at `at` (camera pixel coordinates), sampled at x."""
    return 60.0 + 140.0 / (1.0 + np.exp(-(x - at) / 1.5))


def _sited_frame(w: int, h: int, siting: ChromaSiting, at: float, vertical: bool) -> np.ndarray:
    """A decoder frame of a colour edge at `at`: luma sampled at the pixel centres, chroma where `siting` puts
    its samples (the edge across columns; `vertical`: across rows)."""
    ox, oy = siting.offset
    i420 = np.empty((h * 3 // 2, w), np.uint8)
    if vertical:
        i420[:h] = _edge(np.arange(h), at)[:, None].round().astype(np.uint8)
        c = _edge(2 * np.arange(h // 2) + oy, at)[:, None].repeat(w // 2, 1)
    else:
        i420[:h] = _edge(np.arange(w), at)[None, :].round().astype(np.uint8)
        c = _edge(2 * np.arange(w // 2) + ox, at)[None, :].repeat(h // 2, 0)
    i420[h:].reshape(2, h // 2, w // 2)[:] = c.round().astype(np.uint8)
    return yuv_frame(av.VideoFrame.from_ndarray(i420, format="yuv420p"), siting)


@pytest.mark.parametrize("siting", list(ChromaSiting))
@pytest.mark.parametrize("vertical", [False, True])
def test_chroma_is_read_on_the_frames_siting(siting: ChromaSiting, vertical: bool) -> None:
    """A colour edge lies where luma puts it when the chroma is read on the siting the frame carries; read on
    another siting it moves by the offsets' difference (half a camera pixel here, ~0.26 grid pixels)."""
    w, h = 1920, 1080
    cam = default_camera(TABLE, width=w, height=h, seed=3)
    rect = Rectifier(cam, TABLE)
    at = (w if not vertical else h) / 2 + 0.3
    frame = _sited_frame(w, h, siting, at, vertical)
    planes = rect.rectify_planes(frame)
    line = (lambda p: p[:, rect.w // 2]) if vertical else (lambda p: p[rect.h // 2])
    luma, cb = _crossing(line(planes[0]), 130), _crossing(line(planes[2]), 130)
    assert cb == pytest.approx(luma, abs=0.06)
    other = next(s for s in ChromaSiting if s.offset[int(vertical)] != siting.offset[int(vertical)])
    assert isinstance(frame, YUVFrame)
    frame.siting = other  # the same pictures, read on the wrong siting
    moved = _crossing(line(rect.rectify_planes(frame)[2]), 130)
    assert abs(moved - luma) > 0.15


def test_a_box_resampled_alone_gives_the_whole_grids_pixels(frames: tuple[object, list[np.ndarray]]) -> None:
    cam, i420s = frames
    rect = Rectifier(cam, TABLE)  # type: ignore[arg-type]
    whole = rect.rectify_planes(i420s[1])
    box = (37, 21, 181, 95)
    planes = tuple(np.zeros((rect.h, rect.w), np.uint8) for _ in range(3))
    rect.rectify_box(planes_frame(i420s[1]), box, planes)  # type: ignore[arg-type]
    x0, y0, x1, y1 = box
    for a, b in zip(planes, whole, strict=True):
        assert np.array_equal(a[y0:y1, x0:x1], b[y0:y1, x0:x1])
        assert not a[:y0].any() and not a[y1:].any()
