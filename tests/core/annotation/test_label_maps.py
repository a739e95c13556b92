"""Painting ground-truth label maps (docs/measures.md §1): brush, polygon, flood fill, undo, drafts.

Expected values come from plain-Python references that visit every pixel, or
from small arrays drawn by hand.
"""

from __future__ import annotations

import math
from functools import reduce
from itertools import pairwise

import numpy as np
import pytest

from referee.core.annotation.label_maps import (
    LEVELS,
    MaskPatch,
    blank_label_map,
    check_level,
    draft_from_mask,
    draft_from_share,
    fill_polygon,
    flood_fill,
    level_counts,
    merge_patches,
    paint_segment,
)
from referee.core.errors import InvalidOptionError

HEIGHT, WIDTH = 30, 40


def random_label(seed: int, shape: tuple[int, int] = (HEIGHT, WIDTH)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.choice(np.array([0, 50, 85, 170, 255], np.uint8), size=shape)


# ---------------------------------------------------------------------------
# Plain-Python references


def distance_to_segment(
    px: float, py: float, a: tuple[float, float], b: tuple[float, float]
) -> float:
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    if dx == 0 and dy == 0:
        return math.hypot(px - ax, py - ay)
    t = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)
    t = min(1.0, max(0.0, t))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def brush_reference(
    label: np.ndarray, a: tuple[float, float], b: tuple[float, float], radius: float, level: int
) -> np.ndarray:
    """The label after the brush: centres within ``radius``, plus the pixels under both ends."""
    out = label.copy()
    for y in range(label.shape[0]):
        for x in range(label.shape[1]):
            near = distance_to_segment(x + 0.5, y + 0.5, a, b) <= radius
            under = any(math.floor(px) == x and math.floor(py) == y for px, py in (a, b))
            if near or under:
                out[y, x] = level
    return out


def capsule_box_reference(
    shape: tuple[int, int], a: tuple[float, float], b: tuple[float, float], radius: float
) -> tuple[int, int, int, int]:
    """The pixels whose centre lies in the capsule's axis-aligned bounding box, as (x0, y0, x1, y1)."""
    left, right = min(a[0], b[0]) - radius, max(a[0], b[0]) + radius
    top, bottom = min(a[1], b[1]) - radius, max(a[1], b[1]) + radius
    xs = [x for x in range(shape[1]) if left <= x + 0.5 <= right]
    ys = [y for y in range(shape[0]) if top <= y + 0.5 <= bottom]
    return xs[0], ys[0], xs[-1] + 1, ys[-1] + 1


def polygon_reference(shape: tuple[int, int], points: list[tuple[float, float]]) -> np.ndarray:
    """Centres inside (even-odd ray casting) or exactly on an edge."""
    inside = np.zeros(shape, bool)
    edges = list(zip(points, points[1:] + points[:1]))
    for y in range(shape[0]):
        for x in range(shape[1]):
            px, py = x + 0.5, y + 0.5
            odd = False
            on_edge = False
            for (ax, ay), (bx, by) in edges:
                cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
                within = min(ax, bx) <= px <= max(ax, bx) and min(ay, by) <= py <= max(ay, by)
                on_edge = on_edge or (cross == 0 and within)
                if (ay > py) != (by > py) and px < ax + (py - ay) * (bx - ax) / (by - ay):
                    odd = not odd
            inside[y, x] = odd or on_edge
    return inside


# ---------------------------------------------------------------------------
# Levels


def test_levels_are_cdnets_five_grey_levels() -> None:
    assert LEVELS == (0, 50, 85, 170, 255)
    assert [check_level(v) for v in (0, 50, 85, 170, 255)] == [0, 50, 85, 170, 255]
    assert check_level(np.uint8(170)) == 170


@pytest.mark.parametrize("level", [1, 49, 86, 254, 256, -1, 50.0, True, "50", None])
def test_other_levels_are_refused(level: object) -> None:
    with pytest.raises(InvalidOptionError, match="not a ground-truth level"):
        check_level(level)  # type: ignore[arg-type]


