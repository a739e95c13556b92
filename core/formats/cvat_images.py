"""CVAT for images 1.1 as Referee's per-frame boxes (docs/measures.md §5, §10).

Each ``<image>`` is a frame: image ``id`` ``n`` (CVAT numbers images from 0, in
the lexical order of their names) is Referee frame ``n + first_frame``,
``first_frame`` 1 unless given, as for CVAT for video. Its boxes, polygons and
masks are its boxes (a polygon's or mask's box is its bounding box), in file
order, each labelled with its label's place in ``<meta>`` (from 1). The images
carry no identities and no confidences. The file is one video, named after the
task (``<meta> <task> <name>``), else after the file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError
from referee.core.formats.cvat_xml import IMAGES, CvatDocument, read_cvat
from referee.core.limits import MAX_FRAME_NUMBER
from referee.core.measures.boxes import VideoBoxes, boxes_from_rows


def cvat_image_boxes(document: CvatDocument, first_frame: int = 1) -> VideoBoxes:
    """The per-frame boxes of a CVAT for images document (see the module docstring); an
    image without shapes is a frame without boxes (absent from the result).

    Raises
    ------
    InputFileError
        An image whose frame number (``id + first_frame``) is outside
        ``0..MAX_FRAME_NUMBER``, naming it.
    """
    numbers = {label: k for k, label in enumerate(document.labels, start=1)}
    frames, boxes, labels = [], [], []
    for image in document.images:
        frame = image.image_id + first_frame
        if not 0 <= frame <= MAX_FRAME_NUMBER:
            raise InputFileError(
                document.path,
                f'line {image.line}: <image id="{image.image_id}">: its frame number '
                f"{frame} (first_frame={first_frame}) is outside 0..{MAX_FRAME_NUMBER:,}",
            )
        for shape in image.shapes:
            frames.append(frame)
            boxes.append(shape.box)
            labels.append(numbers[shape.label])
    return boxes_from_rows(
        document.video_name,
        np.array(frames, dtype=np.int64),
        np.array(boxes, dtype=np.float64).reshape(-1, 4),
        labels=np.array(labels, dtype=np.int64),
    )


def read_cvat_image_boxes(
    path: str | Path, min_conf: float | None = None, first_frame: int = 1
) -> list[VideoBoxes]:
    """The per-frame boxes of a CVAT for images file (:func:`cvat_image_boxes`); CVAT has no
    confidence, so ``min_conf`` keeps every box."""
    return [cvat_image_boxes(read_cvat(path, IMAGES), first_frame)]
