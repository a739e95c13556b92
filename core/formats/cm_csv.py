"""Per-video confusion matrices as CSV: ``category,video,TP,FP,FN,TN[,SE]`` (docs/measures.md §10).

The header row is required; column names are case-insensitive and may come in
any order, each once; other columns are ignored. Counts are non-negative whole numbers;
``SE`` (shadow errors) may be absent or empty. A row with an empty category
cell is a video without category: it becomes a category of its own, named
after the video (the rule docs/measures.md §10 gives for CDnet folders), so
``,highway,...`` reads as category ``highway``, video ``highway``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from referee.core.errors import InputFileError, RefereeError
from referee.core.formats.text_files import (
    format_csv,
    header_columns,
    numbered_csv_rows,
    parse_count,
    read_text,
    restore_formula,
    write_text,
)
from referee.core.model.confusion import ConfusionMatrix, VideoConfusion

REQUIRED_COLUMNS: tuple[str, ...] = ("category", "video", "tp", "fp", "fn", "tn")
HEADER: tuple[str, ...] = ("category", "video", "TP", "FP", "FN", "TN", "SE")
_EXPECTED = "category,video,TP,FP,FN,TN[,SE]"


def read_cm_csv(path: str | Path) -> list[VideoConfusion]:
    """Read per-video confusion matrices from a CSV file (docs/measures.md §10).

    Raises
    ------
    InputFileError
        Unreadable or empty file, missing column, a count that is not a
        non-negative whole number, or a (category, video) given twice; the
        message names the file and the line.
    """
    text = read_text(path)
    return parse_cm_csv(text, path)


def parse_cm_csv(text: str, path: str | Path = "<text>") -> list[VideoConfusion]:
    """Parse the text of a confusion-matrix CSV; ``path`` only names it in errors."""
    rows = [(n, row) for n, row in numbered_csv_rows(text) if any(cell.strip() for cell in row)]
    if not rows:
        raise InputFileError(
            path, f"empty file; expected a header {_EXPECTED} and one row per video"
        )
    header_line, header = rows[0]
    columns = header_columns(header, path, header_line)
    for name in REQUIRED_COLUMNS:
        if name not in columns:
            raise InputFileError(
                path,
                f"line {header_line}: missing column {name!r}; the header must name {_EXPECTED}",
            )
    if len(rows) == 1:
        raise InputFileError(path, f"no video rows after the header on line {header_line}")
    videos: list[VideoConfusion] = []
    first_line: dict[tuple[str, str], int] = {}
    for line, row in rows[1:]:
        video = _parse_row(row, columns, path, line)
        if video.key in first_line:
            raise InputFileError(
                path,
                f"line {line}: video {video.label} "
                f"appears twice (first on line {first_line[video.key]}); "
                "keep one row per video",
            )
        first_line[video.key] = line
        videos.append(video)
    return videos


def _cell(row: Sequence[str], columns: dict[str, int], name: str) -> str:
    index = columns[name]
    return row[index].strip() if index < len(row) else ""


def _parse_row(
    row: Sequence[str], columns: dict[str, int], path: str | Path, line: int
) -> VideoConfusion:
    video = restore_formula(_cell(row, columns, "video"))
    if not video:
        raise InputFileError(path, f"line {line}: the video cell is empty; name the video")
    category = restore_formula(_cell(row, columns, "category")) or video
    counts = [
        parse_count(_cell(row, columns, name), name.upper(), path, line)
        for name in ("tp", "fp", "fn", "tn")
    ]
    shadow: int | None = None
    if "se" in columns and _cell(row, columns, "se"):
        shadow = parse_count(_cell(row, columns, "se"), "SE", path, line)
    tp, fp, fn, tn = counts
    return VideoConfusion(category, video, ConfusionMatrix(tp, fp, fn, tn), shadow)


def format_cm_csv(videos: Sequence[VideoConfusion]) -> str:
    """The CSV text for ``videos`` (header ``category,video,TP,FP,FN,TN,SE``).

    Raises
    ------
    RefereeError
        If a count is not a whole number (normalized matrices cannot be written).
    """
    rows: list[Sequence[object]] = [HEADER]
    for v in videos:
        counts = [_whole(x, v) for x in (v.cm.tp, v.cm.fp, v.cm.fn, v.cm.tn)]
        rows.append([v.category, v.video, *counts, v.shadow_errors])
    return format_csv(rows)


def write_cm_csv(path: str | Path, videos: Sequence[VideoConfusion]) -> None:
    """Write ``videos`` to ``path`` as a confusion-matrix CSV (docs/measures.md §10)."""
    text = format_cm_csv(videos)
    write_text(path, text)


def _whole(value: float, video: VideoConfusion) -> str:
    if not math.isfinite(value) or value != int(value):
        raise RefereeError(
            f"video {video.label} has a non-integer count "
            f"{value!r}; only raw counts can be written to a confusion-matrix CSV"
        )
    return str(int(value))
