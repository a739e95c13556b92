"""Reading COCO files frame by frame: instances and detection results (docs/measures.md §10).

An *instances* file (an object with ``images``, ``annotations`` and
``categories``) is ground truth; a *results* file (a list of ``{image_id,
category_id, bbox, score[, segmentation]}``) is a detector's output. Both are
read as per-frame boxes (:func:`read_coco_boxes`) and as label maps
(:func:`read_coco_label_maps`):

* **Frames.** Each image is a frame of a video. Its frame number is, by
  ``frame_from``: ``"name"`` (the default), the last digits of its
  ``file_name`` (:mod:`~referee.core.formats.frame_files`); ``"frame_id"``,
  its ``frame_id`` (COCO-video files); ``"id"``, its ``id``. Its video is the
  entry of ``videos`` (``{"id", "name"}``) its ``video_id`` names, or, in a
  file without ``videos``, one video named ``video`` or after the file. A
  results file names images by id: with ``images`` (the instances file of its
  ground truth) they are that file's images; without, each ``image_id`` is a
  frame number of one video named ``video`` or after the results file. A result's
  category need not be one of the instances file's (a detector may find classes the
  ground truth does not have).
* **Boxes.** ``bbox`` ``[x, y, w, h]`` in pixels; the label is the
  ``category_id``; a result's ``score`` is its confidence; ``track_id`` (not
  standard COCO) is the identity when every annotation of the video has one.
  Crowd regions (``iscrowd`` 1) are not objects: they are left out of the boxes,
  with a warning. An image without annotations is a frame without boxes.
* **Label maps.** Each image is a frame of ``height × width`` pixels, 0
  (static) where no region lies; regions are painted in file order, a polygon
  over the pixels :func:`~referee.core.formats.polygons.polygon_region` gives,
  an RLE (compressed string or list of counts, :mod:`~referee.core.formats.coco_rle`)
  over its pixels. A region takes the level its category's name has in
  ``levels`` (by default :data:`~referee.core.formats.frame_files.LEVEL_LABELS`),
  else that of its id written as text (``"3"``); a crowd region takes 170
  (unknown: COCO ignores crowds, CDnet does not evaluate 170). Annotations
  without ``segmentation`` are left out.

Every error names the file and the key (``annotations[12].bbox``).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError, InvalidOptionError, RefereeWarning
from referee.core.formats.coco_rle import check_counts, text_counts
from referee.core.formats.frame_files import (
    LabelMapDrawing,
    LabelMapFrames,
    Region,
    frame_name_error,
    frame_of_name,
    label_levels,
)
from referee.core.formats.json_files import Node, read_json
from referee.core.limits import (
    MAX_BOXES_PER_FRAME,
    MAX_COORDINATE,
    MAX_FRAME_NUMBER,
    MAX_IMAGE_PIXELS,
)
from referee.core.measures.boxes import FrameBoxes, VideoBoxes
from referee.core.measures.pixel import GT_UNKNOWN
from referee.core.model.tracks import MAX_ID

#: The ways an image gives its frame number (``frame_from``).
FRAME_RULES: tuple[str, ...] = ("name", "frame_id", "id")


@dataclass(frozen=True)
class _Image:
    """An image: the video and frame it is, its size if given, and where it is in its file."""

    video: str
    frame: int
    size: tuple[int, int] | None  # (height, width)
    node: Node


@dataclass(frozen=True)
class _Coco:
    """A file's images by id, category names (``None``: unknown), annotations, and what it is."""

    images: dict[int, _Image]
    categories: dict[int, str] | None
    annotations: list[Node]
    results: bool
    videos: tuple[str, ...]
    implicit: bool = False  # image ids are frame numbers of the one video


