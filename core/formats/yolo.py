"""YOLO label folders (Ultralytics' format): per-frame boxes (docs/measures.md §10).

A folder is one video. It holds one ``<frame>.txt`` per frame (the frame
number from the name, :mod:`~referee.core.formats.frame_files`); each line is
``class cx cy w h`` (ground truth) or ``class cx cy w h score`` (detections),
the class a whole number from 0 and the box's centre and size divided by the
image's width and height; an empty file is a frame without boxes. YOLO files
do not say how large the images are: the reader and the writer take
``image_size`` ``(width, height)``, the frames' size. Class names are
``data.yaml``'s ``names`` (a list, or a mapping index → name) or
``classes.txt`` (one name a line), in the folder or its parent; reading needs
none, but a class index beyond the names given is refused.

Boxes come back with the class as label and the score as confidence; YOLO has
no identities. The video is named ``video`` or after the folder. The writer
writes ``<frame:06d>.txt`` for every frame (an empty file for a frame without
boxes) and ``data.yaml`` with ``names`` for the classes 0 … the largest label;
numbers have 12 significant digits, so boxes read back are within 10⁻¹¹ of the
image's size of those written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.frame_files import (
    check_frame,
    check_image_size,
    frame_files,
    frame_stem,
    one_video,
    write_files,
)
from referee.core.formats.text_files import DECIMAL_NUMBER, WHOLE_NUMBER, read_text
from referee.core.limits import MAX_BOXES_PER_FRAME, MAX_COORDINATE
from referee.core.measures.boxes import FrameBoxes, VideoBoxes

#: The files that name the classes, in the order they are looked for.
NAMES_FILES: tuple[str, ...] = ("data.yaml", "classes.txt")
#: The largest class index read.
MAX_CLASS = 2**31 - 1
_NO_SIZE = "YOLO boxes are fractions of the image's size, which YOLO files do not hold"
_MAPPING_ENTRY = re.compile(r"\s*([0-9]+)\s*:\s*(.*)")
_FLOW_ITEM = re.compile(r"""\s*('(?:[^']|'')*'|"(?:[^"\\]|\\.)*"|[^,]*)\s*(?:,|$)""")


def read_yolo_boxes(
    path: str | Path,
    image_size: tuple[int, int] | None = None,
    video: str | None = None,
    min_conf: float | None = None,
) -> list[VideoBoxes]:
    """The per-frame boxes of a YOLO label folder, as one video.

    Parameters
    ----------
    image_size
        ``(width, height)`` of the frames, in pixels (required).
    video
        The video's name (default: the folder's).
    min_conf
        Drop boxes whose score is below it (boxes without scores are kept).

    Raises
    ------
    InputFileError
        Naming the file and line: a name without a frame number, a line that is not
        ``class cx cy w h [score]``, a negative size, a class beyond the names, lines
        with and without scores, or a folder without label files.
    InvalidOptionError
        If ``image_size`` is missing or not two sizes.
    """
    folder = Path(path)
    width, height = check_image_size(image_size, _NO_SIZE)
    names = yolo_class_names(folder)
    files = frame_files(folder, ".txt", skip=("classes.txt",))
    if not files:
        raise InputFileError(folder, "holds no YOLO label file (<frame>.txt, e.g. 000001.txt)")
    scored: list[bool | None] = [None]  # whether lines have a score, from the first line
    frames = {
        frame: _read_frame(file, width, height, names, scored, min_conf) for frame, file in files
    }
    return [VideoBoxes(video or folder.name, frames)]


def yolo_class_names(folder: str | Path) -> list[str] | None:
    """The class names of a YOLO folder: ``data.yaml``'s or ``classes.txt``'s, in the folder
    or its parent; ``None`` when neither holds them.

    Raises
    ------
    InputFileError
        If the file found cannot be read or its ``names`` is not one Referee reads.
    """
    for place in (Path(folder), Path(folder).parent):
        for name in NAMES_FILES:
            if (place / name).is_file():
                return (
                    _yaml_names(place / name) if name == "data.yaml" else _text_names(place / name)
                )
    return None


