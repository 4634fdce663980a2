"""Detection on frames from the synthetic renderer: the rack, cushions, pocket mouths, other cloth and
ball sets, an arm over the table. Tolerances are physical (fractions of the ball radius), not fitted."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.table import Table
from rules.rack import RUSSIAN_RACK_ORDER
from synthetic.physics.occluders import SKIN
from synthetic.render import default_camera, get_style, render_frame
from synthetic.world import Capsule
from vision.detect import BallDetector
from vision.types import BallClass, Detections

TABLE = Table.load("pyramid-12ft")
R = TABLE.ball_radius


def layout() -> dict[str, tuple[float, float, float]]:
    """A full rack, the coloured ball in the house, and three ivory balls in hard places elsewhere."""
    pos = {b: (x, y, R) for b, (x, y) in TABLE.rack_positions(list(RUSSIAN_RACK_ORDER)).items()}
    pos["C"] = (-1100.0, 150.0, R)
    return pos


def hard_places() -> dict[str, tuple[float, float, float]]:
    """Frozen to a cushion, a frozen pair on a long cushion, one in a middle pocket's mouth."""
    return {
        "1": (TABLE.half_length - R - 0.5, -300.0, R),
        "2": (-400.0, -TABLE.half_width + R + 0.5, R),
        "3": (-400.0 + 2 * R + 0.2, -TABLE.half_width + R + 0.5, R),
        "11": (20.0, TABLE.half_width - R + 10.0, R),
    }


def match(dets: Detections, truth: dict[str, tuple[float, float, float]]) -> dict[str, tuple[int, float]]:
    """Ball -> (nearest detection, distance mm)."""
    out = {}
    for b, p in truth.items():
        d = np.hypot(dets.xy_mm[:, 0] - p[0], dets.xy_mm[:, 1] - p[1])
        out[b] = (int(np.argmin(d)), float(d.min()))
    return out


def detect(style: str, pos: dict[str, tuple[float, float, float]], seed: int, **kw: object) -> Detections:
    cam = default_camera(TABLE, seed=seed)
    img = render_frame(TABLE, cam, pos, style=get_style(style), seed=seed, **kw)  # type: ignore[arg-type]
    return BallDetector(cam, TABLE).detect(img)


@pytest.fixture(scope="module")
def rack_frame() -> tuple[Detections, dict[str, tuple[float, float, float]]]:
    pos = layout()
    return detect("default", pos, seed=0), pos


def test_full_rack_and_coloured_ball_found_and_classified(rack_frame) -> None:  # type: ignore[no-untyped-def]
    dets, pos = rack_frame
    m = match(dets, pos)
    assert len(dets) == 16, f"expected 16 balls, found {len(dets)}"
    for b, (_, d) in m.items():
        assert d < R / 4, f"ball {b} off by {d:.1f} mm"
    assert dets.cls[m["C"][0]] == BallClass.COLOURED
    assert all(dets.cls[k] == BallClass.IVORY for b, (k, _) in m.items() if b != "C")


@pytest.mark.parametrize("style, seed", [("default", 4), ("blue", 1), ("dim", 3)])
def test_cushions_frozen_pair_and_pocket_mouth(style: str, seed: int) -> None:
    pos = layout()
    pos.update(hard_places())
    dets = detect(style, pos, seed)
    m = match(dets, pos)
    far = {b: round(d, 1) for b, (_, d) in m.items() if d > R / 2}
    assert not far, f"missed (nearest detection farther than R/2): {far}"
    assert len(dets) == len(pos)
    assert m["1"][1] < R / 8 and m["2"][1] < R / 8 and m["3"][1] < R / 8


