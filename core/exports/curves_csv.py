"""ROC/PR curves of soft outputs as CSV (docs/measures.md §3).

Two files: every curve point (one row per method, video or summary, and
threshold, end points included) and the areas under the curves (one row per
curve: its pixels, their positive share, ROC AUC and average precision).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from referee.core.formats.text_files import format_csv, write_text
from referee.core.measures.curve_areas import average_precision, roc_auc
from referee.core.measures.curves import NOTHING_DETECTED, Curves

CurveRow = tuple[str, str, str, str, Curves]
"""``(method, row, category, video, curves)``; ``row`` is ``video`` or ``summary:<scheme>``."""

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
    "end",
)
#: The ``end`` column's marks: the loosest threshold and the point beyond the strictest.
END_MARKS: dict[int, str] = {0: "all detected", NOTHING_DETECTED: "nothing detected"}

AREA_COLUMNS: tuple[str, ...] = (
    "method",
    "row",
    "category",
    "video",
    "positives",
    "negatives",
    "positive_share",
    "roc_auc",
    "average_precision",
    "undefined",
)


def _cell(value: float) -> str:
    if math.isnan(value):
        return ""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def format_curves_csv(rows: Sequence[CurveRow]) -> str:
    """CSV text of every point of every curve, thresholds 0 to 256 (docs/measures.md §3).

    ``row`` is ``video`` for a video's curve and ``summary:<scheme>`` for a
    summarized one (its matrices are normalized, so its counts are fractions).
    Threshold 0 (``end`` = ``all detected``) and the added threshold 256
    (``end`` = ``nothing detected``: ROC point (0, 0), recall 0) are the ends of
    every curve. Undefined ratios are empty cells.
    """
    lines: list[Sequence[object]] = [COLUMNS]
    for method, row, category, video, curves in rows:
        ended = curves.with_end()
        for t, (tp, fp, fn, tn) in zip(ended.thresholds, ended.confusions):
            lines.append(
                [
                    method,
                    row,
                    category,
                    video,
                    int(t),
                    *(_cell(v) for v in (tp, fp, fn, tn)),
                    _cell(ended.fpr[t]),
                    _cell(ended.tpr[t]),
                    _cell(ended.precision[t]),
                    END_MARKS.get(int(t), ""),
                ]
            )
    return format_csv(lines)


def format_curve_areas_csv(rows: Sequence[CurveRow]) -> str:
    """CSV text, one row per curve: its pixels, positive share, ROC AUC and average precision.

    Every row's columns mean the same (docs/measures.md §3): ``positives`` and
    ``negatives`` count pixels (a summary's: those of its method's videos, from
    the ``video`` rows); ``positive_share`` is the positives' share of the
    curve's weight, ``P / (P + N)`` of a video's pixels and of a summary's
    blended matrices (the precision where everything is detected). An undefined
    area is an empty cell, its reason in the ``undefined`` column.
    """
    pixels: dict[str, tuple[float, float]] = {}
    for method, row, _, _, curves in rows:
        if row == "video":
            p, n = pixels.get(method, (0.0, 0.0))
            pixels[method] = (p + curves.positives, n + curves.negatives)
    lines: list[Sequence[object]] = [AREA_COLUMNS]
    for method, row, category, video, curves in rows:
        counts = (curves.positives, curves.negatives) if row == "video" else pixels.get(method)
        total = curves.positives + curves.negatives
        areas = {"roc_auc": roc_auc(curves), "average_precision": average_precision(curves)}
        reasons = "; ".join(f"{k}: {v.reason}" for k, v in areas.items() if not v.defined)
        lines.append(
            [
                method,
                row,
                category,
                video,
                *(("", "") if counts is None else (_cell(c) for c in counts)),
                _cell(curves.positives / total) if total > 0 else "",
                *(_cell(v.value) for v in areas.values()),
                reasons,
            ]
        )
    return format_csv(lines)


def write_curves_csv(path: str | Path, rows: Sequence[CurveRow]) -> None:
    """Write :func:`format_curves_csv` to ``path`` atomically."""
    write_text(path, format_curves_csv(rows))


def write_curve_areas_csv(path: str | Path, rows: Sequence[CurveRow]) -> None:
    """Write :func:`format_curve_areas_csv` to ``path`` atomically."""
    write_text(path, format_curve_areas_csv(rows))
