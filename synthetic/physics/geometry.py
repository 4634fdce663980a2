"""The collision geometry of a table: cushion nose segments, jaw points and pocket mouths, as arrays."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.table import CUSHIONS, POCKETS, Table


@dataclass(frozen=True)
class TableGeometry:
    """Arrays the simulator tests balls against; index order follows CUSHIONS and POCKETS."""

    table: Table
    seg_a: np.ndarray  # (6, 2) nose segment start
    seg_t: np.ndarray  # (6, 2) unit direction a -> b
    seg_len: np.ndarray  # (6,)
    seg_n: np.ndarray  # (6, 2) inward normal
    jaw_xy: np.ndarray  # (12, 2) jaw points (ends of the nose segments)
    jaw_cushion: tuple[str, ...]  # the cushion whose end each jaw point is
    jaw_pocket: tuple[str, ...]
    mouth_c: np.ndarray  # (6, 2) mouth centre
    mouth_out: np.ndarray  # (6, 2) unit vector into the pocket
    mouth_lat: np.ndarray  # (6, 2) unit vector along the mouth
    mouth_half: np.ndarray  # (6,) half mouth width
    nose_h: float  # cushion nose height above the bed
    outer: float  # how far beyond the nose line the cushion top ends (a ball past it is off the bed)
    R: float

    @classmethod
    def of(cls, table: Table) -> TableGeometry:
        a = np.array([table.cushions[c].a for c in CUSHIONS], dtype=float)
        b = np.array([table.cushions[c].b for c in CUSHIONS], dtype=float)
        n = np.array([table.cushions[c].normal for c in CUSHIONS], dtype=float)
        ab = b - a
        length = np.linalg.norm(ab, axis=1)
        jaws: list[tuple[float, float]] = []
        jaw_cushion: list[str] = []
        jaw_pocket: list[str] = []
        for pname in POCKETS:
            pk = table.pockets[pname]
            for jaw in (pk.jaw_a, pk.jaw_b):
                ends = np.concatenate([a, b])
                k = int(np.argmin(np.linalg.norm(ends - np.asarray(jaw), axis=1))) % len(CUSHIONS)
                jaws.append(jaw)
                jaw_cushion.append(CUSHIONS[k])
                jaw_pocket.append(pname)
        mouth_c = np.array([table.pockets[p].mouth_centre for p in POCKETS], dtype=float)
        mouth_out = np.array([table.pockets[p].outward for p in POCKETS], dtype=float)
        lat = np.stack([-mouth_out[:, 1], mouth_out[:, 0]], axis=1)
        half = np.array([table.pockets[p].mouth_mm / 2.0 for p in POCKETS], dtype=float)
        return cls(
            table=table,
            seg_a=a,
            seg_t=ab / length[:, None],
            seg_len=length,
            seg_n=n,
            jaw_xy=np.array(jaws, dtype=float),
            jaw_cushion=tuple(jaw_cushion),
            jaw_pocket=tuple(jaw_pocket),
            mouth_c=mouth_c,
            mouth_out=mouth_out,
            mouth_lat=lat,
            mouth_half=half,
            nose_h=float(table.spec.cushion_nose_height_mm),
            outer=float(table.spec.cushion_width_mm),
            R=table.ball_radius,
        )

    def reach(self, z: np.ndarray) -> np.ndarray:
        """Plan distance from the nose line at which a ball with centre height z touches the cushion.

        Below the nose the cushion face is taken as vertical (contact at R, as the table model's frozen
        test assumes); above it the ball meets the nose edge; a ball whose bottom clears the nose passes.
        """
        dz = z - self.nose_h
        r = np.full(z.shape, self.R)
        above = dz > 0
        r[above] = np.sqrt(np.maximum(self.R**2 - dz[above] ** 2, 0.0))
        return r

    def contact_normal(self, n_in: np.ndarray, z: float) -> np.ndarray:
        """Unit 3D normal (from the contact point into the ball centre) for a cushion or jaw contact."""
        dz = z - self.nose_h
        if abs(dz) >= self.R:
            dz = np.sign(dz) * self.R * 0.999
        dx = np.sqrt(self.R**2 - dz**2)
        v = np.array([n_in[0] * dx, n_in[1] * dx, dz])
        return v / np.linalg.norm(v)