def test_pool_balls_on_blue_cloth_are_found_as_unknown_set() -> None:
    rng = np.random.default_rng(5)
    ids = [str(i) for i in range(1, 16)] + ["C"]
    xs = np.linspace(-1400, 1400, 8)
    pos = {b: (float(xs[i % 8]) + rng.uniform(-40, 40), -400.0 + 800.0 * (i // 8) + rng.uniform(-40, 40), R)
           for i, b in enumerate(ids)}
    dets = detect("pool", pos, seed=2)
    m = match(dets, pos)
    found = [b for b, (_, d) in m.items() if d < R / 2]
    assert len(found) >= 15, f"pool set: found {len(found)} of 16"
    # solid blue, red, purple, green, maroon and black balls are neither ivory nor the yellow pyramid ball
    solids = [m[b][0] for b in ("2", "3", "4", "6", "7", "8") if m[b][1] < R / 2]
    assert all(dets.cls[k] == BallClass.UNKNOWN for k in solids), [dets.cls[k] for k in solids]


def test_arm_over_the_table_is_not_a_ball() -> None:
    pos = {"C": (-600.0, 0.0, R), "5": (300.0, 300.0, R), "6": (-200.0, -500.0, R)}
    arm = Capsule((-1400.0, -200.0, 250.0), (-750.0, 0.0, 200.0), 45.0, (60, 50, 50))
    hand = Capsule((-750.0, 0.0, 200.0), (-690.0, 0.0, 190.0), 40.0, (150, 180, 220))
    cam = default_camera(TABLE, seed=6)
    style = get_style("default")
    empty = render_frame(TABLE, cam, pos, style=style, seed=6)
    det = BallDetector(cam, TABLE)
    det.detect(empty)  # the cloth model starts from a frame without the arm
    img = render_frame(TABLE, cam, pos, style=style, seed=6, occluders=[arm, hand])
    dets = det.detect(img)
    m = match(dets, pos)
    assert all(d < R / 2 for _, d in m.values())
    others = np.ones(len(dets), bool)
    others[[k for k, _ in m.values()]] = False
    assert not np.any(dets.confidence[others] >= 0.5), dets.xy_mm[others]


@pytest.mark.parametrize("seed", [229, 0, 1])
def test_a_hand_at_the_cushion_read_as_a_disc_beside_a_ball_is_an_occluder_not_a_frozen_pair(seed: int) -> None:
    # seed-229 frame_free: a hand reaching over the long cushion onto 10 came out as two clean discs, one of them
    # centred 13 mm from the nose line, where no ball on the bed can be; 10 was read clear, pulled 5 mm by the
    # fingers, and its push by the hand was read as a stroke
    ball = (1109.2, -792.1)
    pos = {"10": (*ball, R), "C": (25.0, -854.0, R)}
    cam = default_camera(TABLE, 1280, 720, seed)
    style = get_style("default")
    det = BallDetector(cam, TABLE)
    det.detect(render_frame(TABLE, cam, pos, style=style, seed=seed))
    hand = Capsule((1125.0, -860.0, 40.0), (1125.0, -870.0, 45.0), 34.0, SKIN)
    dets = det.detect(render_frame(TABLE, cam, pos, style=style, seed=seed, occluders=[hand], frame_index=1))
    near = np.hypot(*(dets.xy_mm - np.array(ball)).T) < R
    assert near.sum() == 1 and dets.confidence[near][0] < 0.5  # found, but not as a ball seen clear
    u, v = det.rect.to_px(np.array([ball]))[0]
    r = int(det.r_px * 1.5)
    assert det.occluder_mask[int(v) - r : int(v) + r + 1, int(u) - r : int(u) + r + 1].any()


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"confidence": np.zeros(3)}, "confidence"),
        ({"xy_px": np.zeros((2, 3))}, "xy_px"),
        ({"radius_px": np.zeros(1)}, "radius_px"),
        ({"data": {"patch": np.zeros((5, 2, 2))}}, "patch"),
    ],
)
def test_detections_reject_bad_shapes(kw: dict[str, object], message: str) -> None:
    args: dict[str, object] = {
        "xy_mm": np.zeros((2, 2)),
        "confidence": np.zeros(2),
        "cls": np.array([BallClass.IVORY, BallClass.IVORY], dtype=object),
        "xy_px": np.zeros((2, 2)),
        "radius_px": np.zeros(2),
    }
    args.update(kw)
    with pytest.raises(ValueError, match=message):
        Detections(**args)  # type: ignore[arg-type]


def test_detections_index_and_merge_keep_rows_together() -> None:
    d = Detections(
        np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([0.9, 0.1]),
        np.array([BallClass.IVORY, BallClass.COLOURED], dtype=object), np.zeros((2, 2)), np.ones(2),
        {"patch": np.zeros((2, 3, 3))},
    )
    both = Detections.merge([d, d[d.confidence > 0.5]])
    assert len(both) == 3 and both.data["patch"].shape == (3, 3, 3)
    assert both.cls[2] == BallClass.IVORY
