"""Where a 4:2:0 stream's chroma samples sit among its luma samples, read from the H.264 sequence parameter set.

A 4:2:0 chroma sample stands for a 2x2 block of luma samples, but not always at the block's middle: MPEG-2
and H.264 by default put it level with the block's left column and halfway down ("left"), JPEG in the middle
("center"), OpenCV's I420 conversion on the top-left luma sample ("topleft"). Upsampling chroma on the wrong
siting shifts colour half a camera pixel against luma, and every ball centre measured on a colour mask with
it: on the synthetic set (top-left chroma, read as centred) resting balls came out 0.5 mm right of and 0.7 mm
below their true places. A stream says its siting in the VUI of its sequence parameter set
(chroma_sample_loc_type); a stream that does not has the H.264 default, "left" (H.264 E.2.1).
"""

from __future__ import annotations

from enum import IntEnum


class ChromaSiting(IntEnum):
    """chroma_sample_loc_type of H.264 / HEVC VUI (and AVChromaLocation - 1)."""

    LEFT = 0
    CENTER = 1
    TOPLEFT = 2
    TOP = 3
    BOTTOMLEFT = 4
    BOTTOM = 5

    @property
    def offset(self) -> tuple[float, float]:
        """(x, y) of chroma sample (0, 0) in luma samples: luma sample p is at chroma coordinate (p - offset) / 2."""
        x = 0.5 if self in (ChromaSiting.CENTER, ChromaSiting.TOP, ChromaSiting.BOTTOM) else 0.0
        y = {ChromaSiting.LEFT: 0.5, ChromaSiting.CENTER: 0.5, ChromaSiting.TOPLEFT: 0.0, ChromaSiting.TOP: 0.0,
             ChromaSiting.BOTTOMLEFT: 1.0, ChromaSiting.BOTTOM: 1.0}[self]
        return x, y


DEFAULT_SITING = ChromaSiting.LEFT  # H.264 and HEVC when the stream says nothing


class _Bits:
    """An MSB-first bit reader with Exp-Golomb codes (H.264 7.2, 9.1)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def u(self, n: int) -> int:
        v = 0
        for _ in range(n):
            if self.pos >= 8 * len(self.data):
                raise ValueError("SPS ends early")
            v = (v << 1) | ((self.data[self.pos >> 3] >> (7 - (self.pos & 7))) & 1)
            self.pos += 1
        return v

    def ue(self) -> int:
        zeros = 0
        while self.u(1) == 0:
            zeros += 1
            if zeros > 31:
                raise ValueError("bad Exp-Golomb code in SPS")
        return (1 << zeros) - 1 + self.u(zeros)

    def se(self) -> int:
        k = self.ue()
        return (k + 1) // 2 if k % 2 else -(k // 2)


def _rbsp(nal: bytes) -> bytes:
    """The NAL unit's payload without its emulation-prevention bytes (00 00 03 -> 00 00)."""
    out, zeros = bytearray(), 0
    for b in nal:
        if zeros >= 2 and b == 3:
            zeros = 0
            continue
        out.append(b)
        zeros = zeros + 1 if b == 0 else 0
    return bytes(out)


def _skip_scaling_list(r: _Bits, size: int) -> None:
    last = nxt = 8
    for _ in range(size):
        if nxt:
            nxt = (last + r.se() + 256) % 256
        last = nxt or last


def sps_chroma_siting(sps: bytes) -> ChromaSiting | None:
    """chroma_sample_loc_type_top_field of one H.264 SPS NAL unit (header byte included); None when the SPS
    carries no chroma location (the default then applies) or is not 4:2:0."""
    r = _Bits(_rbsp(sps[1:]))
    profile = r.u(8)
    r.u(16)  # constraint flags, level
    r.ue()  # seq_parameter_set_id
    chroma_format = 1
    if profile in (100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135):
        chroma_format = r.ue()
        if chroma_format == 3:
            r.u(1)
        r.ue(), r.ue(), r.u(1)  # bit depths, qpprime_y_zero_transform_bypass
        if r.u(1):  # seq_scaling_matrix_present
            for i in range(8 if chroma_format != 3 else 12):
                if r.u(1):
                    _skip_scaling_list(r, 16 if i < 6 else 64)
    r.ue()  # log2_max_frame_num - 4
    poc = r.ue()
    if poc == 0:
        r.ue()
    elif poc == 1:
        r.u(1), r.se(), r.se()
        for _ in range(r.ue()):
            r.se()
    r.ue(), r.u(1)  # max_num_ref_frames, gaps_in_frame_num_allowed
    r.ue(), r.ue()  # picture size in macroblocks
    if not r.u(1):  # frame_mbs_only
        r.u(1)
    r.u(1)  # direct_8x8_inference
    if r.u(1):  # frame_cropping
        r.ue(), r.ue(), r.ue(), r.ue()
    if not r.u(1) or chroma_format != 1:  # no VUI, or not 4:2:0
        return None
    if r.u(1) and r.u(8) == 255:  # aspect_ratio_info_present, aspect_ratio_idc Extended_SAR
        r.u(32)
    if r.u(1):  # overscan_info_present
        r.u(1)
    if r.u(1):  # video_signal_type_present
        r.u(4)
        if r.u(1):
            r.u(24)
    if not r.u(1):  # chroma_loc_info_present
        return None
    loc = r.ue()
    return ChromaSiting(loc) if loc <= 5 else None


def _nal_units(data: bytes) -> list[bytes]:
    """NAL units of avcC extradata (ISO 14496-15) or of an Annex B byte stream."""
    if len(data) > 6 and data[0] == 1:  # avcC: version 1, then the SPS list
        n, pos, out = data[5] & 0x1F, 6, []
        for _ in range(n):
            size = int.from_bytes(data[pos : pos + 2], "big")
            out.append(data[pos + 2 : pos + 2 + size])
            pos += 2 + size
        return out
    parts = data.replace(b"\x00\x00\x00\x01", b"\x00\x00\x01").split(b"\x00\x00\x01")
    return [p for p in parts if p]


def h264_chroma_siting(extradata: bytes | None) -> ChromaSiting:
    """The siting an H.264 stream's parameter sets declare, else the default (unreadable ones included)."""
    for nal in _nal_units(extradata or b""):
        if nal and nal[0] & 0x1F == 7:
            try:
                found = sps_chroma_siting(nal)
            except ValueError:
                return DEFAULT_SITING
            return found if found is not None else DEFAULT_SITING
    return DEFAULT_SITING
