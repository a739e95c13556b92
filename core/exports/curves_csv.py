"""ROC/PR curves of soft outputs as CSV: one row per method, video (or summary) and threshold."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from referee.core.formats.text_files import format_csv, write_text
from referee.core.measures.curves import Curves

COLUMNS: tuple[str, ...] = (
    "method",
    "row",
    "category",
    "video",
    "threshold",
    "tp",
    "fp",
    "fn",
    "tn",
    "fpr",
    "tpr",
    "precision",
)


def _cell(value: float) -> str:
    if math.isnan(value):
        return ""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def format_curves_csv(rows: Sequence[tuple[str, str, str, str, Curves]]) -> str:
    """CSV text of ``(method, row, category, video, curves)`` tuples.

    ``row`` is ``video`` for a video's curve and ``summary:<scheme>`` for a
    summarized one (its matrices are normalized, so its counts are fractions).
    Undefined ratios are empty cells.
    """
    lines: list[Sequence[object]] = [COLUMNS]
    for method, row, category, video, curves in rows:
        for t in curves.thresholds:
            tp, fp, fn, tn = curves.confusions[t]
            lines.append(
                [
                    method,
                    row,
                    category,
                    video,
                    int(t),
                    *(_cell(v) for v in (tp, fp, fn, tn)),
                    _cell(curves.fpr[t]),
                    _cell(curves.tpr[t]),
                    _cell(curves.precision[t]),
                ]
            )
    return format_csv(lines)


def write_curves_csv(path: str | Path, rows: Sequence[tuple[str, str, str, str, Curves]]) -> None:
    """Write :func:`format_curves_csv` to ``path``."""
    write_text(path, format_curves_csv(rows))
