"""A small PNG writer for tests, chunk by chunk with zlib and struct: every colour type,
bit depth, row filter and Adam7 interlacing, palettes, transparency and extra chunks, so
that decoders can be compared on files OpenCV never writes (it writes 8 and 16-bit grey,
colour and colour with alpha, filtered with Sub)."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
GREY, RGB, PALETTE, GREY_ALPHA, RGBA = 0, 2, 3, 4, 6
CHANNELS = {GREY: 1, RGB: 3, PALETTE: 1, GREY_ALPHA: 2, RGBA: 4}
#: The filter types of the PNG standard.
NONE, SUB, UP, AVERAGE, PAETH = range(5)
#: Adam7's passes: first column, first row, column step, row step.
ADAM7 = (
    (0, 0, 8, 8),
    (4, 0, 8, 8),
    (0, 4, 4, 8),
    (2, 0, 4, 4),
    (0, 2, 2, 4),
    (1, 0, 2, 2),
    (0, 1, 1, 2),
)


def chunk(kind: bytes, body: bytes) -> bytes:
    """One chunk: length, type, data and the CRC of type and data."""
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def packed(samples: np.ndarray, depth: int) -> bytes:
    """One row's samples (channels interleaved) as the PNG stores them: 16-bit big-endian,
    8-bit bytes, or 1, 2 and 4-bit samples packed from each byte's high bits, the last
    byte padded with zeros."""
    if depth == 16:
        return samples.astype(">u2").tobytes()
    if depth == 8:
        return samples.astype(np.uint8).tobytes()
    per_byte = 8 // depth
    padded = np.zeros(-(-samples.size // per_byte) * per_byte, np.uint16)
    padded[: samples.size] = samples
    shifts = np.arange(8 - depth, -1, -depth, dtype=np.uint16)
    return (padded.reshape(-1, per_byte) << shifts).sum(axis=1).astype(np.uint8).tobytes()


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filtered(row: bytes, prior: bytes, kind: int, bpp: int) -> bytes:
    """``row`` filtered with filter type ``kind`` against the row above it, ``prior``
    (zeros for a pass's first row), ``bpp`` bytes per complete pixel (at least 1)."""
    out = bytearray([kind])
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prior[i]
        c = prior[i - bpp] if i >= bpp else 0
        predictor = (0, a, b, (a + b) // 2, _paeth(a, b, c))[kind]
        out.append((x - predictor) & 0xFF)
    return bytes(out)


def png_bytes(
    pixels: np.ndarray,
    colour: int,
    depth: int,
    *,
    filters: Sequence[int] = (NONE,),
    interlaced: bool = False,
    palette: bytes | None = None,
    transparency: bytes | None = None,
    before: Sequence[tuple[bytes, bytes]] = (),
    idat_parts: int = 1,
) -> bytes:
    """A PNG file of ``pixels`` (``(h, w)`` or ``(h, w, channels)``, samples as stored:
    palette indices, levels of ``depth`` bits), its rows filtered with ``filters`` in turn,
    with the chunks ``before`` (type, data) after IHDR, then PLTE and tRNS when given,
    the compressed rows split over ``idat_parts`` IDAT chunks, and IEND."""
    height, width = pixels.shape[:2]
    samples = pixels.reshape(height, width, -1)
    bpp = max(1, CHANNELS[colour] * depth // 8)
    rows = []
    for x0, y0, dx, dy in ADAM7 if interlaced else ((0, 0, 1, 1),):
        image = samples[y0::dy, x0::dx]
        if image.size == 0:
            continue  # a pass without pixels has no rows at all
        prior = bytes(len(packed(image[0].ravel(), depth)))
        for line in image:
            row = packed(line.ravel(), depth)
            rows.append(filtered(row, prior, filters[len(rows) % len(filters)], bpp))
            prior = row
    stream = zlib.compress(b"".join(rows))
    step = -(-len(stream) // idat_parts)
    header = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, int(interlaced))
    out = SIGNATURE + chunk(b"IHDR", header)
    out += b"".join(chunk(kind, body) for kind, body in before)
    if palette is not None:
        out += chunk(b"PLTE", palette)
    if transparency is not None:
        out += chunk(b"tRNS", transparency)
    for start in range(0, len(stream), step):
        out += chunk(b"IDAT", stream[start : start + step])
    return out + chunk(b"IEND", b"")


def grey_palette(levels: Sequence[int]) -> bytes:
    """A PLTE chunk's data whose entry ``i`` is the grey ``levels[i]``."""
    return bytes(v for level in levels for v in (level, level, level))
