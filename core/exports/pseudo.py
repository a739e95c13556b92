"""Pseudo-evaluation results (docs/measures.md §7) as JSON and CSV.

Input is a :class:`referee.core.pseudo.dataset.PseudoResult` and, when ground truth
existed, a :class:`referee.core.pseudo.truth.TruthComparison`. Nothing is computed
here beyond reading the values those objects give.

* JSON, model-based consensus: each video entry of a method also holds
  ``model``, the fitted prior and that method's sensitivity and specificity.

* JSON: every number machine-readable; an undefined value is
  ``{"value": null, "reason": "undefined: ..."}``.
* CSV: per method one row per video (``row`` = ``video``) and one
  ``summary:<scheme>`` row (the blended normalized pseudo matrix in the count
  columns). Columns: pseudo counts, ``sum_p_squared``, every registry
  indicator then ``ncc`` and ``psnr`` (pseudo values), and, with ground truth,
  the same keys prefixed ``true_``. An undefined value is an empty cell, its
  reason in the ``undefined`` column. Per-frame counts are not written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.core.errors import RefereeError
from referee.core.exports.header import json_header
from referee.core.exports.summary import csv_cell, json_matrix, json_number, json_value, json_values
from referee.core.exports.text_table import grid
from referee.core.formats.text_files import format_csv, write_text
from referee.core.measures.indicators import INDICATORS, IndicatorValue
from referee.core.pseudo.dataset import PseudoResult
from referee.core.pseudo.truth import (
    CORRELATED,
    MAX_TRUTH_ERROR,
    MIN_TRUTH_CORRELATION,
    Correlation,
    TruthAgreement,
    TruthComparison,
)

FORMAT_NAME = "referee-pseudo"
FORMAT_VERSION = 1


def _correlation(c: Correlation) -> dict[str, Any]:
    return {
        "pearson": json_value(c.pearson),
        "spearman": json_value(c.spearman),
        "n_detectors": c.n_detectors,
    }


def pseudo_to_dict(
    result: PseudoResult,
    truth: TruthComparison | None = None,
    parameters: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Plain JSON-ready structure of a pseudo evaluation (NaN becomes ``None`` with its reason)."""
    options = result.options
    methods = []
    for method in result.methods:
        summary = result.summaries[method]
        videos = []
        for v in result.videos:
            entry = {
                "category": v.category,
                "video": v.video,
                "frames": int(v.frames.size),
                "first_frame": int(v.frames[0]),
                "last_frame": int(v.frames[-1]),
                "pseudo_counts": json_matrix(v.totals[method]),
                "sum_p_squared": json_number(v.sum_p_squared[method]),
                "weight": summary.summary.weights[v.key],
                "indicators": json_values(v.values(method)),
            }
            if v.model is not None:
                j = result.methods.index(method)
                entry["model"] = {
                    "prior": v.model.prior,
                    "sensitivity": v.model.sensitivity[j],
                    "specificity": v.model.specificity[j],
                    "iterations": v.model.iterations,
                    "converged": v.model.converged,
                }
            if truth is not None:
                entry["true_indicators"] = json_values(truth.true_per_video[v.key][method])
            videos.append(entry)
        block = {
            "scheme": summary.summary.scheme,
            "blended_confusion": json_matrix(summary.summary.cm),
            "indicators": json_values(summary.values),
        }
        if truth is not None:
            block["true_indicators"] = json_values(truth.true_summary[method])
        methods.append({"method": method, "videos": videos, "summary": block})
    correlations = None
    if truth is not None:
        correlations = {
            "scheme": truth.scheme,
            "summary": {k: _correlation(c) for k, c in truth.summary.items()},
            "per_video": [
                {
                    "category": key[0],
                    "video": key[1],
                    "correlations": {k: _correlation(c) for k, c in per.items()},
                }
                for key, per in truth.per_video.items()
            ],
        }
    return {
        **json_header(FORMAT_NAME, FORMAT_VERSION),
        "parameters": dict(parameters or {}),
        "committee": {
            "methods": list(result.methods),
            "consensus": options.consensus,
            "include_trivial": options.include_trivial,
            "leave_one_out": options.leave_one_out,
            "weights": (
                None
                if options.weights is None
                else dict(zip(result.methods, map(float, options.weights)))
            ),
            "threshold": options.threshold,
            "description": options.describe(result.methods),
        },
        "methods": methods,
        "correlations": correlations,
    }


