"""Render presets: the looks used for generalisation sets (scripts/make_looks.py) change what they claim to."""

from __future__ import annotations

import numpy as np

from calibration.table import Table
from synthetic.render import default_camera, get_style, render_frame

W, H = 320, 180


def _centre_bgr(style: str) -> np.ndarray:
    """Mean BGR of the middle of an empty table (cloth only) under a preset."""
    table = Table.load()
    img = render_frame(table, default_camera(table, W, H, 3), {}, get_style(style), seed=3)
    return img[H // 3: 2 * H // 3, W // 3: 2 * W // 3].reshape(-1, 3).astype(float).mean(axis=0)


def test_warm_light_reads_redder_than_default() -> None:
    # Tungsten light: red over blue of the cloth rises against the default lamps.
    b0, _, r0 = _centre_bgr("default")
    b1, _, r1 = _centre_bgr("warm")
    assert r1 / max(b1, 1.0) > 1.5 * (r0 / max(b0, 1.0))

