"""Render style: the look of cloth, balls and sensor, with named presets for generalisation tests."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

BGR = tuple[int, int, int]


class BallSet(StrEnum):
    PYRAMID = "pyramid"  # 15 numbered ivory balls and a coloured (yellow) cue ball
    POOL = "pool"  # pool colours: solids 1-7, black 8, stripes 9-15, white cue ball


@dataclass(frozen=True)
class RenderStyle:
    """Knobs of the renderer. Colours are BGR 0..255 as seen under full lamp light."""

    cloth_bgr: BGR = (38, 128, 30)
    rail_bgr: BGR = (26, 46, 92)
    floor_bgr: BGR = (30, 38, 50)
    ball_set: BallSet = BallSet.PYRAMID
    ivory_bgr: BGR = (200, 228, 243)
    coloured_bgr: BGR = (20, 182, 232)  # the yellow coloured ball
    number_bgr: BGR = (30, 26, 24)
    cloth_texture: float = 1.0  # scale of the cloth's mottling and fibre noise
    lamps: int = 3  # lamp shades in each of two rows above the table
    ambient: float = 0.3  # share of light that is not from the lamps
    vignetting: float = 0.28  # brightness lost in the image corners
    shutter: float = 0.5  # exposure time as a fraction of the frame interval (motion blur)
    noise_sigma: float = 2.2  # sensor noise, grey levels (0 = none)
    markings: bool = True  # painted spots and faint lines
    crf: int = 20  # H.264 constant rate factor
    preset: str = "veryfast"  # x264 preset (speed against size; deterministic with threads=1)

    def clean(self) -> RenderStyle:
        """The same look without blur and noise: for geometric tests."""
        return replace(self, shutter=0.0, noise_sigma=0.0)


STYLES: dict[str, RenderStyle] = {
    "default": RenderStyle(),
    "blue": RenderStyle(cloth_bgr=(140, 84, 22)),
    "pool": RenderStyle(ball_set=BallSet.POOL, cloth_bgr=(140, 84, 22)),
    "red-cloth": RenderStyle(cloth_bgr=(40, 36, 150)),
    "dim": RenderStyle(ambient=0.18, vignetting=0.45, noise_sigma=4.0),
    "clean": RenderStyle(shutter=0.0, noise_sigma=0.0),
    # Tungsten lamps (~3000 K): every surface reads redder and less blue; the ivory turns cream and
    # the yellow coloured ball sits closer to it in hue.
    "warm": RenderStyle(
        cloth_bgr=(20, 118, 52), rail_bgr=(16, 40, 110), floor_bgr=(18, 34, 62),
        ivory_bgr=(150, 212, 250), coloured_bgr=(8, 168, 246),
    ),
    # A dark room filmed with a long exposure: a full-frame shutter (twice the default blur), less ambient
    # light, more sensor noise and a greyer, darker ivory (older balls).
    "slow-shutter": RenderStyle(
        shutter=1.0, ambient=0.2, noise_sigma=3.0, ivory_bgr=(170, 196, 210),
    ),
}


def get_style(name: str) -> RenderStyle:
    """A preset of STYLES by name."""
    try:
        return STYLES[name]
    except KeyError:
        raise ValueError(f"unknown render style {name!r}; presets: {', '.join(STYLES)}") from None


# Pool colours (BGR) by ball number; 9-15 are stripes of the colour of n - 8.
POOL_BGR: dict[int, BGR] = {
    1: (20, 190, 240),
    2: (150, 60, 20),
    3: (30, 30, 200),
    4: (110, 30, 80),
    5: (20, 110, 240),
    6: (50, 110, 20),
    7: (30, 30, 110),
    8: (25, 25, 25),
}
