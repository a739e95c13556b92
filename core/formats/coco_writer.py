"""Writing COCO files: per-frame boxes and label maps (docs/measures.md §10).

* Boxes with confidences become a *results* file: a list of ``{image_id,
  category_id, bbox, score}``, with ``track_id`` when the boxes have identities.
* Boxes without confidences become an *instances* file: ``info``,
  ``licenses``, ``videos``, ``images`` (every frame, also one without boxes),
  ``annotations`` (``bbox``, ``area`` = ``w · h``, ``iscrowd`` 0, ``track_id``
  with identities; no ``segmentation``) and ``categories``.
* Label maps become an instances file with one annotation per frame and level
  other than 0: the level's pixels as compressed RLE, its ``area`` (pixels) and
  ``bbox`` (that of the pixels); 170 (unknown) is written as a crowd region,
  which COCO ignores as CDnet ignores 170.

A box's label is its category id (boxes without labels are category 1,
``object``); category names come from ``names`` (id → name, for label maps level
→ name over :data:`~referee.core.formats.frame_files.LEVEL_LABELS`), else the
id as text. The image of frame ``f`` of the ``k``-th video in name order
(from 0) has id ``f + k · 10⁹``, ``frame_id`` ``f``, ``video_id`` ``k + 1``
and ``file_name`` ``<video>/<frame:06d>.jpg``, so that the results and the
instances Referee writes for the same videos name the same images, and
reading them back gives the same frames.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from referee.core import __version__
from referee.core.errors import InvalidOptionError
from referee.core.formats.coco_rle import counts_text, mask_box, mask_counts
from referee.core.formats.frame_files import (
    check_frame,
    frame_stem,
    label_map_frames,
    level_labels,
    write_files,
)
from referee.core.formats.json_files import format_json
from referee.core.measures.boxes import VideoBoxes
from referee.core.measures.detection_ap import SEQUENCE_STRIDE
from referee.core.measures.pixel import GT_MOTION, GT_OUTSIDE, GT_SHADOW, GT_UNKNOWN

#: The category id of each level a label map's annotations hold.
LEVEL_CATEGORIES: dict[int, int] = {GT_MOTION: 1, GT_SHADOW: 2, GT_OUTSIDE: 3, GT_UNKNOWN: 4}
#: The category of boxes that have no labels.
NO_LABEL = (1, "object")


def write_coco_boxes(
    videos: Sequence[VideoBoxes],
    path: str | Path,
    force: bool = False,
    image_size: tuple[int, int] | None = None,
    names: Mapping[int, str] | None = None,
) -> None:
    """Write per-frame boxes as a COCO results file (with confidences) or instances file.

    Parameters
    ----------
    image_size
        ``(width, height)`` of the frames, written in an instances file's images.
    names
        Category id (a box's label) → name.

    Raises
    ------
    InvalidOptionError
        If two videos share a name, a frame is not a frame number, or some boxes have
        labels or confidences and others not.
    InputFileError
        If ``path`` exists (without ``force``) or cannot be written.
    """
    ids = _image_ids([video.name for video in videos])
    scored = _all_or_none(videos, "confidences")
    labelled = _all_or_none(videos, "labels")
    rows = []
    categories: set[int] = set()
    for video in videos:
        for frame, boxes in sorted(video.frames.items()):
            image = ids[video.name] + check_frame(frame, video.name)
            for k, box in enumerate(boxes.boxes.tolist()):
                category = int(boxes.labels[k]) if labelled and boxes.labels is not None else 1
                categories.add(category)
                row: dict[str, Any] = {"image_id": image, "category_id": category, "bbox": box}
                if scored and boxes.confidences is not None:
                    row["score"] = float(boxes.confidences[k])
                if boxes.ids is not None:
                    row["track_id"] = int(boxes.ids[k])
                rows.append(row)
    if scored:
        write_files({Path(path): format_json(rows)}, force)
        return
    for number, row in enumerate(rows, 1):
        row.update(id=number, area=row["bbox"][2] * row["bbox"][3], iscrowd=0)
    labels = {} if labelled else {NO_LABEL[0]: NO_LABEL[1]}
    labels.update(names or {})
    document = _instances(
        [(video.name, sorted(video.frames)) for video in videos],
        ids,
        None,
        image_size,
        rows,
        [(c, labels.get(c, str(c))) for c in sorted(categories or {1})],
    )
    write_files({Path(path): format_json(document)}, force)


def write_coco_label_maps(
    maps: Mapping[str, Mapping[int, np.ndarray]],
    path: str | Path,
    force: bool = False,
    names: Mapping[int, str] | None = None,
) -> None:
    """Write label maps as a COCO instances file of RLE regions (see the module's docstring).

    Parameters
    ----------
    names
        Level → category name, over :data:`~referee.core.formats.frame_files.LEVEL_LABELS`.

    Raises
    ------
    InvalidOptionError
        If a map is not a CDnet label map or a frame is not a frame number.
    InputFileError
        If ``path`` exists (without ``force``) or cannot be written.
    """
    ids = _image_ids(list(maps))
    labels = level_labels(names)
    frames: dict[str, list[int]] = {video: [] for video in maps}
    sizes: dict[tuple[str, int], tuple[int, int]] = {}
    rows: list[dict[str, Any]] = []
    for video, frame, label in label_map_frames(maps):
        frames[video].append(frame)
        height, width = label.shape
        sizes[video, frame] = (width, height)
        for level, category in LEVEL_CATEGORIES.items():
            mask = label == level
            if not mask.any():
                continue
            rows.append(
                {
                    "id": len(rows) + 1,
                    "image_id": ids[video] + frame,
                    "category_id": category,
                    "segmentation": {
                        "size": [height, width],
                        "counts": counts_text(mask_counts(mask)),
                    },
                    "area": int(np.count_nonzero(mask)),
                    "bbox": mask_box(mask),
                    "iscrowd": int(level == GT_UNKNOWN),
                }
            )
    categories = [(c, labels[level]) for level, c in LEVEL_CATEGORIES.items()]
    document = _instances(list(frames.items()), ids, sizes, None, rows, categories)
    write_files({Path(path): format_json(document)}, force)


def _instances(
    videos: list[tuple[str, list[int]]],
    ids: dict[str, int],
    sizes: dict[tuple[str, int], tuple[int, int]] | None,
    image_size: tuple[int, int] | None,
    annotations: list[dict[str, Any]],
    categories: list[tuple[int, str]],
) -> dict[str, Any]:
    """An instances document; an image's ``(width, height)`` is ``sizes``' or ``image_size``."""
    images = []
    for video, frames in videos:
        for frame in frames:
            image: dict[str, Any] = {
                "id": ids[video] + frame,
                "file_name": f"{video}/{frame_stem(frame)}.jpg",
                "video_id": ids[video] // SEQUENCE_STRIDE + 1,
                "frame_id": frame,
            }
            size = sizes[video, frame] if sizes is not None else image_size
            if size is not None:
                image.update(width=int(size[0]), height=int(size[1]))
            images.append(image)
    return {
        "info": {"description": f"written by Referee {__version__}"},
        "licenses": [],
        "videos": [{"id": ids[video] // SEQUENCE_STRIDE + 1, "name": video} for video, _ in videos],
        "images": images,
        "annotations": annotations,
        "categories": [{"id": c, "name": name, "supercategory": ""} for c, name in categories],
    }


def _image_ids(names: list[str]) -> dict[str, int]:
    """The image id of frame 0 of each video: ``k · 10⁹`` for the ``k``-th by name."""
    if len(set(names)) != len(names):
        raise InvalidOptionError("two videos have the same name; COCO tells videos by name")
    return {name: k * SEQUENCE_STRIDE for k, name in enumerate(sorted(names))}


def _all_or_none(videos: Sequence[VideoBoxes], field: str) -> bool:
    """Whether every box has ``field`` (labels, confidences); refuses some with and some without."""
    given = {
        getattr(boxes, field) is not None
        for video in videos
        for boxes in video.frames.values()
        if len(boxes)
    }
    if len(given) > 1:
        raise InvalidOptionError(
            f"some boxes have {field} and others not; COCO gives every box of a file the same fields"
        )
    return given == {True}
