"""Polygons and pixels (docs/measures.md §10): the rule every polygon read from a file
follows, checked against OpenCV's ``fillPoly``, and the outlines that paint a map back."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.core.formats.polygons import outline_label_map, paint_polygon

LEVELS = np.array([0, 50, 85, 170, 255], np.uint8)


def _ours(shape: tuple[int, int], vertices: np.ndarray) -> np.ndarray:
    label = np.zeros(shape, np.uint8)
    paint_polygon(label, np.asarray(vertices, float), 1)
    return label.astype(bool)


def _fill_poly(shape: tuple[int, int], vertices: np.ndarray) -> np.ndarray:
    """OpenCV's fill of the same polygon: its integer coordinates are pixel centres."""
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(np.asarray(vertices) - 0.5).astype(np.int32)], 1)
    return mask.astype(bool)


def _outline(shape: tuple[int, int], vertices: np.ndarray) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.polylines(mask, [np.round(np.asarray(vertices) - 0.5).astype(np.int32)], True, 1)
    return mask.astype(bool)


def test_a_polygon_covers_the_pixels_whose_centres_it_holds() -> None:
    # Corners (1, 1) and (4, 3): centres x + 0.5 in [1, 4] for x = 1, 2, 3 (x = 0 has 0.5,
    # x = 4 has 4.5); y + 0.5 in [1, 3] for y = 1, 2.
    covered = _ours((5, 6), np.array([[1, 1], [4, 1], [4, 3], [1, 3]]))
    assert np.argwhere(covered).tolist() == [[y, x] for y in (1, 2) for x in (1, 2, 3)]
    # A triangle through the centres of (0, 0), (3, 0) and (0, 3): its hypotenuse passes
    # through the centres of (2, 1) and (1, 2), which are on its boundary.
    triangle = _ours((4, 4), np.array([[0.5, 0.5], [3.5, 0.5], [0.5, 3.5]]))
    assert triangle.astype(int).tolist() == [
        [1, 1, 1, 1],
        [1, 1, 1, 0],
        [1, 1, 0, 0],
        [1, 0, 0, 0],
    ]


@pytest.mark.parametrize(
    "vertices",
    [
        [[1.5, 1.5], [6.5, 1.5], [6.5, 4.5], [1.5, 4.5]],
        [[0.5, 0.5], [7.5, 0.5], [7.5, 2.5], [3.5, 2.5], [3.5, 6.5], [0.5, 6.5]],  # an L
        [[2.5, 0.5], [5.5, 0.5], [5.5, 6.5], [4.5, 6.5], [4.5, 3.5], [2.5, 3.5]],
    ],
)
def test_upright_polygons_on_pixel_centres_paint_what_fill_poly_paints(
    vertices: list[list[float]],
) -> None:
    assert np.array_equal(_ours((8, 9), np.array(vertices)), _fill_poly((8, 9), np.array(vertices)))


def test_random_polygons_on_centres_differ_from_fill_poly_only_on_its_outline() -> None:
    rng = np.random.default_rng(5)
    shape = (40, 50)
    for _ in range(300):
        count = int(rng.integers(3, 9))
        vertices = (
            np.column_stack([rng.integers(0, shape[1], count), rng.integers(0, shape[0], count)])
            + 0.5
        )
        ours, theirs = _ours(shape, vertices), _fill_poly(shape, vertices)
        assert not (ours & ~theirs).any()  # fillPoly paints every pixel the rule paints
        assert not (theirs & ~ours & ~_outline(shape, vertices)).any()  # and, besides, its outline


def _painted(shape: tuple[int, int], shapes: list[tuple[int, np.ndarray]]) -> np.ndarray:
    label = np.zeros(shape, np.uint8)
    for level, vertices in shapes:
        paint_polygon(label, vertices, level)
    return label


def test_an_outline_runs_through_the_boundary_pixels_centres() -> None:
    label = np.zeros((5, 6), np.uint8)
    label[1:3, 1:4] = 255
    ((level, vertices),) = outline_label_map(label)
    assert level == 255
    assert sorted(map(tuple, vertices.tolist())) == [(1.5, 1.5), (1.5, 2.5), (3.5, 1.5), (3.5, 2.5)]


def test_holes_are_outlined_after_what_holds_them() -> None:
    label = np.full((7, 7), 255, np.uint8)
    label[2:5, 2:5] = 0
    label[3, 3] = 50
    shapes = outline_label_map(label)
    assert [level for level, _ in shapes] == [255, 0, 50]
    assert np.array_equal(_painted(label.shape, shapes), label)


@pytest.mark.parametrize("kind", ["noise", "blobs", "blocks"])
def test_outlines_paint_random_maps_back_exactly(kind: str) -> None:
    rng = np.random.default_rng(11)
    for _ in range(40):
        height, width = (int(v) for v in rng.integers(1, 60, 2))
        if kind == "noise":
            label = LEVELS[rng.integers(0, int(rng.integers(2, 6)), (height, width))]
        elif kind == "blobs":
            label = np.zeros((height, width), np.uint8)
            for _ in range(6):
                centre = (int(rng.integers(0, width)), int(rng.integers(0, height)))
                cv2.circle(label, centre, int(rng.integers(1, 15)), int(rng.choice(LEVELS)), -1)
        else:
            small = LEVELS[rng.integers(0, 5, ((height + 3) // 4, (width + 3) // 4))]
            label = cv2.resize(small, (width, height), interpolation=cv2.INTER_NEAREST)
        assert np.array_equal(_painted(label.shape, outline_label_map(label)), label)


def test_noise_whose_outlines_cross_comes_back_through_rows_of_pixels() -> None:
    # Two levels in noise touch at pixels' corners everywhere: on this map, outlining what
    # the polygons miss does not settle in 4 rounds, and 800 pixels are given as rows.
    label = (np.random.default_rng(1).integers(0, 2, (120, 120)) * 255).astype(np.uint8)
    assert np.array_equal(_painted(label.shape, outline_label_map(label)), label)
