"""HOTA (Luiten et al., 2020) for point tracks in table mm: motmetrics 1.4 has no HOTA, trackeval is not
installed, and the definition is short.

Similarity of a ground-truth ball and a track at distance d: max(0, 1 - d / d_max). For each threshold
alpha in 0.05..0.95, frames are matched by maximum similarity (Hungarian) keeping pairs with sim >= alpha;
DetA = TP / (TP + FN + FP), AssA = mean over TPs of TPA / (TPA + FNA + FPA) of that TP's (gt, track) pair,
HOTA_alpha = sqrt(DetA * AssA); HOTA is the mean over alpha.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from scipy.optimize import linear_sum_assignment

ALPHAS = np.arange(0.05, 0.96, 0.05)


def hota(
    frames: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]], d_max: float
) -> dict[str, float]:
    """`frames`: per frame (gt_ids, gt_xy (G, 2), track_ids, track_xy (T, 2)). Returns HOTA, DetA, AssA."""
    gt_count: Counter[str] = Counter()
    tr_count: Counter[str] = Counter()
    for g_ids, _, t_ids, _ in frames:
        gt_count.update(str(i) for i in g_ids)
        tr_count.update(str(i) for i in t_ids)
    res_h, res_d, res_a = [], [], []
    for alpha in ALPHAS:
        tp = fn = fp = 0
        pairs: Counter[tuple[str, str]] = Counter()
        matched: list[tuple[str, str]] = []
        for g_ids, g_xy, t_ids, t_xy in frames:
            if len(g_ids) and len(t_ids):
                d = np.linalg.norm(g_xy[:, None, :] - t_xy[None, :, :], axis=2)
                sim = np.maximum(0.0, 1.0 - d / d_max)
                rows, cols = linear_sum_assignment(-sim)
                ok = sim[rows, cols] >= alpha
                rows, cols = rows[ok], cols[ok]
            else:
                rows = cols = np.zeros(0, dtype=int)
            tp += len(rows)
            fn += len(g_ids) - len(rows)
            fp += len(t_ids) - len(rows)
            for r, c in zip(rows, cols, strict=True):
                key = (str(g_ids[r]), str(t_ids[c]))
                pairs[key] += 1
                matched.append(key)
        det_a = tp / max(tp + fn + fp, 1)
        if tp:
            ass = [pairs[k] / (gt_count[k[0]] + tr_count[k[1]] - pairs[k]) for k in matched]
            ass_a = float(np.mean(ass))
        else:
            ass_a = 0.0
        res_d.append(det_a)
        res_a.append(ass_a)
        res_h.append(float(np.sqrt(det_a * ass_a)))
    return {"HOTA": float(np.mean(res_h)), "DetA": float(np.mean(res_d)), "AssA": float(np.mean(res_a))}
