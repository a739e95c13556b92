"""Painting CDnet ground-truth label maps (docs/measures.md §1).

A label map is a ``uint8`` image of shape ``(h, w)`` whose pixels hold the five
ground-truth levels :data:`LEVELS`. Coordinates are continuous, in pixels:
pixel ``(x, y)`` (column, row) covers ``[x, x + 1) × [y, y + 1)``, so its
centre is ``(x + 0.5, y + 0.5)``. A :data:`Rect` ``(x0, y0, x1, y1)`` is the
half-open block of pixels ``x0 <= x < x1``, ``y0 <= y < y1``, inside the image.

Every edit changes the label map in place, reads and writes only the bounding
rect of what it paints (a stroke segment costs the same on any image size),
and returns a :class:`MaskPatch` holding that rect before and after, for undo;
``None`` when no pixel changed. Which pixels an edit paints:

* :func:`paint_segment` (brush, eraser): pixels whose centre lies within
  ``radius`` of the segment (a capsule; a disc when both ends are the same),
  and the pixels under both ends, so that the thinnest brush (radius 0.5)
  always paints the pixel under the pointer.
* :func:`fill_polygon`: pixels whose centre lies inside the polygon (even-odd
  rule) or on its boundary.
* :func:`flood_fill`: the 4-connected region of pixels equal to the seed.

Up to floating-point rounding, a centre exactly at the distance ``radius``, or
exactly on a polygon's edge, is painted.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

import cv2
import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.formats.polygons import (
    centres_rect,
    mark_pixel_under,
    pixel_centres,
    polygon_region,
    polygon_vertices,
    rect_slices,
)
from referee.core.measures.pixel import (
    GT_LEVEL_NAMES,
    GT_MOTION,
    GT_OUTSIDE,
    GT_SHADOW,
    GT_STATIC,
    GT_UNKNOWN,
)

LEVELS: tuple[int, ...] = (GT_STATIC, GT_SHADOW, GT_OUTSIDE, GT_UNKNOWN, GT_MOTION)
"""The five ground-truth levels, darkest first (docs/measures.md §1)."""

MIN_RADIUS = 0.5
"""The smallest brush radius, in pixels."""

Rect: TypeAlias = tuple[int, int, int, int]
"""A block of pixels ``(x0, y0, x1, y1)``, half-open, inside the image."""

Point: TypeAlias = tuple[float, float]
"""A position ``(x, y)`` in continuous image coordinates, in pixels."""


def check_level(level: int) -> int:
    """The ground-truth level ``level`` as an ``int`` (docs/measures.md §1).

    Raises
    ------
    InvalidOptionError
        If ``level`` is not a whole number among :data:`LEVELS`.
    """
    is_whole = isinstance(level, int | np.integer) and not isinstance(level, bool | np.bool_)
    if not is_whole or int(level) not in LEVELS:
        names = ", ".join(f"{value} ({name})" for value, name in GT_LEVEL_NAMES.items())
        raise InvalidOptionError(
            f"{level!r} is not a ground-truth level; use one of {names} (docs/measures.md §1)"
        )
    return int(level)


# ---------------------------------------------------------------------------
# Patches: what an edit changed, for undo


@dataclass(frozen=True, eq=False)
class MaskPatch:
    """The pixels of ``rect`` before and after an edit (``uint8``, shape ``(y1 - y0, x1 - x0)``).

    Where ``before`` and ``after`` differ they hold the true levels; where they
    agree the edit left the pixel as it was (in a merged patch such a pixel
    may hold a placeholder in both). :meth:`undo` and :meth:`redo` therefore
    write only the pixels that differ.
    """

    rect: Rect
    before: np.ndarray
    after: np.ndarray

    def undo(self, label: np.ndarray) -> Rect:
        """Put back the pixels the edit changed, in place; the rect to repaint."""
        return self._write(label, self.before)

    def redo(self, label: np.ndarray) -> Rect:
        """Make the edit again, in place; the rect to repaint."""
        return self._write(label, self.after)

    def merged(self, other: MaskPatch) -> MaskPatch:
        """One patch for this edit followed by ``other`` (see :func:`merge_patches`)."""
        return merge_patches((self, other))

    @property
    def nbytes(self) -> int:
        """Memory held by the patch's two images, in bytes."""
        return self.before.nbytes + self.after.nbytes

    def _write(self, label: np.ndarray, levels: np.ndarray) -> Rect:
        np.copyto(_region(label, self.rect), levels, where=self.before != self.after)
        return self.rect


