"""Heatmap PNGs (docs/measures.md §7): colour and 16-bit grey variants."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.heatmap_png import (
    NAN_COLOUR,
    heatmap_colour_image,
    read_heatmap_grey16_png,
    write_heatmap_grey16_png,
    write_heatmap_png,
)

VALUES = np.array([[0.0, 0.25, 0.5], [0.75, 1.0, np.nan]])


def test_colour_variant_maps_the_range_onto_the_colour_map(tmp_path: Path) -> None:
    path = tmp_path / "h.png"
    write_heatmap_png(path, VALUES, colormap="inferno")
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    assert image.shape == (2, 3, 3) and image.dtype == np.uint8
    ramp = cv2.applyColorMap(np.array([[0, 64, 128, 191, 255]], np.uint8), cv2.COLORMAP_INFERNO)
    assert (image[0, 0] == ramp[0, 0]).all() and (image[1, 1] == ramp[0, 4]).all()
    assert (image[0, 2] == ramp[0, 2]).all()
    assert tuple(image[1, 2]) == NAN_COLOUR


def test_colour_variant_clips_and_honours_the_range() -> None:
    wide = heatmap_colour_image(np.array([[-5.0, 2.0, 5.0]]), vmin=0.0, vmax=4.0)
    ends = cv2.applyColorMap(np.array([[0, 128, 255]], np.uint8), cv2.COLORMAP_VIRIDIS)
    assert (wide == ends).all()


def test_grey16_variant_round_trips_the_values(tmp_path: Path) -> None:
    path = tmp_path / "h16.png"
    values = np.random.default_rng(0).random((5, 7))
    values[2, 3] = np.nan
    write_heatmap_grey16_png(path, values)
    raw = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    assert raw.dtype == np.uint16 and raw.shape == (5, 7)
    assert raw[2, 3] == 0
    back = read_heatmap_grey16_png(path)
    finite = ~np.isnan(values)
    assert np.abs(back[finite] - values[finite]).max() <= 1 / 131070 + 1e-12
    assert read_heatmap_grey16_png(path, vmin=10, vmax=20)[0, 0] == pytest.approx(
        10 + 10 * values[0, 0], abs=1e-4
    )


@pytest.mark.parametrize(
    "values, options, message",
    [
        (np.zeros((2, 2, 2)), {}, "2-D"),
        (np.zeros((2, 2)), {"vmin": 1.0, "vmax": 1.0}, "vmin < vmax"),
        (np.zeros((2, 2)), {"colormap": "rainbowish"}, "unknown colour map"),
    ],
)
def test_bad_heatmaps_are_refused(values, options, message) -> None:
    with pytest.raises(InvalidOptionError, match=message):
        heatmap_colour_image(values, **options)


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="cannot write"):
        write_heatmap_png(tmp_path / "missing" / "h.png", VALUES)
    eight_bit = tmp_path / "eight.png"
    cv2.imwrite(str(eight_bit), np.zeros((2, 2), np.uint8))
    with pytest.raises(InputFileError, match="16-bit"):
        read_heatmap_grey16_png(eight_bit)
    with pytest.raises(InputFileError, match="cannot read"):
        read_heatmap_grey16_png(tmp_path / "none.png")
    assert not list(tmp_path.glob(".*tmp"))
