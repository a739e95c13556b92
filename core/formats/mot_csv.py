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
frame is read as two boxes, with a warning: the per-frame box measures do not use ids
(the tracking measures, which do, are then left out).
:func:`write_mot_csv` writes rows that read back identical;
:func:`updated_mot_csv` rewrites a file Referee read, keeping every row that did
not change as it was.
"""

from __future__ import annotations

import bisect
import math
import re
import warnings
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError, InvalidOptionError, RefereeWarning
from referee.core.formats.text_edits import (
    Record,
    csv_records,
    encoded_like,
    joined,
    line_ending,
    text_from_cell,
    with_cells,
)
from referee.core.formats.text_files import (
    DECIMAL_NUMBER,
    decode_text,
    numbered_csv_rows,
    read_text,
    write_text,
)
from referee.core.limits import MAX_BOXES_PER_FRAME, MAX_COORDINATE, MAX_FRAME_NUMBER
from referee.core.measures.box_rules import MOT_CLASSES
from referee.core.measures.boxes import VideoBoxes, boxes_from_rows
from referee.core.model.tracks import MAX_ID

COLUMNS: tuple[str, ...] = ("frame", "id", "x", "y", "w", "h", "conf")
_EXPECTED = "frame,id,x,y,w,h,conf,…"
_ROW = re.compile(",".join([DECIMAL_NUMBER.pattern] * len(COLUMNS)))
#: One cell of a plain row: a decimal number, spaces or tabs around it.
_CELL = rf"[ \t]*{DECIMAL_NUMBER.pattern}[ \t]*"
#: Columns after ``conf`` of a new row whose id the file does not have, by the file's
#: number of columns (that of its first row, else of its header, else 10): 9 (MOT16/17/20
#: ground truth ``class,visibility``) gets ``1,1``, a pedestrian fully visible; any other
#: count gets ``-1`` in each (MOTChallenge's "unknown", as in the 10 columns of MOT15).
NEW_ID_COLUMNS: dict[int, str] = {9: ",1,1"}


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

    A file whose every line is plain numbers that pass every check is read at once
    (:func:`_clean_rows`); any other is read row by row (:func:`_rows_one_by_one`),
    which says what is wrong and where. Both give the same rows.
    """
    rows = _clean_rows(text, min_conf, classes)
    if rows is None:
        rows = _rows_one_by_one(text, path, min_conf, classes)
    _warn_repeated_ids(rows.frames, rows.ids, rows.lines, path)
    return rows


def _clean_rows(text: str, min_conf: float | None, classes: bool) -> MotRows | None:
    """The rows of a file of plain numbers (same column count on every line, blank lines
    and a ``frame`` header allowed) that pass every check of :func:`_parse_row`, read
    with NumPy in one go; ``None`` for any other file."""
    lines = [(n, line.rstrip("\r")) for n, line in enumerate(text.split("\n"), start=1)]
    body = [(n, line) for n, line in lines if line.strip()]
    if body and body[0][1].split(",", 1)[0].strip().lower() == "frame":
        body = body[1:]
    if not body:
        return None
    width = body[0][1].count(",") + 1
    if width < len(COLUMNS) or (classes and width <= len(COLUMNS)):
        return None
    row = re.compile(",".join([_CELL] * width))
    if not all(row.fullmatch(line) for _, line in body):
        return None
    cells = ",".join(line for _, line in body).split(",")
    table = np.array(cells, dtype=np.float64).reshape(len(body), width)
    frames, ids, boxes = table[:, 0], table[:, 1], table[:, 2:6]
    if not (
        np.isfinite(table[:, : len(COLUMNS)]).all()
        and np.array_equal(frames, np.floor(frames))
        and np.array_equal(ids, np.floor(ids))
        and np.min(frames) >= 1
        and np.max(frames) <= MAX_FRAME_NUMBER
        and np.abs(ids).max() <= MAX_ID
        and np.min(boxes[:, 2:]) >= 0
        and np.abs(boxes).max() <= MAX_COORDINATE
        and np.max(np.unique(frames, return_counts=True)[1]) <= MAX_BOXES_PER_FRAME
    ):
        return None
    class_ids = table[:, len(COLUMNS)] if classes else None
    if class_ids is not None and not np.isin(class_ids, list(MOT_CLASSES)).all():
        return None
    kept = slice(None) if min_conf is None else table[:, 6] >= min_conf
    numbers = np.array([n for n, _ in body], dtype=np.int64)
    return MotRows(
        frames[kept].astype(np.int64),
        ids[kept].astype(np.int64),
        np.ascontiguousarray(boxes[kept]),
        np.ascontiguousarray(table[kept, 6]),
        numbers[kept],
        None if class_ids is None else class_ids[kept].astype(np.int64),
    )