def merge_patches(patches: Sequence[MaskPatch]) -> MaskPatch:
    """One patch for edits made one after the other, e.g. the segments of a stroke.

    Its rect is the smallest one holding every patch's rect; its ``before`` is
    the state before the first edit and its ``after`` the state after the
    last. Time and memory are proportional to that rect plus the patches: merge
    a stroke's segments once when it ends rather than after every segment.

    Raises
    ------
    InvalidOptionError
        If ``patches`` is empty.
    """
    if not patches:
        raise InvalidOptionError("no edit to merge: give at least one patch")
    rect = _union(patch.rect for patch in patches)
    shape = (rect[3] - rect[1], rect[2] - rect[0])
    before, after = np.zeros(shape, np.uint8), np.zeros(shape, np.uint8)
    changed = np.zeros(shape, bool)
    for patch in patches:
        window = rect_slices(patch.rect, rect)
        differs = patch.before != patch.after
        np.copyto(before[window], patch.before, where=differs & ~changed[window])
        np.copyto(after[window], patch.after, where=differs)
        changed[window] |= differs
    return MaskPatch(rect, before, after)


# ---------------------------------------------------------------------------
# Edits


def paint_segment(
    label: np.ndarray, start: Point, end: Point, radius: float, level: int
) -> MaskPatch | None:
    """Paint a brush segment: every pixel whose centre is within ``radius`` of ``start``–``end``.

    The pixels under ``start`` and ``end`` are painted too (see the module
    docstring). The eraser is this with ``level`` = ``GT_STATIC``.

    Parameters
    ----------
    label
        The label map, ``uint8`` ``(h, w)``, changed in place.
    start, end
        The segment's ends ``(x, y)``, in pixels; equal for a disc. They may lie outside the image.
    radius
        The brush radius, in pixels, at least :data:`MIN_RADIUS`.
    level
        The level painted, one of :data:`LEVELS` (docs/measures.md §1).

    Returns
    -------
    The patch of the capsule's bounding rect (clipped to the image), or
    ``None`` if no pixel changed.

    Raises
    ------
    InvalidOptionError
        If ``label``, ``level``, ``radius`` or a coordinate is invalid.
    """
    level = check_level(level)
    check_label(label)
    radius = _check_radius(radius)
    (sx, sy), (ex, ey) = _finite_point(start), _finite_point(end)
    rect = centres_rect(
        (min(sx, ex) - radius, min(sy, ey) - radius, max(sx, ex) + radius, max(sy, ey) + radius),
        _image_rect(label),
    )
    if rect is None:
        return None
    inside = _capsule(rect, (sx, sy), (ex, ey), radius)
    mark_pixel_under(inside, rect, (sx, sy))
    mark_pixel_under(inside, rect, (ex, ey))
    return _paint(label, rect, inside, level)


def fill_polygon(label: np.ndarray, points: Sequence[Point], level: int) -> MaskPatch | None:
    """Fill a polygon: every pixel whose centre is inside it (even-odd rule) or on its boundary.

    The rule is :func:`~referee.core.formats.polygons.polygon_region`'s, which
    polygons read from files follow too: exact (a rectangle with corners ``(2, 3)``
    and ``(7, 9)`` fills the 5 × 6 pixels ``2 <= x < 7``, ``3 <= y < 9``), in time
    and memory proportional to the polygon's bounding rect plus its rows times its
    vertices (about 12 ms for most of a 1920×1080 map).

    Parameters
    ----------
    label
        The label map, ``uint8`` ``(h, w)``, changed in place.
    points
        At least 3 vertices ``(x, y)``, in pixels, in order; they may lie outside the image.
    level
        The level painted, one of :data:`LEVELS` (docs/measures.md §1).

    Returns
    -------
    The patch of the polygon's bounding rect (clipped to the image), or
    ``None`` if no pixel changed.

    Raises
    ------
    InvalidOptionError
        If ``label`` or ``level`` is invalid, there are fewer than 3 points, or
        a coordinate is not finite.
    """
    level = check_level(level)
    check_label(label)
    found = polygon_region(polygon_vertices(points), _image_rect(label))
    if found is None:
        return None
    return _paint(label, *found, level)


