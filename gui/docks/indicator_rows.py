"""What the Indicators table holds: its columns, and one row per video or summary
(docs/measures.md §2).

Everything is read from core's :class:`PixelResult`: per-video values from the
CDnet procedure's per-video indicators (the registry evaluated on each video's
counts), the summarized row from the blended summary, the CDnet row from the
procedure's overall means. Nothing here computes a metric; the only work is
ranking the detectors by the values shown, to decide which summary cells to
highlight: those where the two procedures give a detector a different rank,
that is, where the choice of procedure changes a decision.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from referee.core.measures.indicators import INDICATORS, IndicatorValue
from referee.core.measures.summarize import MethodResult, procedure_rank_changes
from referee.core.model.videos import video_label
from referee.core.workflow.results import PixelResult
from referee.gui.widgets.tables import UNDEFINED_TEXT

#: Indicators a user reads first, right after the frozen Detector and Video columns.
HEADLINE_INDICATORS: tuple[str, ...] = ("f1", "precision", "recall")
#: Headers of the headline indicators that read better as words than as symbols.
_HEADLINE_HEADERS = {"precision": "Precision", "recall": "Recall"}
COUNT_COLUMNS: tuple[str, ...] = ("TP", "FP", "FN", "TN", "Shadow errors")
COUNT_TIPS: tuple[str, ...] = (
    "true positives: detected pixels on motion ground truth",
    "false positives: detected pixels on static or shadow ground truth",
    "false negatives: missed pixels on motion ground truth",
    "true negatives: undetected pixels on static or shadow ground truth",
    "detected pixels on hard-shadow ground truth (also counted in FP)",
)
CDNET_ROW = "CDnet procedure"
SUMMARY_TIP = (
    "every indicator computed once from the videos' normalized counts blended with "
    "{scheme} weights (docs/measures.md §2)"
)
CDNET_TIP = "each video's indicator averaged per category, then over the categories (as CDnet)"
#: How many leading columns (Detector, Video) stay in view and cannot be hidden.
FROZEN_COLUMNS = 2

RowKind = Literal["video", "summary", "cdnet"]
CellValue = str | int | IndicatorValue | None
"""A cell's content: text, a pixel count, an indicator value, or nothing (``None``)."""


@dataclass(frozen=True, slots=True)
class Column:
    """One column of the table: ``kind`` says what its cells hold.

    ``higher_is_better`` is the direction of an indicator column (``None`` for the
    others); the first click on its header sorts the best values first.
    """

    key: str
    header: str
    tooltip: str
    kind: Literal["text", "indicator", "count"]
    higher_is_better: bool | None = None


def _indicator_order() -> list[str]:
    return [*HEADLINE_INDICATORS, *(k for k in INDICATORS if k not in HEADLINE_INDICATORS)]


COLUMNS: tuple[Column, ...] = (
    Column("detector", "Detector", "detector (method); its colour is the one of the plots", "text"),
    Column("video", "Video", "category/video, or the summary procedure", "text"),
    *(
        Column(
            key,
            _HEADLINE_HEADERS.get(key, INDICATORS[key].symbol),
            f"{INDICATORS[key].name}: {INDICATORS[key].formula}",
            "indicator",
            INDICATORS[key].higher_is_better,
        )
        for key in _indicator_order()
    ),
    *(Column(name, name, tip, "count") for name, tip in zip(COUNT_COLUMNS, COUNT_TIPS)),
)
_INDICATOR_COLUMNS = {c.key: i for i, c in enumerate(COLUMNS) if c.kind == "indicator"}


@dataclass(frozen=True, slots=True)
class TableRow:
    """One row: a detector's video, or one of its two summaries.

    ``cells`` follow :data:`COLUMNS`; ``note`` says what the row is (the tooltip of its
    Video cell). ``rank_changes`` maps the columns whose value ranks this detector
    differently under the two procedures to a sentence giving both ranks (summary rows).
    """

    detector: str
    kind: RowKind
    category: str
    video: str
    cells: tuple[CellValue, ...]
    note: str
    rank_changes: Mapping[int, str] = field(default_factory=dict)

    @property
    def identity(self) -> tuple[str, RowKind, str, str]:
        """What stays the same for this row when the result is summarized again."""
        return (self.detector, self.kind, self.category, self.video)


def format_count(count: int) -> str:
    """A pixel count with thousands separators."""
    return f"{count:,}"


def format_ratio(value: float) -> str:
    """A ratio (or PWC percentage) with 4 decimals."""
    return f"{value:.4f}"


