"""labelme JSON, one file per frame: per-frame boxes and label maps (docs/measures.md §10).

A folder is one video (a single file, a video of one frame). It holds one
``<frame>.json`` per frame (labelme names it after the image, ``in000123.json``;
the frame number from the name, :mod:`~referee.core.formats.frame_files`):
``{"version", "flags", "shapes": [{"label", "points": [[x, y], …], "group_id",
"shape_type", "flags"}, …], "imagePath", "imageData", "imageHeight",
"imageWidth"}``, points in pixels, pixel ``(x, y)`` covering ``[x, x + 1) × [y, y + 1)``.

Reading. ``polygon`` (3 points or more) and ``rectangle`` (two opposite
corners) shapes are read; a shape without ``shape_type`` is a polygon, as
labelme reads old files; other shapes (circle, line, point, linestrip, points,
mask) are left out, with a warning.

* Boxes: a rectangle's box and a polygon's bounding box (the smallest box
  holding its points). With ``classes`` (label → class id) a box's label is its
  label's id, and a label ``classes`` lacks is refused; without, boxes have no
  labels. ``group_id`` is the identity when every shape of the video has one.
* Label maps: ``imageHeight × imageWidth`` pixels, 0 where no shape lies, the
  shapes painted in file order over the pixels
  :func:`~referee.core.formats.polygons.polygon_region` gives (a rectangle as its
  four corners); a shape takes the level its label has in ``levels`` (by
  default :data:`~referee.core.formats.frame_files.LEVEL_LABELS`); a label
  without one is refused.

Writing (one video to a folder: ``<frame:06d>.json`` per frame, ``imagePath``
``<frame:06d>.jpg``, no image data):

* Boxes become rectangles ``[[x, y], [x + w, y + h]]`` labelled ``names[label]``
  (else the label as text; ``object`` for boxes without labels), ``group_id``
  the identity; scores are not kept. ``image_size`` gives the image's size.
* Label maps become the polygons of
  :func:`~referee.core.formats.polygons.outline_label_map`, labelled by level
  (``names`` over ``LEVEL_LABELS``; holes are ``static``), in painting order:
  reading them back gives the same pixels.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from referee.core.errors import InputFileError, RefereeWarning
from referee.core.formats.frame_files import (
    LabelMapDrawing,
    LabelMapFrames,
    Region,
    check_frame,
    check_image_size,
    frame_files,
    frame_name_error,
    frame_of_name,
    frame_stem,
    label_levels,
    label_map_frames,
    level_labels,
    one_video,
    write_files,
)
from referee.core.formats.json_files import Node, format_json, read_json
from referee.core.formats.polygons import outline_label_map
from referee.core.limits import MAX_BOXES_PER_FRAME, MAX_COORDINATE, MAX_IMAGE_PIXELS
from referee.core.measures.boxes import FrameBoxes, VideoBoxes
from referee.core.model.tracks import MAX_ID

#: The labelme version the files Referee writes follow.
LABELME_VERSION = "5.0.1"
#: The shapes Referee reads.
SHAPE_TYPES: tuple[str, ...] = ("polygon", "rectangle")


@dataclass(frozen=True)
class _Shape:
    """A polygon or a rectangle's four corners, its label and group id, and where it is."""

    label: str
    vertices: np.ndarray
    group: int | None
    node: Node


@dataclass(frozen=True)
class _Frame:
    """The shapes read from one file, and its image's ``(height, width)``."""

    size: tuple[int, int]
    shapes: tuple[_Shape, ...]


