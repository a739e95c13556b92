"""Custom video weights: CSV ``category,video,weight`` (docs/measures.md §2, §10)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from referee.core.errors import InputFileError
from referee.core.formats.text_files import read_text
from referee.core.model.videos import VideoKey


def read_weights_csv(path: str | Path) -> dict[VideoKey, float]:
    """One weight per ``(category, video)``; a blank category makes the video its own.

    Raises
    ------
    InputFileError
        An unreadable file, a row without a number in ``weight``, or no row.
    """
    path = Path(path)
    rows = list(csv.DictReader(io.StringIO(read_text(path), newline="")))
    weights: dict[VideoKey, float] = {}
    for line, row in enumerate(rows, start=2):
        try:
            weights[(row["category"] or row["video"], row["video"])] = float(row["weight"])
        except (KeyError, TypeError, ValueError):
            raise InputFileError(
                path,
                f"line {line}: expected columns category,video,weight with a number in 'weight'",
            ) from None
    if not weights:
        raise InputFileError(
            path, "no weights: expected a header 'category,video,weight' and one row per video"
        )
    return weights
