"""MOTChallenge boxes: CSV ``frame,id,x,y,w,h,conf,…`` (docs/measures.md §10, used by docs/measures.md §5).

No header (a first row starting with ``frame`` is skipped); blank lines are
ignored; columns after ``conf`` (world coordinates, or class and visibility) are
ignored, except that ground truth read for the MOTChallenge class rules
(``classes=True``) must hold a class id of
:data:`~referee.core.measures.box_rules.MOT_CLASSES` in its 8th column. Numbers are plain decimals (``12``, ``-3.5``, ``1e3``; no ``inf``,
``nan``, ``_`` or non-ASCII digits). Frames are whole numbers from 1 to
``MAX_FRAME_NUMBER``; ids whole numbers; ``x, y, w, h`` and ``conf`` may be
decimals and are kept as floats; ``w`` and ``h`` cannot be negative, and no
coordinate or size may exceed ``MAX_COORDINATE`` in absolute value; a frame has
at most ``MAX_BOXES_PER_FRAME`` rows (limits of :mod:`referee.core.limits`).
Every error names the file and the line. The whole file is one video; a file
without any row (empty, blank or a header only) is a video without boxes: a
detector that found nothing, or ground truth with no object (a
:class:`~referee.core.errors.RefereeWarning` says so). An id given twice on one
frame is read as two boxes, with a warning: the box measures do not use ids.
:func:`write_mot_csv` writes rows that read back identical.
"""

from __future__ import annotations

import math
import re
import warnings
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError, InvalidOptionError, RefereeWarning
from referee.core.formats.text_files import (
    DECIMAL_NUMBER,
    numbered_csv_rows,
    read_text,
    write_text,
)
from referee.core.limits import MAX_BOXES_PER_FRAME, MAX_COORDINATE, MAX_FRAME_NUMBER
from referee.core.measures.box_rules import MOT_CLASSES
from referee.core.measures.boxes import VideoBoxes, boxes_from_rows

COLUMNS: tuple[str, ...] = ("frame", "id", "x", "y", "w", "h", "conf")
_EXPECTED = "frame,id,x,y,w,h,conf,…"
#: Largest id in absolute value: ids up to 2**53 are exact after reading as a decimal.
MAX_ID = 2**53
_ROW = re.compile(",".join([DECIMAL_NUMBER.pattern] * len(COLUMNS)))


@dataclass(frozen=True, eq=False)
class MotRows:
    """The rows of one MOTChallenge file, as parallel arrays.

    Attributes
    ----------
    frames, ids
        ``int64`` ``(n,)``; frames are 1-based.
    boxes
        ``float64`` ``(n, 4)``: ``x, y, w, h`` in pixels.
    conf
        ``float64`` ``(n,)``: the confidence column as written.
    lines
        ``int64`` ``(n,)``: the line of the file each row comes from.
    classes
        ``int64`` ``(n,)``: the class column (8th), when it was read; else ``None``.
    """

    frames: np.ndarray
    ids: np.ndarray
    boxes: np.ndarray
    conf: np.ndarray
    lines: np.ndarray
    classes: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.frames)


def read_mot_csv(path: str | Path, min_conf: float | None = None, classes: bool = False) -> MotRows:
    """Read a MOTChallenge CSV file (docs/measures.md §10).

    Parameters
    ----------
    path
        The file.
    min_conf
        If given, rows with ``conf < min_conf`` are dropped (default: keep all).
    classes
        Also read the class column (8th), which every row must then hold.

    Raises
    ------
    InputFileError
        Unreadable file, too few columns, a cell that is not a number, a frame
        below 1, a negative width or height, or a value beyond the limits of
        :mod:`referee.core.limits`, or, with ``classes``, a row without a
        MOTChallenge class id; the message names the line.
    """
    return parse_mot_csv(read_text(path), path, min_conf, classes)


