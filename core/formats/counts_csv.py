"""Counts per frame as CSV: ``frame,count`` (docs/measures.md §10, used by docs/measures.md §6).

The header row is required; column names are case-insensitive, in any order,
each once, and other columns are ignored. Frames are whole numbers from 0 to
``MAX_FRAME_NUMBER``, listed in order and consecutive: a gap, a duplicate or a
frame out of order is an error naming the file, the line and the frame. Counts
are whole numbers from 0 to ``MAX_COUNT`` (:mod:`referee.core.limits`), written
with ASCII digits. Blank lines are ignored. :func:`updated_counts_csv` rewrites a
file Referee read, changing only the count cells that changed.
"""

from __future__ import annotations

import csv
import io
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError, RefereeError
from referee.core.formats.text_edits import (
    csv_records,
    encoded_like,
    joined,
    line_ending,
    with_cells,
)
from referee.core.formats.text_files import (
    WHOLE_NUMBER,
    decode_text,
    header_columns,
    numbered_csv_rows,
    parse_count,
    read_text,
    write_text,
)
from referee.core.limits import MAX_COUNT, MAX_FRAME_NUMBER

HEADER: tuple[str, str] = ("frame", "count")
_EXPECTED = "a header 'frame,count' and one row per frame"


@dataclass(frozen=True, eq=False)
class CountSeries:
    """Counts of consecutive frames ``first_frame, first_frame+1, …``.

    Attributes
    ----------
    first_frame
        Frame number of ``counts[0]``.
    counts
        ``int64`` array, one count per frame.
    path
        The file it was read from (for messages), or ``None``.
    """

    first_frame: int
    counts: np.ndarray
    path: Path | None = None

    @property
    def last_frame(self) -> int:
        return self.first_frame + len(self.counts) - 1

    def __len__(self) -> int:
        return len(self.counts)


def read_counts_csv(path: str | Path) -> CountSeries:
    """Read a ``frame,count`` CSV (docs/measures.md §10).

    Raises
    ------
    InputFileError
        Unreadable or empty file, missing column, a frame or count that is not a
        non-negative whole number, or frames that are not consecutive (naming
        the line and the missing, repeated or misplaced frame).
    """
    series = parse_counts_csv(read_text(path), path)
    return CountSeries(series.first_frame, series.counts, Path(path))


def parse_counts_csv(text: str, path: str | Path = "<text>") -> CountSeries:
    """Parse the text of a counts CSV; ``path`` only names it in errors.

    Rows are read one at a time; a row holding the expected next frame and a
    plain count takes the fast way, any other is checked in full.
    """
    rows = ((n, row) for n, row in numbered_csv_rows(text) if any(c.strip() for c in row))
    header_line, header = next(rows, (0, []))
    if not header:
        raise InputFileError(path, f"empty file; expected {_EXPECTED}")
    columns = header_columns(header, path, header_line)
    for name in HEADER:
        if name not in columns:
            raise InputFileError(
                path, f"line {header_line}: missing column {name!r}; expected {_EXPECTED}"
            )
    first = -1
    counts, lines = array("q"), array("q")
    for line, row in rows:
        cell = _cell(row, columns["frame"])
        if first < 0 or cell != str(first + len(counts)):
            frame = _parse_frame(cell, path, line)
            first = frame if first < 0 else first
            if frame != first + len(counts):
                raise InputFileError(path, _order_problem(frame, first, lines, line))
        cell = _cell(row, columns["count"])
        plain = cell.isascii() and cell.isdigit() and len(cell) < len(str(MAX_COUNT))
        counts.append(int(cell) if plain else parse_count(cell, "count", path, line))
        lines.append(line)
    if not counts:
        raise InputFileError(path, f"no rows after the header on line {header_line}")
    return CountSeries(first, np.array(counts, dtype=np.int64))


def _order_problem(frame: int, first: int, lines: array[int], line: int) -> str:
    """Why ``frame`` on ``line`` does not follow frames ``first…`` on ``lines``."""
    previous = first + len(lines) - 1
    if first <= frame <= previous:
        return (
            f"line {line}: frame {frame} appears twice (first on line "
            f"{lines[frame - first]}); keep one row per frame"
        )
    if frame < previous:
        return (
            f"line {line}: frame {frame} comes after frame {previous}; list frames "
            "in increasing order"
        )
    missing = (
        f"frame {previous + 1} is missing"
        if frame == previous + 2
        else f"frames {previous + 1}–{frame - 1} are missing"
    )
    return (
        f"line {line}: frame {frame} follows frame {previous}: {missing}; give one row "
        "for every frame"
    )


