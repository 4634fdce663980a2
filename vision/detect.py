"""Ball detection in table space: rectify the bed, score against the cloth model, split blobs into discs of
the known radius, refine, classify, and map to table mm at ball-centre height.

Speed: the bed is resampled at a few mm per pixel with precomputed maps; blobs are found by connected
components on a 4x smaller mask and everything after that works in small windows around them; frames in
which nothing changed (a tiny difference image against the last full detection) reuse that detection.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.table import Table
from vision.background import ClothModel, Planes, blob_mask
from vision.bedgeom import off_bed_mask
from vision.blobs import disc_mean, mean_shift, response_peaks, ring_support, unexplained
from vision.classify import ColourRule, classify, disc_stats
from vision.rectify import ChangeRectifier, Rectifier, frame_layout
from vision.types import CLEAR_CONF, Detections

PATCH = 12  # side of the texture patch kept per ball for spin detection (pixels of the camera frame)
SMALL = 4  # connected components run on a mask this many times smaller
OCCLUDED_CONF = 0.4  # confidence factor for a disc found inside an arm / cue blob


@dataclass
class DetectorConfig:
    mm_per_px: float = 4.0
    threshold: int = 45  # foreground score threshold (see ScoreWeights)
    score_clip: int = 110  # score at which a pixel counts fully when splitting blobs
    weight_floor: int = 30  # score below which a pixel does not count (shadows, cloth texture)
    min_fill: float = 0.45  # below this mean weight inside the disc: not a ball
    max_ring: float = 0.55  # unexplained foreground around a disc above this: part of an occluder
    bg_rate: float = 0.02
    bg_every: int = 4  # update the cloth model every n-th full detection
    quiet_level: int = 5  # max change of a 4x4-averaged pixel for a frame to count as unchanged
    quiet_max_frames: int = 30  # re-detect at least this often even when nothing changes
    # re-sample a 16 mm block of the bed when its mean luma moved by more than this since it was last sampled:
    # below the quiet level, so a block the detector would see change is always fresh
    resample_level: int = 3


class BallDetector:
    """Finds balls in frames of one fixed camera. Keeps a slowly adapting cloth model between frames."""

    def __init__(
        self,
        camera: CameraModel,
        table: Table,
        config: DetectorConfig | None = None,
        colour_rule: ColourRule | None = None,
    ) -> None:
        self.config = config or DetectorConfig()
        self.camera = camera
        self.table = table
        self.rect = Rectifier(camera, table, mm_per_px=self.config.mm_per_px)
        self.rectifier = ChangeRectifier(self.rect, self.config.resample_level, self.config.quiet_max_frames)
        assert self.rectifier.BLOCK == SMALL  # its re-sampled blocks are the blocks of the small maps
        self.cloth = ClothModel(block_px=int(500 / self.config.mm_per_px), rate=self.config.bg_rate)
        self.colour_rule = colour_rule or ColourRule()
        self.r_px = self.rect.radius_px
        self._camera_centre = self.camera.centre_mm  # a property that solves for it: once, the camera is fixed
        self.occluder_mask = np.zeros((self.rect.h, self.rect.w), np.uint8)  # rectified, 255 = occluder
        self._occluder_spare = np.zeros_like(self.occluder_mask)  # last frame's, swapped in (no copy)
        self.last_planes: Planes | None = None
        self._open = max(3, round(self.r_px * 0.6) | 1)
        self._small_bed = self._shrink(self.rect.bed_mask) > 0
        self._ref_tiny: np.ndarray | None = None
        self._last: Detections | None = None
        self._quiet_run = 0
        self._full_count = 0
        self._fg: np.ndarray = np.zeros((self.rect.h, self.rect.w), np.uint8)
        self._score: np.ndarray = np.zeros_like(self._fg)
        self._mask: np.ndarray = np.zeros_like(self._fg)
        self._small: np.ndarray = self._shrink(self._fg)
        self._tiny = self._small.copy()
        self._dirty: np.ndarray | None = None  # blocks re-sampled since the maps were last made
        self._open_margin = 2 * (self._open // 2)
        self._lit = np.zeros((self.rect.h, self.rect.w), np.uint8)
        self._last_px = np.zeros((0, 2))
        self._since_full = 0
        self.skipped = 0  # frames answered from the last detection (for reports)

    def _shrink(self, img: np.ndarray) -> np.ndarray:
        """Block average by SMALL (an exact integer factor takes OpenCV's fast path)."""
        w, h = self.rect.w // SMALL, self.rect.h // SMALL
        return cv2.resize(img[: h * SMALL, : w * SMALL], (w, h), interpolation=cv2.INTER_AREA)

    # --- main entry ------------------------------------------------------------------------------
    def detect(
        self,
        frame: np.ndarray,
        hints_mm: np.ndarray | None = None,
        allow_skip: bool = False,
        moving_mm: np.ndarray | None = None,
    ) -> Detections:
        """Balls in one BGR or I420 frame. `hints_mm` (S, 2): predicted centres, used to split blobs.
        `allow_skip`: the caller knows nothing is moving, so an unchanged frame may reuse the last result.
        `moving_mm`: predicted centres of moving balls; blobs without one whose 4x4 block means did not
        change since they were last measured keep their last detections (stationary balls in a shot)."""
        moving_px = self.rect.to_px(moving_mm) if moving_mm is not None and len(moving_mm) else np.zeros((0, 2))
        # a moving ball's disc and shadow are always re-sampled, however slowly it creeps
        planes = self.rectifier.update(frame, moving_px, 1.5 * self.r_px)
        self.last_planes = planes
        self._dirty = self.rectifier.changed if self._dirty is None else cv2.bitwise_or(self._dirty,
                                                                                        self.rectifier.changed)
        if self.rectifier.full:
            self._tiny = self._shrink(planes[0])
        else:
            for x0, y0, x1, y1 in self._boxes(self.rectifier.changed, 0):
                self._shrink_into(planes[0], self._tiny, x0, y0, x1, y1)
        tiny = self._tiny
        if allow_skip and self._quiet(tiny):
            self.skipped += 1
            assert self._last is not None
            return self._last
        self._quiet_run = 0
        changed = None
        if self._ref_tiny is not None and self._last is not None and self._since_full < self.config.quiet_max_frames:
            diff = cv2.absdiff(tiny, self._ref_tiny)
            _, changed = cv2.threshold(diff, self.config.quiet_level, 255, cv2.THRESH_BINARY)
            changed = cv2.dilate(changed, np.ones((3, 3), np.uint8))
            self._since_full += 1
        else:
            self._since_full = 0
        if not self.cloth.ready:
            self.cloth.initialise(planes)
        score, mask, small = self._maps(planes)
        hints_px = self.rect.to_px(hints_mm) if hints_mm is not None and len(hints_mm) else np.zeros((0, 2))
        centres, conf, reused = self._centres(planes, score, mask, small, hints_px, moving_px, changed, tiny)
        self._full_count += 1
        if self._full_count % self.config.bg_every == 0:
            self._update_cloth(planes, mask, np.vstack([centres, self._last_px[reused]]) if reused.size else centres)
        new = self._build(frame, planes, centres, conf)
        if reused.size:
            assert self._last is not None
            new = Detections.merge([new, self._last[reused]])
            centres = np.vstack([centres, self._last_px[reused]])
        self._last, self._last_px = new, centres
        return new

    def _maps(self, planes: Planes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The score, the bed foreground mask and its 4x smaller copy, re-made only where the planes changed
        since the last full detection (the rectifier's re-sampled blocks), everywhere on its full refreshes.
        Elsewhere they keep values made at most `quiet_max_frames` frames ago against a cloth model that
        moves by a fraction of a grey level in that time."""
        thr, bed = self.config.threshold, self.rect.bed_mask
        if self.rectifier.full:
            self._score = self.cloth.score(planes)
            self._fg = blob_mask(self._score, thr, self._open)  # a ball in a pocket mouth is refined on all of
            self._mask = cv2.bitwise_and(self._fg, bed)  # its disc, but blobs are looked for on the bed only
            self._small = self._shrink(self._mask)
            self._dirty = None
            return self._score, self._mask, self._small
        assert self._dirty is not None
        for x0, y0, x1, y1 in self._boxes(self._dirty, 0):
            self._score[y0:y1, x0:x1] = self.cloth.score(planes, (x0, y0, x1, y1))
        m = self._open_margin
        H, W = self._score.shape
        for x0, y0, x1, y1 in self._boxes(self._dirty, m):
            # the opening reaches 2 (k // 2) pixels: made on the box plus that margin, kept inside the box
            ex0, ey0, ex1, ey1 = max(x0 - m, 0), max(y0 - m, 0), min(x1 + m, W), min(y1 + m, H)
            fg = blob_mask(self._score[ey0:ey1, ex0:ex1], thr, self._open)
            self._fg[y0:y1, x0:x1] = fg[y0 - ey0 : y1 - ey0, x0 - ex0 : x1 - ex0]
            cv2.bitwise_and(self._fg[y0:y1, x0:x1], bed[y0:y1, x0:x1], dst=self._mask[y0:y1, x0:x1])
            self._shrink_into(self._mask, self._small, x0, y0, x1, y1)
        self._dirty = None
        return self._score, self._mask, self._small

    def _boxes(self, blocks: np.ndarray, grow_px: int) -> list[tuple[int, int, int, int]]:
        """Pixel boxes (x0, y0, x1, y1), SMALL-aligned, covering the marked blocks grown by grow_px."""
        if grow_px > 0:
            k = 2 * (-(-grow_px // SMALL)) + 1
            blocks = cv2.dilate(blocks, np.ones((k, k), np.uint8))
        contours, _ = cv2.findContours(blocks, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        H, W = self.rect.h, self.rect.w
        out = []
        for cnt in contours:
            x, y, w, h = cv2.boundingRect(cnt)
            out.append((x * SMALL, y * SMALL, min((x + w) * SMALL, W), min((y + h) * SMALL, H)))
        return out

    def _shrink_into(self, img: np.ndarray, small: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> None:
        """`_shrink` of the SMALL-aligned box only, written into `small` (whole blocks inside the grid)."""
        sh, sw = small.shape
        bx0, by0, bx1, by1 = x0 // SMALL, y0 // SMALL, min(x1 // SMALL, sw), min(y1 // SMALL, sh)
        if bx1 > bx0 and by1 > by0:
            small[by0:by1, bx0:bx1] = cv2.resize(img[by0 * SMALL : by1 * SMALL, bx0 * SMALL : bx1 * SMALL],
                                                 (bx1 - bx0, by1 - by0), interpolation=cv2.INTER_AREA)

    def _quiet(self, tiny: np.ndarray) -> bool:
        if self._ref_tiny is None or self._last is None or self._quiet_run >= self.config.quiet_max_frames:
            return False
        if self._since_full >= self.config.quiet_max_frames:
            return False
        diff = cv2.absdiff(tiny, self._ref_tiny)
        if int(diff[self._small_bed].max(initial=0)) > self.config.quiet_level:
            return False
        self._quiet_run += 1
        return True

    # --- stages --------------------------------------------------------------------------------
    def _centres(
        self,
        planes: Planes,
        score: np.ndarray,
        mask: np.ndarray,
        small: np.ndarray,
        hints_px: np.ndarray,
        moving_px: np.ndarray,
        changed: np.ndarray | None,
        tiny: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Blobs on a small mask; seeds per blob at full table resolution; one vectorised refinement.
        Returns new centres (px), their confidences, and the rows of the last detections reused."""
        r = self.r_px
        disc_area = np.pi * r * r
        blobs = _component_boxes(small)
        previous_occluders, self.occluder_mask = self.occluder_mask, self._occluder_spare
        self._occluder_spare = previous_occluders
        self.occluder_mask[:] = 0
        pad = int(np.ceil(r)) + 2
        H, W = mask.shape
        seeds: list[np.ndarray] = []
        # (sub mask, origin, first seed, seed count, reaches over the rail)
        groups: list[tuple[np.ndarray, tuple[int, int], int, int, bool]] = []
        lit = self._lit
        lit[:] = 0
        reused: list[np.ndarray] = []
        ref = tiny.copy() if self._ref_tiny is None else self._ref_tiny
        # which blobs may keep their last detections, for all blobs at once: no changed block under the blob
        # (an integral image of the changed blocks), no moving ball in its window, last centres inside it
        bx = np.array(blobs, dtype=np.intp).reshape(-1, 4)
        win = np.stack([np.maximum(bx[:, 0] * SMALL - pad, 0), np.maximum(bx[:, 1] * SMALL - pad, 0),
                        np.minimum((bx[:, 0] + bx[:, 2]) * SMALL + pad, W),
                        np.minimum((bx[:, 1] + bx[:, 3]) * SMALL + pad, H)], axis=1)
        bx_full = np.stack([bx[:, 0] * SMALL, bx[:, 1] * SMALL, (bx[:, 0] + bx[:, 2]) * SMALL,
                            (bx[:, 1] + bx[:, 3]) * SMALL], axis=1)
        moving_in: list[bool] = np.any(_in_windows(moving_px, win), axis=1).tolist()
        may_keep = np.zeros(len(bx), bool)
        if changed is not None and len(bx):
            ii = cv2.integral(changed)
            xa, ya, xb, yb = bx[:, 0], bx[:, 1], bx[:, 0] + bx[:, 2], bx[:, 1] + bx[:, 3]
            may_keep = ((ii[yb, xb] - ii[ya, xb] - ii[yb, xa] + ii[ya, xa]) == 0) & ~np.array(moving_in, bool)
        # a blob keeps the last centres inside its own box only: a neighbour's centre within the padding is that
        # neighbour's, and kept here it would stay where a ball that left no longer is (a ball bouncing back
        # near its old place beside an unchanged ball was held at rest by its own stale detection)
        last_in = _in_windows(self._last_px, bx_full) if may_keep.any() else None
        for b, (x, y, w, h) in enumerate(blobs):
            x0, y0, x1, y1 = (int(q) for q in win[b])
            if may_keep[b]:
                assert last_in is not None
                rows = np.nonzero(last_in[b])[0]
                if len(rows):
                    reused.append(rows)
                    # an arm still over the blob stays an occluder; a hand that put a ball down and left does
                    # not: what is no longer foreground is cleared, and so is the disc and shadow (1.3 r, as
                    # below) of a ball read clear, which the hand's frame marked with the hand (seed-229
                    # frame_free: a spotted ball stayed "under a hand" for good, never brought back into play).
                    # Discs read weakly are an occluder's own (a hand read as discs) or a ball by it: kept
                    held = cv2.bitwise_and(previous_occluders[y0:y1, x0:x1], self._fg[y0:y1, x0:x1])
                    assert self._last is not None
                    clear = rows[self._last.confidence[rows] >= CLEAR_CONF]
                    self.occluder_mask[y0:y1, x0:x1] = unexplained(held, self._last_px[clear] - (x0, y0), 1.3 * r)
                    continue
            ref[y : y + h, x : x + w] = tiny[y : y + h, x : x + w]
            # the lit-surface mask, flat over a ball whatever the shading (score weights would follow the
            # lamp's highlight), only where blobs are
            box = (x0, y0, x1, y1)
            cv2.bitwise_and(self.cloth.ballness(planes, box), self._fg[y0:y1, x0:x1], dst=lit[y0:y1, x0:x1])
            # components of the unclipped foreground: what reaches over the cushion onto the rail is an
            # arm or a cue (a ball never leaves the bed but into a pocket mouth, which the bed mask holds)
            bed = self.rect.bed_mask[y0:y1, x0:x1]
            m, labels, st, _ = cv2.connectedComponentsWithStats(self._fg[y0:y1, x0:x1], connectivity=8)
            for j in range(1, m):
                if st[j, 4] < 0.3 * disc_area:
                    continue
                # one component in the window: it is the window's foreground (0 / 255) as it stands
                comp = self._fg[y0:y1, x0:x1] if m == 2 else (labels == j).astype(np.uint8) * 255
                sub = cv2.bitwise_and(comp, bed)
                area = cv2.countNonZero(sub)
                if area < 0.3 * disc_area:
                    continue
                over_rail = st[j, 4] - area > 0.5 * disc_area
                if area >= 1.5 * disc_area and not moving_in[b] and _solidity(sub) > 0.95:
                    over_rail = True  # convex and bigger than a ball: a hand, not touching balls (they have necks)
                if area < 1.5 * disc_area and not over_rail:
                    mo = cv2.moments(sub, binaryImage=True)
                    seeds.append(np.array([[mo["m10"] / mo["m00"] + x0, mo["m01"] / mo["m00"] + y0]]))
                    continue
                lo, hi = self.config.weight_floor, self.config.score_clip
                wsub = np.clip((score[y0:y1, x0:x1].astype(np.float32) - lo) / (hi - lo), 0.0, 1.0) * (sub > 0)
                s = _merge_seeds(_hints_in(hints_px, sub, x0, y0), response_peaks(wsub, r), r)
                if len(s) == 0:
                    self._mark_occluder(sub, x0, y0)
                    continue
                groups.append((sub, (x0, y0), sum(len(q) for q in seeds), len(s), over_rail))
                seeds.append(s + np.array([x0, y0]))
        # blocks without blobs follow the frame; blobs not re-measured keep their reference
        self._ref_tiny = np.where(small > 0, ref, tiny)
        rows_used = np.unique(np.concatenate(reused)) if reused else np.zeros(0, dtype=int)
        if not seeds:
            return np.zeros((0, 2)), np.zeros(0), rows_used
        c0 = np.concatenate(seeds)
        # centre on the lit surface; fall back to the score where that is empty (a black ball, a dark set)
        c, fill = mean_shift(lit, c0, r)
        weak = fill < self.config.min_fill
        if weak.any():
            lo, hi = self.config.weight_floor, self.config.score_clip
            weights = np.clip((score.astype(np.float32) - lo) / (hi - lo), 0.0, 1.0) * (mask > 0)
            c[weak], fill[weak] = mean_shift(weights, c0[weak], r)
        # a ball fills its disc in the foreground mask (a cue butt or a sleeve edge does not)
        keep = (fill >= self.config.min_fill) & (disc_mean(mask, c, 0.8 * r) >= 0.7 * 255)
        conf = np.clip(fill, 0.0, 1.0)
        for sub, (x0, y0), first, count, over_rail in groups:
            k = np.arange(first, first + count)
            ok = k[keep[k]]
            rest = cv2.countNonZero(unexplained(sub, c[ok] - (x0, y0), 1.3 * r))  # shadows reach ~0.3 r
            # a disc centred where no ball on the bed can be (well into a cushion) is a hand or a cue on the rail
            # read as a ball: its group is no frozen pair (seed-229 frame_free: a hand over 10 at the cushion came
            # out as two clean discs, 10 pulled 5 mm by the fingers and read as crawling before the hand pushed it)
            off_bed = bool(len(ok)) and bool(off_bed_mask(self.table, self.rect.to_mm(c[ok])).any())
            if not weak[k].any() and rest < 0.8 * disc_area and not over_rail and not off_bed:
                continue  # a rack, a frozen pair or cluster: fully explained by lit discs
            # an arm, a sleeve or a cue over or among balls: no dark-only discs, no overlapping discs
            # (balls cannot overlap, an arm's outline can), a clear ring around each remaining disc, and
            # what is kept there is only partly trusted
            keep[k] &= ~weak[k]
            keep[k] &= _non_overlapping(c[k], fill[k], 1.7 * r) | ~keep[k]
            for _ in range(2):
                ok = k[keep[k]]
                ring = ring_support(sub, c[ok] - (x0, y0), r)
                keep[ok] &= ring <= self.config.max_ring
            ok = k[keep[k]]
            if len(ok):
                conf[ok] *= OCCLUDED_CONF * (1.0 - 0.6 * ring_support(sub, c[ok] - (x0, y0), r))
            self._mark_occluder(sub, x0, y0)
        c, conf = _dedupe(c[keep], conf[keep], r)
        if len(rows_used):  # a new centre on a reused ball (overlapping windows) is dropped
            old = self._last_px[rows_used]
            d = np.hypot(c[:, None, 0] - old[None, :, 0], c[:, None, 1] - old[None, :, 1])
            fresh = d.min(axis=1) >= r if len(c) else np.zeros(0, bool)
            c, conf = c[fresh], conf[fresh]
        return c, conf, rows_used

    def _mark_occluder(self, sub: np.ndarray, x0: int, y0: int) -> None:
        h, w = sub.shape
        region = self.occluder_mask[y0 : y0 + h, x0 : x0 + w]
        cv2.bitwise_or(region, sub, dst=region)

    def _update_cloth(self, planes: Planes, mask: np.ndarray, centres_px: np.ndarray) -> None:
        freeze = cv2.dilate(mask, np.ones((7, 7), np.uint8))
        rad = int(np.ceil(self.r_px * 1.6))
        for cx, cy in np.rint(centres_px).astype(int).tolist():  # rint rounds half to even, as round did
            cv2.circle(freeze, (cx, cy), rad, 255, -1)
        self.cloth.update(planes, freeze)

    def _build(self, frame: np.ndarray, planes: Planes, centres_px: np.ndarray, conf: np.ndarray) -> Detections:
        if len(centres_px) == 0:
            d = Detections.empty()
            d.data["patch"] = np.zeros((0, PATCH, PATCH), np.uint8)
            d.data["colour"] = np.zeros((0, 3))
            return d
        xy_mm = self.rect.to_mm(centres_px)
        stats = disc_stats(planes, centres_px, self.r_px)
        cls = classify(stats, self.colour_rule)
        xy_px = self.rect.image_px(xy_mm)
        dist = np.linalg.norm(
            np.hstack([xy_mm, np.full((len(xy_mm), 1), self.rect.z_mm)]) - self._camera_centre, axis=1
        )
        radius_px = self.camera.K[0, 0] * self.table.ball_radius / dist
        patches = self._patches(frame, xy_px, radius_px)
        return Detections(xy_mm, np.clip(conf, 0, 1), cls, xy_px, radius_px, {"patch": patches, "colour": stats})

    def _patches(self, frame: np.ndarray, xy_px: np.ndarray, radius_px: np.ndarray) -> np.ndarray:
        """Grey texture inside each ball (its number, its marks) from the full-resolution frame."""
        layout = frame_layout(frame, self.camera.width, self.camera.height)
        grey = frame[: self.camera.height] if layout in ("i420", "yuv") else frame
        out = np.zeros((len(xy_px), PATCH, PATCH), np.uint8)
        H, W = self.camera.height, self.camera.width
        for k, ((u, v), r) in enumerate(zip(xy_px, radius_px, strict=True)):
            half = max(2, int(r * 0.6))
            x0, y0 = round(u) - half, round(v) - half
            if x0 < 0 or y0 < 0 or x0 + 2 * half >= W or y0 + 2 * half >= H:
                continue
            crop = grey[y0 : y0 + 2 * half, x0 : x0 + 2 * half]
            if crop.ndim == 3:
                crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
            out[k] = cv2.resize(crop, (PATCH, PATCH), interpolation=cv2.INTER_AREA)
        return out


def _component_boxes(small: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Bounding boxes (x, y, w, h) of the 8-connected components of a mask: the outer contours (including
    those inside another component's hole), for a fraction of the cost of labelling."""
    contours, hierarchy = cv2.findContours((small > 0).view(np.uint8), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return []
    outer = [c for c, hr in zip(contours, hierarchy[0], strict=True) if hr[3] < 0]
    # ordered as OpenCV's labelling (a scan of 2x2 blocks) numbers them: by the block of the first pixel
    outer.sort(key=lambda c: (int(c[0, 0, 1]) // 2, int(c[0, 0, 0]) // 2))
    boxes = []
    for c in outer:
        x, y, w, h = cv2.boundingRect(c)
        boxes.append((x, y, w, h))
    return boxes


def _solidity(sub: np.ndarray) -> float:
    """Blob area over its convex hull's area: about 0.9 for touching balls (necks between them), close to 1
    for a hand or another convex object."""
    contours, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return 0.0
    cnt = max(contours, key=cv2.contourArea)
    hull = cv2.contourArea(cv2.convexHull(cnt))
    return float(cv2.contourArea(cnt) / hull) if hull > 0 else 0.0


def _inside_mask(p: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    return (p[:, 0] >= x0) & (p[:, 0] < x1) & (p[:, 1] >= y0) & (p[:, 1] < y1)


def _in_windows(p: np.ndarray, win: np.ndarray) -> np.ndarray:
    """(B, N) bool: point n inside window b (x0, y0, x1, y1), as `_inside_mask` tests it."""
    x, y = p[None, :, 0], p[None, :, 1]
    return (x >= win[:, 0:1]) & (x < win[:, 2:3]) & (y >= win[:, 1:2]) & (y < win[:, 3:4])


def _hints_in(hints_px: np.ndarray, sub: np.ndarray, x0: int, y0: int) -> np.ndarray:
    """Hints (predicted centres) that fall on this blob, in window coordinates."""
    h, w = sub.shape
    p = hints_px - (x0, y0)
    p = p[(p[:, 0] >= 0) & (p[:, 0] < w) & (p[:, 1] >= 0) & (p[:, 1] < h)]
    if len(p) == 0:
        return p
    return p[sub[np.rint(p[:, 1]).astype(int).clip(0, h - 1), np.rint(p[:, 0]).astype(int).clip(0, w - 1)] > 0]


def _merge_seeds(first: np.ndarray, more: np.ndarray, r: float) -> np.ndarray:
    """`first` plus those of `more` not within one radius of any of `first`."""
    if len(first) == 0:
        return more
    far = [p for p in more if np.min(np.hypot(*(first - p).T)) >= r]
    return np.vstack([first, np.asarray(far).reshape(-1, 2)])


def _non_overlapping(c: np.ndarray, fill: np.ndarray, min_dist: float) -> np.ndarray:
    """Mask of centres kept when any two closer than min_dist cannot both be balls (the fuller wins)."""
    keep = np.ones(len(c), bool)
    for i in np.argsort(-fill):
        if keep[i]:
            d = np.hypot(c[:, 0] - c[i, 0], c[:, 1] - c[i, 1])
            keep &= ~((d < min_dist) & (np.arange(len(c)) != i) & (fill <= fill[i]))
    return keep


def _dedupe(c: np.ndarray, fill: np.ndarray, r: float) -> tuple[np.ndarray, np.ndarray]:
    """Drop centres that converged onto the same ball (closer than one radius), keeping the fuller one."""
    if len(c) < 2:
        return c, fill
    d = np.hypot(c[:, None, 0] - c[None, :, 0], c[:, None, 1] - c[None, :, 1])
    close = d < r
    np.fill_diagonal(close, False)
    if not close.any():
        return c, fill
    order = np.argsort(-fill)
    dropped = np.zeros(len(c), bool)
    for i in order:
        if not dropped[i]:
            dropped |= close[i] & (fill <= fill[i]) & (np.arange(len(c)) != i)
    return c[~dropped], fill[~dropped]
