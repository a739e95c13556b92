"""Fast, exact decoding of the grey PNG files that masks and ground truth usually are.

Decoding a PNG is inflating its compressed rows (zlib), undoing each row's
filter and, for a palette image, looking its indices up. OpenCV's reader
(libpng on zlib) spends most of its time inflating; zlib-ng inflates the same
streams several times faster, and the rest is a few vectorized passes. So
:func:`decode_grey_png` decodes, from a PNG file's bytes, the kinds of PNG
that CDnet's ground truth (8-bit grey palette) and OpenCV's masks (8-bit grey)
are, and only those:

* grey (colour type 0) or palette (colour type 3) with a grey palette, 1, 2, 4
  or 8 bits per sample, no transparency (tRNS), not interlaced;
* every row filtered with None, Sub or Up (Average and Paeth rows depend on
  the pixel before them in the same row and are left to OpenCV);
* chunks in order: IHDR, then PLTE (palette images only) and the ancillary
  chunks of :data:`_PASSIVE` at most once each, then consecutive IDATs and
  IEND, every CRC right; the zlib stream inflates to exactly the rows' bytes,
  its checksum right, nothing after it.

For those it returns exactly what ``cv2.imdecode(..., cv2.IMREAD_GRAYSCALE)``
returns: the grey level as stored (8 bits) or scaled to 0..255 (fewer bits:
libpng's expansion, ``level * 255 / (2**bits - 1)``), the palette entry's grey
for a palette index. Such a file damaged in a way libpng refuses too (a wrong
CRC of IHDR, PLTE or IDAT, compressed rows that cannot be inflated or end too
soon, an unknown filter type) raises :class:`DamagedPng`, and the reader says
what it says when OpenCV fails. For any other file, or at any doubt (a wrong CRC
of an ancillary chunk, more data than the rows, an error after the last row, a
palette index beyond the palette) it returns ``None`` and the caller decodes the
file with OpenCV, which then gives the image or the error, as before. The
decoder never changes a value: tests compare it with OpenCV on every colour
type, bit depth and filter, and on damaged files.

zlib-ng (the ``zlib-ng`` package) is imported at the first decode, not with
this module; without it every file is left to OpenCV.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from types import ModuleType
from typing import cast

import cv2
import numpy as np

from referee.core.limits import MAX_IMAGE_PIXELS

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHUNK = struct.Struct(">I4s")
_CRC = struct.Struct(">I")
_IHDR = struct.Struct(">IIBBBBB")
_GREY, _PALETTE = 0, 3
_IDENTITY = bytes(range(256))
_NONE, _SUB, _UP, _AVERAGE, _PAETH = range(5)
#: libpng's default limit on a PNG's width and on its height (PNG_USER_WIDTH_MAX and
#: PNG_USER_HEIGHT_MAX): OpenCV refuses wider or taller files.
LIBPNG_MAX_SIDE = 1_000_000
#: Ancillary chunks that change nothing OpenCV decodes from a grey or grey-palette PNG,
#: with the length each has (physical pixel size, gamma, chromaticities, sRGB intent,
#: modification time). Any other chunk, or one of these with another length, leaves the
#: file to OpenCV.
_PASSIVE: dict[bytes, int] = {b"pHYs": 9, b"gAMA": 4, b"cHRM": 32, b"sRGB": 1, b"tIME": 7}

#: zlib-ng's module once imported; ``False`` if it is not installed.
_zlib_ng: ModuleType | bool | None = None


def fast_decoder_available() -> bool:
    """Whether zlib-ng is installed, so that :func:`decode_grey_png` decodes at all."""
    return _inflater() is not None


def _inflater() -> ModuleType | None:
    global _zlib_ng
    if _zlib_ng is None:
        try:
            from zlib_ng import zlib_ng
        except ImportError:
            _zlib_ng = False
        else:
            _zlib_ng = zlib_ng
    return _zlib_ng if isinstance(_zlib_ng, ModuleType) else None


class _Png:
    """What the chunks of a PNG this module decodes say."""

    __slots__ = ("depth", "height", "palette", "stream", "width")

    def __init__(
        self, width: int, height: int, depth: int, palette: bytes | None, stream: bytes
    ) -> None:
        self.width, self.height, self.depth = width, height, depth
        self.palette = palette  # a palette image's grey levels, one byte per entry
        self.stream = stream  # the IDAT chunks' data, joined


class DamagedPng(Exception):
    """A PNG file of the kinds :func:`decode_grey_png` decodes, damaged in a way that makes
    libpng, and so OpenCV, refuse it too (a critical chunk's CRC, the zlib stream, rows
    missing, an unknown filter type)."""


def decode_grey_png(data: bytes) -> np.ndarray | None:
    """The grey levels of the PNG file ``data``, ``uint8``, shape ``(h, w)``, exactly as
    ``cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)`` gives them; ``None`` if the file is not of
    the kinds this module decodes (see the module's docstring), holds anything libpng only
    warns about, or zlib-ng is not installed: decode it with OpenCV then.

    Raises
    ------
    DamagedPng
        If the file is damaged in a way that makes OpenCV refuse it as well.
    """
    zlib = _inflater()
    if zlib is None:
        return None
    png = _parsed(data, zlib.crc32)
    if png is None:
        return None
    row_bytes = (png.width * png.depth + 7) // 8
    size = png.height * (1 + row_bytes)
    # A zlib header may announce a window smaller than 32 KiB. libpng inflates row by row
    # in that window and refuses a stream that reaches further back; inflated at once
    # here it would not: unless the window holds every row, OpenCV decides.
    if png.stream[:1] and png.stream[0] >> 4 < 7 and 1 << ((png.stream[0] >> 4) + 8) < size:
        return None
    inflater = zlib.decompressobj()
    try:
        # At most one byte more than the rows hold: a stream that inflates to more (libpng
        # warns and takes the rows) is left to OpenCV without inflating it all.
        raw = inflater.decompress(png.stream, size + 1)
    except cast(type[Exception], zlib.error):
        if _fails_before_the_last_byte(zlib, png.stream, size):
            raise DamagedPng("its compressed rows are corrupt") from None
        return None  # met after the last row, where libpng may only warn
    if len(raw) > size or inflater.unused_data:
        return None
    if len(raw) < size or not inflater.eof:
        # libpng meets the end of the stream, or of the IDAT chunks, before the last row
        # or before the stream's end, and refuses the file.
        raise DamagedPng("its compressed rows end too soon")
    rows = _unfiltered(raw, png.height)
    if rows is None:
        return None
    samples = rows if png.depth == 8 else _samples(rows, png.width, png.depth, png.palette)
    if png.palette is None:
        return samples
    if len(png.palette) < 2**png.depth and int(samples.max()) >= len(png.palette):
        return None  # an index beyond the palette: OpenCV decides what it means
    if png.palette == _IDENTITY[: len(png.palette)]:
        return samples  # each index is its own grey level (CDnet's ground truth)
    levels = np.zeros(256, np.uint8)
    levels[: len(png.palette)] = np.frombuffer(png.palette, np.uint8)
    return cast(np.ndarray, cv2.LUT(samples, levels))


def _fails_before_the_last_byte(zlib: ModuleType, stream: bytes, size: int) -> bool:
    """Whether inflating ``stream`` fails before it gives ``size`` bytes: libpng then fails
    while it reads the rows, and refuses the file; an error after them (in the stream's
    checksum, say) it may only warn about, depending on how the IDAT chunks split it."""
    try:
        zlib.decompressobj().decompress(stream, size - 1)
    except cast(type[Exception], zlib.error):
        return True
    return False


def _parsed(data: bytes, crc32: Callable[[bytes | memoryview], int]) -> _Png | None:
    """The header, palette and compressed rows of a PNG this module decodes, or ``None``.

    Raises
    ------
    DamagedPng
        If the CRC of the IHDR, the PLTE or an IDAT chunk is wrong, every chunk before it
        being one this module decodes: libpng refuses such a file (it only warns about
        the CRC of IEND or of an ancillary chunk, which leaves the file to OpenCV).
    """
    if not data.startswith(_SIGNATURE):
        return None
    view = memoryview(data)
    end_of_data = len(data)
    position = len(_SIGNATURE)
    header: tuple[int, int, int, int, int, int, int] | None = None
    palette: bytes | None = None
    seen: set[bytes] = set()
    streams: list[memoryview] = []
    while True:
        if position + 12 > end_of_data:
            return None
        length, kind = _CHUNK.unpack_from(data, position)
        end = position + 12 + length
        if end > end_of_data:
            return None
        intact = crc32(view[position + 4 : end - 4]) == _CRC.unpack_from(data, end - 4)[0]
        if header is None:
            if kind != b"IHDR" or length != _IHDR.size:
                return None
            _check_crc(intact, kind)
            header = _IHDR.unpack_from(data, position + 8)
            if not _decodable(header):
                return None
        elif kind == b"IDAT":
            if header[3] == _PALETTE and palette is None:
                return None  # a palette image's rows before its palette
            _check_crc(intact, kind)
            streams.append(view[position + 8 : end - 4])
        elif kind == b"IEND":
            if length or not streams or not intact:
                return None  # libpng only warns about IEND's CRC
            break
        elif streams or kind in seen:
            return None  # after the IDATs only IEND; each chunk at most once
        elif kind == b"PLTE" and header[3] == _PALETTE:
            _check_crc(intact, kind)
            palette = _grey_palette(view[position + 8 : end - 4], header[2])
            if palette is None:
                return None
        elif _PASSIVE.get(kind) != length or not intact:
            return None
        seen.add(kind)
        position = end
    width, height, depth = header[0], header[1], header[2]
    stream = streams[0].tobytes() if len(streams) == 1 else b"".join(streams)
    return _Png(width, height, depth, palette, stream)


def _check_crc(intact: bool, kind: bytes) -> None:
    if not intact:
        raise DamagedPng(f"the CRC of its {kind.decode()} chunk is wrong")


def _decodable(header: tuple[int, int, int, int, int, int, int]) -> bool:
    width, height, depth, colour, compression, filtering, interlace = header
    return (
        0 < width <= LIBPNG_MAX_SIDE
        and 0 < height <= LIBPNG_MAX_SIDE
        and width * height <= MAX_IMAGE_PIXELS
        and depth in (1, 2, 4, 8)
        and colour in (_GREY, _PALETTE)
        and compression == filtering == interlace == 0
    )


def _grey_palette(entries: memoryview, depth: int) -> bytes | None:
    """The grey level of each entry of a PLTE chunk's ``entries``; ``None`` if an entry is
    not grey or the palette's size is wrong (not whole entries, none, or more than the bit
    depth can index)."""
    count, remainder = divmod(len(entries), 3)
    if remainder or not 0 < count <= 2**depth:
        return None
    rgb = entries.tobytes()
    red = rgb[0::3]
    return red if red == rgb[1::3] == rgb[2::3] else None


def _unfiltered(raw: bytes, height: int) -> np.ndarray | None:
    """The ``height`` rows of ``raw``, each a filter type byte and the row's bytes, with
    the filters undone (a new array, ``(height, row bytes)``); ``None`` if a row uses
    Average or Paeth. Arithmetic is modulo 256, as the PNG standard's.

    Raises
    ------
    DamagedPng
        If a row's filter type is none of the five (libpng refuses the file).
    """
    stride = len(raw) // height
    filters = raw[::stride]
    body = np.frombuffer(raw, np.uint8).reshape(height, stride)[:, 1:]
    subs = filters.count(_SUB)
    if subs == height:
        return _sums_along_rows(body)
    ups = filters.count(_UP)
    others = height - subs - ups - filters.count(_NONE)
    if others:
        if others != filters.count(_AVERAGE) + filters.count(_PAETH):
            raise DamagedPng("a row has an unknown filter type")
        return None
    out = body.copy()
    if subs:
        sub = np.frombuffer(filters, np.uint8) == _SUB
        out[sub] = _sums_along_rows(body[sub])
    if not ups:
        return out
    # A row filtered with Up adds the row above it, once that row is undone: a run of Up
    # rows after row s adds up rows s..r. Every None or Sub row, once undone, starts a run,
    # so row r is the sum of rows s..r of ``out``, the difference of two cumulative sums.
    up = np.frombuffer(filters, np.uint8) == _UP
    sums = _sums_down(out)
    starts = np.maximum.accumulate(np.where(up, -1, np.arange(height)))
    before = starts - 1  # the cumulative sum before the run (none before row 0)
    runs = before >= 0
    sums[runs] -= sums[before[runs]]
    return sums


def _sums_along_rows(body: np.ndarray) -> np.ndarray:
    """Cumulative sums along each row, modulo 256: undoes Sub with one byte per pixel."""
    return cast(np.ndarray, cv2.transpose(_sums_down(cv2.transpose(body))))


#: The low byte of each 16-bit lane of a 64-bit word.
_LANES = np.uint64(0x00FF00FF00FF00FF)
_EIGHT = np.uint64(8)
#: Rows summed before a lane is carried over: 256 sums of a byte and one carried byte
#: fit in 16 bits (256 * 255 + 255 = 65535).
_LANE_ROWS = 256


def _sums_down(columns: np.ndarray) -> np.ndarray:
    """Cumulative sums down each column of ``columns`` (``uint8``, C-contiguous), modulo
    256, as a new array.

    numpy's accumulate costs about the same per element whatever its width, so eight
    bytes of a row are summed at once: the four even and the four odd bytes of each
    64-bit word, each in a 16-bit lane, carried over (modulo 256) every 256 rows before
    a lane can overflow into the next."""
    height, width = columns.shape
    padded = -(-width // 8) * 8
    if padded != width:
        wide = np.zeros((height, padded), np.uint8)
        wide[:, :width] = columns
        columns = wide
    words = columns.view(np.uint64)
    even = words & _LANES
    odd = words >> _EIGHT
    odd &= _LANES
    for lanes in (even, odd):
        for start in range(0, height, _LANE_ROWS):
            block = lanes[start : start + _LANE_ROWS]
            if start:
                lanes[start - 1] &= _LANES
                block[0] += lanes[start - 1]
            np.add.accumulate(block, axis=0, out=block)
    even &= _LANES
    odd &= _LANES
    odd <<= _EIGHT
    even |= odd
    sums = even.view(np.uint8)
    return sums if padded == width else np.ascontiguousarray(sums[:, :width])


def _samples(rows: np.ndarray, width: int, depth: int, palette: bytes | None) -> np.ndarray:
    """Rows of 1, 2 or 4-bit samples, packed from the high bits of each byte, as one byte
    per pixel: grey levels scaled to 0..255 as libpng expands them, or palette indices."""
    unpacked = _UNPACK[(depth, palette is None)][rows]
    return np.ascontiguousarray(unpacked.reshape(len(rows), -1)[:, :width])


def _unpack_table(depth: int, scale: int) -> np.ndarray:
    per_byte = 8 // depth
    shifts = np.arange(8 - depth, -1, -depth, dtype=np.uint16)
    values = (np.arange(256, dtype=np.uint16)[:, None] >> shifts) & (2**depth - 1)
    table: np.ndarray = (values * scale).astype(np.uint8).reshape(256, per_byte)
    return table


#: For each bit depth below 8 and kind (grey or palette), each byte's samples.
_UNPACK: dict[tuple[int, bool], np.ndarray] = {
    (depth, grey): _unpack_table(depth, 255 // (2**depth - 1) if grey else 1)
    for depth in (1, 2, 4)
    for grey in (True, False)
}
