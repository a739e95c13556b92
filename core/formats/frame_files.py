"""What the per-frame formats of annotators' tools share (COCO, YOLO, labelme; docs/measures.md §10).

* A file name gives its frame number: the last run of digits of its name
  without extension (``in000123.jpg``, ``frame_000123.png``, ``000123.txt`` are
  frame 123), as written, from 0 to ``MAX_FRAME_NUMBER``. Referee names the
  files it writes :func:`frame_stem` (``000123``).
* Label maps (the kind :data:`~referee.core.formats.registry.LABEL_MAPS`) are,
  per video, a mapping frame → CDnet label map; readers return a
  :class:`LabelMapFrames`, which draws a frame's map only when it is looked up,
  so a video's maps are never all held at once.
* Region labels name CDnet levels: :data:`LEVEL_LABELS` unless the user gives
  another map.
* :func:`write_files` writes a format's files atomically, refusing before
  writing any of them if one exists (unless ``force``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.cdnet import list_folder
from referee.core.formats.coco_rle import counts_mask
from referee.core.formats.gt_png import check_ground_truth
from referee.core.formats.polygons import paint_polygon
from referee.core.formats.text_files import exists_error, keeping_existing, write_bytes
from referee.core.limits import MAX_FRAME_NUMBER, MAX_IMAGE_PIXELS
from referee.core.measures.pixel import GT_LEVEL_NAMES

#: The labels Referee writes for the CDnet levels, and reads when given no other map.
LEVEL_LABELS: dict[str, int] = {
    "static": 0,
    "shadow": 50,
    "outside-roi": 85,
    "unknown": 170,
    "motion": 255,
}
_DIGITS = re.compile(r"[0-9]+")
_EXAMPLES = "in000123.jpg, frame_000123.png or 000123.txt"


def frame_stem(frame: int) -> str:
    """The name (without extension) of the file Referee writes for ``frame``: ``000123``."""
    return f"{frame:06d}"


def frame_of_name(name: str) -> int | None:
    """The frame number a file name gives (the last run of digits of its stem), or ``None``
    when it has none or it is beyond ``MAX_FRAME_NUMBER``."""
    runs = _DIGITS.findall(Path(name).stem)
    if not runs or len(runs[-1].lstrip("0")) > len(str(MAX_FRAME_NUMBER)):
        return None
    frame = int(runs[-1])
    return frame if frame <= MAX_FRAME_NUMBER else None


def frame_name_error(file: Path, name: str, where: str = "") -> InputFileError:
    """The error for a file name that gives no frame number."""
    shown = name if len(name) <= 60 else name[:60] + "…"
    return InputFileError(
        file,
        f"{where + ': ' if where else ''}{shown!r} names no frame: Referee reads the frame "
        f"number from the last digits of a file's name (e.g. {_EXAMPLES}), "
        f"from 0 to {MAX_FRAME_NUMBER:,}",
    )


def frame_files(folder: Path, suffix: str, skip: tuple[str, ...] = ()) -> list[tuple[int, Path]]:
    """The files ``*<suffix>`` of ``folder`` (any case; names in ``skip`` left out), each with
    its frame number, by frame.

    Raises
    ------
    InputFileError
        If the folder cannot be listed, a name gives no frame, or two files give one frame.
    """
    found: dict[int, Path] = {}
    for name in sorted(list_folder(folder)):
        path = folder / name
        if not name.lower().endswith(suffix) or name.lower() in skip or not path.is_file():
            continue
        frame = frame_of_name(name)
        if frame is None:
            raise frame_name_error(path, name)
        if frame in found:
            raise InputFileError(
                path, f"gives frame {frame}, as {found[frame].name} does; keep one file per frame"
            )
        found[frame] = path
    return sorted(found.items())


def check_frame(frame: object, video: str) -> int:
    """``frame`` of ``video`` as an ``int``, refusing a frame Referee cannot name in a file."""
    if not isinstance(frame, int | np.integer) or not 0 <= int(frame) <= MAX_FRAME_NUMBER:
        raise InvalidOptionError(
            f"video {video!r}: frame {frame!r} is not a frame number 0..{MAX_FRAME_NUMBER:,}"
        )
    return int(frame)


def check_image_size(size: tuple[int, int] | None, why: str) -> tuple[int, int]:
    """``size`` as ``(width, height)`` of an image, which a format needs for ``why``.

    Raises
    ------
    InvalidOptionError
        If it is missing or not two whole sizes of an image within ``MAX_IMAGE_PIXELS``.
    """
    if size is None:
        raise InvalidOptionError(
            f"{why}: give the frames' size (--image-size WxH; image_size=(width, height))"
        )
    whole = all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in size)
    if len(size) != 2 or not whole or min(size) < 1 or size[0] * size[1] > MAX_IMAGE_PIXELS:
        raise InvalidOptionError(f"image_size {size!r} is not (width, height) of an image")
    return int(size[0]), int(size[1])


def one_video(count: int, format_name: str) -> None:
    """Refuse to write other than one video to a folder of ``format_name`` files."""
    if count != 1:
        raise InvalidOptionError(
            f"a {format_name} folder holds one video, not {count}; write each to its own folder"
        )


def label_levels(levels: Mapping[str, int] | None) -> dict[str, int]:
    """Region label → CDnet level: ``levels`` checked, or :data:`LEVEL_LABELS`."""
    chosen = dict(LEVEL_LABELS if levels is None else levels)
    for label, level in chosen.items():
        if level not in GT_LEVEL_NAMES:
            names = ", ".join(map(str, GT_LEVEL_NAMES))
            raise InvalidOptionError(
                f"the label {label!r} is given the level {level!r}; levels are {names}"
            )
    return chosen


def level_labels(names: Mapping[int, str] | None) -> dict[int, str]:
    """CDnet level → region label for writing: ``names`` over :data:`LEVEL_LABELS`' own."""
    chosen = {level: label for label, level in LEVEL_LABELS.items()}
    chosen.update(names or {})
    return chosen


