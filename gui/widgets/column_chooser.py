"""A menu that shows or hides a table's columns, from its header or from a button."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QObject, QPoint, Qt
from PySide6.QtWidgets import QHeaderView, QMenu, QTableView, QToolButton

from referee.gui.widgets.popup_button import MenuToolButton

SHOW_ALL = "Show all columns"


class ColumnChooser(QObject):
    """Checkable column names: unchecking one hides that column of ``view``.

    The first ``fixed`` columns always show and are not listed. :meth:`attach` opens the
    menu from a header's context menu; :meth:`button` makes a button that opens it.
    """

    def __init__(self, view: QTableView, fixed: int) -> None:
        super().__init__(view)
        self._view = view
        self._fixed = fixed
        self.menu = QMenu(view)
        self.menu.setToolTipsVisible(True)
        self.menu.aboutToShow.connect(self._fill)

    def attach(self, header: QHeaderView) -> None:
        """Open the menu on a right click on ``header``."""
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(partial(self._popup, header))

    def button(self, text: str = "Columns") -> QToolButton:
        """A button that opens the menu."""
        tip = "Show or hide columns (also a right click on the table's header)"
        return MenuToolButton(text, tip, self.menu)

    def set_column_shown(self, column: int, shown: bool) -> None:
        """Show or hide ``column`` (the fixed columns always show)."""
        if column >= self._fixed:
            self._view.setColumnHidden(column, not shown)

    def show_all(self) -> None:
        """Show every column."""
        model = self._view.model()
        for column in range(model.columnCount() if model is not None else 0):
            self.set_column_shown(column, True)

    def _popup(self, header: QHeaderView, position: QPoint) -> None:
        self.menu.popup(header.mapToGlobal(position))

    def _fill(self) -> None:
        self.menu.clear()
        model = self._view.model()
        if model is None:
            return
        for column in range(self._fixed, model.columnCount()):
            action = self.menu.addAction(str(model.headerData(column, Qt.Orientation.Horizontal)))
            tip = model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
            action.setToolTip(str(tip or ""))
            action.setCheckable(True)
            action.setChecked(not self._view.isColumnHidden(column))
            action.toggled.connect(partial(self.set_column_shown, column))
        self.menu.addSeparator()
        self.menu.addAction(SHOW_ALL, self.show_all)