def write_yolo_boxes(
    videos: Sequence[VideoBoxes],
    path: str | Path,
    force: bool = False,
    image_size: tuple[int, int] | None = None,
    names: Mapping[int, str] | None = None,
) -> None:
    """Write one video's boxes as a YOLO label folder ``path`` with its ``data.yaml``.

    Parameters
    ----------
    image_size
        ``(width, height)`` of the frames, in pixels (required).
    names
        Class index (a box's label) → name; a class without one is named by its index.

    Raises
    ------
    InvalidOptionError
        If there is not exactly one video, ``image_size`` is missing, a label is
        negative, or some boxes have scores and others not.
    InputFileError
        If a file exists (without ``force``) or cannot be written.
    """
    one_video(len(videos), "YOLO")
    width, height = check_image_size(image_size, _NO_SIZE)
    folder, files, largest = Path(path), {}, 0
    scores = {b.confidences is not None for b in videos[0].frames.values() if len(b)}
    if len(scores) > 1:
        raise InvalidOptionError(
            "some boxes have scores and others not; YOLO lines hold both or none"
        )
    for frame, boxes in sorted(videos[0].frames.items()):
        labels = np.zeros(len(boxes), np.int64) if boxes.labels is None else boxes.labels
        if len(labels) and np.min(labels) < 0:
            raise InvalidOptionError(f"frame {frame}: class {np.min(labels)} is negative")
        largest = max([largest, *labels.tolist()])
        x, y, w, h = boxes.boxes.T
        columns = [(x + w / 2) / width, (y + h / 2) / height, w / width, h / height]
        if boxes.confidences is not None:
            columns.append(boxes.confidences)
        lines = [
            " ".join([str(label), *(format(float(v), ".12g") for v in row)]) + "\n"
            for label, row in zip(labels.tolist(), np.column_stack(columns).tolist())
        ]
        files[folder / f"{frame_stem(check_frame(frame, videos[0].name))}.txt"] = "".join(lines)
    given = names or {}
    entries = [
        f"  {k}: {json.dumps(given.get(k, str(k)), ensure_ascii=False)}" for k in range(largest + 1)
    ]
    files[folder / "data.yaml"] = f"nc: {largest + 1}\nnames:\n" + "\n".join(entries) + "\n"
    write_files({p: text.encode("utf-8") for p, text in files.items()}, force)


# --- reading ---------------------------------------------------------------------------------


def _read_frame(
    file: Path,
    width: int,
    height: int,
    names: list[str] | None,
    scored: list[bool | None],
    min_conf: float | None,
) -> FrameBoxes:
    """The boxes of one label file; ``scored[0]`` records whether lines carry a score."""
    rows: list[list[float]] = []
    for line, text in enumerate(read_text(file).split("\n"), 1):
        cells = text.split()
        if not cells:
            continue
        if len(cells) not in (5, 6):
            raise InputFileError(
                file,
                f"line {line}: {len(cells)} values; a box is 'class cx cy w h' or "
                "'class cx cy w h score' (segments and keypoints are not read)",
            )
        if scored[0] is None:
            scored[0] = len(cells) == 6
        if scored[0] != (len(cells) == 6):
            raise InputFileError(
                file,
                f"line {line}: {len(cells)} values, but earlier lines have "
                f"{6 if scored[0] else 5}; give a score on every line or on none",
            )
        if len(rows) == MAX_BOXES_PER_FRAME:
            raise InputFileError(
                file,
                f"line {line}: more than {MAX_BOXES_PER_FRAME:,} boxes on one frame "
                "(MAX_BOXES_PER_FRAME)",
            )
        rows.append(_row(cells, file, line, width, height, names))
    if min_conf is not None and scored[0]:
        rows = [row for row in rows if row[5] >= min_conf]
    table = np.array(rows, dtype=np.float64).reshape(-1, 6 if scored[0] else 5)
    return FrameBoxes(
        table[:, 1:5],
        table[:, 0].astype(np.int64),
        None,
        table[:, 5] if scored[0] else None,
    )


