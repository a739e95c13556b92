"""Which pixels a polygon covers, and the polygons that outline a label map (docs/measures.md §10).

Coordinates are continuous, in pixels: pixel ``(x, y)`` (column, row) covers
``[x, x + 1) × [y, y + 1)``, so its centre is ``(x + 0.5, y + 0.5)``, as in
labelme and COCO files. A rect ``(x0, y0, x1, y1)`` is the half-open block of
pixels ``x0 <= x < x1``, ``y0 <= y < y1``.

* :func:`polygon_region`: a polygon covers every pixel whose centre is inside
  it (even-odd rule) or on its boundary. The mask tools' polygon
  (:func:`referee.core.annotation.label_maps.fill_polygon`) and every polygon
  read from a file (labelme, COCO) paint these pixels.
* :func:`outline_label_map`: polygons through the centres of the boundary
  pixels of each region of a label map (OpenCV's ``findContours``), in the
  order that paints the map back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from referee.core.errors import InvalidOptionError

#: The most (row × edge) intersections :func:`polygon_region` computes at once (bounds memory).
_BAND_CELLS = 1 << 20
#: How many times :func:`outline_label_map` outlines what its polygons did not paint back.
_OUTLINE_ROUNDS = 4


def centres_rect(
    bounds: tuple[float, float, float, float], limits: tuple[int, int, int, int]
) -> tuple[int, int, int, int] | None:
    """The pixels of ``limits`` whose centre lies in the closed box ``(left, top, right, bottom)``."""
    left, top, right, bottom = bounds
    x0, y0 = max(limits[0], math.ceil(left - 0.5)), max(limits[1], math.ceil(top - 0.5))
    x1 = min(limits[2], math.floor(right - 0.5) + 1)
    y1 = min(limits[3], math.floor(bottom - 0.5) + 1)
    return (x0, y0, x1, y1) if x0 < x1 and y0 < y1 else None


def pixel_centres(rect: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The pixel centres of ``rect``: x as a row ``(1, w)``, y as a column ``(h, 1)``."""
    x0, y0, x1, y1 = rect
    return np.arange(x0, x1)[None, :] + 0.5, np.arange(y0, y1)[:, None] + 0.5


def mark_pixel_under(
    inside: np.ndarray, rect: tuple[int, int, int, int], point: tuple[float, float]
) -> None:
    """Set the pixel covering ``point`` in ``inside`` (the mask of ``rect``), if in ``rect``."""
    x, y = math.floor(point[0]), math.floor(point[1])
    if rect[0] <= x < rect[2] and rect[1] <= y < rect[3]:
        inside[y - rect[1], x - rect[0]] = True


def rect_slices(
    inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]
) -> tuple[slice, slice]:
    """The slices of ``inner`` in an array covering ``outer``."""
    return (
        slice(inner[1] - outer[1], inner[3] - outer[1]),
        slice(inner[0] - outer[0], inner[2] - outer[0]),
    )


def polygon_vertices(points: Sequence[tuple[float, float]] | np.ndarray) -> np.ndarray:
    """``points`` as a ``float64`` array ``(n, 2)``.

    Raises
    ------
    InvalidOptionError
        If there are fewer than 3 points ``(x, y)`` or a coordinate is not finite.
    """
    vertices = np.asarray(points, dtype=np.float64)
    if vertices.ndim != 2 or vertices.shape[1] != 2 or len(vertices) < 3:
        raise InvalidOptionError(
            f"a polygon needs at least 3 points (x, y), got {len(vertices)} of shape {vertices.shape[1:]}"
        )
    if not np.isfinite(vertices).all():
        raise InvalidOptionError("a polygon point has a coordinate that is not a number")
    return vertices


