"""Damaged PNG files: the fast decoder (core/formats/png_decode.py) refuses only what
OpenCV refuses too, with the same one-line error naming the file, and leaves whatever
libpng might only warn about to OpenCV."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.errors import InputFileError
from referee.core.formats.cdnet import read_grey
from referee.core.formats.png_decode import DamagedPng, decode_grey_png
from tests.core.png_checks import (
    assert_identical,
    assert_same_outcome,
    grey_pixels,
    opencv_only,
    outcome,
    peer,
    random_pngs,
)
from tests.core.png_writer import GREY, NONE, PALETTE, SUB, chunk, png_bytes


def _with_idat(data: bytes, change: Callable[[bytes], bytes]) -> bytes:
    """``data`` (a PNG with one IDAT chunk) with that chunk's data changed, its CRC right."""
    start = data.index(b"IDAT") - 4
    (length,) = struct.unpack_from(">I", data, start)
    body = change(data[start + 8 : start + 8 + length])
    return data[:start] + chunk(b"IDAT", body) + data[start + 12 + length :]


def _flip_crc(data: bytes, kind: bytes) -> bytes:
    start = data.index(kind) - 4
    (length,) = struct.unpack_from(">I", data, start)
    crc = start + 8 + length
    return data[:crc] + bytes([data[crc] ^ 0x40]) + data[crc + 1 :]


