"""Thresholds of the event detector, each with its physical meaning and unit.

Durations are seconds and are turned into frame counts with the stream's fps (`frames`), never by assuming
60 fps. Distances are mm on the bed, speeds mm/s. Defaults suit an overhead camera whose tracker reports
ball centres with about 1-2 mm noise at rest and 4-6 mm in motion.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

# One definition of a jump of the tracked centre, used by the line watcher, the motion tracker and strokes.
# A tracked centre that steps faster than any ball runs (a hard break is 8-10 m/s) did not roll there.
MAX_SPEED_MM_S = 15000.0
# A step between two samples this much faster than the ball runs on both sides of it is a jump of the tracked
# centre (lost and found elsewhere), not motion: friction only slows a ball, and a hit in between shows in
# the speed after it; 5 mm of noise over a 1/60 s frame is ~400 mm/s.
JUMP_EXCESS_MM_S = 1000.0
# ... plus this share of that speed: a fast ball's tracked centre errs by a share of its run per frame (blur,
# and the filter's lag and overshoot after a stroke from rest); seed-151 break, struck at 7.2 m/s at 30 fps:
# the tracked steps ran 6.5, 8.4, 7.0 m/s for a true 7.1 (22 mm off, a tenth of the run per frame)
JUMP_EXCESS_SHARE = 0.25


def is_jump(step_mm_s: float, run_mm_s: float) -> bool:
    """Is a step at `step_mm_s` a jump of the tracked centre next to a ball running at most `run_mm_s`?"""
    return step_mm_s > run_mm_s * (1.0 + JUMP_EXCESS_SHARE) + JUMP_EXCESS_MM_S


@dataclass(frozen=True)
class EventSettings:
    """Every threshold of `EventDetector`; see docs/event-schema.md for how each one is used."""

    # --- measurement noise of the tracker (1 sigma, per axis) --------------------------------------
    noise_rest_mm: float = 1.5  # position noise of a ball at rest
    noise_moving_mm: float = 5.0  # position noise of a moving ball (motion blur) at and above blur_speed
    blur_speed_mm_s: float = 500.0  # the noise grows linearly from noise_rest_mm at 0 to noise_moving_mm here

    # --- rest / motion ---------------------------------------------------------------------------
    onset_mm: float = 6.0  # a resting ball moves when its centre leaves its rest anchor by more than this
    onset_strong_mm: float = 15.0  # ... confirmed on one frame beyond this (else two consecutive frames)
    rest_radius_mm: float = 4.0  # a ball is at rest when every centre of the rest window is this close to their mean
    rest_window_s: float = 0.2  # ... over this long
    rest_speed_mm_s: float = 20.0  # ... and its fitted speed over the window is below this: a crawl faster
    # would run on more than ~2 mm at the cloth's rolling deceleration (~100 mm/s^2), enough with the
    # noise to leave the rest anchor by onset_mm; still balls fit ~8 mm/s (1.5 mm noise, 12 samples)
    settle_s: float = 0.25  # every ball at rest this long after the last one stopped: the shot has ended
    vanish_s: float = 0.1  # a moving ball unseen this long near a pocket mouth / off the bed is potted / off

    # --- strokes and disturbances ----------------------------------------------------------------
    stroke_min_speed_mm_s: float = 100.0  # uncaused start from rest, no shot running: a stroke at or above
    early_stroke_min_speed_mm_s: float = 600.0  # uncaused start while a shot runs: a stroke (1.14.2) at or above
    cause_gap_mm: float = 6.0  # a ball starting within this gap of a moving / just-hit ball was set moving by it
    cause_window_s: float = 0.05  # ... if that ball moved or was hit within this time of the start
    run_fit_s: float = 0.3  # a start that may be slower than the stroke speed is judged on this much of its
    # run off the rest position (`strokes.run_fit`): ~18 samples at 60 fps give its launch speed to ~20 mm/s and
    # its speed-up to ~50 mm/s with 2 mm of noise, where the two samples that showed the start give ~200 mm/s;
    # a slow ball (100 mm/s) runs on for ~0.8 s at the cloth's rolling deceleration, so it is still rolling
    start_seen_s: float = 0.1  # a start is seen when the ball was seen at rest and on its first two samples off
    # it with no gap longer than this; else it was lost as it left (under the cue, the arm, a hand) and a ball
    # found off its rest position may be another one (a ball at 1 m/s runs 100 mm unseen): a doubtful start

    # --- fitting windows around an event -----------------------------------------------------------
    fit_before_s: float = 0.07  # straight-line fit of the track before a kink
    lookahead_s: float = 0.05  # ... and after it (from the frame after the kink's frame): the detection delay
    emit_hold_s: float = 0.08  # events are released in time order once the stream is this far past them

    # --- contacts and cushions ---------------------------------------------------------------------
    contact_gate_mm: float = 12.0  # candidate when the sampled gap is below this plus the distance run in a frame
    kink_z: float = 4.0  # a velocity change is real at this many standard errors along the impulse normal
    kink_z_review: float = 2.5  # ... between this and kink_z: reported with low confidence for review
    kink_min_mm_s: float = 60.0  # ... and never below this change of speed along the normal
    review_band_mm: float = 3.0  # an event resting on a gap within this many mm of contact is flagged for review
    frozen_tol_mm: float = 3.0  # at rest, a gap to a cushion nose within this: frozen (shot_start.frozen)
    touch_tol_mm: float = 3.0  # at rest, a gap between two balls within this: touching (shot_start.touching)
    # 1 sigma of a gap measured at rest, reported with it (`gap_sigma_mm`) so the rules can flag a touch or a
    # freeze decided near its tolerance (within 2 sigmas of 0.5 and 1 mm): this tracker's figures (bench.gaps).
    # A noisier tracker sets larger ones, and lists pairs and frozen balls farther out to match (touch_tol_mm,
    # frozen_tol_mm), or a gap in the rules' band goes unlisted, read from the positions without a sigma
    gap_sigma_mm: float = 1.25  # two balls (shot_start.touching)
    cushion_gap_sigma_mm: float = 1.0  # a ball and a cushion nose (shot_start.frozen)
    frozen_push_min_cos: float = 0.17  # a frozen ball struck with an impulse this far into its cushion touches it
    refractory_s: float = 0.05  # a second event of the same pair / ball and boundary within this is the same one

    # --- lines ---------------------------------------------------------------------------------------
    on_line_tol_mm: float = 0.5  # a rest centre this close to a line is on it (1.20 note 3), as the engine reads it
    line_hysteresis_mm: float = 3.0  # a smoothed centre this far past a line has crossed it

    # --- push shots (1.19) ---------------------------------------------------------------------------
    push_gap_mm: float = 5.0  # cue ball this close to an object ball at the stroke: push geometry reported
    push_window_s: float = 0.1  # how long after the stroke the push outcome is judged
    push_forward_mm: float = 4.0  # cue ball moving this far along the line of centres after the object moved
    push_z: float = 2.0  # a push reading (striker's momentum, forward travel, angle) this many standard errors
    # from its limit is decided; closer, it is flagged for review
    throw_deg: float = 5.0  # an object ball leaves within this of the line of centres (collision-induced throw)
    draw_wait_s: float = 0.3  # a struck ball left still by the touching ball it passed the stroke to is watched
    # this long after the push window: drawn back (sliding friction, ~2 m/s^2, moves it onset_mm in < 0.1 s)
    # it starts within it, and so shows it was the struck one

    # --- pots ----------------------------------------------------------------------------------------
    pocket_reach_mm: float = 120.0  # a ball last seen within this of a mouth centre went into that pocket

    # --- history -------------------------------------------------------------------------------------
    history_s: float = 1.5  # frames kept for fitting and look-back

    def __post_init__(self) -> None:
        for name, value in self.__dict__.items():
            if not (isinstance(value, float | int) and math.isfinite(value) and value >= 0):
                raise ValueError(f"EventSettings.{name} must be a finite number >= 0, got {value!r}")
        if self.kink_z_review > self.kink_z:
            raise ValueError(f"kink_z_review ({self.kink_z_review}) must not exceed kink_z ({self.kink_z})")


def noise_model(s: EventSettings) -> Callable[[float], float]:
    """Position noise (mm) of a ball moving at a given speed (mm/s), as the settings describe it."""

    def noise(speed: float) -> float:
        k = min(1.0, max(0.0, speed / s.blur_speed_mm_s)) if s.blur_speed_mm_s > 0 else 1.0
        return s.noise_rest_mm + (s.noise_moving_mm - s.noise_rest_mm) * k

    return noise


def frames(seconds: float, fps: float, minimum: int = 1) -> int:
    """A duration in whole frames at the stream's fps (rounded, at least `minimum`)."""
    if fps <= 0 or not math.isfinite(fps):
        raise ValueError(f"fps must be a positive finite number, got {fps!r}")
    return max(minimum, round(seconds * fps))