def polygon_region(
    vertices: np.ndarray, limits: tuple[int, int, int, int]
) -> tuple[tuple[int, int, int, int], np.ndarray] | None:
    """The pixels of ``limits`` a polygon covers: its bounding rect within ``limits`` and a
    ``bool`` mask of that rect; ``None`` when it covers none.

    ``vertices`` are those of :func:`polygon_vertices`. The rule is exact (a rectangle
    with corners ``(2, 3)`` and ``(7, 9)`` covers the 5 × 6 pixels ``2 <= x < 7``,
    ``3 <= y < 9``); OpenCV's ``fillPoly`` rounds the edges to whole pixels and fills
    both ends of every span instead (6 × 7 pixels for that rectangle). Time and memory
    are proportional to the bounding rect plus its rows times the vertices.
    """
    low, high = vertices.min(axis=0), vertices.max(axis=0)
    rect = centres_rect((low[0], low[1], high[0], high[1]), limits)
    if rect is None:
        return None
    x0, y0, x1, y1 = rect
    inside = np.zeros((y1 - y0, x1 - x0), bool)
    band = max(1, _BAND_CELLS // len(vertices))
    for top in range(y0, y1, band):
        bottom = min(y1, top + band)
        inside[top - y0 : bottom - y0] = _spans(vertices, (x0, top, x1, bottom))
    _mark_boundary(inside, vertices, rect)
    return rect, inside


def paint_polygon(label: np.ndarray, vertices: np.ndarray, level: int) -> None:
    """Set the pixels of the 2-D ``label`` that the polygon covers to ``level``, in place."""
    found = polygon_region(vertices, (0, 0, label.shape[1], label.shape[0]))
    if found is not None:
        rect, inside = found
        label[rect[1] : rect[3], rect[0] : rect[2]][inside] = level


def _spans(vertices: np.ndarray, rect: tuple[int, int, int, int]) -> np.ndarray:
    """Whether each pixel centre of ``rect`` is inside the polygon (even-odd) or on a crossing.

    Each row of centres is cut by the edges that cross it (an edge counts when
    exactly one end lies strictly below the row); the crossings, sorted, pair
    into spans, closed at both ends.
    """
    x0, _, x1, _ = rect
    (ax, ay), (bx, by) = vertices.T, np.roll(vertices, -1, axis=0).T
    _, centre_y = pixel_centres(rect)
    crosses = (ay > centre_y) != (by > centre_y)
    rise = by - ay
    slope = np.divide(bx - ax, rise, out=np.zeros_like(rise), where=rise != 0)
    crossings = np.where(crosses, ax + (centre_y - ay) * slope, np.inf)
    crossings.sort(axis=1)
    pairs = len(vertices) // 2
    starts, ends = crossings[:, 0 : 2 * pairs : 2], crossings[:, 1 : 2 * pairs : 2]
    found = np.isfinite(starts)
    first = np.clip(np.ceil(np.where(found, starts, 0.0) - 0.5) - x0, 0, x1 - x0).astype(np.intp)
    stop = np.clip(np.floor(np.where(found, ends, 0.0) - 0.5) + 1 - x0, 0, x1 - x0).astype(np.intp)
    rows = np.broadcast_to(np.arange(len(crossings))[:, None], first.shape)
    keep = found & (first < stop)
    steps = np.zeros((len(crossings), x1 - x0 + 1), np.int32)
    np.add.at(steps, (rows[keep], first[keep]), 1)
    np.add.at(steps, (rows[keep], stop[keep]), -1)
    return np.asarray(np.cumsum(steps[:, :-1], axis=1) > 0)


def _mark_boundary(
    inside: np.ndarray, vertices: np.ndarray, rect: tuple[int, int, int, int]
) -> None:
    """Set the centres on the boundary that no crossing reaches: vertices and horizontal edges."""
    for (ax, ay), (bx, by) in zip(vertices, np.roll(vertices, -1, axis=0)):
        if ay == by and (ay - 0.5).is_integer():
            on_edge = centres_rect((min(ax, bx), ay, max(ax, bx), ay), rect)
            if on_edge is not None:
                inside[rect_slices(on_edge, rect)] = True
        if (ax - 0.5).is_integer() and (ay - 0.5).is_integer():
            mark_pixel_under(inside, rect, (ax, ay))


# --- outlines --------------------------------------------------------------------------------


def outline_label_map(label: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """Polygons that paint ``label`` back: ``(level, vertices)`` in painting order.

    Each 8-connected region of one level other than 0 is outlined by the polygon
    through the centres of its boundary pixels (``cv2.findContours``; its holes are
    inside it), and so is each region of 0 that does not touch the image's border
    (a hole); larger polygons come first, so that what a polygon encloses is painted
    after it. Regions that touch only at a pixel's corner can cross each other's
    outlines: the pixels that painting the polygons in order, by the rule of
    :func:`polygon_region`, over a map of 0 does not give back are outlined again
    and their polygons painted after (up to 4 times), and what is still missed is
    given as rows of pixels (degenerate polygons along their centres). Painting the
    polygons in order therefore gives ``label`` back exactly.

    Returns
    -------
    list of (int, numpy.ndarray)
        The level and the ``(n, 2)`` vertices ``(x, y)`` of each polygon; a region of
        one or two pixels gets its centres repeated to make 3 vertices.
    """
    shapes = _outlines(label, np.ones(label.shape, bool), border_holes=False)
    painted = np.zeros_like(label)
    for level, vertices in shapes:
        paint_polygon(painted, vertices, level)
    for _ in range(_OUTLINE_ROUNDS):
        wrong = painted != label
        if not wrong.any():
            return shapes
        found = _outlines(label, wrong, border_holes=True)
        for level, vertices in found:
            paint_polygon(painted, vertices, level)
        shapes += found
    return shapes + _runs(label, painted != label)


def _outlines(
    label: np.ndarray, where: np.ndarray, border_holes: bool
) -> list[tuple[int, np.ndarray]]:
    """The outlines of the regions of each level within ``where``, larger first.

    Regions of 0 are outlined only when they do not touch the border, unless
    ``border_holes`` (a later round, where a region of 0 may have been painted over).
    """
    found: list[tuple[float, int, np.ndarray]] = []
    for level in np.unique(label[where]).tolist():
        region = (where & (label == level)).astype(np.uint8)
        contours, hierarchy = cv2.findContours(region, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
        for k, contour in enumerate(contours):
            if _depth(hierarchy[0], k) % 2:  # a hole's outline: its pixels are another level
                continue
            points = contour.reshape(-1, 2)
            if level == 0 and not border_holes and _touches_border(points, label.shape):
                continue
            vertices = points.astype(np.float64) + 0.5
            while len(vertices) < 3:
                vertices = np.concatenate([vertices, vertices])[:3]
            found.append((abs(cv2.contourArea(contour)), int(level), vertices))
    found.sort(key=lambda item: -item[0])
    return [(level, vertices) for _, level, vertices in found]


def _depth(hierarchy: np.ndarray, index: int) -> int:
    """How many contours enclose contour ``index`` (OpenCV's ``RETR_TREE`` hierarchy)."""
    depth, parent = 0, int(hierarchy[index][3])
    while parent >= 0:
        depth, parent = depth + 1, int(hierarchy[parent][3])
    return depth


def _touches_border(points: np.ndarray, shape: tuple[int, ...]) -> bool:
    xs, ys = points[:, 0], points[:, 1]
    return bool(
        xs.min() == 0 or ys.min() == 0 or xs.max() == shape[1] - 1 or ys.max() == shape[0] - 1
    )


def _runs(label: np.ndarray, where: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """One degenerate polygon along the centres of each row of pixels of one level in ``where``."""
    shapes: list[tuple[int, np.ndarray]] = []
    for y, x in zip(*np.nonzero(where)):
        if x and where[y, x - 1] and label[y, x - 1] == label[y, x]:
            continue  # not the first pixel of its row
        end = x
        while end + 1 < label.shape[1] and where[y, end + 1] and label[y, end + 1] == label[y, x]:
            end += 1
        ends = [(x + 0.5, y + 0.5), (end + 0.5, y + 0.5), (x + 0.5, y + 0.5)]
        shapes.append((int(label[y, x]), np.array(ends, dtype=np.float64)))
    return shapes
