"""Lamps above the table: a row of shaded lamps whose pools of light make the cloth uneven."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.table import Table


@dataclass(frozen=True)
class Lighting:
    """Point-like lamps with a downward cone; `ambient` is the share of light that comes from elsewhere."""

    lamps: np.ndarray  # (L, 3) lamp centres, table mm
    power: np.ndarray  # (L,) relative power
    lamp_radius_mm: float
    cone_exp: float
    ambient: float
    scale: float  # makes the brightest point of the bed receive 1 - ambient

    @classmethod
    def build(cls, table: Table, n_lamps: int, ambient: float, rng: np.random.Generator) -> Lighting:
        n = max(1, int(n_lamps))
        spacing = table.spec.bed_length_mm / (n + 0.2)
        row = (np.arange(n) - (n - 1) / 2.0) * spacing
        # Two rows of shades over the long axis, as over most pyramid tables.
        xs = np.concatenate([row, row]) + rng.normal(0.0, 25.0, 2 * n)
        ys = np.repeat([-0.27, 0.27], n) * table.spec.bed_width_mm + rng.normal(0.0, 30.0)
        zs = np.full(2 * n, rng.uniform(1000.0, 1200.0))
        power = rng.uniform(0.85, 1.15, 2 * n)
        lit = cls(np.stack([xs, ys, zs], 1), power, 120.0, 1.5, float(ambient), 1.0)
        hl, hw = table.half_length, table.half_width
        gx, gy = np.meshgrid(np.linspace(-hl, hl, 80), np.linspace(-hw, hw, 40))
        probe = np.stack([gx.ravel(), gy.ravel(), np.zeros(gx.size)], 1)
        peak = float(lit.direct(probe).max())
        return cls(lit.lamps, power, lit.lamp_radius_mm, lit.cone_exp, float(ambient), (1.0 - ambient) / peak)

    def per_lamp(self, points: np.ndarray, normals: np.ndarray | None = None) -> np.ndarray:
        """(N, L) direct irradiance from each lamp at points (N, 3) with normals (N, 3) (default: up)."""
        v = self.lamps[None, :, :] - points[:, None, :]  # (N, L, 3) towards the lamp
        d2 = np.maximum(np.einsum("nlk,nlk->nl", v, v), 1.0)
        d = np.sqrt(d2)
        cos_surface = v[..., 2] / d if normals is None else np.einsum("nlk,nk->nl", v, normals) / d
        cone = np.clip(v[..., 2] / d, 0.0, 1.0) ** self.cone_exp  # the shade throws light downwards
        out: np.ndarray = self.scale * self.power[None, :] * np.clip(cos_surface, 0.0, None) * cone / d2 * 1e6
        return out

    def direct(self, points: np.ndarray, normals: np.ndarray | None = None) -> np.ndarray:
        """(N,) total direct irradiance."""
        return self.per_lamp(points, normals).sum(axis=1)

    def light(self, points: np.ndarray, normals: np.ndarray | None = None) -> np.ndarray:
        """(N,) ambient plus direct light; about 1 in the brightest pool of lamp light."""
        return self.ambient + self.direct(points, normals)