def read_coco_boxes(
    path: str | Path,
    frame_from: str = "name",
    video: str | None = None,
    images: str | Path | None = None,
    min_conf: float | None = None,
) -> list[VideoBoxes]:
    """The per-frame boxes of a COCO instances or results file, one entry per video.

    ``min_conf`` drops results whose score is below it; the other options are
    those of the module's docstring.

    Raises
    ------
    InputFileError
        Naming the file and the key: not JSON or not COCO, a missing key, a value of
        the wrong type, a negative box size, an image or category the file does not
        have, a name without a frame number, two images of one frame.
    """
    file = Path(path)
    coco = _read(file, frame_from, video, images)
    rows: dict[str, dict[int, list[tuple[np.ndarray, int, int | None, float | None]]]] = {
        name: {} for name in coco.videos
    }
    for image in coco.images.values():
        rows[image.video].setdefault(image.frame, [])
    crowds: list[Node] = []
    for node in coco.annotations:
        image, category = _image_of(coco, node), _category_of(coco, node)
        if not coco.results and _is_crowd(node):
            crowds.append(node)
            continue
        box = _bbox(node.key("bbox"))
        score = node.key("score").number(float("inf")) if coco.results else None
        if min_conf is not None and score is not None and score < min_conf:
            continue
        track = node.optional("track_id")
        frame = rows[image.video].setdefault(image.frame, [])
        if len(frame) == MAX_BOXES_PER_FRAME:
            raise node.fail(
                f"frame {image.frame} of {image.video!r} has more than {MAX_BOXES_PER_FRAME:,} "
                "boxes, the most Referee reads on one frame (MAX_BOXES_PER_FRAME)"
            )
        frame.append(
            (box, category, None if track is None else track.whole(-MAX_ID, MAX_ID), score)
        )
    if crowds:
        warnings.warn(
            f"{file}: {crowds[0].where}: {len(crowds)} crowd region(s) (iscrowd 1) left out of "
            "the boxes: COCO does not count a crowd as objects",
            RefereeWarning,
            stacklevel=2,
        )
    return [_video_boxes(name, frames, coco.results) for name, frames in rows.items()]


def read_coco_label_maps(
    path: str | Path,
    frame_from: str = "name",
    video: str | None = None,
    images: str | Path | None = None,
    levels: Mapping[str, int] | None = None,
) -> dict[str, LabelMapFrames]:
    """The label maps of the regions of a COCO file, per video and frame (see the module's
    docstring); each frame's map is drawn when it is looked up.

    Raises
    ------
    InputFileError
        As :func:`read_coco_boxes`, and for a category without a level, a polygon of
        fewer than 3 points, RLE counts that do not make a mask of the image's size,
        or an image without ``height`` and ``width``.
    InvalidOptionError
        If ``levels`` gives a value that is not a CDnet level.
    """
    file = Path(path)
    chosen = label_levels(levels)
    coco = _read(file, frame_from, video, images)
    regions: dict[tuple[str, int], list[Region]] = {}
    sizes = {(i.video, i.frame): i.size for i in coco.images.values()}
    for node in coco.annotations:
        image, category = _image_of(coco, node), _category_of(coco, node)
        shape = node.optional("segmentation")
        if shape is None:
            continue
        crowd = not coco.results and _is_crowd(node)
        level = GT_UNKNOWN if crowd else _level(coco, node, category, chosen)
        key = (image.video, image.frame)
        region, size = _region(shape, level, sizes.get(key))
        sizes[key] = sizes.get(key) or size
        regions.setdefault(key, []).append(region)
    maps: dict[str, dict[int, tuple[tuple[int, int], list[Region]]]] = {n: {} for n in coco.videos}
    for image in sorted(coco.images.values(), key=lambda i: i.frame):
        size = sizes[(image.video, image.frame)]
        if size is None:
            raise image.node.fail(
                "gives no image size (height and width, or an RLE's size); a label map needs it"
            )
        maps[image.video][image.frame] = (size, regions.get((image.video, image.frame), []))
    return {
        name: LabelMapFrames(
            {f: LabelMapDrawing(size, tuple(drawn)) for f, (size, drawn) in frames.items()}
        )
        for name, frames in maps.items()
    }


def coco_category_names(path: str | Path) -> dict[int, str]:
    """Category id → name of a COCO instances file (empty for a results file)."""
    root = Node(read_json(path), Path(path))
    return {} if isinstance(root.value, list) else _categories(root.key("categories"))


# --- the file --------------------------------------------------------------------------------