def read_labelme_boxes(
    path: str | Path,
    classes: Mapping[str, int] | None = None,
    video: str | None = None,
    min_conf: float | None = None,
) -> list[VideoBoxes]:
    """The per-frame boxes of a labelme folder (or file), as one video.

    ``min_conf`` is accepted as every box reader's and has no effect: labelme has no
    scores. The video is named ``video``, or after the folder.

    Raises
    ------
    InputFileError
        Naming the file and the key: not JSON, a missing key or one of the wrong type,
        a polygon of fewer than 3 points, a rectangle of other than 2, a label not in
        ``classes``, a name without a frame number.
    """
    name, frames = _read(Path(path), video)
    tracked = all(s.group is not None for frame in frames.values() for s in frame.shapes)
    boxes = {}
    for number, frame in frames.items():
        corners = [(s.vertices.min(axis=0), s.vertices.max(axis=0)) for s in frame.shapes]
        boxes[number] = FrameBoxes(
            np.array([[*low, *(high - low)] for low, high in corners]).reshape(-1, 4),
            None if classes is None else np.array([_class(s, classes) for s in frame.shapes]),
            np.array([s.group for s in frame.shapes]) if tracked else None,
        )
    return [VideoBoxes(name, boxes)]


def read_labelme_label_maps(
    path: str | Path, levels: Mapping[str, int] | None = None, video: str | None = None
) -> dict[str, LabelMapFrames]:
    """The label maps of a labelme folder (or file), as one video; each frame's map is drawn
    when it is looked up (see the module's docstring).

    Raises
    ------
    InputFileError
        As :func:`read_labelme_boxes`, and for a label without a level or a file without
        ``imageHeight`` and ``imageWidth``.
    InvalidOptionError
        If ``levels`` gives a value that is not a CDnet level.
    """
    chosen = label_levels(levels)
    name, frames = _read(Path(path), video)
    return {name: LabelMapFrames({n: _drawing(frame, chosen) for n, frame in frames.items()})}


def write_labelme_boxes(
    videos: Sequence[VideoBoxes],
    path: str | Path,
    force: bool = False,
    image_size: tuple[int, int] | None = None,
    names: Mapping[int, str] | None = None,
) -> None:
    """Write one video's boxes as a folder of labelme files of rectangles.

    Parameters
    ----------
    image_size
        ``(width, height)`` of the frames (required: labelme files give it).
    names
        Class id (a box's label) → label.

    Raises
    ------
    InvalidOptionError
        If there is not exactly one video or ``image_size`` is missing.
    InputFileError
        If a file exists (without ``force``) or cannot be written.
    """
    one_video(len(videos), "labelme")
    size = check_image_size(image_size, "labelme files give the image's size")
    given = names or {}
    files = {}
    for frame, boxes in sorted(videos[0].frames.items()):
        shapes = []
        for k, (x, y, w, h) in enumerate(boxes.boxes.tolist()):
            label = "object" if boxes.labels is None else int(boxes.labels[k])
            group = None if boxes.ids is None else int(boxes.ids[k])
            text = given.get(label, str(label)) if isinstance(label, int) else label
            shapes.append(_shape(text, [[x, y], [x + w, y + h]], "rectangle", group))
        files[_file(path, check_frame(frame, videos[0].name))] = _document(shapes, frame, size)
    write_files(files, force)


def write_labelme_label_maps(
    maps: Mapping[str, Mapping[int, np.ndarray]],
    path: str | Path,
    force: bool = False,
    names: Mapping[int, str] | None = None,
) -> None:
    """Write one video's label maps as a folder of labelme files of polygons.

    Parameters
    ----------
    names
        Level → label, over :data:`~referee.core.formats.frame_files.LEVEL_LABELS`.

    Raises
    ------
    InvalidOptionError
        If there is not exactly one video or a map is not a CDnet label map.
    InputFileError
        If a file exists (without ``force``) or cannot be written.
    """
    one_video(len(maps), "labelme")
    labels = level_labels(names)
    files = {}
    for _, frame, label in label_map_frames(maps):
        shapes = [
            _shape(labels[level], vertices.tolist(), "polygon", None)
            for level, vertices in outline_label_map(label)
        ]
        files[_file(path, frame)] = _document(shapes, frame, label.shape[::-1])
    write_files(files, force)


# --- reading ---------------------------------------------------------------------------------


