"""The Boxes dock's item list: asked on every frame, filled again only when it changes."""

from __future__ import annotations

from referee.gui.docks.boxes import BoxesDock

ROWS = [("1", "walking", "10–40", "2"), ("2", "handshaking", "5–9", "1")]


def _cells(dock: BoxesDock) -> list[tuple[str, ...]]:
    table = dock.items
    return [
        tuple(table.item(r, c).text() for c in range(table.columnCount()))
        for r in range(table.rowCount())
    ]


def test_the_same_rows_keep_their_cells_and_a_new_selection_is_shown(qtbot) -> None:
    dock = BoxesDock()
    qtbot.addWidget(dock)
    dock.show_items(ROWS, None)
    first = dock.items.item(1, 1)
    dock.show_items(list(ROWS), 1)  # the next frame: the same items, the second selected
    assert dock.items.item(1, 1) is first  # not filled again
    assert dock.selected_rows() == [1]
    dock.show_items(list(ROWS), 1)
    assert dock.items.item(1, 1) is first and dock.selected_rows() == [1]
    dock.show_items(list(ROWS), None)
    assert dock.selected_rows() == []


def test_changed_rows_are_filled_again(qtbot) -> None:
    dock = BoxesDock()
    qtbot.addWidget(dock)
    dock.show_items(ROWS, 0)
    edited = [ROWS[0], ("2", "handshaking", "5–12", "2"), ("3", "walking", "50–60", "1")]
    dock.show_items(edited, 2)
    assert _cells(dock) == edited
    assert dock.selected_rows() == [2]
    dock.show_items([], None)
    assert dock.items.rowCount() == 0 and dock.selected_rows() == []


def test_selecting_a_row_from_the_list_is_announced(qtbot) -> None:
    dock = BoxesDock()
    qtbot.addWidget(dock)
    dock.show_items(ROWS, None)
    with qtbot.waitSignal(dock.rows_selected) as signal:
        dock.items.selectRow(1)
    assert signal.args == [[1]]
    # The controller answers with the same rows and that selection: nothing is redone.
    cell = dock.items.item(0, 0)
    dock.show_items(ROWS, 1)
    assert dock.items.item(0, 0) is cell and dock.selected_rows() == [1]
