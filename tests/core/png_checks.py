"""What the tests of the fast PNG decoder share: OpenCV's reading as the peer, the
project's reader's outcome (an array or an error), grey content for every kind of PNG,
random grey PNGs, and a switch back to OpenCV alone."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import strategies as st

from referee.core.errors import InputFileError
from referee.core.formats import images
from referee.core.formats.cdnet import read_grey
from tests.core.png_writer import GREY, GREY_ALPHA, PALETTE, RGB, RGBA, UP, grey_palette, png_bytes

HEIGHT, WIDTH = 13, 21  # odd sizes: packed rows end mid-byte, Adam7's passes differ


def peer(path: Path) -> np.ndarray:
    """What OpenCV itself reads as grey levels, the independent peer."""
    image = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    assert image is not None, path
    return image


def opencv_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the reader decode every file with OpenCV, as before the fast decoder."""
    monkeypatch.setattr(images, "decode_grey_png", lambda data: None)


def outcome(path: Path) -> np.ndarray | str:
    """What the project's reader gives: the array, or its error's message."""
    try:
        return read_grey(path, "result", 7)
    except InputFileError as error:
        return str(error)


def assert_same_outcome(fast: np.ndarray | str, slow: np.ndarray | str) -> None:
    assert type(fast) is type(slow), (fast, slow)
    if isinstance(fast, str):
        assert fast == slow
        return
    assert isinstance(slow, np.ndarray)
    assert_identical(fast, slow)


def assert_identical(image: np.ndarray, expected: np.ndarray) -> None:
    assert image.dtype == expected.dtype == np.uint8
    assert image.shape == expected.shape
    assert image.flags.c_contiguous and image.flags.writeable
    np.testing.assert_array_equal(image, expected)


def grey_pixels(
    colour: int, depth: int, rng: np.random.Generator
) -> tuple[np.ndarray, bytes | None]:
    """Grey content for a kind of PNG (colour channels equal, alpha opaque): the samples
    as stored, and the palette of a palette image."""
    top = 2**depth - 1
    if colour == PALETTE:
        count = min(2**depth, 7)
        levels = [0, 255, *rng.choice(np.arange(1, 255), count - 2, replace=False).tolist()]
        return rng.integers(0, count, (HEIGHT, WIDTH)), grey_palette(levels)
    grey = rng.integers(0, top + 1, (HEIGHT, WIDTH))
    grey[0, :3] = (0, top, top // 2)
    channels = {GREY: [grey], GREY_ALPHA: [grey, np.full_like(grey, top)]}
    channels[RGB] = [grey, grey, grey]
    channels[RGBA] = [grey, grey, grey, np.full_like(grey, top)]
    return np.dstack(channels[colour]), None


@st.composite
def random_pngs(draw: st.DrawFn) -> tuple[bytes, bool]:
    """A grey or grey-palette PNG of random size, depth, levels, filters and IDAT split;
    and whether the fast decoder must decode it (every row None, Sub or Up)."""
    colour = draw(st.sampled_from([GREY, PALETTE]))
    depth = draw(st.sampled_from([1, 2, 4, 8]))
    height, width = draw(st.integers(1, 24)), draw(st.integers(1, 40))
    palette = None
    top = 2**depth - 1
    if colour == PALETTE:
        count = draw(st.integers(1, 2**depth))
        levels = draw(st.lists(st.integers(0, 255), min_size=count, max_size=count))
        palette = grey_palette(levels)
        top = count - 1
    seed = draw(st.integers(0, 2**32 - 1))
    pixels = np.random.default_rng(seed).integers(0, top + 1, (height, width))
    if draw(st.booleans()):  # masks: long runs of one level
        pixels = np.where(pixels > top // 2, top, 0)
    filters = draw(st.lists(st.integers(0, 4), min_size=1, max_size=6))
    parts = draw(st.integers(1, 3))
    data = png_bytes(pixels, colour, depth, filters=filters, palette=palette, idat_parts=parts)
    rows_used = [filters[i % len(filters)] for i in range(height)]
    return data, max(rows_used) <= UP