def flood_fill(label: np.ndarray, seed: tuple[int, int], level: int) -> MaskPatch | None:
    """Paint the 4-connected region of pixels whose level equals the seed's.

    A pixel touching the region only at a corner is not part of it. The fill
    allocates one ``(h + 2, w + 2)`` mask (OpenCV's ``floodFill``); the patch
    covers the region's bounding rect.

    Parameters
    ----------
    label
        The label map, ``uint8`` ``(h, w)``, changed in place.
    seed
        The pixel ``(x, y)`` (column, row) the region starts from.
    level
        The level painted, one of :data:`LEVELS` (docs/measures.md §1).

    Returns
    -------
    The patch of the region's bounding rect, or ``None`` if the seed already has ``level``.

    Raises
    ------
    InvalidOptionError
        If ``label`` or ``level`` is invalid or ``seed`` is not a pixel of the image.
    """
    level = check_level(level)
    check_label(label)
    x, y = _pixel(seed, label.shape)
    if label[y, x] == level:
        return None
    height, width = label.shape
    region = np.zeros((height + 2, width + 2), np.uint8)
    flags = 4 | cv2.FLOODFILL_MASK_ONLY | (1 << 8)
    _, _, _, (left, top, w, h) = cv2.floodFill(label, region, (x, y), 0, 0, 0, flags)
    rect = (left, top, left + w, top + h)
    inside = region[top + 1 : top + 1 + h, left + 1 : left + 1 + w].astype(bool)
    return _paint(label, rect, inside, level)


# ---------------------------------------------------------------------------
# Drafts and counts


def blank_label_map(shape: tuple[int, int], roi: np.ndarray | None) -> np.ndarray:
    """A label map of ``shape`` ``(h, w)``: static, and outside the ROI where ``roi`` is 0.

    Raises
    ------
    InvalidOptionError
        If ``shape`` is not two sizes ≥ 0, or ``roi`` has another shape.
    """
    if len(shape) != 2 or min(shape) < 0:
        raise InvalidOptionError(f"a label map's shape is (height, width), not {shape!r}")
    return _outside_roi(np.zeros(shape, np.uint8), roi)


def draft_from_mask(mask: np.ndarray, roi: np.ndarray | None) -> np.ndarray:
    """A label map drafted from a detector's mask (docs/measures.md §1).

    Pixels above 0 become motion (255), the others static (0); wherever
    ``roi`` is 0 (or ``False``) the level is outside the ROI (85).

    Raises
    ------
    InvalidOptionError
        If ``mask`` is not 2-D or ``roi`` has another shape.
    """
    motion = _plane(mask, "detector mask") > 0
    return _outside_roi(_motion_map(motion), roi)


def draft_from_share(share: np.ndarray, threshold: float, roi: np.ndarray | None) -> np.ndarray:
    """A label map drafted from the share of detectors firing on each pixel (docs/measures.md §1, §7).

    Parameters
    ----------
    share
        Fraction of detectors that detect each pixel, in [0, 1]; NaN counts as no detection.
    threshold
        A pixel is motion (255) iff its share is ``>= threshold``, in (0, 1]; else static (0).
    roi
        Outside the ROI (85) wherever it is 0 (or ``False``); ``None`` for no ROI.

    Raises
    ------
    InvalidOptionError
        If ``threshold`` is outside (0, 1], ``share`` is not 2-D or ``roi`` has another shape.
    """
    is_real = isinstance(threshold, float | int | np.floating | np.integer)
    if not is_real or isinstance(threshold, bool) or not 0 < threshold <= 1:
        raise InvalidOptionError(
            f"the share threshold must be a number in (0, 1], not {threshold!r}"
        )
    motion = _plane(share, "detector share") >= threshold
    return _outside_roi(_motion_map(motion), roi)


def level_counts(label: np.ndarray) -> dict[int, int]:
    """Number of pixels at each of :data:`LEVELS` (other values are not counted).

    Raises
    ------
    InvalidOptionError
        If ``label`` is not a 2-D ``uint8`` array.
    """
    check_label(label)
    counts = np.bincount(label.ravel(), minlength=256)
    return {level: int(counts[level]) for level in LEVELS}