def _rows_one_by_one(text: str, path: str | Path, min_conf: float | None, classes: bool) -> MotRows:
    """The rows of any file, read and checked one at a time into typed arrays (about 50
    bytes a row); the first problem raises :class:`InputFileError` naming its line."""
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
    return MotRows(
        np.array(frames, dtype=np.int64),
        np.array(ids, dtype=np.int64),
        table[:, :4],
        table[:, 4],
        np.array(lines, dtype=np.int64),
        np.array(class_ids, dtype=np.int64) if classes else None,
    )


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
    """The text of a new MOTChallenge file holding ``rows``, in their order (docs/measures.md §10).

    One line ``frame,id,x,y,w,h,conf,-1,-1,-1`` per row, no header. Each
    decimal is written with the fewest digits that read back as the same float
    (a whole number without ``.0``), so :func:`parse_mot_csv` gives identical arrays.
    :func:`updated_mot_csv` rewrites an existing file instead.

    Raises
    ------
    InvalidOptionError
        A box or confidence that is not a finite number (no file could hold it).
    """
    numbers = _finite_numbers(rows)
    return "".join(
        f"{_first_cells(frame, track_id, values)},-1,-1,-1\n"
        for frame, track_id, values in zip(
            rows.frames.tolist(), rows.ids.tolist(), numbers.tolist()
        )
    )


def updated_mot_csv(
    original: bytes | None, rows: MotRows, path: str | Path = "<original>"
) -> bytes:
    """The content of the MOTChallenge file ``original`` holding ``rows`` instead (docs/measures.md §10).

    A row is known by its ``(frame, id)``. A row of ``original`` whose box and
    confidence are unchanged is written as it was; a changed one gets its new
    values in those cells and keeps every other character (class, visibility,
    world coordinates…); a row not in ``rows`` is dropped. Header, blank
    lines, line endings and a byte-order mark are kept. New rows follow the
    file's order when it is sorted by ``(frame, id)`` or by ``(id, frame)``,
    else come after its last row, by frame then id. A new row of an id of the
    file takes the columns after ``conf`` of that id's nearest row in frame
    (the earlier on a tie), a row of a new id :data:`NEW_ID_COLUMNS`. Without
    ``original`` (a new file) this is :func:`format_mot_csv`.

    Parameters
    ----------
    original
        The file's bytes as read, or ``None``.
    rows
        Every row the file should hold, at most one per ``(frame, id)``; ``lines``
        is not used.
    path
        Names ``original`` in errors.

    Raises
    ------
    InvalidOptionError
        A value that is not finite, or an id twice on one frame of ``rows``.
    InputFileError
        ``original`` is not a MOTChallenge file, or holds an id twice on one frame.
    """
    numbers = _finite_numbers(rows)
    _, again = _repeats(rows.frames, rows.ids, np.arange(len(rows)))
    if len(again):
        raise InvalidOptionError(
            f"id {rows.ids[again[0]]} has two boxes on frame {rows.frames[again[0]]}; "
            "a MOTChallenge file holds one box per id and frame"
        )
    if original is None:
        return format_mot_csv(rows).encode("utf-8")
    records, old, at = _original_rows(original, path)
    old_row = {key: i for i, key in enumerate(zip(old.frames.tolist(), old.ids.tolist()))}
    match = np.array(
        [old_row.get(key, -1) for key in zip(rows.frames.tolist(), rows.ids.tolist())],
        dtype=np.int64,
    )  # the old row of each row, -1 for a new one
    pieces = [record.text for record in records]
    for i in sorted(set(range(len(old))) - set(match.tolist())):
        pieces[at[i]] = ""
    same = np.flatnonzero(match >= 0)
    changed = np.column_stack([old.boxes, old.conf])[match[same]] != numbers[same]
    for j, cells in zip(same.tolist(), changed.tolist()):
        if any(cells):
            i = int(match[j])
            new_cells = {2 + k: _decimal_text(float(numbers[j, k])) for k in range(5) if cells[k]}
            pieces[at[i]] = with_cells(records[at[i]], new_cells)
    new = np.flatnonzero(match < 0).tolist()
    ending = line_ending(records)
    extras = _extra_columns(old, records, at)
    for anchor, added in sorted(_placed(old, at, len(records), rows, new).items(), reverse=True):
        pieces.insert(
            anchor + 1,
            "".join(
                f"{_first_cells(rows.frames[j], rows.ids[j], numbers[j].tolist())}"
                f"{extras(int(rows.frames[j]), int(rows.ids[j]))}{ending}"
                for j in added
            ),
        )
    return encoded_like(joined(pieces, ending), original)


