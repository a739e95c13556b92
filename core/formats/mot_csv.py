"""MOTChallenge boxes: CSV ``frame,id,x,y,w,h,conf,…`` (docs/measures.md §10, used by docs/measures.md §5).

No header (a first row starting with ``frame`` is skipped); blank lines are
ignored; columns after ``conf`` (world coordinates, class, visibility) are
ignored. Frames are 1-based whole numbers; ids whole numbers; ``x, y, w, h``
and ``conf`` may be decimals and are kept as floats; ``w`` and ``h`` cannot be
negative. Every error names the file and the line. The whole file is one video.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError
from referee.core.formats.text_files import numbered_csv_rows, read_text
from referee.core.measures.boxes import VideoBoxes, boxes_from_rows

COLUMNS: tuple[str, ...] = ("frame", "id", "x", "y", "w", "h", "conf")
_EXPECTED = "frame,id,x,y,w,h,conf,…"


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
    """

    frames: np.ndarray
    ids: np.ndarray
    boxes: np.ndarray
    conf: np.ndarray
    lines: np.ndarray

    def __len__(self) -> int:
        return len(self.frames)


def read_mot_csv(path: str | Path, min_conf: float | None = None) -> MotRows:
    """Read a MOTChallenge CSV file (docs/measures.md §10).

    Parameters
    ----------
    path
        The file.
    min_conf
        If given, rows with ``conf < min_conf`` are dropped (default: keep all).

    Raises
    ------
    InputFileError
        Unreadable file, too few columns, a cell that is not a number, a frame
        below 1, or a negative width or height; the message names the line.
    """
    return parse_mot_csv(read_text(path), path, min_conf)


def parse_mot_csv(text: str, path: str | Path = "<text>", min_conf: float | None = None) -> MotRows:
    """Parse the text of a MOTChallenge CSV; ``path`` only names it in errors."""
    frames, ids, boxes, conf, lines = [], [], [], [], []
    first = True
    for line, row in numbered_csv_rows(text):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if first and cells[0].lower() == "frame":
            first = False
            continue
        first = False
        frame, identity, box, score = _parse_row(cells, path, line)
        if min_conf is not None and score < min_conf:
            continue
        frames.append(frame)
        ids.append(identity)
        boxes.append(box)
        conf.append(score)
        lines.append(line)
    return MotRows(
        np.array(frames, dtype=np.int64),
        np.array(ids, dtype=np.int64),
        np.array(boxes, dtype=np.float64).reshape(-1, 4),
        np.array(conf, dtype=np.float64),
        np.array(lines, dtype=np.int64),
    )


def read_mot_boxes(
    path: str | Path, min_conf: float | None = None, name: str | None = None
) -> VideoBoxes:
    """Per-frame boxes of a MOTChallenge file: one video named ``name`` (default: file stem).

    Boxes keep their track id; they carry no class label.
    """
    rows = read_mot_csv(path, min_conf)
    return boxes_from_rows(
        name if name is not None else Path(path).stem, rows.frames, rows.boxes, ids=rows.ids
    )


def _parse_row(
    cells: Sequence[str], path: str | Path, line: int
) -> tuple[int, int, tuple[float, float, float, float], float]:
    if len(cells) < len(COLUMNS):
        raise InputFileError(
            path,
            f"line {line}: {len(cells)} columns, expected at least {len(COLUMNS)}: {_EXPECTED}",
        )
    values = [_number(cells[k], name, path, line) for k, name in enumerate(COLUMNS)]
    frame = _whole(values[0], cells[0], "frame", path, line)
    if frame < 1:
        raise InputFileError(path, f"line {line}: frame is {frame}; MOTChallenge frames start at 1")
    identity = _whole(values[1], cells[1], "id", path, line)
    x, y, w, h = values[2:6]
    for name, size in (("w", w), ("h", h)):
        if size < 0:
            raise InputFileError(
                path,
                f"line {line}: {name} is {cells[COLUMNS.index(name)]}; "
                "box width and height cannot be negative",
            )
    return frame, identity, (x, y, w, h), values[6]


def _number(cell: str, name: str, path: str | Path, line: int) -> float:
    try:
        value = float(cell)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        shown = repr(cell) if cell else "empty"
        raise InputFileError(
            path, f"line {line}: {name} is {shown}, not a number; expected {_EXPECTED}"
        )
    return value


def _whole(value: float, cell: str, name: str, path: str | Path, line: int) -> int:
    if not float(value).is_integer():
        raise InputFileError(path, f"line {line}: {name} is {cell!r}, not a whole number")
    return int(value)
