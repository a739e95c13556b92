"""Per-case scores CSV: ``case,A,B[,C…]`` (docs/measures.md §9)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError
from referee.core.formats.text_files import numbered_csv_rows, read_text
from referee.core.model.case_scores import CaseScores, scores_table

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
