"""Tunable settings of the rules engine: tolerances, review thresholds, interpretations."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class CushionIdentity(StrEnum):
    """What "another cushion" means (RULES.md, Table and markings): a different segment, or a different side."""

    SEGMENT = "segment"  # six segments: left_front and left_rear are different cushions
    SIDE = "side"  # four sides: left_front and left_rear are the same long cushion


_SIDE_OF = {
    "front": "front",
    "rear": "rear",
    "left_front": "left",
    "left_rear": "left",
    "right_front": "right",
    "right_rear": "right",
}


@dataclass(frozen=True)
class RulesSettings:
    """Numbers and readings the engine does not take from the log.

    frozen_tol_mm: a ball is frozen to a cushion when its gap to the nose is at most this (RULES.md 1.20).
    frozen_band_mm: a frozen decision with a gap within tol +- band is marked for the referee's review.
    touching_tol_mm: two balls closer than this at shot_start touch (1.19.2).
    touching_band_mm: whether the struck ball touched the ball it hit first, decided on a gap in (tol - band,
        tol + band], is marked for the referee's review (as frozen_band_mm; a gap measured as 0 or less is a touch).
    gap_z: a measured gap that comes with its uncertainty (`gap_sigma_mm`, schema 1.6) widens either band to
        gap_z of those sigmas where that is wider: a camera's gap is good to a millimetre or so, and a touch or a
        freeze decided on a gap that close to the tolerance is the referee's to confirm. A gap given without a
        sigma (a hand-made log, the synthetic truth) is exact and keeps the fixed band. Three, not two: the
        camera's gap errors have tails (`python -m bench.gaps`, untouched seeds 89-103: 94.4 % of 833 pair gaps
        within 2 sigmas, 98.9 % within 3; seed-103 near_push_gap, 2.15 mm measured -2.74 +- 1.25, was an
        unflagged 1.19).
    on_line_mm: a ball centre this close to the centre line at shot_start starts "on" it (1.20 note 3).
    review_confidence: an event the verdict rests on with a confidence below this is marked for review.
    moved_mm: a ball that moved less than this between shot_start and shot_end did not move (1.19.2).
    simultaneous_s: ball contacts within this of an instant's first contact are that instant for the token
        model: the tokens held before it pass through all of them whatever their reported order (a chain through
        touching balls runs in well under a millisecond, a camera dates a contact to a few); a chain that rests
        on that is marked for review.
    """

    frozen_tol_mm: float = 1.0
    frozen_band_mm: float = 0.5
    touching_tol_mm: float = 0.5
    touching_band_mm: float = 0.5
    gap_z: float = 3.0
    on_line_mm: float = 0.5
    review_confidence: float = 0.6
    moved_mm: float = 1.0
    simultaneous_s: float = 0.005
    cushion_identity: CushionIdentity = CushionIdentity.SEGMENT

    def __post_init__(self) -> None:
        for name in ("frozen_tol_mm", "frozen_band_mm", "touching_tol_mm", "touching_band_mm", "gap_z", "on_line_mm",
                     "moved_mm", "simultaneous_s"):
            if getattr(self, name) < 0:
                raise ValueError(f"RulesSettings.{name} must be >= 0, got {getattr(self, name)!r}")
        if not 0.0 <= self.review_confidence <= 1.0:
            raise ValueError(f"RulesSettings.review_confidence must be within 0..1, got {self.review_confidence!r}")

    def cushion_key(self, cushion: str) -> str:
        """The identity of a cushion for "another cushion" comparisons."""
        if self.cushion_identity is CushionIdentity.SIDE:
            return _SIDE_OF.get(cushion, cushion)
        return cushion


def review_band(band_mm: float, sigma_mm: float | None, z: float) -> float:
    """The half-width of a gap's review band: the fixed band, or z of the gap's reported sigmas if wider."""
    if sigma_mm is None or not sigma_mm > 0:  # NaN and missing alike: the gap is taken as exact
        return band_mm
    return max(band_mm, z * float(sigma_mm))