def _read(file: Path, frame_from: str, video: str | None, images: str | Path | None) -> _Coco:
    if frame_from not in FRAME_RULES:
        raise InvalidOptionError(
            f"unknown frame rule {frame_from!r}; choose one of {', '.join(FRAME_RULES)}"
        )
    root = Node(read_json(file), file)
    if isinstance(root.value, list):
        if images is None:
            return _Coco({}, None, root.items(), True, (video or file.stem,), implicit=True)
        truth = _read(Path(images), frame_from, video, None)
        if truth.results:
            raise InputFileError(
                Path(images),
                "is a results file; give the instances file whose images the results name",
            )
        return _Coco(truth.images, truth.categories, root.items(), True, truth.videos)
    if not isinstance(root.value, dict):
        raise root.fail("must be an object (instances) or a list (detection results)")
    videos = _videos(root.optional("videos"))
    names = tuple(videos.values()) if videos else (video or file.stem,)
    return _Coco(
        _images(root.key("images"), frame_from, videos, names[0]),
        _categories(root.key("categories")),
        root.key("annotations").items(),
        False,
        names,
    )


def _videos(node: Node | None) -> dict[int, str]:
    """Video id → name of the ``videos`` list (empty without one)."""
    videos: dict[int, str] = {}
    for entry in [] if node is None else node.items():
        number, name = entry.key("id").whole(0, MAX_ID), entry.key("name").text()
        if number in videos or name in videos.values() or not name:
            raise entry.fail(
                f"repeats the video id {number} or the name {name!r}, or the name is empty"
            )
        videos[number] = name
    return videos


def _categories(node: Node) -> dict[int, str]:
    categories: dict[int, str] = {}
    for entry in node.items():
        number = entry.key("id").whole(0, MAX_ID)
        if number in categories:
            raise entry.fail(f"gives the category id {number} a second time")
        categories[number] = entry.key("name").text()
    return categories


def _images(node: Node, frame_from: str, videos: dict[int, str], default: str) -> dict[int, _Image]:
    images: dict[int, _Image] = {}
    seen: dict[tuple[str, int], _Image] = {}
    for entry in node.items():
        number = entry.key("id").whole(0, MAX_ID)
        if number in images:
            raise entry.fail(f"gives the image id {number} a second time")
        name = default
        if videos:
            video_id = entry.key("video_id")
            name = videos.get(video_id.whole(0, MAX_ID), "")
            if not name:
                raise video_id.fail(f"is {video_id.value}, which no entry of videos has")
        image = _Image(name, _frame(entry, frame_from), _size(entry), entry)
        if (name, image.frame) in seen:
            raise entry.fail(
                f"is frame {image.frame} of {name!r}, as {seen[name, image.frame].node.where} is "
                f"(frame rule {frame_from!r}); each frame needs one image"
            )
        images[number] = seen[name, image.frame] = image
    return images


def _frame(entry: Node, frame_from: str) -> int:
    """The frame number an image gives by the rule ``frame_from``."""
    if frame_from == "id":
        return entry.key("id").whole(0, MAX_FRAME_NUMBER)
    if frame_from == "frame_id":
        return entry.key("frame_id").whole(0, MAX_FRAME_NUMBER)
    file_name = entry.key("file_name")
    frame = frame_of_name(file_name.text())
    if frame is None:
        raise frame_name_error(file_name.file, file_name.text(), file_name.where)
    return frame


def _size(entry: Node) -> tuple[int, int] | None:
    """``(height, width)`` of an image, if it gives them."""
    if not entry.has("height") and not entry.has("width"):
        return None
    height = entry.key("height").whole(1, MAX_IMAGE_PIXELS)
    width = entry.key("width").whole(1, MAX_IMAGE_PIXELS)
    if height * width > MAX_IMAGE_PIXELS:
        raise entry.fail(
            f"is {width}x{height} pixels; Referee reads images of at most {MAX_IMAGE_PIXELS:,} "
            "pixels (MAX_IMAGE_PIXELS)"
        )
    return height, width


# --- annotations -----------------------------------------------------------------------------


def _image_of(coco: _Coco, node: Node) -> _Image:
    image_id = node.key("image_id")
    number = image_id.whole(0, MAX_ID)
    if coco.implicit:
        frame = image_id.whole(0, MAX_FRAME_NUMBER)
        return coco.images.setdefault(number, _Image(coco.videos[0], frame, None, node))
    image = coco.images.get(number)
    if image is None:
        raise image_id.fail(f"is {number}, which no entry of images has")
    return image


