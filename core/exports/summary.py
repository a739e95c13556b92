"""Results of several methods as JSON and CSV (docs/measures.md §2).

Input is a sequence of :class:`referee.core.measures.summarize.MethodResult` (and, for
JSON, optional :class:`~referee.core.measures.summarize.RankComparison` objects).
Nothing is computed here: per-video values come from the CDnet procedure's
per-video table, summary values from the blend.

* JSON: every number machine-readable. An undefined value is
  ``{"value": null, "reason": "undefined: ..."}``.
* CSV: one row per video per method (``row`` = ``video``), then per method a
  ``summary:<scheme>`` row (the blended normalized matrix in the count
  columns) and a ``cdnet-procedure`` row (mean of category means; no counts).
  An undefined value is an empty cell, its reason in the ``undefined`` column.
  ``fmeasure`` is CDnet's F (2PR/(P+R) per video, then averaged); it is empty
  on summary rows, whose F is ``f1``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.core.errors import RefereeError
from referee.core.exports.header import json_header
from referee.core.formats.text_files import format_csv, write_text
from referee.core.measures.indicators import INDICATORS, IndicatorValue
from referee.core.measures.summarize import MethodResult, RankComparison
from referee.core.model.confusion import ConfusionMatrix

FORMAT_NAME = "referee-results"
FORMAT_VERSION = 1


def json_number(value: float) -> float | int | None:
    if math.isnan(value):
        return None
    if math.isinf(value):
        return None
    if float(value).is_integer() and abs(value) < 2**53:
        return int(value)
    return float(value)


def json_value(v: IndicatorValue) -> dict[str, Any]:
    return {"value": json_number(v.value), "reason": v.reason}


def json_values(values: Mapping[str, IndicatorValue]) -> dict[str, dict[str, Any]]:
    return {key: json_value(v) for key, v in values.items()}


def json_matrix(cm: ConfusionMatrix) -> dict[str, float | int | None]:
    return {
        "tp": json_number(cm.tp),
        "fp": json_number(cm.fp),
        "fn": json_number(cm.fn),
        "tn": json_number(cm.tn),
    }


def _method_to_dict(result: MethodResult) -> dict[str, Any]:
    summary, cdnet = result.summary, result.cdnet
    videos = []
    for v in result.videos:
        counts = json_matrix(v.cm)
        counts["se"] = v.shadow_errors
        videos.append(
            {
                "category": v.category,
                "video": v.video,
                "counts": counts,
                "weight": summary.weights[v.key],
                "indicators": json_values(cdnet.indicators_per_video[v.key]),
                "cdnet_statistics": json_values(cdnet.statistics_per_video[v.key]),
            }
        )
    return {
        "method": result.method,
        "videos": videos,
        "summary": {
            "scheme": summary.scheme,
            "weights": [
                {"category": c, "video": name, "weight": w}
                for (c, name), w in summary.weights.items()
            ],
            "blended_confusion": json_matrix(summary.cm),
            "indicators": json_values(summary.values),
        },
        "cdnet_procedure": {
            "categories": [
                {
                    "category": c,
                    "videos": [name for _, name in cdnet.categories[c]],
                    "statistics": json_values(cdnet.statistics_per_category[c]),
                    "indicators": json_values(cdnet.indicators_per_category[c]),
                }
                for c in cdnet.categories
            ],
            "overall": {
                "statistics": json_values(cdnet.statistics_overall),
                "indicators": json_values(cdnet.indicators_overall),
            },
        },
    }


def _ranking_to_dict(r: RankComparison) -> dict[str, Any]:
    return {
        "indicator": r.indicator,
        "summary_ranking": list(r.summary_ranking),
        "cdnet_ranking": list(r.cdnet_ranking),
        "methods": {
            m: {
                "summary_value": json_number(r.summary_values[m]),
                "cdnet_value": json_number(r.cdnet_values[m]),
                "summary_rank": r.summary_rank[m],
                "cdnet_rank": r.cdnet_rank[m],
            }
            for m in r.summary_values
        },
        "kendall_tau": json_value(r.kendall_tau),
    }


def results_to_dict(
    results: Sequence[MethodResult],
    rankings: Sequence[RankComparison] = (),
    parameters: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Plain JSON-ready structure of the results (NaN becomes ``None`` with its reason).

    ``parameters`` (options and defaults used, e.g. the weight scheme) is stored
    as given; it must hold JSON-ready values.
    """
    return {
        **json_header(FORMAT_NAME, FORMAT_VERSION),
        "parameters": dict(parameters or {}),
        "indicators": {
            key: {
                "name": ind.name,
                "symbol": ind.symbol,
                "formula": ind.formula,
                "range": list(ind.range),
                "higher_is_better": ind.higher_is_better,
                "probabilistic": ind.probabilistic,
            }
            for key, ind in INDICATORS.items()
        },
        "methods": [_method_to_dict(r) for r in results],
        "rankings": [_ranking_to_dict(r) for r in rankings],
    }


