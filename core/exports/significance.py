"""Discriminative evaluation results as text, CSV and JSON."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.core.exports.header import json_header
from referee.core.formats.text_files import format_csv, write_text
from referee.core.significance.hypothesis_tests import TEST_NAMES
from referee.core.significance.sweep import DiscriminativeResult
from referee.core.significance.wording import direction_text, verdict_text

FORMAT_NAME = "referee-significance"
FORMAT_VERSION = 1
SWEEP_COLUMNS: tuple[str, ...] = (
    "threshold",
    "normalized",
    "fraction_of_max",
    "cases_left",
    "fraction_removed",
    "statistic",
    "p",
    "p_reason",
)


# --- text --------------------------------------------------------------------------------------


def _num(value: float, digits: int = 4) -> str:
    return "undef." if math.isnan(value) else f"{value:.{digits}f}"


def _p_text(result: DiscriminativeResult, k: int) -> str:
    p = result.rows[k].p
    if not p.defined:
        return (p.reason or "undefined").removeprefix("undefined: ")
    mark = " *" if p.value < result.alpha else ""
    return (f"{p.value:.2e}" if p.value < 1e-4 else f"{p.value:.4f}") + mark


def _grid(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    return "\n".join(
        "  ".join(
            str(c).rjust(w) if i < len(line) - 1 else str(c)
            for i, (c, w) in enumerate(zip(line, widths))
        )
        for line in [header, *rows]
    )


def format_report(result: DiscriminativeResult, grid: str = "") -> str:
    """The terminal report: what was compared, the sweep table, the verdict, the means.

    ``grid`` describes the thresholds (e.g. "20 evenly spaced from 0 to max d,
    max excluded"); rows where ``p < α`` are marked ``*``; the row of ``t_0`` is
    marked ``<- t_0``.
    """
    cases = result.cases
    n = len(cases)
    title = (
        f"Discriminative evaluation (docs/measures.md §9): {cases.measure} of "
        f"{', '.join(cases.methods)} on {n} cases"
    )
    lines = [title]
    if cases.dropped:
        lines.append(f"  {cases.dropped} cases left out: {cases.dropped_reason}")
    max_d = float(result.differences.max()) if n else math.nan
    d_name = "|a − b|" if len(cases.methods) == 2 else "max − min over methods"
    lines.append(
        f"  test: {TEST_NAMES[result.test]}; α = {result.alpha:g}, τ = {result.tau:g}; "
        f"d = {d_name}, max d = {max_d:.4g}" + (f"; thresholds: {grid}" if grid else "")
    )
    header = ["t", "t/Σt", "t/max d", "removed", "cases", "p"]
    rows = []
    for k, row in enumerate(result.rows):
        p = _p_text(result, k) + ("  <- t_0" if k == result.t0_index else "")
        rows.append(
            [
                f"{row.threshold:.4f}",
                f"{row.normalized:.4f}",
                _num(row.fraction_of_max, 2),
                f"{row.fraction_removed:.0%}",
                str(row.cases_left),
                p,
            ]
        )
    lines += [
        "",
        _grid(header, rows),
        "",
        "verdict: " + verdict_text(result),
        direction_text(result),
    ]
    if result.removed:
        shown = [cases.labels[i] for i in result.removed[:10]]
        more = len(result.removed) - len(shown)
        lines.append(
            f"removed at t_0 ({len(result.removed)}): "
            + ", ".join(shown)
            + (f", … ({more} more)" if more else "")
        )
    return "\n".join(lines)


# --- CSV and JSON --------------------------------------------------------------------------------


def _cell(value: float) -> str:
    return "" if math.isnan(value) else repr(float(value))


def format_sweep_csv(result: DiscriminativeResult) -> str:
    """The sweep table as CSV (:data:`SWEEP_COLUMNS`); undefined values are empty."""
    lines: list[Sequence[object]] = [SWEEP_COLUMNS]
    for row in result.rows:
        lines.append(
            [
                _cell(row.threshold),
                _cell(row.normalized),
                _cell(row.fraction_of_max),
                row.cases_left,
                _cell(row.fraction_removed),
                _cell(row.statistic),
                _cell(row.p.value),
                row.p.reason or "",
            ]
        )
    return format_csv(lines)


def write_sweep_csv(path: str | Path, result: DiscriminativeResult) -> None:
    """Write :func:`format_sweep_csv` atomically."""
    write_text(path, format_sweep_csv(result))


def _json_number(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def result_to_dict(
    result: DiscriminativeResult, parameters: Mapping[str, object] | None = None
) -> dict[str, Any]:
    """Everything in the result, JSON-ready."""
    cases = result.cases
    return {
        **json_header(FORMAT_NAME, FORMAT_VERSION),
        "parameters": dict(parameters or {}),
        "measure": cases.measure,
        "methods": list(cases.methods),
        "test": result.test,
        "test_name": TEST_NAMES[result.test],
        "alpha": result.alpha,
        "tau": result.tau,
        "higher_is_better": result.higher_is_better,
        "differ": result.differ,
        "verdict": verdict_text(result),
        "verdict_kind": result.verdict.kind.value,
        "t0": result.t0,
        "t0_index": result.t0_index,
        "means": dict(zip(cases.methods, (_json_number(v) for v in result.means))),
        "better": result.better,
        "removed": [cases.labels[i] for i in result.removed],
        "dropped": {"count": cases.dropped, "reason": cases.dropped_reason},
        "sweep": [
            {
                "threshold": row.threshold,
                "normalized": row.normalized,
                "fraction_of_max": _json_number(row.fraction_of_max),
                "cases_left": row.cases_left,
                "fraction_removed": row.fraction_removed,
                "statistic": _json_number(row.statistic),
                "p": {"value": _json_number(row.p.value), "reason": row.p.reason},
            }
            for row in result.rows
        ],
        "cases": [
            {"case": label, "d": float(d), "scores": dict(zip(cases.methods, map(float, scores)))}
            for label, d, scores in zip(cases.labels, result.differences, cases.scores)
        ],
    }


def write_json(
    path: str | Path,
    result: DiscriminativeResult,
    parameters: Mapping[str, object] | None = None,
) -> None:
    """Write :func:`result_to_dict` as indented JSON, atomically."""
    write_text(
        path, json.dumps(result_to_dict(result, parameters), indent=1, ensure_ascii=False) + "\n"
    )