def display_text(value: CellValue) -> str:
    """What a cell shows: text, a count with separators, a ratio, "—" when undefined."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, IndicatorValue):
        return format_ratio(value.value) if value.defined else UNDEFINED_TEXT
    return format_count(value)


def export_text(value: CellValue) -> str:
    """What a cell gives in CSV: counts as integers, ratios at full precision, undefined empty."""
    if value is None:
        return ""
    if isinstance(value, IndicatorValue):
        return repr(value.value) if value.defined else ""
    return str(value)


def sort_value(value: CellValue) -> str | float:
    """The key a cell sorts by: its text, or its number (NaN when undefined or empty)."""
    if isinstance(value, str):
        return value
    if value is None:
        return math.nan
    if isinstance(value, IndicatorValue):
        return value.value
    return float(value)


def sorted_rows(rows: Sequence[TableRow], column: int, descending: bool) -> list[TableRow]:
    """``rows`` sorted by the values of ``column`` (text ignoring case), undefined and empty
    values last in either order, ties in their given order; ``column`` -1 keeps the order."""
    if column < 0:
        return list(rows)
    present: list[tuple[str | float, TableRow]] = []
    missing: list[TableRow] = []
    for row in rows:
        key = sort_value(row.cells[column])
        if isinstance(key, str):
            present.append((key.casefold(), row))
        elif math.isnan(key):
            missing.append(row)
        else:
            present.append((key, row))
    present.sort(key=lambda pair: pair[0], reverse=descending)
    return [row for _, row in present] + missing


def rank_changes(methods: Mapping[str, MethodResult]) -> dict[str, dict[int, str]]:
    """Per detector, the indicator columns where the two procedures rank it differently
    (core's :func:`procedure_rank_changes`), each with a sentence giving both ranks."""
    count = len(methods)
    changed = procedure_rank_changes(methods, list(_INDICATOR_COLUMNS))
    return {
        name: {
            _INDICATOR_COLUMNS[key]: (
                f"{COLUMNS[_INDICATOR_COLUMNS[key]].header} ranks {name} {summarized} of "
                f"{count} when summarized but {cdnet} of {count} by the CDnet procedure"
            )
            for key, (summarized, cdnet) in keys.items()
        }
        for name, keys in changed.items()
    }


def build_rows(result: PixelResult) -> list[TableRow]:
    """Every detector's video rows, then its summarized and CDnet rows, in the result's order."""
    changes = rank_changes(result.methods)
    indicator_keys = [c.key for c in COLUMNS if c.kind == "indicator"]
    rows: list[TableRow] = []
    for name, method in result.methods.items():
        per_video = method.cdnet.indicators_per_video
        for evaluation in result.evaluations.get(name, ()):
            cm, measured = evaluation.total, per_video[evaluation.key]
            label = video_label(evaluation.category, evaluation.video)
            cells: tuple[CellValue, ...] = (
                name,
                label,
                *(measured[k] for k in indicator_keys),
                int(cm.tp),
                int(cm.fp),
                int(cm.fn),
                int(cm.tn),
                evaluation.shadow_errors,
            )
            rows.append(
                TableRow(name, "video", evaluation.category, evaluation.video, cells, label)
            )
        scheme = method.summary.scheme
        summaries: tuple[tuple[RowKind, str, str, Mapping[str, IndicatorValue]], ...] = (
            (
                "summary",
                f"summarized ({scheme})",
                SUMMARY_TIP.format(scheme=scheme),
                method.summary.values,
            ),
            ("cdnet", CDNET_ROW, CDNET_TIP, method.cdnet.indicators_overall),
        )
        blank = (None,) * len(COUNT_COLUMNS)
        for kind, title, tip, values in summaries:
            cells = (name, title, *(values[k] for k in indicator_keys), *blank)
            rows.append(TableRow(name, kind, "", "", cells, f"{title}: {tip}", changes[name]))
    return rows


def widest_texts(rows: Sequence[TableRow], column: int) -> list[str]:
    """Texts among which the widest of ``column`` is, for sizing it without measuring
    every cell: the longest texts, the largest count, an indicator's range ends."""
    spec = COLUMNS[column]
    if spec.kind == "indicator":
        low, high = INDICATORS[spec.key].range
        return [format_ratio(low), format_ratio(high), UNDEFINED_TEXT]
    values = [row.cells[column] for row in rows]
    if spec.kind == "count":
        return [format_count(max((v for v in values if isinstance(v, int)), default=0))]
    texts = {v for v in values if isinstance(v, str)}
    return sorted(texts, key=len, reverse=True)[:3]