def format_pseudo_json(
    result: PseudoResult,
    truth: TruthComparison | None = None,
    parameters: Mapping[str, Any] | None = None,
) -> str:
    """The JSON text of :func:`pseudo_to_dict` (strict JSON: no NaN literal)."""
    try:
        return (
            json.dumps(
                pseudo_to_dict(result, truth, parameters),
                indent=2,
                ensure_ascii=False,
                allow_nan=False,
            )
            + "\n"
        )
    except (TypeError, ValueError) as exc:
        raise RefereeError(f"cannot write the pseudo results as JSON: {exc}") from exc


def write_pseudo_json(
    path: str | Path,
    result: PseudoResult,
    truth: TruthComparison | None = None,
    parameters: Mapping[str, Any] | None = None,
) -> None:
    """Write :func:`format_pseudo_json` to ``path``."""
    write_text(path, format_pseudo_json(result, truth, parameters))


def pseudo_csv_columns(with_truth: bool) -> list[str]:
    """Column names of the pseudo-results CSV."""
    true_columns = [f"true_{k}" for k in CORRELATED] if with_truth else []
    return [
        "method",
        "row",
        "category",
        "video",
        "frames",
        "TP",
        "FP",
        "FN",
        "TN",
        "sum_p_squared",
        "weight",
        *CORRELATED,
        *true_columns,
        "undefined",
    ]


def format_pseudo_csv(result: PseudoResult, truth: TruthComparison | None = None) -> str:
    """The CSV text: per method, per-video rows then its ``summary:<scheme>`` row."""
    lines: list[Sequence[object]] = [pseudo_csv_columns(truth is not None)]

    def cells(
        values: Mapping[str, IndicatorValue], true: Mapping[str, IndicatorValue] | None
    ) -> tuple[list[str], list[str]]:
        row = [csv_cell(values[k].value) for k in CORRELATED]
        reasons = [f"{k}: {values[k].reason}" for k in CORRELATED if not values[k].defined]
        if true is not None:
            row += [csv_cell(true[k].value) for k in CORRELATED]
            reasons += [f"true_{k}: {true[k].reason}" for k in CORRELATED if not true[k].defined]
        return row, reasons

    for method in result.methods:
        summary = result.summaries[method]
        for v in result.videos:
            cm = v.totals[method]
            values, reasons = cells(
                v.values(method), None if truth is None else truth.true_per_video[v.key][method]
            )
            lines.append(
                [
                    method,
                    "video",
                    v.category,
                    v.video,
                    v.frames.size,
                    csv_cell(cm.tp),
                    csv_cell(cm.fp),
                    csv_cell(cm.fn),
                    csv_cell(cm.tn),
                    csv_cell(v.sum_p_squared[method]),
                    csv_cell(summary.summary.weights[v.key]),
                    *values,
                    "; ".join(reasons),
                ]
            )
        cm = summary.summary.cm
        values, reasons = cells(
            summary.values, None if truth is None else truth.true_summary[method]
        )
        lines.append(
            [
                method,
                f"summary:{summary.summary.scheme}",
                "",
                "",
                sum(v.frames.size for v in result.videos),
                csv_cell(cm.tp),
                csv_cell(cm.fp),
                csv_cell(cm.fn),
                csv_cell(cm.tn),
                "",
                "",
                *values,
                "; ".join(reasons),
            ]
        )
    return format_csv(lines)


