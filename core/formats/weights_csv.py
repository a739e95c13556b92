"""Custom video weights: CSV ``category,video,weight`` (docs/measures.md §2, §10)."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from referee.core.errors import InputFileError
from referee.core.formats.text_files import DECIMAL_NUMBER, read_text
from referee.core.model.videos import VideoKey, video_label


def read_weights_csv(path: str | Path) -> dict[VideoKey, float]:
    """One weight per ``(category, video)``; a blank category makes the video its own.

    Weights are finite decimal numbers >= 0 whose sum is finite; a video may
    have one row only.

    Raises
    ------
    InputFileError
        An unreadable file, a row without a number >= 0 in ``weight``, a video
        given twice, weights too large to add up, or no row.
    """
    path = Path(path)
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    weights: dict[VideoKey, float] = {}
    first_line: dict[VideoKey, int] = {}
    for row in reader:
        line = reader.line_num
        try:
            key = (row["category"] or row["video"], row["video"])
            text = row["weight"].strip()
        except (KeyError, TypeError, AttributeError):
            raise InputFileError(
                path,
                f"line {line}: expected columns category,video,weight with a number in 'weight'",
            ) from None
        weight = float(text) if DECIMAL_NUMBER.fullmatch(text) else math.nan
        if not (math.isfinite(weight) and weight >= 0):
            raise InputFileError(
                path,
                f"line {line}: the weight is {text[:30]!r}; weights are finite numbers >= 0",
            )
        if key in first_line:
            raise InputFileError(
                path,
                f"line {line}: video {video_label(*key)} is given twice (first on line "
                f"{first_line[key]}); keep one row per video",
            )
        first_line[key] = line
        weights[key] = weight
    if not math.isfinite(sum(weights.values())):
        raise InputFileError(
            path, "the weights add up to more than the largest number; scale them down"
        )
    if not weights:
        raise InputFileError(
            path, "no weights: expected a header 'category,video,weight' and one row per video"
        )
    return weights