def _parse_frame(cell: str, path: str | Path, line: int) -> int:
    shown = cell if len(cell) <= 30 else cell[:30] + "…"
    if not WHOLE_NUMBER.fullmatch(cell):
        raise InputFileError(
            path, f"line {line}: frame is {repr(shown) if cell else 'empty'}, not a whole number"
        )
    if cell.startswith("-") and cell.strip("-0"):
        raise InputFileError(
            path, f"line {line}: frame is {shown}; frame numbers cannot be negative"
        )
    digits = cell.lstrip("+-").lstrip("0") or "0"
    if len(digits) > len(str(MAX_FRAME_NUMBER)) or int(digits) > MAX_FRAME_NUMBER:
        raise InputFileError(
            path,
            f"line {line}: frame is {shown}, beyond {MAX_FRAME_NUMBER:,}, the largest frame "
            "number Referee reads (MAX_FRAME_NUMBER)",
        )
    return int(digits)


def _cell(row: Sequence[str], index: int) -> str:
    return row[index].strip() if index < len(row) else ""


def check_same_frames(gt: CountSeries, estimate: CountSeries) -> None:
    """Raise unless both series cover the same frames.

    Raises
    ------
    RefereeError
        Naming both files and their frame ranges.
    """
    if gt.first_frame != estimate.first_frame or len(gt) != len(estimate):
        raise RefereeError(
            f"{_name(gt, 'ground truth')} covers frames {gt.first_frame}–{gt.last_frame} but "
            f"{_name(estimate, 'estimate')} covers frames {estimate.first_frame}–"
            f"{estimate.last_frame}; both must list the same frames"
        )


def read_counts_pair(
    gt_path: str | Path, estimate_path: str | Path
) -> tuple[CountSeries, CountSeries]:
    """Read ground-truth and estimated counts and check they cover the same frames."""
    gt, estimate = read_counts_csv(gt_path), read_counts_csv(estimate_path)
    check_same_frames(gt, estimate)
    return gt, estimate


def _name(series: CountSeries, fallback: str) -> str:
    return str(series.path) if series.path is not None else f"the {fallback}"


def format_counts_csv(first_frame: int, counts: Sequence[int] | np.ndarray) -> str:
    """The CSV text ``frame,count`` for counts of consecutive frames from ``first_frame``
    (a new file; :func:`updated_counts_csv` rewrites an existing one)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for k, count in enumerate(counts):
        writer.writerow([first_frame + k, int(count)])
    return out.getvalue()


def write_counts_csv(
    path: str | Path, first_frame: int, counts: Sequence[int] | np.ndarray
) -> None:
    """Write counts of consecutive frames to ``path`` (atomically)."""
    write_text(path, format_counts_csv(first_frame, counts))


def updated_counts_csv(
    original: bytes | None, series: CountSeries, path: str | Path = "<original>"
) -> bytes:
    """The content of the counts file ``original`` holding ``series`` instead (docs/measures.md §10).

    A row is known by its frame. A row whose count is unchanged is written as
    it was; a changed one gets the new count in its count cell, every other
    character kept; a row of a frame ``series`` does not cover is dropped.
    Frames added before the file's first or after its last row get a new line
    in the header's layout (frame and count in their columns, other columns
    empty). Header, blank lines, line endings and a byte-order mark are kept.
    Without ``original`` (a new file) this is :func:`format_counts_csv`.

    Raises
    ------
    InputFileError
        ``original`` is not a counts file (see :func:`parse_counts_csv`).
    """
    if original is None:
        return format_counts_csv(series.first_frame, series.counts).encode("utf-8")
    records, plain = csv_records(decode_text(original, path, keep_endings=True))
    old = parse_counts_csv(plain, path)
    header, *rows = [k for k, record in enumerate(records) if not record.blank]
    columns = header_columns(records[header].cells, path, records[header].line)
    frame_cell, count_cell = columns["frame"], columns["count"]
    pieces = [record.text for record in records]
    for k, at in enumerate(rows):
        frame = old.first_frame + k
        count = int(old.counts[k])
        if not series.first_frame <= frame <= series.last_frame:
            pieces[at] = ""
        elif (new := int(series.counts[frame - series.first_frame])) != count:
            pieces[at] = with_cells(records[at], {count_cell: str(new)})
    ending = line_ending(records)
    width = len(records[header].cells)

    def new_lines(first: int, last: int) -> str:
        """The lines of frames ``first..last`` in the header's layout."""
        cells = [""] * width
        out = []
        for frame in range(first, last + 1):
            cells[frame_cell] = str(frame)
            cells[count_cell] = str(int(series.counts[frame - series.first_frame]))
            out.append(",".join(cells) + ending)
        return "".join(out)

    last = series.last_frame
    pieces.insert(rows[-1] + 1, new_lines(max(series.first_frame, old.last_frame + 1), last))
    pieces.insert(rows[0], new_lines(series.first_frame, min(last, old.first_frame - 1)))
    return encoded_like(joined(pieces, ending), original)
