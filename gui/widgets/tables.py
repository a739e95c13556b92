"""Read-only table cells shared by the docks: numbers with "—" for undefined values, text;
and :func:`filling`, which fills a table without measuring its columns after every cell."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTableView, QTableWidget, QTableWidgetItem, QTreeView

#: What a cell shows for an undefined value (its tooltip says why).
UNDEFINED_TEXT = "—"


def number_item(
    value: float, reason: str | None = None, digits: int = 4, style: str = "f"
) -> QTableWidgetItem:
    """A read-only, right-aligned table cell; NaN shows "—" with ``reason`` as tooltip.

    ``digits`` and ``style`` (``"f"`` fixed, ``"g"`` significant) format the number.
    """
    defined = not math.isnan(value)
    item = QTableWidgetItem(f"{value:.{digits}{style}}" if defined else UNDEFINED_TEXT)
    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    if not defined:
        item.setToolTip(reason or "undefined")
    return item


def text_item(text: str, tooltip: str = "") -> QTableWidgetItem:
    """A read-only text cell."""
    item = QTableWidgetItem(text)
    item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    if tooltip:
        item.setToolTip(tooltip)
    return item


def filled_item(table: QTableWidget, row: int, column: int) -> QTableWidgetItem:
    """The item of a cell the caller filled itself (``QTableWidget.item`` may give ``None``).

    Raises ``LookupError`` when the cell is empty: that is a programming error.
    """
    item = table.item(row, column)
    if item is None:
        raise LookupError(f"table cell ({row}, {column}) is empty")
    return item


def read_only_table(headers: Sequence[str]) -> QTableWidget:
    """An empty table with these column headers, whole-row selection and no editing."""
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(list(headers))
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    return table


@contextmanager
def filling(view: QTableView | QTreeView) -> Iterator[None]:
    """Fill a table or tree in the block; columns sized to their contents are measured
    once, after it.

    A column in ``ResizeToContents`` mode measures every cell of the column again after
    each item is set: filling n cells costs n² measurements. In the block such columns
    are ``Interactive``; they are ``ResizeToContents`` again after it.
    """
    header = view.header() if isinstance(view, QTreeView) else view.horizontalHeader()
    fitted = QHeaderView.ResizeMode.ResizeToContents
    columns = [c for c in range(header.count()) if header.sectionResizeMode(c) == fitted]
    for column in columns:
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
    try:
        yield
    finally:
        for column in columns:
            if column < header.count():
                header.setSectionResizeMode(column, fitted)
