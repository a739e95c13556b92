"""Reading mask, ground-truth and ROI images safely (docs/measures.md §1, §11).

Every image is read whole from a regular file (a named pipe or a device would
block), its header is checked before anything is decoded (its size within
:data:`~referee.core.limits.MAX_IMAGE_PIXELS`, 8 bits per sample, the file
complete), and it is decoded to grey levels only when that loses nothing:

* grey images, and palette images whose palette is grey, decode directly;
* colour images are read as grey only if every pixel has equal red, green and
  blue; otherwise the file is refused (a red-on-black mask is not grey);
* an alpha channel must be opaque everywhere (what a transparent pixel of a
  mask means cannot be known); it is then ignored;
* 16-bit images are refused (0..255 and 0..65535 scales cannot be told apart).

Referee reads PNG, JPEG, BMP and Netpbm (PPM, PGM, PBM) files, told apart by
their first bytes whatever their extension. Reading only: nothing is computed here.
"""

from __future__ import annotations

import os
import re
import stat
import struct
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from referee.core.errors import InputFileError
from referee.core.formats.png_decode import DamagedPng, decode_grey_png
from referee.core.limits import MAX_IMAGE_FILE_BYTES, MAX_IMAGE_PIXELS

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # opening a named pipe must not wait for a writer
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_END = b"IEND\xaeB`\x82"
_JPEG_END = b"\xff\xd9"
#: JPEG start-of-frame markers (the ones that give the image's size and components).
_JPEG_FRAMES = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_PNM_NUMBER = re.compile(rb"(?:\s|#[^\n]*(?:\n|$))*(\d+)")
FORMATS_TEXT = "PNG, JPEG, BMP or PPM/PGM"
"""The image formats Referee reads, for messages."""


class _Unreadable(Exception):
    """What is wrong with an image file's bytes (turned into an :class:`InputFileError`)."""


class _Header(NamedTuple):
    """What an image file's header says."""

    format: str
    width: int
    height: int
    deep: bool  # more than 8 bits per sample
    grey: bool  # decoding straight to grey levels is exact
    colour_flag: int  # how to decode it otherwise, keeping what must be checked
    complete: bool  # the file holds all its header announces


def load_grey(path: str | Path, what: str, frame: int | None) -> np.ndarray | None:
    """The image at ``path`` as ``uint8`` grey levels, shape ``(h, w)``; ``None`` if it is absent.

    ``what`` ("ground truth", "result"...) and ``frame`` (1-based, or ``None``)
    name the file in messages.

    Raises
    ------
    InputFileError
        If the file cannot be read (permissions, not a regular file, too large),
        is not a complete image of a format Referee reads, is larger than
        ``MAX_IMAGE_PIXELS``, has 16-bit samples, colours that are not grey or
        transparent pixels.
    """
    data = _read_file(path, what, frame)
    if data is None:
        return None
    return decode_grey(data, path, what, frame)


def decode_grey(data: bytes, path: str | Path, what: str, frame: int | None) -> np.ndarray:
    """The image file ``data`` (read from ``path``) as ``uint8`` grey levels, shape ``(h, w)``,
    with the checks of :func:`load_grey`, whose messages name ``path``, ``what`` and ``frame``.

    Raises
    ------
    InputFileError
        As :func:`load_grey`, for what the bytes hold.
    """
    named = f"this {what}{_at(frame)}"
    header = _checked_header(data, path, named)
    if header.grey and header.format == "PNG":
        # The grey PNGs masks and ground truth usually are, decoded faster; exactly the
        # same levels (png_decode.py), or None and OpenCV decodes the file.
        try:
            image = decode_grey_png(data)
        except DamagedPng:
            raise _corrupt(path, named) from None  # as OpenCV would fail (and no libpng line)
        if image is not None:
            return image
    buffer = np.frombuffer(data, np.uint8)
    if header.grey:
        image = cv2.imdecode(buffer, cv2.IMREAD_GRAYSCALE)
    else:
        image = _grey_of(cv2.imdecode(buffer, header.colour_flag), path, named)
    if image is None:
        raise _corrupt(path, named)
    return image


