"""The report's numbers for machines: one CSV per table, and the whole report as JSON.

Numbers keep every digit. Following the results files
(:mod:`referee.core.exports.summary`), an undefined value is an empty CSV
cell whose reason goes to a last ``undefined`` column, and in JSON it is
``{"value": null, "reason": "undefined: ..."}``. Figures are not exported
(their JSON entry has the key, title and caption, not the image).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from referee.core.errors import InputFileError
from referee.core.exports.summary import csv_cell, json_number
from referee.core.formats.text_files import format_csv, write_text
from referee.core.report.document import (
    Block,
    Cell,
    Definitions,
    Figure,
    Paragraph,
    Report,
    Section,
    Table,
    cell_number,
    cell_text,
)

#: Name of the extra CSV column listing the undefined cells of a row.
UNDEFINED_COLUMN = "undefined"


def write_csv_tables(report: Report, folder: str | Path) -> list[Path]:
    """Write each table of ``report`` to ``folder/KEY.csv`` (UTF-8); return the paths written.

    ``folder`` is created if missing. Existing files are replaced (atomically).

    Raises
    ------
    InputFileError
        If ``folder`` cannot be created or a file cannot be written.
    """
    target = Path(folder)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputFileError(
            target,
            f"cannot create the folder ({exc.strerror}); check that "
            "its parent is a writable folder",
        ) from exc
    paths = csv_paths(report, target)
    for table, path in zip(report.tables(), paths):
        write_text(path, table_csv(table))
    return paths


def csv_paths(report: Report, folder: str | Path) -> list[Path]:
    """Where :func:`write_csv_tables` writes each table of ``report``: ``folder/KEY.csv``."""
    return [Path(folder) / f"{table.key}.csv" for table in report.tables()]


def table_csv(table: Table) -> str:
    """The CSV text of ``table``; an ``undefined`` column is added if any value is undefined."""
    reasons = [_row_reasons(table.columns, row) for row in table.rows]
    with_reasons = any(reasons)
    lines: list[Sequence[object]] = [
        [*table.columns, UNDEFINED_COLUMN] if with_reasons else table.columns
    ]
    for row, reason in zip(table.rows, reasons):
        cells = [_csv_text(cell) for cell in row]
        lines.append([*cells, reason] if with_reasons else cells)
    return format_csv(lines)


def report_to_dict(report: Report) -> dict[str, Any]:
    """Plain JSON-ready structure of ``report`` (undefined values carry their reason)."""
    return {
        "title": report.title,
        "created": report.created,
        "version": report.version,
        "versions": dict(report.versions),
        "facts": dict(report.facts),
        "sections": [_section_dict(section) for section in report.sections],
    }


def write_json(report: Report, path: str | Path) -> None:
    """Write :func:`report_to_dict` to ``path`` as strict JSON (no NaN literal), atomically.

    Raises
    ------
    InputFileError
        If the folder of ``path`` does not exist or is not writable.
    """
    text = json.dumps(report_to_dict(report), indent=2, ensure_ascii=False, allow_nan=False)
    write_text(path, text + "\n")


def _is_undefined(cell: Cell) -> bool:
    number = cell_number(cell)
    return number is not None and math.isnan(number)


def _row_reasons(columns: tuple[str, ...], row: tuple[Cell, ...]) -> str:
    return "; ".join(
        f"{column}: {cell_text(cell)}" for column, cell in zip(columns, row) if _is_undefined(cell)
    )


def _csv_text(cell: Cell) -> str:
    number = cell_number(cell)
    if number is None:
        return cell_text(cell)
    if isinstance(cell, int):
        return str(cell)
    return csv_cell(number)


def _section_dict(section: Section) -> dict[str, Any]:
    return {
        "key": section.key,
        "title": section.title,
        "blocks": [_block_dict(block) for block in section.blocks],
    }


def _block_dict(block: Block) -> dict[str, Any]:
    if isinstance(block, Paragraph):
        return {"paragraph": block.text}
    if isinstance(block, Table):
        return {
            "table": block.key,
            "title": block.title,
            "columns": list(block.columns),
            "rows": [[_json_cell(cell) for cell in row] for row in block.rows],
            "notes": list(block.notes),
        }
    if isinstance(block, Figure):
        return {"figure": block.key, "title": block.title, "caption": block.caption}
    if isinstance(block, Definitions):
        return {
            "definitions": [{"term": term, "meaning": meaning} for term, meaning in block.items]
        }
    raise TypeError(f"unknown report block {type(block).__name__}")


def _json_cell(cell: Cell) -> Any:
    if _is_undefined(cell):
        return {"value": None, "reason": cell_text(cell)}
    number = cell_number(cell)
    if number is None or isinstance(cell, int):
        return cell
    return json_number(number)
