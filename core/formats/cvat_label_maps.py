"""CVAT polygons and masks as CDnet ground-truth label maps (docs/measures.md §1, §10).

Each frame of a CVAT file becomes a label map: ``uint8`` ``(height, width)``
holding ``background`` (0, static, unless given) where no shape lies and, where
a polygon or a mask lies, the level its label has in ``levels`` (a map the user
gives, label → one of 0, 50, 85, 170, 255; every polygon's and mask's label must
be in it). Shapes are painted in increasing ``z_order``, then in file order
(CVAT draws a larger ``z_order`` nearer the camera), so the later one wins where
two overlap; occluded shapes are painted like any other; boxes are not painted.

Which pixels a shape sets. A mask sets the pixels its run lengths set
(:func:`mask_pixels`). A polygon covers every pixel whose centre lies inside it
(even-odd rule) or on its boundary
(:func:`~referee.core.formats.polygons.polygon_region`, the rule of Referee's
polygon tool), coordinates being continuous: pixel ``(x, y)`` covers
``[x, x + 1) × [y, y + 1)``. Against OpenCV: ``cv2.fillPoly`` puts integer
coordinates at pixel centres, so it is given the vertices less half a pixel;
for vertices on pixel centres, what ``fillPoly`` paints is exactly these pixels
and, in addition, those of the closed outline ``cv2.polylines`` draws through
the vertices (8-connected, one pixel wide). An upright rectangle with corners on
pixel centres is painted alike by both; a rectangle with corners ``(2, 3)`` and
``(7, 9)`` covers 5 × 6 pixels here, 6 × 7 with ``fillPoly``.

Frames: a video's every frame (``<meta> <size>``; without it, up to the last
frame a track is on), an image file's every ``<image>``; numbered as the boxes
are (CVAT frame ``n`` is frame ``n + first_frame``). The frame size is
``<original_size>`` (video) or each image's ``width`` and ``height``, else
``size``. A map is painted when asked for, so memory holds one frame at a time.
The readers give ``{video name: maps}``, the content of the registry's
``LABEL_MAPS``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.cvat_video import Appearance, appearances
from referee.core.formats.cvat_xml import IMAGES, VIDEO, CvatDocument, CvatShape, read_cvat
from referee.core.formats.polygons import paint_polygon
from referee.core.limits import MAX_IMAGE_PIXELS
from referee.core.measures.pixel import GT_LEVEL_NAMES, GT_STATIC

#: Shapes a label map is painted with.
PAINTED: tuple[str, ...] = ("polygon", "mask")
#: A frame's size ``(width, height)`` and the shapes painted on it, in painting order.
Painted = tuple[tuple[int, int], list[CvatShape]]


class CvatLabelMaps(Mapping[int, np.ndarray]):
    """Frame → CDnet label map of a CVAT file, each painted when it is asked for (see the
    module docstring); frames in increasing order."""

    def __init__(
        self,
        frames: range | list[int],
        painted: Callable[[int], Painted],
        levels: Mapping[str, int],
        background: int,
    ) -> None:
        self._frames = frames
        self._members = frames if isinstance(frames, range) else frozenset(frames)
        self._painted = painted
        self._levels = dict(levels)
        self._background = background

    def __getitem__(self, frame: int) -> np.ndarray:
        if frame not in self._members:
            raise KeyError(frame)
        (width, height), shapes = self._painted(frame)
        label = np.full((height, width), self._background, dtype=np.uint8)
        for shape in shapes:
            level = self._levels[shape.label]
            if shape.points is not None:
                paint_polygon(label, shape.points, level)
            elif shape.rect is not None:
                left, top, mask_width, mask_height = shape.rect
                region = label[top : top + mask_height, left : left + mask_width]
                region[mask_pixels(shape)] = level
        return label

    def __iter__(self) -> Iterator[int]:
        return iter(self._frames)

    def __len__(self) -> int:
        return len(self._frames)


def mask_pixels(shape: CvatShape) -> np.ndarray:
    """A mask's pixels, ``bool`` ``(height, width)`` over its ``rect``: run lengths
    alternate background and set pixels, row by row, background first."""
    assert shape.runs is not None and shape.rect is not None
    width, height = shape.rect[2], shape.rect[3]
    values = np.arange(len(shape.runs)) % 2 == 1
    return np.repeat(values, shape.runs).reshape(height, width)


def cvat_label_maps(
    document: CvatDocument,
    levels: Mapping[str, int],
    background: int = GT_STATIC,
    first_frame: int = 1,
    size: tuple[int, int] | None = None,
) -> CvatLabelMaps:
    """The label maps of a CVAT document (video or images), see the module docstring.

    Raises
    ------
    InvalidOptionError
        A level or ``background`` that is not a ground-truth level.
    InputFileError
        A polygon or mask whose label is not in ``levels``, a frame without a size (or
        beyond ``MAX_IMAGE_PIXELS``), or a mask reaching outside its frame; naming the
        element.
    """
    for name, level in [*levels.items(), ("background", background)]:
        whole = isinstance(level, int | np.integer) and not isinstance(level, bool)
        if not whole or int(level) not in GT_LEVEL_NAMES:
            names = ", ".join(f"{v} ({n})" for v, n in GT_LEVEL_NAMES.items())
            raise InvalidOptionError(f"{name!r} has level {level!r}; levels are {names}")
    if document.flavour == IMAGES:
        return _image_maps(document, levels, background, first_frame, size)
    frame_size = document.frame_size or size
    if frame_size is None:
        raise InputFileError(
            document.path,
            "<meta> has no <original_size>; give the frames' size (size=(width, height))",
        )
    _check_size(frame_size, document.path, "the frames' size")
    everything = appearances(document)
    found = [a for a in everything if a.track.shapes[0].kind in PAINTED]
    for appearance in found:
        track = appearance.track
        for index in np.unique(appearance.shown).tolist():
            _check_shape(
                document, track.shapes[index], levels, frame_size, f"track {track.track_id}"
            )
    count = document.frame_count
    if count is None:
        count = max((a.first + len(a.boxes) for a in everything), default=0)

    def painted(frame: int) -> Painted:
        return frame_size, _shown(found, frame - first_frame)

    return CvatLabelMaps(range(first_frame, first_frame + count), painted, levels, background)


def _shown(found: list[Appearance], frame: int) -> list[CvatShape]:
    """The shapes CVAT frame ``frame`` shows, by ``z_order`` then file order."""
    layers = []
    for order, appearance in enumerate(found):
        row = frame - appearance.first
        if 0 <= row < len(appearance.boxes):
            shape = appearance.track.shapes[int(appearance.shown[row])]
            layers.append((shape.z_order, order, shape))
    return [shape for *_, shape in sorted(layers, key=lambda layer: layer[:2])]


def _image_maps(
    document: CvatDocument,
    levels: Mapping[str, int],
    background: int,
    first_frame: int,
    size: tuple[int, int] | None,
) -> CvatLabelMaps:
    frames: dict[int, Painted] = {}
    for image in sorted(document.images, key=lambda i: i.image_id):
        where = f'line {image.line}: <image id="{image.image_id}">'
        frame_size = image.size or size
        if frame_size is None:
            raise InputFileError(
                document.path,
                f"{where}: it has no width and height; give the images' size "
                "(size=(width, height))",
            )
        _check_size(frame_size, document.path, where)
        painted = [s for s in image.shapes if s.kind in PAINTED]
        for shape in painted:
            _check_shape(document, shape, levels, frame_size, f"image {image.image_id}")
        order = sorted(range(len(painted)), key=lambda k: (painted[k].z_order, k))
        frames[image.image_id + first_frame] = (frame_size, [painted[k] for k in order])
    return CvatLabelMaps(list(frames), frames.__getitem__, levels, background)


def _check_shape(
    document: CvatDocument,
    shape: CvatShape,
    levels: Mapping[str, int],
    size: tuple[int, int],
    owner: str,
) -> None:
    where = f"line {shape.line}: <{shape.kind}> of {owner}"
    if shape.label not in levels:
        mapped = ", ".join(repr(label) for label in levels) or "none"
        raise InputFileError(
            document.path,
            f"{where}: its label {shape.label!r} is not in the map of labels to levels "
            f"(mapped: {mapped}); add it",
        )
    if shape.rect is not None:
        left, top, width, height = shape.rect
        if left + width > size[0] or top + height > size[1]:
            raise InputFileError(
                document.path,
                f"{where}: the mask ({width}×{height} at {left}, {top}) reaches outside the "
                f"{size[0]}×{size[1]} frame",
            )


def _check_size(size: tuple[int, int], path: Path, what: str) -> None:
    width, height = size
    whole = all(isinstance(v, int) and not isinstance(v, bool) for v in (width, height))
    if not (whole and width >= 1 and height >= 1 and width * height <= MAX_IMAGE_PIXELS):
        raise InputFileError(
            path,
            f"{what}: frames of {width}×{height}; Referee reads frames of 1 to "
            f"{MAX_IMAGE_PIXELS:,} pixels (MAX_IMAGE_PIXELS)",
        )


def read_cvat_video_label_maps(path: str | Path, **options: Any) -> dict[str, CvatLabelMaps]:
    """The label maps of a CVAT for video file, by its video's name; ``options`` are those
    of :func:`cvat_label_maps` (``levels`` is required)."""
    document = read_cvat(path, VIDEO)
    return {document.video_name: cvat_label_maps(document, **options)}


def read_cvat_image_label_maps(path: str | Path, **options: Any) -> dict[str, CvatLabelMaps]:
    """The label maps of a CVAT for images file, by its video's name; ``options`` are those
    of :func:`cvat_label_maps` (``levels`` is required)."""
    document = read_cvat(path, IMAGES)
    return {document.video_name: cvat_label_maps(document, **options)}