def parse_mot_csv(
    text: str, path: str | Path = "<text>", min_conf: float | None = None, classes: bool = False
) -> MotRows:
    """Parse the text of a MOTChallenge CSV; ``path`` only names it in errors.

    Rows are read one at a time into typed arrays (about 50 bytes a row).
    """
    frames, ids, lines, class_ids = array("q"), array("q"), array("q"), array("q")
    numbers = array("d")  # x, y, w, h, conf of each kept row
    per_frame: Counter[int] = Counter()
    first = True
    for line, row in numbered_csv_rows(text):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if first and cells[0].lower() == "frame":
            first = False
            continue
        first = False
        values = _parse_row(cells, path, line)
        frame = int(values[0])
        per_frame[frame] += 1
        if per_frame[frame] > MAX_BOXES_PER_FRAME:
            raise InputFileError(
                path,
                f"line {line}: frame {frame} has more than {MAX_BOXES_PER_FRAME:,} boxes, the "
                "most Referee reads on one frame (MAX_BOXES_PER_FRAME)",
            )
        if min_conf is not None and values[6] < min_conf:
            continue
        frames.append(frame)
        ids.append(int(values[1]))
        lines.append(line)
        numbers.extend(values[2:])
        if classes:
            class_ids.append(_class_id(cells, path, line))
    if not per_frame:
        warnings.warn(
            f"{path}: holds no box (it is empty, blank or a header only); read as a video "
            "where nothing was found",
            RefereeWarning,
            stacklevel=2,
        )
    table = np.array(numbers, dtype=np.float64).reshape(-1, 5)
    rows = MotRows(
        np.array(frames, dtype=np.int64),
        np.array(ids, dtype=np.int64),
        table[:, :4],
        table[:, 4],
        np.array(lines, dtype=np.int64),
        np.array(class_ids, dtype=np.int64) if classes else None,
    )
    _warn_repeated_ids(rows.frames, rows.ids, rows.lines, path)
    return rows


def read_mot_boxes(
    path: str | Path, min_conf: float | None = None, name: str | None = None, classes: bool = False
) -> VideoBoxes:
    """Per-frame boxes of a MOTChallenge file: one video named ``name`` (default: file stem).

    Boxes keep their track id and confidence; with ``classes``, their class (8th column)
    is their label, else they carry none.
    """
    rows = read_mot_csv(path, min_conf, classes)
    return mot_boxes(rows, name if name is not None else Path(path).stem)


def mot_boxes(rows: MotRows, name: str) -> VideoBoxes:
    """The rows of a MOTChallenge file as the per-frame boxes of one video, ``name``."""
    return boxes_from_rows(name, rows.frames, rows.boxes, rows.ids, rows.classes, rows.conf)


def format_mot_csv(rows: MotRows) -> str:
    """The text of a MOTChallenge file holding ``rows``, in their order (docs/measures.md §10).

    One line ``frame,id,x,y,w,h,conf,-1,-1,-1`` per row, no header. Each
    decimal is written with the fewest digits that read back as the same float
    (a whole number without ``.0``), so :func:`parse_mot_csv` gives identical arrays.

    Raises
    ------
    InvalidOptionError
        A box or confidence that is not a finite number (no file could hold it).
    """
    numbers = np.column_stack([rows.boxes, rows.conf])
    if not np.all(np.isfinite(numbers)):
        row = int(np.flatnonzero(~np.all(np.isfinite(numbers), axis=1))[0])
        raise InvalidOptionError(
            f"row {row} (frame {rows.frames[row]}, id {rows.ids[row]}) holds a value that "
            "is not a finite number; MOTChallenge files hold finite decimals only"
        )
    return "".join(
        f"{frame},{track_id},{','.join(map(_decimal_text, values))},-1,-1,-1\n"
        for frame, track_id, values in zip(
            rows.frames.tolist(), rows.ids.tolist(), numbers.tolist()
        )
    )


def write_mot_csv(path: str | Path, rows: MotRows) -> None:
    """Write ``rows`` to the MOTChallenge file ``path`` atomically (see :func:`format_mot_csv`).

    Raises
    ------
    InputFileError
        The file cannot be written (see :func:`~referee.core.formats.text_files.write_bytes`).
    """
    write_text(path, format_mot_csv(rows))


def _decimal_text(value: float) -> str:
    """The shortest text that reads back as ``value``: ``repr``, a trailing ``.0`` dropped."""
    return repr(value).removesuffix(".0")