@dataclass(frozen=True)
class Region:
    """Pixels of one level: polygons (vertices ``(n, 2)``, :mod:`~referee.core.formats.polygons`)
    or the COCO run-length counts of a mask (:mod:`~referee.core.formats.coco_rle`)."""

    level: int
    polygons: tuple[np.ndarray, ...] = ()
    counts: np.ndarray | None = None


@dataclass(frozen=True)
class LabelMapDrawing:
    """A frame's label map of ``size`` ``(height, width)``: 0, then the regions in order."""

    size: tuple[int, int]
    regions: tuple[Region, ...]

    def __call__(self) -> np.ndarray:
        label = np.zeros(self.size, np.uint8)
        for region in self.regions:
            for polygon in region.polygons:
                paint_polygon(label, polygon, region.level)
            if region.counts is not None:
                label[counts_mask(region.counts, *self.size)] = region.level
        return label


class LabelMapFrames(Mapping[int, np.ndarray]):
    """A video's label maps by frame, each drawn when looked up (never kept)."""

    def __init__(self, draw: Mapping[int, Callable[[], np.ndarray]]) -> None:
        self._draw = dict(draw)

    def __getitem__(self, frame: int) -> np.ndarray:
        return self._draw[frame]()

    def __iter__(self) -> Iterator[int]:
        return iter(self._draw)

    def __len__(self) -> int:
        return len(self._draw)


def label_map_frames(
    content: Mapping[str, Mapping[int, np.ndarray]],
) -> Iterator[tuple[str, int, np.ndarray]]:
    """``(video, frame, label map)`` of label maps given to a writer, each map checked.

    Raises
    ------
    InvalidOptionError
        If a frame is not a frame number or a map is not a CDnet label map.
    """
    for video, frames in content.items():
        for frame in sorted(frames):
            label = frames[frame]
            try:
                check_ground_truth(label)
            except InvalidOptionError as error:
                raise InvalidOptionError(f"video {video!r}, frame {frame}: {error}") from None
            yield video, check_frame(frame, video), label


def write_files(files: Mapping[Path, bytes], force: bool) -> list[Path]:
    """Write each file atomically with the user's permissions, making its folder.

    Without ``force`` no file is written if one of them exists (also one that
    appears meanwhile is never replaced). Returns the paths written.

    Raises
    ------
    InputFileError
        If a file exists (without ``force``), or a folder cannot be made or written.
    """
    if not force:
        for path in files:
            if os.path.lexists(path):
                raise exists_error(path)
    for folder in sorted({path.parent for path in files}):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputFileError(
                folder, f"cannot create the folder ({error.strerror or error}); check the path"
            ) from None
    with keeping_existing(not force):
        for path, data in files.items():
            write_bytes(path, data)
    return list(files)
