"""The fast PNG decoder (core/formats/png_decode.py) never changes what is read.

Every PNG colour type, bit depth, row filter and interlacing is written by a small
encoder of the tests' own (``png_writer.py``), then read by the project's reader
(``read_grey``) with the fast decoder and without it, and by ``cv2.imread`` as the
independent peer: the arrays, or the errors, are the same. The decoder itself must
decode the kinds it claims (so that a test fails if it silently stopped decoding)
and leave every other file to OpenCV.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import given, settings

from referee.core.demo.dataset import DemoLayout
from referee.core.evaluation import batch
from referee.core.formats import png_decode
from referee.core.formats.cdnet import discover_videos, read_grey
from referee.core.formats.png_decode import decode_grey_png
from referee.core.frames.results import result_sources
from referee.core.model.videos import VideoSpec
from referee.core.parallel import map_chunks
from tests.conftest import HIGHWAY
from tests.core.png_checks import (
    HEIGHT,
    WIDTH,
    assert_identical,
    assert_same_outcome,
    grey_pixels,
    opencv_only,
    outcome,
    peer,
    random_pngs,
)
from tests.core.png_writer import (
    AVERAGE,
    GREY,
    GREY_ALPHA,
    NONE,
    PAETH,
    PALETTE,
    RGB,
    RGBA,
    SUB,
    UP,
    grey_palette,
    png_bytes,
)

#: Filter patterns, applied to the rows in turn: each type alone, None/Sub/Up mixed (the
#: fast decoder's), and all five mixed (OpenCV's).
FILTERS: dict[str, tuple[int, ...]] = {
    "none": (NONE,),
    "sub": (SUB,),
    "up": (UP,),
    "average": (AVERAGE,),
    "paeth": (PAETH,),
    "none-sub-up": (UP, NONE, SUB, UP, UP, SUB, NONE, UP),
    "all": (NONE, SUB, UP, AVERAGE, PAETH, PAETH, UP),
}
FAST_FILTERS = ("none", "sub", "up", "none-sub-up")
#: Colour type and bit depth of every kind of PNG the standard allows.
KINDS: tuple[tuple[int, int], ...] = (
    *((GREY, d) for d in (1, 2, 4, 8, 16)),
    (GREY_ALPHA, 8),
    (GREY_ALPHA, 16),
    (RGB, 8),
    (RGB, 16),
    (RGBA, 8),
    (RGBA, 16),
    *((PALETTE, d) for d in (1, 2, 4, 8)),
)
KIND_NAMES = {GREY: "grey", GREY_ALPHA: "grey-alpha", RGB: "rgb", RGBA: "rgba", PALETTE: "palette"}


@pytest.mark.parametrize("interlaced", [False, True], ids=["plain", "adam7"])
@pytest.mark.parametrize("filters", list(FILTERS))
@pytest.mark.parametrize(("colour", "depth"), KINDS, ids=[f"{KIND_NAMES[c]}-{d}" for c, d in KINDS])
def test_every_kind_of_png_reads_as_opencv_reads_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    colour: int,
    depth: int,
    filters: str,
    interlaced: bool,
) -> None:
    rng = np.random.default_rng(depth * 100 + colour)
    pixels, palette = grey_pixels(colour, depth, rng)
    data = png_bytes(
        pixels, colour, depth, filters=FILTERS[filters], interlaced=interlaced, palette=palette
    )
    path = tmp_path / "mask.png"
    path.write_bytes(data)
    fast = decode_grey_png(data)
    claimed = (
        colour in (GREY, PALETTE) and depth <= 8 and not interlaced and filters in FAST_FILTERS
    )
    assert (fast is not None) == claimed
    with_decoder = outcome(path)
    opencv_only(monkeypatch)
    assert_same_outcome(with_decoder, outcome(path))
    if depth == 16:
        assert isinstance(with_decoder, str) and "16 bits per sample" in with_decoder
        return
    opencv = peer(path)
    assert isinstance(with_decoder, np.ndarray), with_decoder
    assert_identical(with_decoder, opencv)
    if fast is not None:
        assert_identical(fast, opencv)


@pytest.mark.parametrize(
    ("colour", "depth", "values"),
    [(GREY, 1, [0, 1]), (GREY, 2, [0, 1, 2, 3]), (GREY, 4, [0, 7, 8, 15]), (GREY, 8, [0, 50])],
)
def test_fewer_bits_are_scaled_to_0_255_as_libpng_expands_them(
    colour: int, depth: int, values: list[int]
) -> None:
    pixels = np.array([values], np.uint8)
    image = decode_grey_png(png_bytes(pixels, colour, depth, filters=(SUB,)))
    assert image is not None
    scale = 255 // (2**depth - 1)
    assert image.tolist() == [[v * scale for v in values]]


@pytest.mark.parametrize("transparency", [b"\xff" * 7, b"\xff\x00"], ids=["opaque", "clear"])
def test_a_palette_with_transparency_is_left_to_opencv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, transparency: bytes
) -> None:
    pixels, palette = grey_pixels(PALETTE, 8, np.random.default_rng(3))
    data = png_bytes(pixels, PALETTE, 8, palette=palette, transparency=transparency)
    assert decode_grey_png(data) is None
    path = tmp_path / "mask.png"
    path.write_bytes(data)
    with_decoder = outcome(path)
    opencv_only(monkeypatch)
    assert_same_outcome(with_decoder, outcome(path))
    if transparency.count(0):
        assert isinstance(with_decoder, str) and "transparent pixels" in with_decoder
    else:
        assert isinstance(with_decoder, np.ndarray)
        assert_identical(with_decoder, peer(path))


def test_a_grey_transparent_level_and_a_colour_palette_are_left_to_opencv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    grey = np.arange(WIDTH * HEIGHT, dtype=np.uint8).reshape(HEIGHT, WIDTH)
    grey_trns = png_bytes(grey, GREY, 8, transparency=b"\x00\x05")
    colour_palette = png_bytes(grey % 4, PALETTE, 8, palette=b"\x00\x00\x00\xff\x00\x00" * 2)
    for name, data in (("grey.png", grey_trns), ("colour.png", colour_palette)):
        assert decode_grey_png(data) is None
        (tmp_path / name).write_bytes(data)
    outcomes = [outcome(tmp_path / n) for n in ("grey.png", "colour.png")]
    opencv_only(monkeypatch)
    for name, before in zip(("grey.png", "colour.png"), outcomes):
        assert_same_outcome(before, outcome(tmp_path / name))
    assert isinstance(outcomes[0], np.ndarray)
    assert_identical(outcomes[0], peer(tmp_path / "grey.png"))
    assert isinstance(outcomes[1], str) and "is a colour image" in outcomes[1]


#: Ancillary chunks that change nothing OpenCV decodes (decoded here), and others (left to
#: OpenCV): text, background, significant bits, an ICC profile, an unknown private chunk.
PASSIVE_CHUNKS = {
    "pHYs": struct.pack(">IIB", 2835, 2835, 1),
    "gAMA": struct.pack(">I", 45455),
    "cHRM": struct.pack(">8I", 31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000),
    "sRGB": b"\x00",
    "tIME": struct.pack(">HBBBBB", 2014, 6, 1, 12, 0, 0),
}
OTHER_CHUNKS = {
    "tEXt": b"Software\x00a test",
    "bKGD": b"\x00\x00",
    "sBIT": b"\x08",
    "iCCP": b"profile\x00\x00" + zlib.compress(b"\x00" * 128),
    "prVt": b"anything",
}


@pytest.mark.parametrize("kind", [*PASSIVE_CHUNKS, *OTHER_CHUNKS])
@pytest.mark.parametrize("colour", [GREY, PALETTE], ids=["grey", "palette"])
def test_ancillary_chunks_decode_as_opencv_decodes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, colour: int
) -> None:
    pixels, palette = grey_pixels(colour, 8, np.random.default_rng(5))
    body = {**PASSIVE_CHUNKS, **OTHER_CHUNKS}[kind]
    if kind == "bKGD" and colour == PALETTE:
        body = b"\x01"
    data = png_bytes(pixels, colour, 8, palette=palette, before=[(kind.encode(), body)])
    path = tmp_path / "mask.png"
    path.write_bytes(data)
    fast = decode_grey_png(data)
    assert (fast is not None) == (kind in PASSIVE_CHUNKS)
    with_decoder = outcome(path)
    assert isinstance(with_decoder, np.ndarray), with_decoder
    assert_identical(with_decoder, peer(path))
    if fast is not None:
        assert_identical(fast, peer(path))
    opencv_only(monkeypatch)
    assert_same_outcome(with_decoder, outcome(path))


def test_several_idat_chunks_and_bytes_after_iend_decode_as_opencv_decodes_them(
    tmp_path: Path,
) -> None:
    pixels, palette = grey_pixels(PALETTE, 4, np.random.default_rng(8))
    data = png_bytes(pixels, PALETTE, 4, palette=palette, idat_parts=5, filters=(UP, SUB))
    path = tmp_path / "mask.png"
    path.write_bytes(data + b"after the end")
    assert data.count(b"IDAT") == 5
    fast = decode_grey_png(path.read_bytes())
    assert fast is not None
    assert_identical(fast, peer(path))


def test_an_index_beyond_the_palette_is_left_to_opencv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pixels = np.array([[0, 1, 2, 3, 2, 1]], np.uint8)
    beyond = png_bytes(pixels, PALETTE, 2, palette=grey_palette([0, 255, 128]))
    within = png_bytes(pixels % 3, PALETTE, 2, palette=grey_palette([0, 9, 1]))
    assert decode_grey_png(beyond) is None
    fast = decode_grey_png(within)
    assert fast is not None and fast.tolist() == [[0, 9, 1, 0, 1, 9]]
    path = tmp_path / "mask.png"
    path.write_bytes(beyond)
    with_decoder = outcome(path)
    opencv_only(monkeypatch)
    assert_same_outcome(with_decoder, outcome(path))


@pytest.mark.parametrize("filters", ["sub", "up", "none-sub-up"])
@pytest.mark.parametrize("content", ["descending", "random"])
def test_rows_and_columns_longer_than_256_pixels_sum_exactly(filters: str, content: str) -> None:
    """Sub and Up rows are undone by sums over whole rows and columns, eight bytes at a
    time in 16-bit lanes carried over every 256 pixels. Levels that go down by one from
    pixel to pixel are filtered to 255 everywhere, and fill the lanes most."""
    shape = (530, 701)  # more than two carries down the columns and along the rows
    y, x = np.indices(shape)
    pixels = (255 - x - y) % 256
    if content == "random":
        pixels = np.random.default_rng(14).integers(0, 256, shape)
    data = png_bytes(pixels, GREY, 8, filters=FILTERS[filters])
    fast = decode_grey_png(data)
    assert fast is not None
    assert_identical(fast, cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE))
    np.testing.assert_array_equal(fast, pixels)


@settings(max_examples=300, deadline=None)
@given(random_pngs())
def test_random_grey_pngs_decode_as_opencv_decodes_them(case: tuple[bytes, bool]) -> None:
    data, decodable = case
    fast = decode_grey_png(data)
    assert (fast is not None) == decodable
    if fast is not None:
        assert_identical(fast, cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE))


@pytest.fixture()
def demo_pngs(demo: DemoLayout) -> list[Path]:
    """Some of the demo's ground truth and masks, as OpenCV wrote them."""
    files = sorted(demo.dataset.rglob("gt*.png")) + sorted(demo.root.glob("results*/**/bin*.png"))
    assert len(files) > 100
    return files[:: len(files) // 60]


def test_cdnet_ground_truth_and_opencv_masks_are_decoded_fast_and_exactly(
    demo_pngs: list[Path],
) -> None:
    folder = HIGHWAY / "groundtruth"
    highway = [folder / f"gt{i:06d}.png" for i in range(470, 1701, 31)] if folder.is_dir() else []
    for path in [*highway, *demo_pngs]:
        fast = decode_grey_png(path.read_bytes())
        assert fast is not None, path
        assert_identical(fast, peer(path))
        assert_identical(read_grey(path), fast)


def _evaluated(
    monkeypatch: pytest.MonkeyPatch, video: VideoSpec, results: Path, workers: int
) -> tuple[list[bool], np.ndarray]:
    """Whether each map over chunks ran on threads, and the per-frame counts."""
    maps: list[bool] = []

    def recorded(*args: Any, **options: Any) -> Any:
        maps.append(bool(options.get("threads")))
        return map_chunks(*args, **options)

    monkeypatch.setattr(batch, "map_chunks", recorded)
    sources = {"method": result_sources([video], results)}
    [evaluation] = batch.evaluate_methods([video], sources, workers=workers).results["method"]
    return maps, evaluation.per_frame


def test_frames_the_fast_decoder_reads_are_evaluated_in_one_thread(
    tmp_path: Path, demo: DemoLayout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """They cost mostly Python: threads would take turns at the interpreter's lock and be
    slower than one. Frames OpenCV decodes (here JPEG masks) still run on threads. The
    counts are the same either way."""
    video = discover_videos(demo.dataset)[0]
    pngs = demo.results["mog2"] / video.category / video.name
    maps, counts = _evaluated(monkeypatch, video, pngs, workers=2)
    assert maps == []
    np.testing.assert_array_equal(counts, _evaluated(monkeypatch, video, pngs, workers=1)[1])
    jpegs = tmp_path / "jpeg"
    jpegs.mkdir()
    for png in pngs.glob("bin*.png"):
        cv2.imwrite(str(jpegs / png.with_suffix(".jpg").name), cv2.imread(str(png)))
    maps, counts = _evaluated(monkeypatch, video, jpegs, workers=2)
    assert maps == [True]
    np.testing.assert_array_equal(counts, _evaluated(monkeypatch, video, jpegs, workers=1)[1])


def test_without_zlib_ng_every_png_is_read_by_opencv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "zlib_ng", None)  # importing it fails
    monkeypatch.setattr(png_decode, "_zlib_ng", None)
    assert not png_decode.fast_decoder_available()
    pixels, palette = grey_pixels(PALETTE, 8, np.random.default_rng(11))
    data = png_bytes(pixels, PALETTE, 8, palette=palette)
    assert decode_grey_png(data) is None
    path = tmp_path / "mask.png"
    path.write_bytes(data)
    assert_identical(read_grey(path), peer(path))


def test_zlib_ng_is_imported_at_the_first_decode_not_before() -> None:
    script = (
        "import sys\n"
        "from referee.core.formats import images\n"
        "assert 'zlib_ng' not in sys.modules, 'imported with the reader'\n"
        "from referee.core.formats.png_decode import fast_decoder_available\n"
        "assert fast_decoder_available() and 'zlib_ng' in sys.modules\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env={**os.environ}
    )
    assert done.returncode == 0, done.stderr
