"""Frames to annotate next, as CSV: ``rank,video,frame,score,criterion`` (docs/measures.md §8).

One row per ranked frame, in rank order, after a header row. ``video`` is
the video's label (``category/video`` for CDnet), ``score`` the frame's
disagreement written with every digit a float needs to read back exactly,
``criterion`` what the score is (e.g. ``vote-entropy`` or ``pairwise-dice:
mog2 vs knn``); text that a spreadsheet would run as a formula is written
with a leading apostrophe, which reading removes. Reading accepts the
columns in any order and any case, ignores other columns and blank lines,
and requires ranks to be whole numbers >= 1 that increase down the file.

No measure is computed here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path

from referee.core.errors import InputFileError
from referee.core.formats.text_files import (
    format_csv,
    numbered_csv_rows,
    read_text,
    restore_formula,
    write_text,
)
from referee.core.ranking.order import RankedFrame

HEADER: tuple[str, ...] = ("rank", "video", "frame", "score", "criterion")
_EXPECTED = "a header 'rank,video,frame,score,criterion' and one row per ranked frame"


def format_ranking_csv(ranking: Iterable[RankedFrame]) -> str:
    """The CSV text of a ranking (header included)."""
    lines: list[Sequence[object]] = [HEADER]
    for entry in ranking:
        lines.append(
            [entry.rank, entry.video, entry.frame, repr(float(entry.score)), entry.criterion]
        )
    return format_csv(lines)


def write_ranking_csv(path: str | Path, ranking: Iterable[RankedFrame]) -> None:
    """Write a ranking to ``path`` atomically (see :func:`format_ranking_csv`)."""
    write_text(path, format_ranking_csv(ranking))


def read_ranking_csv(path: str | Path) -> list[RankedFrame]:
    """Read a ranking written by :func:`write_ranking_csv` (or by hand).

    Raises
    ------
    InputFileError
        Unreadable or empty file, a missing column, or a cell that is not what
        its column needs, naming the line.
    """
    return parse_ranking_csv(read_text(path), path)


def parse_ranking_csv(text: str, path: str | Path = "<text>") -> list[RankedFrame]:
    """Parse the text of a ranking CSV; ``path`` only names it in errors."""
    rows = [(n, row) for n, row in numbered_csv_rows(text) if any(c.strip() for c in row)]
    if not rows:
        raise InputFileError(path, f"empty file; expected {_EXPECTED}")
    header_line, header = rows[0]
    columns = {name.strip().lower(): i for i, name in enumerate(header)}
    for name in HEADER:
        if name not in columns:
            raise InputFileError(
                path, f"line {header_line}: missing column {name!r}; expected {_EXPECTED}"
            )
    out: list[RankedFrame] = []
    for line, row in rows[1:]:
        cells = {
            name: row[i].strip() if i < len(row) else ""
            for name, i in columns.items()
            if name in HEADER
        }
        rank = _whole(cells["rank"], "rank", 1, path, line)
        if out and rank <= out[-1].rank:
            raise InputFileError(
                path,
                f"line {line}: rank {rank} follows rank {out[-1].rank}; "
                "ranks must increase down the file",
            )
        frame = _whole(cells["frame"], "frame", 0, path, line)
        score = _score(cells["score"], path, line)
        if not cells["criterion"]:
            raise InputFileError(
                path,
                f"line {line}: criterion is empty; say what the score "
                "measures, e.g. 'vote-entropy'",
            )
        video, criterion = restore_formula(cells["video"]), restore_formula(cells["criterion"])
        out.append(RankedFrame(rank, video, frame, score, criterion))
    return out


def _whole(text: str, name: str, low: int, path: str | Path, line: int) -> int:
    try:
        value = int(text)
    except ValueError:
        shown = repr(text) if text else "empty"
        raise InputFileError(path, f"line {line}: {name} is {shown}, not a whole number") from None
    if value < low:
        raise InputFileError(path, f"line {line}: {name} is {value}; it must be >= {low}")
    return value


def _score(text: str, path: str | Path, line: int) -> float:
    try:
        value = float(text)
    except ValueError:
        shown = repr(text) if text else "empty"
        raise InputFileError(path, f"line {line}: score is {shown}, not a number") from None
    if not math.isfinite(value):
        raise InputFileError(path, f"line {line}: score is {text}; it must be a finite number")
    return value


__all__ = [
    "HEADER",
    "format_ranking_csv",
    "parse_ranking_csv",
    "read_ranking_csv",
    "write_ranking_csv",
]
