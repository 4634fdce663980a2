"""Finding the table in a frame: the cloth, its outline, and sub-pixel edge points on the cushion noses.

No colour is hard-coded: the cloth colour is the dominant chromaticity (Lab a, b per unit of L, which light
level does not change) of the low-texture pixels around the image centre, so green, blue, red or grey cloth
all work. Everything before the edge search runs on a downscaled copy.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.result import CalibrationError

WORK_WIDTH = 480  # width of the downscaled copy used to find the cloth
SIDE_TURN_RAD = np.radians(15.0)  # outline edges turning less than this belong to the same side
FACE_SHARE = 0.3  # share of a side's profiles showing the dark face band for it to be the reading
# Cloth chromaticity q = (a, b) / (L + 16) in Lab: dimensionless, unchanged by the light level.
DARK_L = 8.0  # Lab L: below this, a and b are mostly sensor noise (not a cloth candidate)
CLOTH_DQ_MIN = 0.12  # tolerance floor: q drifts ~0.07 from a lamp-lit centre to dim corners (ambient tint)
CLOTH_DQ_MAX = 0.3  # tolerance cap: a wood rail of a red cloth's hue sits >= 0.4 away
CLOTH_DQ_DARK_MAX = 0.36  # cap of the tolerance of a dark pixel (the dim corners of a dim room)
CLOTH_L_RATIO = (0.2, 1.8)  # cloth L within these factors of its median: vignetted corners to lamp hot spots
CLOTH_Q_COLOURED = 0.25  # |q| of a cloth with a colour (green, blue, red: 0.5-1.1); below it a neutral one
CLOTH_L_GREY = 0.3  # a neutral cloth's dark bound: a dark floor has its (lack of) colour
OPEN_MM_FRACTION = 0.04  # opening kernel as a share of the frame width (~80 px at 1920: wider than an arm)
NOT_FOUND = "could not find the table: give the four bed corners with --corners x1,y1,x2,y2,x3,y3,x4,y4"


@dataclass(frozen=True)
class ClothRegion:
    """The cloth found in a frame (full-resolution pixel coordinates)."""

    quad: np.ndarray  # (4, 2) outline corners, image order (counter-clockwise in the image)
    ab: tuple[float, float]  # the cloth chroma in Lab (a, b)
    mask_fraction: float  # share of the frame covered by the cloth region


@dataclass(frozen=True)
class SideEdges:
    """Cushion-nose edge points found along one side of the outline, kept by a robust curve fit."""

    points: np.ndarray  # (N, 2) full-resolution pixels on the nose line (z = nose height)
    candidates: int  # profiles searched
    inlier_fraction: float
    face_fraction: float  # share of profiles where the cushion's face showed as a dark band


def to_lab(image_bgr: np.ndarray) -> np.ndarray:
    """float32 Lab with L in 0..100 and a, b around 0."""
    return cv2.cvtColor(image_bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)


def check_image(image: np.ndarray) -> np.ndarray:
    """A BGR uint8 image or a CalibrationError naming what is wrong with it."""
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3):
        shape = getattr(image, "shape", None)
        raise CalibrationError(f"expected an image array (H, W, 3), got shape {shape}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] != 3:
        raise CalibrationError(f"expected a 3-channel BGR image, got shape {image.shape}")
    if min(image.shape[:2]) < 120:
        raise CalibrationError(f"image too small to calibrate from: {image.shape[1]}x{image.shape[0]}")
    return np.ascontiguousarray(image.astype(np.uint8))


def find_cloth(image_bgr: np.ndarray) -> ClothRegion:
    """The largest fairly uniform region of one colour, taken as the cloth, and its quadrilateral outline."""
    h, w = image_bgr.shape[:2]
    scale = WORK_WIDTH / w
    small = cv2.resize(image_bgr, (WORK_WIDTH, max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    lab = cv2.GaussianBlur(to_lab(small), (5, 5), 0)
    sh, sw = lab.shape[:2]
    grad = cv2.magnitude(cv2.Sobel(lab[..., 0], cv2.CV_32F, 1, 0), cv2.Sobel(lab[..., 0], cv2.CV_32F, 0, 1))
    light = lab[..., 0]
    # chromaticity: (a, b) over L + 16 (= 116 Y^(1/3), the cube root a and b are differences of). Lamps,
    # vignetting and a dim room scale a surface's light, which scales L + 16, a and b alike, so this stays put
    # across the cloth while a wooden rail of the same hue (a red cloth's) differs in it. No hue is assumed.
    q = lab[..., 1:] / (light + 16.0)[..., None]
    # low texture, not black, within the central part of the frame: cloth candidates
    centre = np.zeros((sh, sw), bool)
    centre[int(0.2 * sh) : int(0.8 * sh), int(0.2 * sw) : int(0.8 * sw)] = True
    cand = centre & (grad < np.percentile(grad[centre], 60)) & (light > DARK_L)
    if cand.sum() < 0.02 * sh * sw:
        raise CalibrationError(f"{NOT_FOUND} (no uniform region near the image centre)")
    # dominant colour: the peak of a 2-D histogram of the chromaticity
    hist, ae, be = np.histogram2d(q[..., 0][cand], q[..., 1][cand], bins=120, range=[[-1.5, 1.5], [-1.5, 1.5]])
    hist = cv2.GaussianBlur(hist.astype(np.float32), (5, 5), 0)
    ia, ib = np.unravel_index(int(np.argmax(hist)), hist.shape)
    q0 = np.array([(ae[ia] + ae[ia + 1]) / 2.0, (be[ib] + be[ib + 1]) / 2.0])
    near = cand & (np.linalg.norm(q - q0, axis=2) < CLOTH_DQ_MAX)
    if near.sum() < 0.02 * sh * sw:
        raise CalibrationError(f"{NOT_FOUND} (no dominant cloth colour)")
    q0 = np.median(q[near], axis=0)
    l0 = float(np.median(light[near]))
    dq = np.linalg.norm(q - q0, axis=2)
    # tolerance from the cloth's own spread (noise, lamp tint), capped below what a rail or floor differs by
    tol = float(np.clip(3.0 * np.percentile(dq[near], 90), CLOTH_DQ_MIN, CLOTH_DQ_MAX))
    # a darker pixel's chromaticity is noisier and more tinted by the room's ambient light (dim corners of a
    # vignetted lens): its tolerance grows with the square root of how much darker it is, up to a cap
    darker = np.clip(l0 / np.maximum(light, 1.0), 1.0, 4.0)
    tol_px = np.minimum(tol * np.sqrt(darker), CLOTH_DQ_DARK_MAX)
    # a coloured cloth's dim corners are told from a dark floor by their chromaticity; a neutral (grey) one's
    # only by their light, so its dark bound stays higher
    l_lo = CLOTH_L_RATIO[0] if float(np.hypot(*q0)) >= CLOTH_Q_COLOURED else CLOTH_L_GREY
    mask = (dq < tol_px) & (light > l_lo * l0) & (light < CLOTH_L_RATIO[1] * l0)
    # an opening wider than a forearm or a cue cuts off cloth-coloured things reaching over the table
    k = max(3, round(OPEN_MM_FRACTION * sw)) | 1
    mask_u8 = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN,
                               cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, labels = cv2.connectedComponents(mask_u8, connectivity=4)
    if n < 2:
        raise CalibrationError(f"{NOT_FOUND} (no cloth region)")
    # the component that holds most of the candidate pixels, not merely the largest
    votes = np.bincount(labels[near], minlength=n)
    votes[0] = 0
    main = int(np.argmax(votes))
    region = (labels == main).astype(np.uint8)
    frac = float(region.sum()) / (sh * sw)
    if frac < 0.08:
        raise CalibrationError(f"{NOT_FOUND} (the cloth region covers only {100 * frac:.0f}% of the frame)")
    # an arm and a cue across a corner cut the cloth in pieces: take back sizeable pieces next to the main one
    near_main = cv2.dilate(region, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3 * k, 3 * k))).astype(bool)
    sizes = np.bincount(labels.ravel(), minlength=n)
    for j in np.unique(labels[near_main]):
        if j not in (0, main) and sizes[j] >= 0.002 * sh * sw:
            region[labels == j] = 1
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    hull = cv2.convexHull(np.vstack(contours))
    quad = _quad_from_hull(hull.reshape(-1, 2).astype(np.float64))
    if quad is None:
        raise CalibrationError(f"{NOT_FOUND} (the cloth outline is not a quadrilateral)")
    # the hull must be filled well by the cloth: a table, not a blob
    fill = float(region.sum()) / max(cv2.contourArea(quad.astype(np.float32)), 1.0)
    if fill < 0.75:
        raise CalibrationError(f"{NOT_FOUND} (the cloth region is not table-shaped: fills {100 * fill:.0f}%)")
    return ClothRegion(quad=quad / scale, ab=(float(q0[0] * l0), float(q0[1] * l0)), mask_fraction=frac)


def _quad_from_hull(hull: np.ndarray) -> np.ndarray | None:
    """Four corners of a convex outline: its edges grouped into sides by direction (a barrel-distorted side
    is several nearly collinear edges), the four longest sides extended to meet.

    Pockets cut the cloth's corners, so the outline has chamfers; extending the long sides undoes them.
    """
    poly = hull.astype(np.float32).reshape(-1, 1, 2)
    approx = cv2.approxPolyDP(poly, 0.005 * cv2.arcLength(poly, True), True).reshape(-1, 2).astype(np.float64)
    if len(approx) < 4:
        return None
    edges = np.roll(approx, -1, axis=0) - approx
    ang = np.arctan2(edges[:, 1], edges[:, 0])
    turn = np.abs(np.angle(np.exp(1j * (ang - np.roll(ang, 1)))))  # direction change from the previous edge
    start = int(np.argmax(turn))
    groups: list[list[int]] = []
    for i in [(start + k) % len(edges) for k in range(len(edges))]:
        if groups and turn[i] < SIDE_TURN_RAD:
            groups[-1].append(i)
        else:
            groups.append([i])
    if len(groups) < 4:
        return None
    # each side as the chord from its first edge's start to its last edge's end
    chords = [(approx[g[0]], approx[(g[-1] + 1) % len(approx)]) for g in groups]
    lengths = np.array([np.linalg.norm(b - a) for a, b in chords])
    keep = sorted(np.argsort(-lengths)[:4])
    sides = [chords[k] for k in keep]
    corners = []
    for k in range(4):
        (a1, b1), (a2, b2) = sides[k - 1], sides[k]
        A = np.column_stack([b1 - a1, -(b2 - a2)])
        if abs(np.linalg.det(A)) < 1e-9:
            return None
        t = np.linalg.solve(A, a2 - a1)
        corners.append(a1 + t[0] * (b1 - a1))
    quad = _order_ccw(np.asarray(corners))
    if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        return None
    return quad


def _order_ccw(pts: np.ndarray) -> np.ndarray:
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    return pts[np.argsort(ang)]


def side_edges(
    lab_full: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    inward: np.ndarray,
    reach_in_px: float,
    reach_out_px: float,
    max_band_px: float,
    n_profiles: int = 140,
    seed: int = 0,
) -> SideEdges:
    """Edge points of the cushion along the outline side a -> b.

    Each profile runs from inside the bed outwards across the outline. Seen from above the bed, the
    cushion's face below the nose (and the shadow at its foot) is a darker band: a darkening edge, then,
    within `max_band_px`, the brightening one of the nose. With no band the first strong edge is the nose.
    Balls, arms, cues and pocket gaps give other edges: the robust curve fit drops them.
    """
    d = (b - a) / np.linalg.norm(b - a)
    t = np.linspace(0.07, 0.93, n_profiles)
    base = a[None, :] + t[:, None] * (b - a)[None, :]
    step = 0.5
    s = np.arange(-reach_in_px, reach_out_px, step)  # position along the outward normal
    pts = base[:, None, :] - s[None, :, None] * inward[None, None, :]
    prof = cv2.remap(lab_full[..., 0], pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    dl = np.zeros(prof.shape, np.float32)
    dl[:, 1:-1] = (prof[:, 2:] - prof[:, :-2]) / (2 * step)
    inside = (pts[..., 0] >= 0) & (pts[..., 1] >= 0)
    inside &= (pts[..., 0] <= lab_full.shape[1] - 1) & (pts[..., 1] <= lab_full.shape[0] - 1)
    dl[~inside] = 0.0
    band = int(max_band_px / step)
    firsts, noses = [], []
    for i in range(n_profiles):
        g = dl[i]
        half = max(len(g) // 3, 4)
        noise = 1.4826 * float(np.median(np.abs(g[:half] - np.median(g[:half]))))
        # from the bed's own texture, not from the strongest edge: rails and floor beyond can be far stronger
        thr = max(1.5, 6.0 * noise)
        strong = np.flatnonzero(np.abs(g) >= thr)
        if len(strong) == 0:
            continue
        j = _peak(np.abs(g), strong[0])
        firsts.append(base[i] - (s[0] + j * step) * inward)
        if g[round(j)] < 0:
            # a darkening (shadow at the cushion's foot, its face) then a brightening within the face's
            # width: the brightening is the nose. The foot itself is soft and biased by its shading.
            k0 = round(j) + 2
            opp = np.flatnonzero(g[k0 : k0 + band] >= max(1.0, 4.0 * noise))
            if len(opp):
                k = _peak(g, k0 + opp[0])
                noses.append(base[i] - (s[0] + k * step) * inward)
    # one reading per side: the face pattern when it shows often enough, else the first edge is the nose
    face = len(noses) / n_profiles
    found = noses if face >= FACE_SHARE else firsts
    if len(found) < 8:
        return SideEdges(np.zeros((0, 2)), n_profiles, 0.0, face)
    p = np.asarray(found)
    keep = ransac_curve(p, d, tol_px=1.5, seed=seed)
    return SideEdges(p[keep], n_profiles, float(keep.sum()) / n_profiles, face)


def _peak(g: np.ndarray, j: int | np.integer) -> float:
    j = int(j)
    """Climb from index j to the local maximum of g; sub-sample position by a parabola."""
    while j + 1 < len(g) and g[j + 1] >= g[j]:
        j += 1
    if 0 < j < len(g) - 1:
        den = g[j - 1] - 2 * g[j] + g[j + 1]
        if den < 0:
            return j + 0.5 * (g[j - 1] - g[j + 1]) / den
    return float(j)


def ransac_curve(p: np.ndarray, direction: np.ndarray, tol_px: float, seed: int = 0, iters: int = 300) -> np.ndarray:
    """Inliers of a gently curved line (a quadratic in the side's own frame: lens distortion bends it)."""
    rng = np.random.default_rng(seed)
    normal = np.array([-direction[1], direction[0]])
    u = (p - p.mean(axis=0)) @ direction
    v = (p - p.mean(axis=0)) @ normal
    scale = max(float(np.abs(u).max()), 1.0)
    un = u / scale
    A = np.column_stack([np.ones_like(un), un, un * un])
    best = np.zeros(len(p), bool)
    for _ in range(iters):
        idx = rng.choice(len(p), 3, replace=False)
        try:
            coef = np.linalg.solve(A[idx], v[idx])
        except np.linalg.LinAlgError:
            continue
        inl = np.abs(A @ coef - v) < tol_px
        if inl.sum() > best.sum():
            best = inl
    if best.sum() >= 3:
        # one refit on the inliers, then the final inlier set
        coef, *_ = np.linalg.lstsq(A[best], v[best], rcond=None)
        best = np.abs(A @ coef - v) < tol_px
    return best
