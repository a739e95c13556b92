"""A read-only, sortable table whose leading columns stay in view when it scrolls sideways."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QMouseEvent, QPalette, QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QFrame, QHeaderView, QTableView, QWidget

_Index = QModelIndex | QPersistentModelIndex
#: Width of the line between the frozen and the scrolling columns, in pixels.
EDGE_WIDTH = 2
#: Share of a narrow table's width the frozen columns take at most (their text is elided).
MAX_FROZEN_SHARE = 0.45
#: Narrowest a frozen column gets when the table is narrow, in pixels: room for a colour
#: swatch and a few letters.
MIN_FROZEN_COLUMN = 64


class FrozenColumnsTable(QTableView):
    """A table whose first ``frozen_columns`` columns are drawn by a second view laid over
    its left edge: both views share the model and the selection and scroll together
    vertically; only the other columns scroll sideways, beneath the frozen ones.

    Text too long for a frozen column is cut in the middle, keeping both ends of a name.
    Rows are selected whole, one at a time, and sorted by clicking a header (clicking
    the sorted header a third time returns to the model's order).

    Signals
    -------
    row_chosen(row)
        The current row changed (click or keyboard), or the current row was clicked again.
    """

    row_chosen = Signal(int)

    def __init__(self, frozen_columns: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.frozen_columns = frozen_columns
        self.frozen = QTableView(self)
        self._edge = QWidget(self)  # a line where the columns start scrolling beneath
        self._edge.setAutoFillBackground(True)
        self._edge.setBackgroundRole(QPalette.ColorRole.Mid)
        self._pressed_current_row = False
        self._frozen_widths: list[int] = []
        row_height = self.fontMetrics().height() + 6
        for view in (self, self.frozen):
            view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
            view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
            view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
            view.setAlternatingRowColors(True)
            view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
            view.setWordWrap(False)
            view.verticalHeader().setVisible(False)
            view.verticalHeader().setDefaultSectionSize(row_height)
            header = view.horizontalHeader()
            header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
            header.setSortIndicatorClearable(True)
            header.setHighlightSections(False)
            view.viewport().installEventFilter(self)
            view.clicked.connect(self._on_clicked)
        self._set_up_frozen_view()
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setSortingEnabled(True)
        self._connect_views()

    def _set_up_frozen_view(self) -> None:
        frozen = self.frozen
        frozen.setObjectName("frozenColumns")
        frozen.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        frozen.setFrameShape(QFrame.Shape.NoFrame)
        # Names cut in the middle keep their ends: "MOG" and "MOG2" never both read "M…".
        frozen.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        frozen.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        frozen.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        frozen.horizontalHeader().setSectionsClickable(True)
        frozen.horizontalHeader().setSortIndicatorShown(True)
        self.viewport().stackUnder(frozen)

    def _connect_views(self) -> None:
        main, frozen = self.horizontalHeader(), self.frozen.horizontalHeader()
        main.sectionResized.connect(self._on_main_section_resized)
        frozen.sectionResized.connect(self._on_frozen_section_resized)
        # Clicking a frozen header sorts through the main header (the one that sorts).
        frozen.sortIndicatorChanged.connect(partial(self._copy_sort_indicator, main))
        main.sortIndicatorChanged.connect(partial(self._copy_sort_indicator, frozen))
        self.verticalScrollBar().valueChanged.connect(self.frozen.verticalScrollBar().setValue)
        self.frozen.verticalScrollBar().valueChanged.connect(self.verticalScrollBar().setValue)

    @staticmethod
    def _copy_sort_indicator(header: QHeaderView, section: int, order: Qt.SortOrder) -> None:
        header.setSortIndicator(section, order)  # no signal when it already shows this

    # --- model and selection ---------------------------------------------------------------

    def setModel(self, model: QAbstractItemModel | None) -> None:
        """Show ``model`` in both views, sharing one selection."""
        super().setModel(model)
        self.frozen.setModel(model)
        selection = self.selectionModel()
        self.frozen.setSelectionModel(selection)
        selection.currentRowChanged.connect(self._on_current_row_changed)
        if model is not None:
            for column in range(model.columnCount()):
                self.frozen.setColumnHidden(column, column >= self.frozen_columns)
        self._place_frozen_view()

    def setColumnHidden(self, column: int, hide: bool) -> None:
        """Hide or show a scrolling column (the frozen ones always show)."""
        if column >= self.frozen_columns:
            super().setColumnHidden(column, hide)

    def select_row(self, row: int) -> None:
        """Make ``row`` current and selected without emitting ``row_chosen``."""
        model = self.model()
        selection = self.selectionModel()
        if model is None or selection is None or not 0 <= row < model.rowCount():
            return
        self.blockSignals(True)
        try:
            flags = (
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows
            )
            selection.setCurrentIndex(model.index(row, 0), flags)
        finally:
            self.blockSignals(False)

    def _on_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.row_chosen.emit(current.row())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Note, before either view handles a press, whether it falls on the current row."""
        if isinstance(event, QMouseEvent) and event.type() == QEvent.Type.MouseButtonPress:
            view = self.frozen if watched is self.frozen.viewport() else self
            if view is self.frozen:
                self.setFocus(Qt.FocusReason.MouseFocusReason)  # keys then move from there
            pressed, current = view.indexAt(event.position().toPoint()), self.currentIndex()
            self._pressed_current_row = (
                pressed.isValid() and current.isValid() and pressed.row() == current.row()
            )
        return super().eventFilter(watched, event)

    def _on_clicked(self, index: QModelIndex) -> None:
        if self._pressed_current_row and index.isValid():
            self._pressed_current_row = False
            self.row_chosen.emit(index.row())

    # --- geometry ------------------------------------------------------------------------------

    def set_frozen_widths(self, widths: Sequence[int]) -> None:
        """Widths of the frozen columns when there is room; in a narrow table they share
        :data:`MAX_FROZEN_SHARE` of its width, so that other columns stay in view."""
        self._frozen_widths = list(widths)
        self._fit_frozen_columns()

    def _fit_frozen_columns(self) -> None:
        total = sum(self._frozen_widths)
        if total <= 0:
            return
        scale = min(1.0, self.viewport().width() * MAX_FROZEN_SHARE / total)
        for column, width in enumerate(self._frozen_widths):
            self.setColumnWidth(column, max(MIN_FROZEN_COLUMN, int(width * scale)))

    def frozen_width(self) -> int:
        """Width of the frozen columns, in pixels."""
        return sum(self.columnWidth(c) for c in range(self.frozen_columns))

    def _place_frozen_view(self) -> None:
        self.frozen.horizontalHeader().setFixedHeight(self.horizontalHeader().height())
        left, height = self.verticalHeader().width() + self.frameWidth(), self.viewport().height()
        width = self.frozen_width()
        height += self.horizontalHeader().height()
        self.frozen.setGeometry(left, self.frameWidth(), width, height)
        self._edge.setGeometry(left + width - EDGE_WIDTH, self.frameWidth(), EDGE_WIDTH, height)
        self._edge.raise_()

    def _on_main_section_resized(self, column: int, _old: int, size: int) -> None:
        if column < self.frozen_columns:
            self.frozen.setColumnWidth(column, size)
            self._place_frozen_view()

    def _on_frozen_section_resized(self, column: int, _old: int, size: int) -> None:
        if column < self.frozen_columns:
            self.setColumnWidth(column, size)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_frozen_columns()
        self._place_frozen_view()

    def updateGeometries(self) -> None:
        super().updateGeometries()
        self._place_frozen_view()

    def scrollTo(
        self,
        index: _Index,
        hint: QAbstractItemView.ScrollHint = QAbstractItemView.ScrollHint.EnsureVisible,
    ) -> None:
        """Scroll to ``index`` without hiding it under the frozen columns; a frozen cell
        scrolls only vertically."""
        bar = self.horizontalScrollBar()
        if index.column() < self.frozen_columns:
            keep = bar.value()
            super().scrollTo(index, hint)
            bar.setValue(keep)
            return
        super().scrollTo(index, hint)
        covered = self.frozen_width() - self.visualRect(index).left()
        if covered > 0:
            bar.setValue(bar.value() - covered)