def format_results_json(
    results: Sequence[MethodResult],
    rankings: Sequence[RankComparison] = (),
    parameters: Mapping[str, Any] | None = None,
) -> str:
    """The JSON text of :func:`results_to_dict` (strict JSON: no NaN literal)."""
    try:
        return (
            json.dumps(
                results_to_dict(results, rankings, parameters),
                indent=2,
                ensure_ascii=False,
                allow_nan=False,
            )
            + "\n"
        )
    except (TypeError, ValueError) as exc:
        raise RefereeError(f"cannot write the results as JSON: {exc}") from exc


def write_results_json(
    path: str | Path,
    results: Sequence[MethodResult],
    rankings: Sequence[RankComparison] = (),
    parameters: Mapping[str, Any] | None = None,
) -> None:
    """Write :func:`format_results_json` to ``path``."""
    write_text(path, format_results_json(results, rankings, parameters))


def csv_columns() -> list[str]:
    """Column names of the results CSV."""
    return [
        "method",
        "row",
        "category",
        "video",
        "TP",
        "FP",
        "FN",
        "TN",
        "SE",
        "weight",
        *INDICATORS,
        "fmeasure",
        "undefined",
    ]


def csv_cell(value: float | None) -> str:
    if value is None or math.isnan(value):
        return ""
    number = json_number(value)
    return repr(number) if isinstance(number, float) else str(number)


def _indicator_cells(
    values: Mapping[str, IndicatorValue], fmeasure: IndicatorValue | None
) -> tuple[list[str], str]:
    cells = [csv_cell(values[key].value) for key in INDICATORS]
    reasons = [f"{key}: {v.reason}" for key, v in values.items() if not v.defined]
    if fmeasure is None:
        cells.append("")
    else:
        cells.append(csv_cell(fmeasure.value))
        if not fmeasure.defined:
            reasons.append(f"fmeasure: {fmeasure.reason}")
    return cells, "; ".join(reasons)


def format_results_csv(results: Sequence[MethodResult]) -> str:
    """The CSV text: per-video rows, then ``summary:<scheme>`` and ``cdnet-procedure`` rows."""
    lines: list[Sequence[object]] = [csv_columns()]
    for result in results:
        cdnet = result.cdnet
        for v in result.videos:
            cells, reasons = _indicator_cells(
                cdnet.indicators_per_video[v.key], cdnet.statistics_per_video[v.key]["fmeasure"]
            )
            se = "" if v.shadow_errors is None else str(v.shadow_errors)
            lines.append(
                [
                    result.method,
                    "video",
                    v.category,
                    v.video,
                    csv_cell(v.cm.tp),
                    csv_cell(v.cm.fp),
                    csv_cell(v.cm.fn),
                    csv_cell(v.cm.tn),
                    se,
                    csv_cell(result.summary.weights[v.key]),
                    *cells,
                    reasons,
                ]
            )
    for result in results:
        summary = result.summary
        cells, reasons = _indicator_cells(summary.values, None)
        lines.append(
            [
                result.method,
                f"summary:{summary.scheme}",
                "",
                "",
                csv_cell(summary.cm.tp),
                csv_cell(summary.cm.fp),
                csv_cell(summary.cm.fn),
                csv_cell(summary.cm.tn),
                "",
                "",
                *cells,
                reasons,
            ]
        )
        cells, reasons = _indicator_cells(
            result.cdnet.indicators_overall, result.cdnet.statistics_overall["fmeasure"]
        )
        lines.append(
            [result.method, "cdnet-procedure", "", "", "", "", "", "", "", "", *cells, reasons]
        )
    return format_csv(lines)


def write_results_csv(path: str | Path, results: Sequence[MethodResult]) -> None:
    """Write :func:`format_results_csv` to ``path``."""
    write_text(path, format_results_csv(results))