def write_pseudo_csv(
    path: str | Path, result: PseudoResult, truth: TruthComparison | None = None
) -> None:
    """Write :func:`format_pseudo_csv` to ``path``."""
    write_text(path, format_pseudo_csv(result, truth))


# --- terminal tables -----------------------------------------------------------------

#: Columns of the terminal summary: (key, header), pseudo values unless marked.
TABLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("precision", "ps-PPV"),
    ("recall", "ps-TPR"),
    ("f1", "ps-F1"),
    ("jaccard", "ps-IoU"),
    ("mcc", "ps-MCC"),
    ("nrm", "ps-NRM"),
    ("ncc", "ps-NCC"),
    ("psnr", "ps-PSNR dB"),
)


def _text(value: float) -> str:
    return "undef." if value != value else f"{value:.4f}"


def format_pseudo_table(result: PseudoResult, truth: TruthComparison | None = None) -> str:
    """Summarized pseudo values per detector; with ground truth, the true F1 beside ps-F1."""
    header = ["method"]
    for key, title in TABLE_COLUMNS:
        header.append(title)
        if key == "f1" and truth is not None:
            header.append("F1 (true)")
    rows = []
    for method in result.methods:
        values = result.summaries[method].values
        row = [method]
        for key, _ in TABLE_COLUMNS:
            row.append(_text(values[key].value))
            if key == "f1" and truth is not None:
                row.append(_text(truth.true_summary[method]["f1"].value))
        rows.append(row)
    return (
        f"Pseudo values summarized over videos: blend of normalized pseudo confusion "
        f"matrices, weights '{result.scheme}' (docs/measures.md §2, §7)\n" + grid(header, rows)
    )


def format_correlation_table(truth: TruthComparison) -> str:
    """Pearson and Spearman correlation across detectors, per key, of the summarized values."""

    def label(key: str) -> str:
        if key == "ncc":
            return "NCC (true: MCC)"
        if key == "psnr":
            return "PSNR (true: -10 log10 ER)"
        return f"{INDICATORS[key].symbol} ({key})"

    rows = [
        [label(key), _text(c.pearson.value), _text(c.spearman.value), str(c.n_detectors)]
        for key, c in truth.summary.items()
    ]
    reasons = sorted(
        {c.pearson.reason or "undefined" for c in truth.summary.values() if not c.pearson.defined}
    )
    text = (
        f"Correlation across detectors of pseudo and true values (summarized, weights "
        f"'{truth.scheme}'; per video in --json)\n"
        + grid(["indicator", "Pearson", "Spearman", "detectors"], rows)
    )
    if reasons:
        text += "\nundef.: " + "; ".join(r.removeprefix("undefined: ") for r in reasons)
    return text


def disagreement_reasons(agreement: TruthAgreement) -> list[str]:
    """Why the consensus disagrees with the ground truth (docs/measures.md §7), one clause
    per broken rule with its number; empty when it agrees."""
    reasons = []
    if agreement.low_correlation:
        reasons.append(
            f"correlate at {agreement.correlation.value:.3f} over the detectors "
            f"(below {MIN_TRUTH_CORRELATION:g})"
        )
    if agreement.large_error:
        reasons.append(
            f"differ by {agreement.mean_absolute_error.value:.3f} on average "
            f"(more than {MAX_TRUTH_ERROR:g})"
        )
    return reasons


def format_disagreement(agreement: TruthAgreement) -> str | None:
    """One warning line when the consensus disagrees with the ground truth (docs/measures.md
    §7), with the numbers that say so; ``None`` when it agrees."""
    reasons = disagreement_reasons(agreement)
    if not reasons:
        return None
    return (
        f"warning: the consensus disagrees with the ground truth: pseudo and true "
        f"{agreement.key.upper()} {' and '.join(reasons)}; estimate from a few labelled "
        "frames instead ('referee estimate')"
    )