# ---------------------------------------------------------------------------
# Helpers


def check_label(label: np.ndarray) -> None:
    """Refuse what is not a 2-D ``uint8`` label map, in one sentence."""
    if not isinstance(label, np.ndarray) or label.ndim != 2 or label.dtype != np.uint8:
        found = (
            f"shape {label.shape}, {label.dtype}"
            if isinstance(label, np.ndarray)
            else type(label).__name__
        )
        raise InvalidOptionError(f"a label map is a 2-D uint8 array, not {found}")


def _check_radius(radius: float) -> float:
    value = float(radius)
    if not math.isfinite(value) or value < MIN_RADIUS:
        raise InvalidOptionError(
            f"the brush radius is {radius!r} pixels; it must be at least {MIN_RADIUS}"
        )
    return value


def _finite_point(point: Point) -> Point:
    x, y = (float(value) for value in point)
    if not (math.isfinite(x) and math.isfinite(y)):
        raise InvalidOptionError(f"the point {point!r} has a coordinate that is not a number")
    return x, y


def _pixel(seed: tuple[int, int], shape: tuple[int, ...]) -> tuple[int, int]:
    """The pixel ``seed`` as Python ints, checked to be inside an image of ``shape``."""
    whole = all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in seed)
    if len(seed) != 2 or not whole or not (0 <= seed[0] < shape[1] and 0 <= seed[1] < shape[0]):
        raise InvalidOptionError(
            f"the seed {seed!r} is not a pixel (x, y) of this {shape[1]}x{shape[0]} image"
        )
    return int(seed[0]), int(seed[1])


def _image_rect(label: np.ndarray) -> Rect:
    """The whole of ``label`` as a rect."""
    return 0, 0, label.shape[1], label.shape[0]


def _capsule(rect: Rect, start: Point, end: Point, radius: float) -> np.ndarray:
    """Whether each pixel centre of ``rect`` is within ``radius`` of the segment."""
    centre_x, centre_y = pixel_centres(rect)
    x, y = centre_x - start[0], centre_y - start[1]
    dx, dy = end[0] - start[0], end[1] - start[1]
    length2 = dx * dx + dy * dy
    along = 0.0 if length2 == 0 else np.clip((x * dx + y * dy) / length2, 0.0, 1.0)
    distance2 = (x - along * dx) ** 2 + (y - along * dy) ** 2
    return np.asarray(distance2 <= radius * radius)


def _paint(label: np.ndarray, rect: Rect, inside: np.ndarray, level: int) -> MaskPatch | None:
    """Set the pixels of ``rect`` where ``inside`` to ``level``; their patch, or ``None``."""
    region = _region(label, rect)
    if not (inside & (region != level)).any():
        return None
    before = region.copy()
    np.copyto(region, np.uint8(level), where=inside)
    return MaskPatch(rect, before, region.copy())


def _region(label: np.ndarray, rect: Rect) -> np.ndarray:
    x0, y0, x1, y1 = rect
    return label[y0:y1, x0:x1]


def _union(rects: Iterable[Rect]) -> Rect:
    x0s, y0s, x1s, y1s = zip(*rects)
    return min(x0s), min(y0s), max(x1s), max(y1s)


def _plane(values: np.ndarray, what: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 2:
        raise InvalidOptionError(f"a {what} is a 2-D image, not an array of shape {array.shape}")
    return array


def _motion_map(motion: np.ndarray) -> np.ndarray:
    return np.where(motion, np.uint8(GT_MOTION), np.uint8(GT_STATIC))


def _outside_roi(label: np.ndarray, roi: np.ndarray | None) -> np.ndarray:
    """``label`` with ``GT_OUTSIDE`` wherever ``roi`` is 0, in place."""
    if roi is None:
        return label
    region = np.asarray(roi)
    if region.shape != label.shape:
        raise InvalidOptionError(
            f"the region of interest is {_size(region.shape)} but the image is "
            f"{_size(label.shape)}; both must have the same width and height"
        )
    label[region == 0] = GT_OUTSIDE
    return label


def _size(shape: tuple[int, ...]) -> str:
    return f"{shape[1]}x{shape[0]}" if len(shape) == 2 else f"an array of shape {shape}"