def _row(
    cells: list[str], file: Path, line: int, width: int, height: int, names: list[str] | None
) -> list[float]:
    """``class, x, y, w, h[, score]`` of a line, in pixels."""
    if (
        not WHOLE_NUMBER.fullmatch(cells[0])
        or len(cells[0]) > 10
        or not 0 <= int(cells[0]) <= MAX_CLASS
    ):
        raise InputFileError(
            file, f"line {line}: class is {cells[0][:30]!r}, not a whole number ≥ 0"
        )
    label = int(cells[0])
    if names is not None and label >= len(names):
        raise InputFileError(
            file,
            f"line {line}: class {label} has no name; the names file gives 0..{len(names) - 1}",
        )
    values = []
    for name, cell in zip(("cx", "cy", "w", "h", "score"), cells[1:]):
        if not DECIMAL_NUMBER.fullmatch(cell) or abs(float(cell)) > MAX_COORDINATE:
            raise InputFileError(file, f"line {line}: {name} is {cell[:30]!r}, not a number")
        values.append(float(cell))
    cx, cy, w, h = values[0] * width, values[1] * height, values[2] * width, values[3] * height
    if w < 0 or h < 0:
        raise InputFileError(file, f"line {line}: w and h cannot be negative")
    box = [cx - w / 2, cy - h / 2, w, h]
    if max(abs(v) for v in box) > MAX_COORDINATE:
        raise InputFileError(file, f"line {line}: the box lies beyond {MAX_COORDINATE:,} pixels")
    return [float(label), *box, *values[4:]]


def _text_names(path: Path) -> list[str]:
    """One class name a line; blank lines at the end left out."""
    return [line.strip() for line in read_text(path).rstrip().split("\n")]


def _yaml_names(path: Path) -> list[str]:
    """The ``names`` of a ``data.yaml``: ``[a, b]``, or a block of ``- a`` or ``0: a`` lines.

    Referee reads this much YAML only; other keys are left alone.
    """
    lines = read_text(path).split("\n")
    for number, text in enumerate(lines, 1):
        if not text.startswith("names:"):
            continue
        rest = _uncommented(text[len("names:") :]).strip()
        if rest.startswith("["):
            flow = rest
            for more in lines[number:]:
                if flow.rstrip().endswith("]"):
                    break
                flow += " " + _uncommented(more).strip()
            if not flow.rstrip().endswith("]"):
                raise InputFileError(path, f"line {number}: names: the list '[' is not closed")
            items = _FLOW_ITEM.findall(flow.strip()[1:-1])
            if items and not items[-1].strip():
                items.pop()  # the empty match at the end
            return [_scalar(item, path, number) for item in items]
        if rest:
            raise InputFileError(
                path, f"line {number}: names must be a list or a mapping of index: name"
            )
        return _block_names(lines[number:], path, number + 1)
    raise InputFileError(path, "has no 'names:' line naming the classes")


def _block_names(lines: list[str], path: Path, first: int) -> list[str]:
    """The names of an indented block of ``- name`` or ``index: name`` lines."""
    listed: list[str] = []
    mapped: dict[int, str] = {}
    for number, text in enumerate(lines, first):
        body = _uncommented(text)
        if not body.strip():
            continue
        if not body[0].isspace() and not body.startswith("-"):
            break  # the next key (a list may also start at the key's indentation)
        item = body.strip()
        entry = _MAPPING_ENTRY.fullmatch(item)
        if item.startswith("- ") or item == "-":
            listed.append(_scalar(item[1:], path, number))
        elif entry is not None and len(entry[1]) <= 10:
            mapped[int(entry[1])] = _scalar(entry[2], path, number)
        else:
            raise InputFileError(
                path, f"line {number}: names: {item[:30]!r} is not '- name' or 'index: name'"
            )
    if listed and mapped:
        raise InputFileError(path, f"line {first}: names mixes '- name' and 'index: name' lines")
    if mapped and sorted(mapped) != list(range(len(mapped))):
        raise InputFileError(path, f"line {first}: names' indices must be 0, 1, 2, … without gaps")
    return listed or [mapped[k] for k in range(len(mapped))]


def _uncommented(text: str) -> str:
    """``text`` without a YAML comment (`` #`` outside quotes)."""
    quote = ""
    for k, character in enumerate(text):
        if quote:
            quote = "" if character == quote else quote
        elif character in "'\"":
            quote = character
        elif character == "#" and (k == 0 or text[k - 1].isspace()):
            return text[:k]
    return text


def _scalar(text: str, path: Path, line: int) -> str:
    """A YAML scalar: plain, ``'single'`` or ``"double"`` quoted."""
    value = text.strip()
    if value.startswith("'") and value.endswith("'") and len(value) > 1:
        return value[1:-1].replace("''", "'")
    if value.startswith('"'):
        try:
            found = json.loads(value)
        except json.JSONDecodeError:
            found = None
        if isinstance(found, str):
            return found
        raise InputFileError(path, f"line {line}: names: {value[:30]!r} is not a quoted name")
    if not value or value[0] in "[]{}&*!|>%@`":
        raise InputFileError(path, f"line {line}: names: {value[:30]!r} is not a class name")
    return value