def decoded_in_python(path: str | Path) -> bool:
    """Whether the file at ``path`` is a PNG that :func:`decode_grey` decodes with
    :func:`~referee.core.formats.png_decode.decode_grey_png` rather than OpenCV; ``False``
    if it is anything else or cannot be read (read as :func:`load_grey` reads: a named
    pipe or a file over the size limit is not opened or not read)."""
    try:
        data = _read_file(path, "image", None)
        return (
            data is not None
            and data.startswith(_PNG_SIGNATURE)
            and (decode_grey_png(data) is not None)
        )
    except (InputFileError, DamagedPng):
        return False


def load_colour(path: str | Path, what: str, frame: int | None) -> np.ndarray | None:
    """The image at ``path`` as ``uint8`` blue, green and red, shape ``(h, w, 3)``; ``None`` if
    it is absent (colour-coded ground truth, docs/measures.md §1).

    Raises
    ------
    InputFileError
        As :func:`load_grey`, except that colours are read, not refused.
    """
    data = _read_file(path, what, frame)
    if data is None:
        return None
    named = f"this {what}{_at(frame)}"
    header = _checked_header(data, path, named)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), header.colour_flag)
    if image is None:
        raise _corrupt(path, named)
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return _opaque(image, path, named)[:, :, :3]


def _checked_header(data: bytes, path: str | Path, named: str) -> _Header:
    """The header of an image file Referee decodes: one of its formats, within the size
    limit, 8 bits per sample, complete.

    Raises
    ------
    InputFileError
        Naming ``path`` and saying which of these fails.
    """
    try:
        header = _header(data)
    except _Unreadable as problem:
        raise InputFileError(path, f"cannot decode {named} as an image: {problem}") from None
    width, height = header.width, header.height
    if not 0 < width * height <= MAX_IMAGE_PIXELS:
        raise InputFileError(
            path,
            f"{named} is {width}x{height} = {width * height:,} pixels by its header; Referee "
            f"reads images of 1 to {MAX_IMAGE_PIXELS:,} pixels (MAX_IMAGE_PIXELS, 8192x8192)",
        )
    if header.deep:
        raise InputFileError(
            path,
            f"{named} has 16 bits per sample; Referee reads 8-bit masks and ground truth "
            "(grey levels 0 to 255): save it with 8 bits per sample",
        )
    if not header.complete:
        raise InputFileError(
            path,
            f"cannot decode {named} as an image: the {header.format} file is incomplete "
            "(it was cut short, e.g. by an interrupted copy or a full disk); copy or save "
            "it again",
        )
    return header


def _corrupt(path: str | Path, named: str) -> InputFileError:
    return InputFileError(
        path, f"cannot decode {named} as an image: the file is corrupt; save it again as PNG"
    )


def _at(frame: int | None) -> str:
    return "" if frame is None else f" (frame {frame})"