def _read(path: Path, video: str | None) -> tuple[str, dict[int, _Frame]]:
    """The video's name and its frames' shapes, from a folder or one file."""
    if path.is_dir():
        files = frame_files(path, ".json")
        if not files:
            raise InputFileError(path, "holds no labelme file (<frame>.json, e.g. 000001.json)")
        name = video or path.name
    else:
        frame = frame_of_name(path.name)
        if frame is None:
            raise frame_name_error(path, path.name)
        files, name = [(frame, path)], video or path.parent.name
    skipped: list[Node] = []
    frames = {frame: _read_file(file, skipped) for frame, file in files}
    if skipped:
        warnings.warn(
            f"{skipped[0].file}: {skipped[0].where}: {len(skipped)} shape(s) other than polygons "
            "and rectangles left out (circles, lines, points, masks)",
            RefereeWarning,
            stacklevel=3,
        )
    return name, frames


def _read_file(file: Path, skipped: list[Node]) -> _Frame:
    root = Node(read_json(file), file)
    height = root.key("imageHeight").whole(1, MAX_IMAGE_PIXELS)
    width = root.key("imageWidth").whole(1, MAX_IMAGE_PIXELS)
    if height * width > MAX_IMAGE_PIXELS:
        raise root.fail(f"the image is {width}x{height} pixels, more than MAX_IMAGE_PIXELS")
    shapes = []
    for node in root.key("shapes").items():
        kind_node = node.optional("shape_type")
        kind = "polygon" if kind_node is None else kind_node.text()
        if kind not in SHAPE_TYPES:
            skipped.append(node)
            continue
        points = node.key("points")
        vertices = np.array([p.numbers(MAX_COORDINATE, 2) for p in points.items()]).reshape(-1, 2)
        if (len(vertices) < 3) if kind == "polygon" else (len(vertices) != 2):
            needed = "at least 3 points" if kind == "polygon" else "2 points, opposite corners"
            raise points.fail(f"holds {len(vertices)} points; a {kind} has {needed}")
        if kind == "rectangle":
            (x0, y0), (x1, y1) = vertices.min(axis=0), vertices.max(axis=0)
            vertices = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        group = node.optional("group_id")
        shapes.append(
            _Shape(
                node.key("label").text(),
                vertices,
                None if group is None else group.whole(-MAX_ID, MAX_ID),
                node,
            )
        )
    if len(shapes) > MAX_BOXES_PER_FRAME:
        raise root.fail(f"holds more than {MAX_BOXES_PER_FRAME:,} shapes (MAX_BOXES_PER_FRAME)")
    return _Frame((height, width), tuple(shapes))


def _class(shape: _Shape, classes: Mapping[str, int]) -> int:
    if shape.label not in classes:
        known = ", ".join(map(repr, list(classes)[:10])) or "none"
        raise shape.node.key("label").fail(
            f"{shape.label[:40]!r} is not one of the classes given ({known})"
        )
    return classes[shape.label]


def _drawing(frame: _Frame, levels: Mapping[str, int]) -> LabelMapDrawing:
    """How to draw ``frame``'s label map, every label checked to have a level."""
    regions = []
    for shape in frame.shapes:
        if shape.label not in levels:
            raise shape.node.key("label").fail(
                f"{shape.label[:40]!r} has no CDnet level; give one for it "
                f"(levels: {shape.label[:40]!r}: 255)"
            )
        regions.append(Region(levels[shape.label], polygons=(shape.vertices,)))
    return LabelMapDrawing(frame.size, tuple(regions))


# --- writing ---------------------------------------------------------------------------------


def _file(folder: str | Path, frame: int) -> Path:
    return Path(folder) / f"{frame_stem(frame)}.json"


def _shape(label: str, points: list[list[float]], kind: str, group: int | None) -> dict[str, Any]:
    return {
        "label": label,
        "points": points,
        "group_id": group,
        "description": "",
        "shape_type": kind,
        "flags": {},
    }


def _document(shapes: list[dict[str, Any]], frame: int, size: tuple[int, int]) -> bytes:
    """A labelme file of ``shapes`` on an image of ``size`` ``(width, height)``."""
    return format_json(
        {
            "version": LABELME_VERSION,
            "flags": {},
            "shapes": shapes,
            "imagePath": f"{frame_stem(frame)}.jpg",
            "imageData": None,
            "imageHeight": int(size[1]),
            "imageWidth": int(size[0]),
        },
        indent=2,
    )