def _category_of(coco: _Coco, node: Node) -> int:
    category = node.key("category_id")
    number = category.whole(0, MAX_ID)
    if not coco.results and coco.categories is not None and number not in coco.categories:
        known = ", ".join(map(str, list(coco.categories)[:20])) or "none"
        raise category.fail(f"is {number}, which no entry of categories has (ids: {known})")
    return number


def _is_crowd(node: Node) -> bool:
    crowd = node.optional("iscrowd")
    return crowd is not None and crowd.whole(0, 1) == 1


def _level(coco: _Coco, node: Node, category: int, levels: Mapping[str, int]) -> int:
    name = (coco.categories or {}).get(category)
    if name is not None and name in levels:
        return levels[name]
    if str(category) in levels:
        return levels[str(category)]
    called = f"{category} ({name!r})" if name is not None else str(category)
    raise node.key("category_id").fail(
        f"category {called} has no CDnet level; give one for it (levels: {name or category!r}: 255)"
    )


def _bbox(node: Node) -> np.ndarray:
    box = node.numbers(MAX_COORDINATE, 4)
    for k, side in ((2, "width"), (3, "height")):
        if box[k] < 0:
            raise node.fail(f"{side} is {box[k]:g}; a box's width and height cannot be negative")
    return box


def _region(
    node: Node, level: int, size: tuple[int, int] | None
) -> tuple[Region, tuple[int, int] | None]:
    """The region of a ``segmentation`` (a list of polygons ``[x1, y1, x2, y2, …]`` or RLE)
    on a frame of ``size`` ``(height, width)`` if known, and the size an RLE gives."""
    if isinstance(node.value, list):
        polygons = []
        for polygon in node.items():
            flat = polygon.numbers(MAX_COORDINATE)
            if len(flat) < 6 or len(flat) % 2:
                raise polygon.fail(
                    f"holds {len(flat)} numbers; a polygon is x1, y1, x2, y2, … with at least 3 points"
                )
            polygons.append(flat.reshape(-1, 2))
        return Region(level, polygons=tuple(polygons)), None
    size_node = node.key("size")
    sides = size_node.items()
    if len(sides) != 2:
        raise size_node.fail(f"holds {len(sides)} values; it must be [height, width]")
    height, width = (side.whole(1, MAX_IMAGE_PIXELS) for side in sides)
    if height * width > MAX_IMAGE_PIXELS:
        raise size_node.fail(f"is {width}x{height} pixels, more than MAX_IMAGE_PIXELS")
    if size is not None and size != (height, width):
        raise size_node.fail(
            f"is [{height}, {width}] but the frame is {size[0]} high and {size[1]} wide"
        )
    counts_node = node.key("counts")
    try:
        if isinstance(counts_node.value, str):
            counts = text_counts(counts_node.value)
        else:
            values = counts_node.numbers(MAX_IMAGE_PIXELS)
            if not np.array_equal(values, np.floor(values)):
                raise InvalidOptionError("counts must be whole numbers")
            counts = values.astype(np.int64)
        check_counts(counts, height, width)
    except InvalidOptionError as error:
        raise counts_node.fail(str(error)) from None
    return Region(level, counts=counts), (height, width)


# --- building the content --------------------------------------------------------------------


def _video_boxes(
    name: str,
    frames: dict[int, list[tuple[np.ndarray, int, int | None, float | None]]],
    results: bool,
) -> VideoBoxes:
    tracked = all(row[2] is not None for rows in frames.values() for row in rows)
    per_frame = {}
    for frame in sorted(frames):
        rows = frames[frame]
        per_frame[frame] = FrameBoxes(
            np.array([row[0] for row in rows], dtype=np.float64).reshape(-1, 4),
            np.array([row[1] for row in rows], dtype=np.int64),
            np.array([row[2] for row in rows], dtype=np.int64) if tracked else None,
            np.array([row[3] for row in rows], dtype=np.float64) if results else None,
        )
    return VideoBoxes(name, per_frame)