@pytest.mark.parametrize("level", [1, 128, 256])
def test_every_edit_refuses_an_invalid_level_and_leaves_the_map(level: int) -> None:
    label = random_label(1)
    original = label.copy()
    with pytest.raises(InvalidOptionError):
        paint_segment(label, (5, 5), (9, 9), 2, level)
    with pytest.raises(InvalidOptionError):
        fill_polygon(label, [(1, 1), (9, 1), (9, 9)], level)
    with pytest.raises(InvalidOptionError):
        flood_fill(label, (3, 3), level)
    assert np.array_equal(label, original)


# ---------------------------------------------------------------------------
# Brush and eraser


def random_segments(seed: int) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Segments inside, partly outside and wholly outside the map, and zero-length ones."""
    rng = np.random.default_rng(seed)
    segments = []
    for _ in range(12):
        a = (float(rng.uniform(-8, WIDTH + 8)), float(rng.uniform(-8, HEIGHT + 8)))
        b = (float(rng.uniform(-8, WIDTH + 8)), float(rng.uniform(-8, HEIGHT + 8)))
        segments.append((a, b))
    segments.append(((12.3, 7.9), (12.3, 7.9)))  # a click: a disc
    segments.append(((-3.2, 14.6), (6.1, 20.4)))  # starts left of the map
    segments.append(((WIDTH - 2.5, -4.0), (WIDTH + 6.0, 4.5)))  # crosses the top-right corner
    return segments


@pytest.mark.parametrize("radius", [0.5, 0.8, 2.25, 7.3])
def test_brush_paints_the_capsule_of_centres(radius: float) -> None:
    for k, (a, b) in enumerate(random_segments(int(radius * 100))):
        label = random_label(k)
        expected = brush_reference(label, a, b, radius, 170)
        paint_segment(label, a, b, radius, 170)
        assert np.array_equal(label, expected), (a, b, radius)


def test_the_thinnest_brush_paints_the_pixel_under_the_pointer() -> None:
    for point in [(3.0, 3.0), (3.9, 3.1), (3.95, 3.95), (3.5, 3.5)]:
        label = np.zeros((8, 8), np.uint8)
        patch = paint_segment(label, point, point, 0.5, 255)
        assert patch is not None
        expected = np.zeros((8, 8), np.uint8)
        expected[3, 3] = 255
        assert np.array_equal(label, expected), point


def test_a_disc_paints_the_centres_on_its_circle() -> None:
    label = np.zeros((20, 20), np.uint8)
    patch = paint_segment(label, (10.5, 10.5), (10.5, 10.5), 3, 255)
    assert patch is not None
    assert patch.rect == (7, 7, 14, 14)
    assert label[10, 7] == label[10, 13] == label[7, 10] == label[13, 10] == 255
    assert label[7, 7] == 0  # the corner of the box is about 4.24 away
    assert label.sum() == 255 * 29  # the 29 lattice points within 3 of the centre


def test_the_patch_covers_the_capsules_box_only() -> None:
    for k, (a, b) in enumerate([*random_segments(7)[:-3], ((4.2, 5.1), (20.7, 9.9))]):
        label = random_label(100 + k)
        original = label.copy()
        patch = paint_segment(label, a, b, 4.5, 255)
        if patch is None:
            continue
        x0, y0, x1, y1 = patch.rect
        assert patch.rect == capsule_box_reference(label.shape, a, b, 4.5)
        assert patch.before.shape == patch.after.shape == (y1 - y0, x1 - x0)
        assert np.array_equal(patch.before, original[y0:y1, x0:x1])
        assert np.array_equal(patch.after, label[y0:y1, x0:x1])
        outside = np.ones(label.shape, bool)
        outside[y0:y1, x0:x1] = False
        assert np.array_equal(label[outside], original[outside])
        assert patch.nbytes == 2 * (y1 - y0) * (x1 - x0)


def test_a_clipped_disc_has_a_clipped_rect() -> None:
    label = np.zeros((10, 10), np.uint8)
    patch = paint_segment(label, (0.2, 0.2), (0.2, 0.2), 3, 50)
    assert patch is not None and patch.rect == (0, 0, 3, 3)


def test_nothing_changed_gives_none() -> None:
    label = random_label(3)
    assert paint_segment(label, (5.5, 5.5), (15.5, 8.5), 2.5, 255) is not None
    painted = label.copy()
    assert paint_segment(label, (5.5, 5.5), (15.5, 8.5), 2.5, 255) is None
    assert paint_segment(label, (-20, -20), (-10, -5), 3, 255) is None  # outside the map
    assert paint_segment(label, (WIDTH + 0.1, 5), (WIDTH + 0.1, 25), 0.5, 0) is None
    assert np.array_equal(label, painted)
    blank = np.zeros((5, 5), np.uint8)
    assert paint_segment(blank, (2.5, 2.5), (2.5, 2.5), 1, 0) is None  # eraser on static


@pytest.mark.parametrize("radius", [0.49, 0.0, -1.0, float("nan"), float("inf")])
def test_too_small_or_invalid_radii_are_refused(radius: float) -> None:
    label = np.zeros((5, 5), np.uint8)
    with pytest.raises(InvalidOptionError, match="radius"):
        paint_segment(label, (2, 2), (3, 3), radius, 255)


def test_non_finite_points_and_other_arrays_are_refused() -> None:
    label = np.zeros((5, 5), np.uint8)
    with pytest.raises(InvalidOptionError, match="not a number"):
        paint_segment(label, (float("nan"), 2), (3, 3), 1, 255)
    for other in (np.zeros((5, 5), np.uint16), np.zeros((5, 5, 3), np.uint8)):
        with pytest.raises(InvalidOptionError, match="2-D uint8"):
            paint_segment(other, (2, 2), (3, 3), 1, 255)
    assert not label.any()


# ---------------------------------------------------------------------------
# Undo, redo and strokes


def test_undo_and_redo_restore_exactly() -> None:
    label = random_label(4)
    original = label.copy()
    patch = paint_segment(label, (3.3, 4.4), (25.1, 19.8), 5.2, 255)
    assert patch is not None
    painted = label.copy()
    assert patch.undo(label) == patch.rect
    assert np.array_equal(label, original)
    assert patch.redo(label) == patch.rect
    assert np.array_equal(label, painted)


def stroke(label: np.ndarray, points: list[tuple[float, float]], level: int) -> list[MaskPatch]:
    patches = [paint_segment(label, a, b, 3.0, level) for a, b in pairwise(points)]
    return [p for p in patches if p is not None]


@pytest.mark.parametrize(
    "points",
    [
        [(5.0, 5.0), (9.0, 7.0), (14.0, 6.5), (18.0, 12.0), (15.0, 18.0)],  # overlapping rects
        [(3.0, 3.0), (3.5, 3.5), (34.0, 25.0), (34.5, 25.5)],  # a long jump between corners
    ],
)
def test_a_merged_stroke_undoes_and_redoes_exactly(points: list[tuple[float, float]]) -> None:
    label = random_label(5)
    original = label.copy()
    patches = stroke(label, points, 255)
    patches += stroke(label, points[1:3], 0)  # the eraser goes back over part of it
    final = label.copy()
    for merged in (reduce(MaskPatch.merged, patches), merge_patches(patches)):
        xs = [p.rect[0] for p in patches] + [p.rect[2] for p in patches]
        ys = [p.rect[1] for p in patches] + [p.rect[3] for p in patches]
        assert merged.rect == (min(xs), min(ys), max(xs), max(ys))
        merged.undo(label)
        assert np.array_equal(label, original)
        merged.redo(label)
        assert np.array_equal(label, final)


def test_merging_disjoint_patches_keeps_the_pixels_between_them() -> None:
    label = random_label(6)
    original = label.copy()
    first = paint_segment(label, (3.5, 3.5), (3.5, 3.5), 2, 255)
    second = paint_segment(label, (35.5, 26.5), (35.5, 26.5), 2, 255)
    assert first is not None and second is not None
    merged = first.merged(second)
    assert merged.rect == (first.rect[0], first.rect[1], second.rect[2], second.rect[3])
    label[15, 20] = 50 if label[15, 20] != 50 else 0  # between the two rects, not in the stroke
    between = label[15, 20]
    merged.undo(label)
    assert label[15, 20] == between
    label[15, 20] = original[15, 20]
    assert np.array_equal(label, original)


def test_merging_is_associative_over_untouched_pixels() -> None:
    label = np.zeros((20, 20), np.uint8)
    a = paint_segment(label, (2.5, 2.5), (2.5, 2.5), 1, 255)
    b = paint_segment(label, (16.5, 16.5), (16.5, 16.5), 1, 255)
    c = paint_segment(label, (9.5, 9.5), (9.5, 9.5), 2, 170)  # inside the rect of a + b only
    assert a is not None and b is not None and c is not None
    merged = a.merged(b).merged(c)
    merged.undo(label)
    assert not label.any()


def test_merging_nothing_is_refused() -> None:
    with pytest.raises(InvalidOptionError):
        merge_patches([])


# ---------------------------------------------------------------------------
# Polygons


def test_a_rectangle_fills_the_pixels_whose_centres_it_holds() -> None:
    label = np.zeros((12, 12), np.uint8)
    patch = fill_polygon(label, [(2, 3), (7, 3), (7, 9), (2, 9)], 255)
    expected = np.zeros((12, 12), np.uint8)
    expected[3:9, 2:7] = 255  # 5 columns, 6 rows
    assert np.array_equal(label, expected)
    assert patch is not None and patch.rect == (2, 3, 7, 9)


def test_centres_on_the_boundary_are_filled() -> None:
    label = np.zeros((8, 8), np.uint8)
    fill_polygon(label, [(1.5, 1.5), (4.5, 1.5), (4.5, 4.5), (1.5, 4.5)], 50)
    expected = np.zeros((8, 8), np.uint8)
    expected[1:5, 1:5] = 50  # 4 × 4: every edge runs through centres
    assert np.array_equal(label, expected)
    flat = np.zeros((8, 8), np.uint8)
    fill_polygon(flat, [(1.5, 2.5), (5.5, 2.5), (3.5, 2.5)], 170)  # a polygon with no area
    expected = np.zeros((8, 8), np.uint8)
    expected[2, 1:6] = 170
    assert np.array_equal(flat, expected)


def test_a_concave_polygon_drawn_by_hand() -> None:
    label = np.zeros((6, 6), np.uint8)
    fill_polygon(label, [(0, 0), (4, 0), (4, 2), (2, 2), (2, 5), (0, 5)], 255)
    expected = np.array(
        [
            [1, 1, 1, 1, 0, 0],
            [1, 1, 1, 1, 0, 0],
            [1, 1, 0, 0, 0, 0],
            [1, 1, 0, 0, 0, 0],
            [1, 1, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0],
        ],
        np.uint8,
    )
    assert np.array_equal(label, expected * 255)


def test_random_polygons_match_ray_casting() -> None:
    rng = np.random.default_rng(8)
    for k in range(40):
        points = [
            (float(x), float(y)) for x, y in rng.uniform(-6, 26, (int(rng.integers(3, 9)), 2))
        ]
        if k % 4 == 0:  # vertices on the half-pixel grid: many centres exactly on edges
            points = [(round(x * 2) / 2, round(y * 2) / 2) for x, y in points]
        label = random_label(k, (20, 20))
        expected = label.copy()
        expected[polygon_reference((20, 20), points)] = 85
        fill_polygon(label, points, 85)
        assert np.array_equal(label, expected), points


def test_polygon_patch_and_refusals() -> None:
    label = random_label(9)
    original = label.copy()
    patch = fill_polygon(label, [(-5, -5), (10.2, 0.7), (4.1, 12.9)], 170)
    assert patch is not None and patch.rect == (0, 0, 10, 13)
    patch.undo(label)
    assert np.array_equal(label, original)
    assert fill_polygon(label, [(50, 50), (60, 50), (55, 60)], 170) is None
    with pytest.raises(InvalidOptionError, match="at least 3 points"):
        fill_polygon(label, [(1, 1), (5, 5)], 170)
    with pytest.raises(InvalidOptionError, match="not a number"):
        fill_polygon(label, [(1, 1), (5, float("inf")), (2, 7)], 170)


# ---------------------------------------------------------------------------
# Flood fill


def test_flood_fill_is_4_connected() -> None:
    label = np.array(
        [
            [0, 0, 255, 170],
            [0, 255, 0, 170],
            [255, 0, 0, 50],
        ],
        np.uint8,
    )
    patch = flood_fill(label, (0, 0), 85)
    expected = np.array(
        [
            [85, 85, 255, 170],
            [85, 255, 0, 170],  # (2, 1) touches the region only at a corner
            [255, 0, 0, 50],
        ],
        np.uint8,
    )
    assert np.array_equal(label, expected)
    assert patch is not None and patch.rect == (0, 0, 2, 2)
    patch.undo(label)
    assert label[0, 0] == label[0, 1] == label[1, 0] == 0


def test_flood_fill_follows_a_winding_region() -> None:
    label = np.array(
        [
            [50, 50, 50, 0],
            [0, 0, 50, 0],
            [50, 50, 50, 0],
            [50, 0, 0, 50],
        ],
        np.uint8,
    )
    patch = flood_fill(label, (0, 0), 255)
    expected = np.array(
        [
            [255, 255, 255, 0],
            [0, 0, 255, 0],
            [255, 255, 255, 0],
            [255, 0, 0, 50],
        ],
        np.uint8,
    )
    assert np.array_equal(label, expected)
    assert patch is not None and patch.rect == (0, 0, 3, 4)


def test_flood_fill_without_change_or_outside_the_map() -> None:
    label = np.zeros((3, 3), np.uint8)
    assert flood_fill(label, (1, 1), 0) is None
    for seed in [(3, 0), (0, -1), (1.5, 1)]:
        with pytest.raises(InvalidOptionError, match="seed"):
            flood_fill(label, seed, 255)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Drafts and counts


def test_draft_from_a_mask() -> None:
    mask = np.array([[0, 1, 127], [254, 255, 0]], np.uint8)
    roi = np.array([[True, True, False], [True, False, True]])
    assert np.array_equal(draft_from_mask(mask, None), [[0, 255, 255], [255, 255, 0]])
    draft = draft_from_mask(mask, roi)
    assert draft.dtype == np.uint8
    assert np.array_equal(draft, [[0, 255, 85], [255, 85, 0]])
    grey_roi = np.array([[255, 255, 0], [255, 0, 255]], np.uint8)  # ROI.bmp's grey levels
    assert np.array_equal(draft_from_mask(mask, grey_roi), draft)


def test_draft_from_shares_includes_the_threshold() -> None:
    share = np.array([[0.0, 1 / 3, 0.49], [0.5, 2 / 3, 1.0]])
    assert np.array_equal(draft_from_share(share, 0.5, None), [[0, 0, 0], [255, 255, 255]])
    assert np.array_equal(draft_from_share(share, 2 / 3, None), [[0, 0, 0], [0, 255, 255]])
    assert np.array_equal(draft_from_share(share, 1, None), [[0, 0, 0], [0, 0, 255]])
    roi = np.array([[1, 1, 1], [0, 1, 1]], np.uint8)
    assert np.array_equal(draft_from_share(share, 1 / 3, roi), [[0, 255, 255], [85, 255, 255]])


@pytest.mark.parametrize("threshold", [0, -0.1, 1.01, float("nan"), True])
def test_share_thresholds_outside_0_1_are_refused(threshold: float) -> None:
    with pytest.raises(InvalidOptionError, match=r"\(0, 1\]"):
        draft_from_share(np.zeros((2, 2)), threshold, None)


def test_blank_maps_and_shape_checks() -> None:
    roi = np.array([[True, False], [True, True], [False, True]])
    assert np.array_equal(blank_label_map((3, 2), roi), [[0, 85], [0, 0], [85, 0]])
    assert np.array_equal(blank_label_map((2, 4), None), np.zeros((2, 4)))
    with pytest.raises(InvalidOptionError, match="2x3 but the image is 3x2"):
        blank_label_map((2, 3), roi)
    with pytest.raises(InvalidOptionError, match="region of interest"):
        draft_from_mask(np.zeros((3, 3), np.uint8), roi)
    with pytest.raises(InvalidOptionError, match="2-D"):
        draft_from_share(np.zeros((2, 2, 3)), 0.5, None)


def test_level_counts() -> None:
    label = np.array([[0, 0, 50], [255, 170, 255], [255, 7, 85]], np.uint8)
    assert level_counts(label) == {0: 2, 50: 1, 85: 1, 170: 1, 255: 3}
    assert level_counts(np.zeros((4, 5), np.uint8)) == {0: 20, 50: 0, 85: 0, 170: 0, 255: 0}