def _parse_row(cells: Sequence[str], path: str | Path, line: int) -> list[float]:
    """The seven numbers of a row, checked: ``frame, id, x, y, w, h, conf``."""
    if len(cells) < len(COLUMNS):
        raise InputFileError(
            path,
            f"line {line}: {len(cells)} columns, expected at least {len(COLUMNS)}: {_EXPECTED}",
        )
    head = cells[: len(COLUMNS)]
    values = [float(cell) for cell in head] if _ROW.fullmatch(",".join(head)) else []
    if len(values) != len(COLUMNS) or not all(map(math.isfinite, values)):
        values = [_number(cell, name, path, line) for cell, name in zip(head, COLUMNS)]
    for k, name in enumerate(COLUMNS[:2]):
        if not values[k].is_integer():
            raise InputFileError(
                path, f"line {line}: {name} is {_shown(cells[k])}, not a whole number"
            )
    if values[0] < 1:
        raise InputFileError(
            path, f"line {line}: frame is {cells[0]}; MOTChallenge frames start at 1"
        )
    if values[0] > MAX_FRAME_NUMBER:
        raise InputFileError(
            path,
            f"line {line}: frame is {_shown(cells[0])}, beyond {MAX_FRAME_NUMBER:,}, the largest "
            "frame number Referee reads (MAX_FRAME_NUMBER)",
        )
    if abs(values[1]) > MAX_ID:
        raise InputFileError(
            path,
            f"line {line}: id is {_shown(cells[1])}; ids are whole numbers up to 2**53 in size",
        )
    for k in range(2, 6):
        if k >= 4 and values[k] < 0:
            raise InputFileError(
                path,
                f"line {line}: {COLUMNS[k]} is {cells[k]}; box width and height cannot be negative",
            )
        if abs(values[k]) > MAX_COORDINATE:
            raise InputFileError(
                path,
                f"line {line}: {COLUMNS[k]} is {_shown(cells[k])}, beyond {MAX_COORDINATE:,} "
                "pixels, the largest box coordinate or size Referee reads (MAX_COORDINATE)",
            )
    return values


def _class_id(cells: Sequence[str], path: str | Path, line: int) -> int:
    """The class id of a ground-truth row (8th column), checked."""
    known = f"{min(MOT_CLASSES)} to {max(MOT_CLASSES)}"
    if len(cells) <= len(COLUMNS):
        raise InputFileError(
            path,
            f"line {line}: {len(cells)} columns, but the MOTChallenge class rules read the "
            f"class in the 8th: frame,id,x,y,w,h,conf,class,…",
        )
    cell = cells[len(COLUMNS)]
    value = _number(cell, "class", path, line)
    if not value.is_integer() or int(value) not in MOT_CLASSES:
        raise InputFileError(
            path, f"line {line}: class is {_shown(cell)}, not a MOTChallenge class ({known})"
        )
    return int(value)


def _warn_repeated_ids(
    frames: np.ndarray, ids: np.ndarray, lines: np.ndarray, path: str | Path
) -> None:
    """Warn about the first row whose id is already on its frame (both boxes are kept)."""
    order = np.lexsort((lines, ids, frames))
    repeated = np.flatnonzero((np.diff(frames[order]) == 0) & (np.diff(ids[order]) == 0))
    if len(repeated) == 0:
        return
    first, again = order[repeated], order[repeated + 1]
    k = int(np.argmin(lines[again]))
    warnings.warn(
        f"{path}: line {lines[again[k]]}: id {ids[again[k]]} appears twice on frame "
        f"{frames[again[k]]} (first on line {lines[first[k]]}); both boxes are read, as the "
        "box measures do not use ids",
        RefereeWarning,
        stacklevel=3,
    )


def _number(cell: str, name: str, path: str | Path, line: int) -> float:
    if not DECIMAL_NUMBER.fullmatch(cell):
        raise InputFileError(
            path, f"line {line}: {name} is {_shown(cell)}, not a number; expected {_EXPECTED}"
        )
    value = float(cell)
    if not math.isfinite(value):
        raise InputFileError(path, f"line {line}: {name} is {_shown(cell)}, far too large")
    return value


def _shown(cell: str) -> str:
    """A cell as quoted in messages: empty, or its first 30 characters."""
    if not cell:
        return "empty"
    return repr(cell) if len(cell) <= 30 else repr(cell[:30]) + "…"
