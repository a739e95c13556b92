"""The detector palette: apart from the comparison overlay, legible, one colour per detector."""

from __future__ import annotations

import io
import itertools
import math

import numpy as np
import pytest
from matplotlib.image import imread

from referee.core.colours import (
    DETECTOR_PALETTE,
    OKABE_ITO,
    detector_colour,
    detector_colours,
)
from referee.core.report.plots import counts_figure

#: Colours a detector must never be taken for: the comparison overlay (TP, FP, FN,
#: shadow, not evaluated) and the ground truth, by their Okabe–Ito names.
OVERLAY_NAMES = ("bluish green", "vermillion", "sky blue", "reddish purple", "grey", "yellow")
WHITE, DARK_PLOT = (255, 255, 255), (30, 30, 32)


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _lab(rgb: tuple[int, int, int]) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB colour."""
    r, g, b = (_linear(c) for c in rgb)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _delta_e(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    return math.dist(_lab(a), _lab(b))


def _contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG contrast ratio of two sRGB colours."""

    def luminance(rgb: tuple[int, int, int]) -> float:
        r, g, b = (_linear(c) for c in rgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_lab_formula_gives_known_values() -> None:
    assert _lab((255, 255, 255)) == pytest.approx((100.0, 0.0, 0.0), abs=0.01)
    assert _lab((255, 0, 0)) == pytest.approx((53.24, 80.09, 67.20), abs=0.05)
    assert _lab((0, 0, 255)) == pytest.approx((32.30, 79.19, -107.86), abs=0.05)


def test_there_are_at_least_eight_detector_colours() -> None:
    assert len(set(DETECTOR_PALETTE)) == len(DETECTOR_PALETTE) >= 8


@pytest.mark.parametrize("overlay", OVERLAY_NAMES)
def test_detector_colours_are_far_from_every_overlay_colour(overlay: str) -> None:
    nearest = min(_delta_e(colour, OKABE_ITO[overlay]) for colour in DETECTOR_PALETTE)
    assert nearest >= 20


def test_detector_colours_are_far_from_each_other() -> None:
    pairs = itertools.combinations(DETECTOR_PALETTE, 2)
    assert min(_delta_e(a, b) for a, b in pairs) >= 30


def test_the_first_detectors_get_the_least_ambiguous_colours() -> None:
    """Each colour is the one left farthest from the overlay colours and those before it."""
    overlays = [OKABE_ITO[name] for name in OVERLAY_NAMES]
    palette = list(DETECTOR_PALETTE)
    for k, colour in enumerate(palette):
        taken = overlays + palette[:k]

        def gap(c: tuple[int, int, int], taken: list = taken) -> float:
            return min(_delta_e(c, t) for t in taken)

        assert gap(colour) == max(gap(c) for c in palette[k:]), k


@pytest.mark.parametrize("background", [WHITE, DARK_PLOT])
def test_detector_colours_show_on_light_and_dark_plots(background) -> None:
    assert min(_contrast(colour, background) for colour in DETECTOR_PALETTE) >= 2.5


def test_a_detector_takes_the_colour_of_its_place_in_the_project() -> None:
    project = ["mog2", "knn", "mog", "cnt", "running-average"]
    # The LIRIS curves have only some detectors: cnt keeps the colour it has in ROC space.
    assert detector_colours(["mog2", "knn", "cnt"], project) == {
        "mog2": DETECTOR_PALETTE[0],
        "knn": DETECTOR_PALETTE[1],
        "cnt": DETECTOR_PALETTE[3],
    }


def test_names_outside_the_project_follow_it() -> None:
    assert detector_colours(["x", "cnt", "y", "x"], ["cnt"]) == {
        "x": DETECTOR_PALETTE[1],
        "cnt": DETECTOR_PALETTE[0],
        "y": DETECTOR_PALETTE[2],
    }
    assert detector_colours(["a", "b"]) == {"a": DETECTOR_PALETTE[0], "b": DETECTOR_PALETTE[1]}


def test_colours_cycle_after_the_palette() -> None:
    assert detector_colour(len(DETECTOR_PALETTE) + 2) == DETECTOR_PALETTE[2]


def _pixels_near(png: bytes, rgb: tuple[int, int, int]) -> int:
    image = imread(io.BytesIO(png), format="png")[..., :3] * 255
    return int((np.abs(image - np.array(rgb)).max(axis=-1) <= 2).sum())


def test_report_plots_colour_a_detector_by_its_place_in_the_project() -> None:
    counts = np.array([0, 1, 2, 2, 1, 0, 3, 3])
    png = counts_figure("v", 0, counts, {"cnt": counts + 1}, order=("mog2", "knn", "mog", "cnt"))
    assert _pixels_near(png, DETECTOR_PALETTE[3]) > 50
    assert _pixels_near(png, DETECTOR_PALETTE[0]) == 0