def _original_rows(original: bytes, path: str | Path) -> tuple[list[Record], MotRows, list[int]]:
    """The records of ``original``, its rows, and the record of each row; an id twice on
    one frame is refused."""
    records, plain = csv_records(decode_text(original, path, keep_endings=True))
    with warnings.catch_warnings():  # the reader warned when the file was first read
        warnings.simplefilter("ignore", RefereeWarning)
        old = parse_mot_csv(plain, path)
    first, again = _repeats(old.frames, old.ids, old.lines)
    if len(again):
        k = int(np.argmin(old.lines[again]))
        raise InputFileError(
            path,
            f"line {old.lines[again[k]]}: id {old.ids[again[k]]} appears twice on frame "
            f"{old.frames[again[k]]} (first on line {old.lines[first[k]]}); give each id at "
            "most one box per frame to rewrite the file",
        )
    place = {record.line: k for k, record in enumerate(records)}
    return records, old, [place[line] for line in old.lines.tolist()]


def _extra_columns(old: MotRows, records: list[Record], at: list[int]) -> Callable[[int, int], str]:
    """``(frame, id) →`` the text after ``conf`` of a new row (see :func:`updated_mot_csv`);
    ``records[at[i]]`` is old row ``i``'s."""
    sample = records[at[0]] if at else next((r for r in records if not r.blank), None)
    columns = len(sample.cells) if sample is not None else 10
    default = NEW_ID_COLUMNS.get(columns, ",-1" * max(columns - len(COLUMNS), 0))
    order = np.lexsort((old.frames, old.ids))
    ids, frames = old.ids[order], old.frames[order]

    def extras(frame: int, track_id: int) -> str:
        low, high = np.searchsorted(ids, [track_id, track_id + 1]).tolist()
        if low == high:
            return default
        span = frames[low:high]
        k = int(np.searchsorted(span, frame))
        if k == len(span) or (k > 0 and frame - span[k - 1] <= span[k] - frame):
            k -= 1
        nearest = records[at[int(order[low + k])]]
        rest = text_from_cell(nearest, len(COLUMNS))
        return f",{rest}" if len(nearest.cells) > len(COLUMNS) else ""

    return extras


def _placed(
    old: MotRows, at: list[int], n_records: int, rows: MotRows, new: list[int]
) -> dict[int, list[int]]:
    """Where the new rows ``rows[new]`` go: the record after which (``-1``: the start) → rows.

    ``at[i]`` is the record of old row ``i``; see :func:`updated_mot_csv`.
    """
    if not new:
        return {}
    by_frame = [(int(rows.frames[j]), int(rows.ids[j]), j) for j in new]
    if not len(old):
        return {n_records - 1: [j for *_, j in sorted(by_frame)]}
    frame_first = list(zip(old.frames.tolist(), old.ids.tolist()))
    id_first = [(b, a) for a, b in frame_first]
    placed: dict[int, list[int]] = {}
    for keys, swap in ((frame_first, False), (id_first, True)):
        if all(a < b for a, b in pairwise(keys)):
            for frame, track_id, j in sorted(by_frame, key=lambda r: r[1::-1] if swap else r):
                k = bisect.bisect_left(keys, (track_id, frame) if swap else (frame, track_id))
                placed.setdefault(at[k - 1] if k else at[0] - 1, []).append(j)
            return placed
    return {at[-1]: [j for *_, j in sorted(by_frame)]}


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


def _first_cells(frame: int, track_id: int, values: Sequence[float]) -> str:
    """``frame,id,x,y,w,h,conf`` of one row (``values``: the last five)."""
    return f"{frame},{track_id},{','.join(map(_decimal_text, values))}"


def _finite_numbers(rows: MotRows) -> np.ndarray:
    """``x, y, w, h, conf`` of every row, ``(n, 5)``, refusing a value that is not finite."""
    numbers = np.column_stack([rows.boxes, rows.conf])
    if not np.all(np.isfinite(numbers)):
        row = int(np.flatnonzero(~np.all(np.isfinite(numbers), axis=1))[0])
        raise InvalidOptionError(
            f"row {row} (frame {rows.frames[row]}, id {rows.ids[row]}) holds a value that "
            "is not a finite number; MOTChallenge files hold finite decimals only"
        )
    return numbers


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


def _repeats(
    frames: np.ndarray, ids: np.ndarray, lines: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Rows whose id is already on their frame (``again``) and the row before them there
    (``first``), by ``lines`` within a frame and id."""
    order = np.lexsort((lines, ids, frames))
    repeated = np.flatnonzero((np.diff(frames[order]) == 0) & (np.diff(ids[order]) == 0))
    return order[repeated], order[repeated + 1]


def _warn_repeated_ids(
    frames: np.ndarray, ids: np.ndarray, lines: np.ndarray, path: str | Path
) -> None:
    """Warn about the first row whose id is already on its frame (both boxes are kept)."""
    first, again = _repeats(frames, ids, lines)
    if len(again) == 0:
        return
    k = int(np.argmin(lines[again]))
    warnings.warn(
        f"{path}: line {lines[again[k]]}: id {ids[again[k]]} appears twice on frame "
        f"{frames[again[k]]} (first on line {lines[first[k]]}); both boxes are read, as the "
        "per-frame box measures do not use ids",
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