def _recompressed(change: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    return lambda body: zlib.compress(change(zlib.decompress(body)))


_DAMAGES: dict[str, Callable[[bytes], bytes]] = {
    # a first deflate block of the reserved type 3
    "zlib": lambda body: body[:2] + bytes([body[2] | 0b110]) + body[3:],
    "header": lambda body: bytes([body[0], body[1] ^ 1]) + body[2:],  # zlib header check
    "no-checksum": lambda body: body[:-4],  # every row there, the stream never ends
    "short": _recompressed(lambda rows: rows[: len(rows) // 2]),  # half the rows
    "one-byte-short": _recompressed(lambda rows: rows[:-1]),
    "filter": _recompressed(lambda rows: bytes([5]) + rows[1:]),  # no filter type 5
    "cut": lambda body: body[: len(body) // 2],  # the stream stops in the middle
}


def _damaged(data: bytes, how: str) -> bytes:
    """``data`` (a PNG with one IDAT chunk) damaged in one way."""
    if how.endswith("-crc"):  # one chunk's CRC wrong (as if a byte of the chunk flipped)
        return _flip_crc(data, how.removesuffix("-crc").upper().encode())
    return _with_idat(data, _DAMAGES[how])


#: Each damage with each kind of PNG that can have it (a grey PNG has no palette chunk).
_DAMAGED_CASES = [
    pytest.param(how, colour, id=f"{how}-{name}")
    for how in ("ihdr-crc", "plte-crc", "idat-crc", *_DAMAGES)
    for colour, name in ((GREY, "grey"), (PALETTE, "palette"))
    if not (how == "plte-crc" and colour == GREY)
]


@pytest.mark.parametrize(("how", "colour"), _DAMAGED_CASES)
def test_a_damaged_png_gives_the_same_one_line_error_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str, colour: int
) -> None:
    pixels, palette = grey_pixels(colour, 8, np.random.default_rng(9))
    data = png_bytes(pixels, colour, 8, palette=palette, filters=(SUB,))
    path = tmp_path / "bin000007.png"
    path.write_bytes(_damaged(data, how))
    with pytest.raises(DamagedPng):
        decode_grey_png(path.read_bytes())
    assert cv2.imread(str(path), cv2.IMREAD_GRAYSCALE) is None  # OpenCV refuses it too
    with pytest.raises(InputFileError) as raised:
        read_grey(path, "result", 7)
    message = str(raised.value)
    assert str(path) in message and "(frame 7)" in message and "the file is corrupt" in message
    assert "\n" not in message
    opencv_only(monkeypatch)
    with pytest.raises(InputFileError) as again:
        read_grey(path, "result", 7)
    assert str(again.value) == message


@pytest.mark.parametrize(
    "how", ["extra-data", "second-stream", "too-much", "adler", "adler-alone", "iend-crc"]
)
def test_a_stream_that_ends_oddly_is_left_to_opencv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Every row is there, then more, or a wrong checksum after them, or a wrong CRC of
    IEND: libpng warns, or refuses the file, depending on where the IDAT chunks split the
    stream; whatever OpenCV does, the reader does."""
    pixels, _ = grey_pixels(GREY, 8, np.random.default_rng(12))
    data = png_bytes(pixels, GREY, 8, filters=(SUB,))
    change = {
        "extra-data": lambda body: body + b"\x00\x01\x02",
        "second-stream": lambda body: body + zlib.compress(b"\x00" * 10),
        "too-much": _recompressed(lambda rows: rows + bytes(len(rows) // 13)),
        "adler": lambda body: body[:-1] + bytes([body[-1] ^ 1]),
        "adler-alone": lambda body: body[:-1] + bytes([body[-1] ^ 1]),
        "iend-crc": lambda body: body,
    }[how]
    changed = _with_idat(data, change)
    if how == "iend-crc":
        changed = _flip_crc(changed, b"IEND")
    if how == "adler-alone":  # the checksum alone in a second IDAT chunk
        start = changed.index(b"IDAT") - 4
        (length,) = struct.unpack_from(">I", changed, start)
        body = changed[start + 8 : start + 8 + length]
        split = chunk(b"IDAT", body[:-4]) + chunk(b"IDAT", body[-4:])
        changed = changed[:start] + split + changed[start + 12 + length :]
    assert decode_grey_png(changed) is None
    path = tmp_path / "mask.png"
    path.write_bytes(changed)
    with_decoder = outcome(path)
    opencv_only(monkeypatch)
    assert_same_outcome(with_decoder, outcome(path))
    if how == "adler":  # the checksum in the chunk of the last row: met while reading it
        assert isinstance(with_decoder, str) and "the file is corrupt" in with_decoder
    elif how not in ("adler-alone", "iend-crc"):  # (a wrong IEND reads as a cut file)
        assert isinstance(with_decoder, np.ndarray), with_decoder
        assert_identical(with_decoder, peer(path))


@pytest.mark.parametrize("window_bits", [9, 11, 12, 15])
def test_a_stream_with_a_small_window_is_decoded_only_if_the_window_holds_every_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, window_bits: int
) -> None:
    """libpng inflates row by row within the window the zlib header announces; a stream
    whose header understates it (a damaged or hand-made file) is refused by libpng but
    would inflate at once: the decoder leaves it to OpenCV unless the window holds all."""
    rng = np.random.default_rng(13)
    pixels = np.tile(rng.integers(0, 256, (4, 60)), (8, 1))  # far repeats: long distances
    data = png_bytes(pixels, GREY, 8, filters=(NONE,))
    size = 32 * 61

    def understated(body: bytes) -> bytes:
        cmf = (window_bits - 8) << 4 | 8
        flags = body[1] & 0xE0
        flags |= 31 - (cmf * 256 + flags) % 31
        return bytes([cmf, flags]) + body[2:]

    changed = _with_idat(data, understated)
    path = tmp_path / "mask.png"
    path.write_bytes(changed)
    fast = decode_grey_png(changed)
    assert (fast is not None) == (1 << window_bits >= size)
    with_decoder = outcome(path)
    opencv_only(monkeypatch)
    assert_same_outcome(with_decoder, outcome(path))
    if fast is not None:
        assert_identical(fast, peer(path))


def test_a_damaged_ancillary_chunk_is_left_to_opencv_which_decodes_the_rows(
    tmp_path: Path,
) -> None:
    pixels, _ = grey_pixels(GREY, 8, np.random.default_rng(10))
    data = png_bytes(pixels, GREY, 8, before=[(b"pHYs", struct.pack(">IIB", 2835, 2835, 1))])
    crc = data.index(b"pHYs") + 4 + 9
    damaged = data[:crc] + bytes([data[crc] ^ 1]) + data[crc + 1 :]
    path = tmp_path / "mask.png"
    path.write_bytes(damaged)
    assert decode_grey_png(damaged) is None
    image = read_grey(path, "result", 1)
    assert_identical(image, peer(path))
    np.testing.assert_array_equal(image, pixels[:, :, 0])


@st.composite
def _damaged_pngs(draw: st.DrawFn) -> bytes:
    """A random grey or grey-palette PNG with some bytes changed, or its compressed rows
    cut or changed with the IDAT chunk's CRC made right again."""
    data, _ = draw(random_pngs())
    if draw(st.booleans()):
        for _ in range(draw(st.integers(1, 3))):
            at = draw(st.integers(8, len(data) - 1))
            data = data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1 :]
        return data
    start = data.index(b"IDAT") - 4
    (length,) = struct.unpack_from(">I", data, start)
    body = bytearray(data[start + 8 : start + 8 + length])
    if draw(st.booleans()) and len(body) > 1:
        del body[draw(st.integers(0, len(body) - 1)) :]
    else:
        at = draw(st.integers(0, len(body) - 1))
        body[at] ^= draw(st.integers(1, 255))
    return data[:start] + chunk(b"IDAT", bytes(body)) + data[start + 12 + length :]


@settings(max_examples=300, deadline=None)
@given(_damaged_pngs())
def test_damaged_pngs_are_refused_only_when_opencv_refuses_them(data: bytes) -> None:
    """Decoded, the same levels as OpenCV's; refused as damaged, OpenCV refuses it too;
    otherwise left to OpenCV."""
    opencv = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
    try:
        fast = decode_grey_png(data)
    except DamagedPng:
        assert opencv is None
        return
    if fast is not None:
        assert opencv is not None
        assert_identical(fast, opencv)
