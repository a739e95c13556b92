"""Per-case scores CSV: ``case,A,B[,C…]`` (docs/measures.md §9)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError
from referee.core.formats.text_files import DECIMAL_NUMBER, numbered_csv_rows, read_text
from referee.core.model.case_scores import CaseScores, scores_table

UNDEFINED_IN_FILE = "a score is empty or not a number in the file"
#: Largest score in absolute value, so that differences and their squares stay finite.
MAX_SCORE = 1e100


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
        repeated method names, a row of the wrong length, a case label given
        twice, or a cell that is not a decimal number within ±``MAX_SCORE``.
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
    first_line: dict[str, int] = {}
    values = np.full((len(rows) - 1, len(methods)), math.nan)
    for k, (line, row) in enumerate(rows[1:]):
        if len(row) != len(header):
            raise InputFileError(
                path, f"line {line}: {len(row)} cells but the header has {len(header)}"
            )
        label = row[0].strip()
        if label in first_line:
            raise InputFileError(
                path,
                f"line {line}: case {label[:40]!r} is given twice (first on line "
                f"{first_line[label]}); give each case its own label",
            )
        first_line[label] = line
        labels.append(label)
        for m, cell in enumerate(row[1:]):
            text = cell.strip()
            if not text:
                continue
            if not DECIMAL_NUMBER.fullmatch(text):
                raise InputFileError(
                    path, f"line {line}: the score of {methods[m]} is {text[:30]!r}, not a number"
                )
            values[k, m] = float(text)
            if not abs(values[k, m]) <= MAX_SCORE:
                raise InputFileError(
                    path,
                    f"line {line}: the score of {methods[m]} is {text[:30]}; scores must be "
                    f"finite numbers within ±{MAX_SCORE:g}",
                )
    if not labels:
        raise InputFileError(path, "no test case: the file holds only a header")
    return scores_table(
        measure or f"score from {Path(path).name}",
        labels,
        {m: values[:, j] for j, m in enumerate(methods)},
        UNDEFINED_IN_FILE,
    )
