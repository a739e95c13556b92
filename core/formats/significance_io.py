"""Discriminative evaluation as text, CSV and JSON; per-case score tables (SPEC §9).

* Scores CSV (input): a header ``case,A,B[,C…]`` then one row per test case,
  the case label first and one score per method. An empty cell or ``nan`` is an
  undefined score: that case is left out and counted.
* Sweep CSV (output): one row per threshold: ``threshold, normalized,
  fraction_of_max, cases_left, fraction_removed, statistic, p, p_reason``.
* JSON (output): everything, per-case scores and removed cases included. An
  undefined p is ``{"value": null, "reason": ...}``.

Nothing is computed here beyond formatting.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputFileError
from ..significance import TEST_NAMES, CaseScores, DiscriminativeResult, scores_table
from .text_files import numbered_csv_rows, read_text, write_text

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
UNDEFINED_IN_FILE = "a score is empty or not a number in the file"


# --- scores CSV --------------------------------------------------------------------------------


def read_scores_csv(path: str | Path, measure: str | None = None) -> CaseScores:
    """Per-case scores from a CSV ``case,A,B[,C…]`` (one column per method).

    Parameters
    ----------
    path
        The file.
    measure
        What a score is (default: ``"score from <file name>"``).

    Raises
    ------
    InputFileError
        Naming the file and line: no header, fewer than two method columns,
        repeated method names, a row of the wrong length, or a cell that is not
        a number.
    """
    rows = [
        (line, row)
        for line, row in numbered_csv_rows(read_text(path))
        if any(cell.strip() for cell in row)
    ]
    if not rows:
        raise InputFileError(
            path,
            "the file is empty; expected a header 'case,A,B' and one row of scores per test case",
        )
    header = [cell.strip() for cell in rows[0][1]]
    methods = header[1:]
    if len(methods) < 2 or not all(methods):
        raise InputFileError(
            path,
            f"line {rows[0][0]}: the header must be 'case' followed by "
            "at least two method names, e.g. 'case,A,B'",
        )
    if len(set(methods)) != len(methods):
        raise InputFileError(
            path, f"line {rows[0][0]}: two methods have the same name; method names must differ"
        )
    labels: list[str] = []
    values = np.full((len(rows) - 1, len(methods)), math.nan)
    for k, (line, row) in enumerate(rows[1:]):
        if len(row) != len(header):
            raise InputFileError(
                path, f"line {line}: {len(row)} cells but the header has {len(header)}"
            )
        labels.append(row[0].strip())
        for m, cell in enumerate(row[1:]):
            text = cell.strip()
            if not text:
                continue
            try:
                values[k, m] = float(text)
            except ValueError:
                raise InputFileError(
                    path, f"line {line}: the score of {methods[m]} is {text!r}, not a number"
                ) from None
            if math.isinf(values[k, m]):
                raise InputFileError(
                    path,
                    f"line {line}: the score of {methods[m]} is "
                    "infinite; scores must be finite numbers",
                )
    if not labels:
        raise InputFileError(path, "no test case: the file holds only a header")
    return scores_table(
        measure or f"score from {Path(path).name}",
        labels,
        {m: values[:, j] for j, m in enumerate(methods)},
        UNDEFINED_IN_FILE,
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
        f"Discriminative evaluation (SPEC §9): {cases.measure} of "
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
    lines += ["", _grid(header, rows), "", "verdict: " + result.verdict, result.direction]
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
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(SWEEP_COLUMNS)
    for row in result.rows:
        writer.writerow(
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
    return out.getvalue()


def write_sweep_csv(path: str | Path, result: DiscriminativeResult) -> None:
    """Write :func:`format_sweep_csv` atomically."""
    write_text(path, format_sweep_csv(result))


def _json_number(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def result_to_dict(result: DiscriminativeResult, parameters: dict | None = None) -> dict[str, Any]:
    """Everything in the result, JSON-ready."""
    cases = result.cases
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "parameters": dict(parameters or {}),
        "measure": cases.measure,
        "methods": list(cases.methods),
        "test": result.test,
        "test_name": TEST_NAMES[result.test],
        "alpha": result.alpha,
        "tau": result.tau,
        "higher_is_better": result.higher_is_better,
        "differ": result.differ,
        "verdict": result.verdict,
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
    path: str | Path, result: DiscriminativeResult, parameters: dict | None = None
) -> None:
    """Write :func:`result_to_dict` as indented JSON, atomically."""
    write_text(
        path, json.dumps(result_to_dict(result, parameters), indent=1, ensure_ascii=False) + "\n"
    )
