"""Bad input gives a CalibrationError that says what is wrong, and the CLI exits non-zero."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.auto import calibrate_image
from calibration.result import CalibrationError
from calibration.table import Table

TABLE = Table.load()


@pytest.mark.parametrize(
    ("name", "image", "message"),
    [
        ("blank", np.zeros((1080, 1920, 3), np.uint8), "could not find the table: give the four bed corners"),
        ("grey", np.full((720, 1280, 3), 128, np.uint8), "could not find the table"),
        ("noise", np.random.default_rng(0).integers(0, 256, (1080, 1920, 3), dtype=np.uint8),
         "could not find the table"),
        ("tiny", np.zeros((50, 60, 3), np.uint8), "too small"),
        ("wrong shape", np.zeros((100, 100, 4), np.uint8), "3-channel"),
    ],
)
def test_no_table_in_view(name: str, image: np.ndarray, message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        calibrate_image(image, TABLE)


def test_green_blob_is_not_a_table() -> None:
    img = np.full((1080, 1920, 3), 40, np.uint8)
    cv2.circle(img, (960, 540), 400, (40, 130, 30), -1)
    with pytest.raises(CalibrationError, match="could not find the table"):
        calibrate_image(img, TABLE)


def test_spec_with_another_shape_is_refused(tmp_path: Path) -> None:
    from bench.calibration_bench import cached_case

    _, img = cached_case("pyramid-12ft", 11)
    spec = TABLE.spec.to_dict() | {"name": "narrow", "bed_width_mm": 1300.0}
    path = tmp_path / "narrow.json"
    path.write_text(json.dumps(spec))
    with pytest.raises(CalibrationError, match="does not fit what is seen"):
        calibrate_image(img, Table.load(path), str(path))


def test_cli_errors_are_messages_not_tracebacks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from service.cli.main import main

    bad = tmp_path / "broken.png"
    bad.write_bytes(b"not a png")
    assert main(["calibrate", str(bad), "-o", str(tmp_path / "c.json")]) != 0
    assert "cannot read" in capsys.readouterr().err
    assert main(["calibrate", str(tmp_path / "missing.mp4"), "-o", str(tmp_path / "c.json")]) != 0
    assert "no such file" in capsys.readouterr().err
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.zeros((540, 960, 3), np.uint8))
    assert main(["calibrate", str(blank), "-o", str(tmp_path / "c.json")]) != 0
    assert "--corners" in capsys.readouterr().err
    assert main(["calibrate", str(blank), "--table", "no-such-table", "-o", str(tmp_path / "c.json")]) != 0
    assert "unknown table spec" in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()


def test_lens_images_without_a_checkerboard(tmp_path: Path) -> None:
    from calibration.manual import lens_from_checkerboards, parse_corners

    paths = []
    for k in range(3):
        p = tmp_path / f"lens{k}.png"
        cv2.imwrite(str(p), np.full((240, 320), 128, np.uint8))
        paths.append(p)
    with pytest.raises(CalibrationError, match="checkerboard in only 0 of 3"):
        lens_from_checkerboards(paths)
    with pytest.raises(CalibrationError, match="8 numbers"):
        parse_corners("1,2,3")
    assert parse_corners("1,2,3,4,5,6,7,8").shape == (4, 2)


def test_spec_of_another_size_is_refused() -> None:
    """pool-9ft has the pyramid table's 2:1 shape; its pockets' mouths are far wider."""
    from bench.calibration_bench import cached_case

    _, img = cached_case("pyramid-12ft", 11)
    with pytest.raises(CalibrationError, match="middle pockets' mouths"):
        calibrate_image(img, Table.load("pool-9ft"), "pool-9ft")