def _read_file(path: str | Path, what: str, frame: int | None) -> bytes | None:
    """The bytes of a regular file, ``None`` if it does not exist; one open, one status."""
    named = f"this {what}{_at(frame)}"
    try:
        handle = os.open(path, _OPEN_FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except PermissionError:
        raise InputFileError(
            path,
            f"cannot read {named}: permission denied; give Referee read access to the file "
            f"and to its folder {os.path.dirname(os.fspath(path)) or '.'}",
        ) from None
    except OSError as error:
        raise _unreadable(path, named, error) from None
    try:
        status = os.fstat(handle)
        kind = stat.S_IFMT(status.st_mode)
        if kind != stat.S_IFREG:
            raise InputFileError(
                path,
                f"{named} is a folder, not an image file"
                if kind == stat.S_IFDIR
                else f"{named} is not a regular file (a named pipe, device or socket); "
                "give an image file",
            )
        size = status.st_size
        if size > MAX_IMAGE_FILE_BYTES:
            raise _too_large(path, named)
        data = os.read(handle, size + 1)
        while len(data) != size:  # a short read, or the file changed: on to its end
            more = os.read(handle, 2**20)
            if not more or len(data) > MAX_IMAGE_FILE_BYTES:
                break
            data += more
    except OSError as error:
        raise _unreadable(path, named, error) from None
    finally:
        os.close(handle)
    if len(data) > MAX_IMAGE_FILE_BYTES:
        raise _too_large(path, named)
    return data


def _too_large(path: str | Path, named: str) -> InputFileError:
    return InputFileError(
        path,
        f"{named} is over {MAX_IMAGE_FILE_BYTES // 2**20} MiB; Referee reads image files "
        "of at most that size (MAX_IMAGE_FILE_BYTES)",
    )


def _unreadable(path: str | Path, named: str, error: OSError) -> InputFileError:
    if isinstance(error, IsADirectoryError):
        return InputFileError(path, f"{named} is a folder, not an image file")
    return InputFileError(path, f"cannot read {named} ({error.strerror})")


def _header(data: bytes) -> _Header:
    """Parse the header of a PNG, JPEG, BMP or Netpbm file; nothing is decoded."""
    if not data:
        raise _Unreadable("the file is empty")
    try:
        return _parser(data)(data)
    except (struct.error, IndexError):
        raise _Unreadable("its header is cut short or corrupt") from None


def _parser(data: bytes) -> Callable[[bytes], _Header]:
    if data.startswith(_PNG_SIGNATURE):
        return _png
    if data.startswith(b"\xff\xd8"):
        return _jpeg
    if data.startswith(b"BM"):
        return _bmp
    if data[:1] == b"P" and data[1:2] in (b"1", b"2", b"3", b"4", b"5", b"6"):
        return _netpbm
    raise _Unreadable(
        f"it is not a {FORMATS_TEXT} file (it starts with {data[:8]!r}); save it as PNG"
    )


def _png(data: bytes) -> _Header:
    if data[12:16] != b"IHDR":
        raise _Unreadable("the PNG file has no IHDR header")
    width, height, depth, colour = struct.unpack_from(">IIBB", data, 16)
    palette, transparent = b"", False
    position = 8
    while position + 8 <= len(data):
        length, kind = struct.unpack_from(">I4s", data, position)
        if kind in (b"IDAT", b"IEND"):
            break
        if kind == b"PLTE":
            palette = data[position + 8 : position + 8 + length]
        transparent = transparent or kind == b"tRNS"
        position += 12 + length
    # A grey image's tRNS names one transparent grey level; its levels stay exact.
    grey = colour == 0 or (colour == 3 and not transparent and _grey_palette(palette, 3))
    complete = data.rfind(_PNG_END, max(0, len(data) - 64)) >= 0
    return _Header("PNG", width, height, depth > 8, grey, cv2.IMREAD_UNCHANGED, complete)


def _jpeg(data: bytes) -> _Header:
    complete = data.endswith(_JPEG_END) or data.rstrip(b"\0").endswith(_JPEG_END)
    position = 2
    while position + 4 <= len(data):
        if data[position] != 0xFF:
            break
        marker = data[position + 1]
        if marker == 0xFF:  # fill byte
            position += 1
            continue
        if marker == 0x01 or 0xD0 <= marker <= 0xD7:  # markers without a segment
            position += 2
            continue
        if marker in (0xD9, 0xDA):  # end of image or start of scan before any frame header
            break
        if marker in _JPEG_FRAMES:
            precision, height, width, components = struct.unpack_from(">BHHB", data, position + 4)
            grey = components == 1
            return _Header("JPEG", width, height, precision > 8, grey, cv2.IMREAD_COLOR, complete)
        position += 2 + struct.unpack_from(">H", data, position + 2)[0]
    raise _Unreadable("the JPEG file has no frame header: it is corrupt")


def _bmp(data: bytes) -> _Header:
    offset, info = struct.unpack_from("<II", data, 10)
    colours = 0
    if info == 12:  # OS/2 core header
        width, height, _, bits = struct.unpack_from("<HHHH", data, 18)
        compression, entry = 0, 3
    elif info >= 40:
        width, height, _, bits, compression = struct.unpack_from("<iiHHI", data, 18)
        colours, entry = struct.unpack_from("<I", data, 46)[0], 4
    else:
        raise _Unreadable(f"the BMP header has an unknown size ({info} bytes)")
    width, height = abs(width), abs(height)  # a negative height stores rows top-down
    # Uncompressed rows are padded to 4 bytes; compressed ones cannot be counted ahead.
    rows = (width * bits + 31) // 32 * 4 * height if compression in (0, 3) else 0
    grey = False
    if bits <= 8:
        start = 14 + info
        grey = _grey_palette(data[start : start + (colours or 1 << bits) * entry], entry)
    # A 32-bit BMP's fourth byte is seldom an alpha: colour reading drops it.
    complete = len(data) >= offset + rows
    return _Header("BMP", width, height, bits > 32, grey, cv2.IMREAD_COLOR, complete)


def _netpbm(data: bytes) -> _Header:
    kind = data[1] - ord("0")
    numbers: list[int] = []
    position = 2
    for _ in range(2 if kind in (1, 4) else 3):
        match = _PNM_NUMBER.match(data, position)
        if match is None:
            raise _Unreadable("the PPM/PGM header is corrupt")
        numbers.append(int(match.group(1)))
        position = match.end()
    width, height = numbers[0], numbers[1]
    deep = len(numbers) == 3 and numbers[2] > 255
    complete = True
    if kind >= 4:  # binary samples follow one whitespace byte
        row = (width + 7) // 8 if kind == 4 else width * (3 if kind == 6 else 1) * (1 + deep)
        complete = len(data) >= position + 1 + row * height
    grey = kind not in (3, 6)
    return _Header("PPM/PGM", width, height, deep, grey, cv2.IMREAD_COLOR, complete)


def _grey_palette(palette: bytes, entry: int) -> bool:
    """Whether every entry of a palette (``entry`` bytes each, RGB or BGR first) is grey."""
    first = palette[0::entry]
    return bool(first) and first == palette[1::entry] == palette[2::entry]


def _grey_of(image: np.ndarray | None, path: str | Path, named: str) -> np.ndarray | None:
    """The grey levels of a decoded colour image, if it is grey, opaque and 8-bit."""
    if image is None or image.ndim == 2:
        return image
    blue, green, red = cv2.split(_opaque(image, path, named))[:3]
    if cv2.countNonZero(cv2.absdiff(blue, green)) or cv2.countNonZero(cv2.absdiff(green, red)):
        y, x = np.argwhere((blue != green) | (green != red))[0]
        raise InputFileError(
            path,
            f"{named} is a colour image whose pixels are not grey (x={x}, "
            f"y={y} is red {red[y, x]}, green {green[y, x]}, blue {blue[y, x]}); masks and "
            "ground truth are grey levels: save it as an 8-bit grey PNG",
        )
    return blue


def _opaque(image: np.ndarray, path: str | Path, named: str) -> np.ndarray:
    """``image`` (decoded, with colour channels) if its alpha channel, if any, is opaque."""
    if image.shape[2] == 4:
        alpha = image[:, :, 3]
        if int(alpha.min()) < 255:
            y, x = np.argwhere(alpha < 255)[0]
            raise InputFileError(
                path,
                f"{named} has transparent pixels (alpha {alpha[y, x]} at x={x}, "
                f"y={y}); what transparency means in a mask is unknown: save it without "
                "alpha",
            )
    return image
