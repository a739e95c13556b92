"""Read-only tables: filling one measures its columns once, after the cells are in."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QHeaderView, QTreeWidget, QTreeWidgetItem

from referee.gui.widgets.tables import filling, read_only_table, text_item

FITTED = QHeaderView.ResizeMode.ResizeToContents
INTERACTIVE = QHeaderView.ResizeMode.Interactive


def _modes(table) -> list[QHeaderView.ResizeMode]:
    header = table.horizontalHeader()
    return [header.sectionResizeMode(c) for c in range(header.count())]


def test_columns_fit_their_contents_again_after_the_fill(qtbot) -> None:
    table = read_only_table(["a", "b", "c"])
    qtbot.addWidget(table)
    table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
    table.show()
    long_text = "a cell much wider than its header"
    table.setRowCount(3)
    with filling(table):
        assert _modes(table) == [INTERACTIVE, QHeaderView.ResizeMode.Stretch, INTERACTIVE]
        for row in range(3):
            for column in range(3):
                table.setItem(row, column, text_item(long_text if row == 2 else "x"))
    assert _modes(table) == [FITTED, QHeaderView.ResizeMode.Stretch, FITTED]
    needed = table.fontMetrics().horizontalAdvance(long_text)
    qtbot.waitUntil(lambda: table.columnWidth(0) >= needed)  # measured once, after the fill
    assert table.columnWidth(2) >= needed


def test_the_modes_come_back_when_the_fill_fails(qtbot) -> None:
    table = read_only_table(["a", "b"])
    qtbot.addWidget(table)
    with pytest.raises(ValueError), filling(table):
        raise ValueError("a cell could not be made")
    assert _modes(table) == [FITTED, FITTED]


def test_a_tree_is_filled_the_same_way(qtbot) -> None:
    tree = QTreeWidget()
    qtbot.addWidget(tree)
    tree.setHeaderLabels(["source", "details"])
    tree.header().setSectionResizeMode(0, FITTED)
    with filling(tree):
        assert tree.header().sectionResizeMode(0) == INTERACTIVE
        QTreeWidgetItem(tree, ["a source with a long name", "x"])
    assert tree.header().sectionResizeMode(0) == FITTED
