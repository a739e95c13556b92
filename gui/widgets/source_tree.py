"""A project's sources as a tree with their status (the Data dock's, File › New project…'s).

The rows are :func:`~referee.core.workflow.sources.source_status`'s; a source that
could not be read says why in Details, wrapped at the column's width.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QBrush, QPalette
from PySide6.QtWidgets import (
    QHeaderView,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from referee.core.workflow.sources import ERROR, LOADED, MISSING, SourceStatus
from referee.gui.widgets.text_colours import ERROR_TEXT, LOADED_TEXT, WARNING_TEXT, ThemedColour

#: Colour and symbol of each source state.
STATE_STYLE: dict[str, tuple[ThemedColour, str]] = {
    LOADED: (LOADED_TEXT, "✔"),
    MISSING: (WARNING_TEXT, "?"),
    ERROR: (ERROR_TEXT, "✖"),
}
#: Columns of the tree.
SOURCE_COLUMN, STATUS_COLUMN, DETAILS_COLUMN = 0, 1, 2
#: Where a source's item keeps its state, to colour it again in another theme.
_STATE_ROLE = Qt.ItemDataRole.UserRole + 1


def legend_html(palette: QPalette) -> str:
    """Each state's symbol in its colour on ``palette``'s window, and its name."""
    return "&nbsp;&nbsp;&nbsp;".join(
        f"<span style='color:{colour.on(palette, QPalette.ColorRole.Window).name()}'>"
        f"{symbol}</span> {state}"
        for state, (colour, symbol) in STATE_STYLE.items()
    )


class _WrappedDetails(QStyledItemDelegate):
    """The Details of a source that could not be read, wrapped at the column's width, its
    row as tall as the text (Qt's tree gives every row one line); other Details stay on
    one line."""

    #: Room left and right of the text in a cell (pixels).
    MARGIN = 8
    #: Lines shown at most (the last one elided; the tooltip and the dialog say it all).
    MAX_LINES = 3

    def __init__(self, tree: QTreeWidget) -> None:
        super().__init__(tree)
        self._tree = tree

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        if _failed(index):
            option.features |= QStyleOptionViewItem.ViewItemFeature.WrapText

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        hint = super().sizeHint(option, index)
        if not _failed(index):
            return hint
        width = max(self._tree.columnWidth(DETAILS_COLUMN) - self.MARGIN, 20)
        text = str(index.data() or "")
        flags = int(Qt.TextFlag.TextWordWrap) | int(Qt.TextFlag.TextWrapAnywhere)
        metrics = self._tree.fontMetrics()
        bounds = metrics.boundingRect(QRect(0, 0, width, 100_000), flags, text)
        height = min(bounds.height(), self.MAX_LINES * metrics.lineSpacing())
        return QSize(hint.width(), max(hint.height(), height + 4))


def _failed(index: QModelIndex | QPersistentModelIndex) -> bool:
    """Whether the row of ``index`` is a source that could not be read."""
    state = index.sibling(index.row(), STATUS_COLUMN).data(_STATE_ROLE)
    return state is not None and state != LOADED


class SourceTree(QTreeWidget):
    """Groups (dataset, ground truth, each detector) and their sources: name, status,
    details; each group's name is kept in its items' ``UserRole`` of column 0."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(["Source", "Status", "Details"])
        self.setIndentation(12)
        self.setUniformRowHeights(False)
        self.setItemDelegateForColumn(DETAILS_COLUMN, _WrappedDetails(self))
        header = self.header()
        header.setStretchLastSection(True)
        for column in (SOURCE_COLUMN, STATUS_COLUMN):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.sectionResized.connect(lambda *_: self.doItemsLayout())  # wrap anew
        #: The items of the sources (not of the groups), in tree order.
        self._sources: list[QTreeWidgetItem] = []

    def show_rows(self, rows: Sequence[SourceStatus]) -> None:
        """Fill the tree with ``rows``; the first source that could not be read is scrolled
        into view under its group's name."""
        self.clear()
        self._sources = []
        groups: dict[str, QTreeWidgetItem] = {}
        for row in rows:
            group = groups.get(row.group)
            if group is None:
                group = groups[row.group] = QTreeWidgetItem(self, [row.group])
                group.setData(SOURCE_COLUMN, Qt.ItemDataRole.UserRole, row.group)
                group.setFirstColumnSpanned(True)  # a long name leaves Details its width
                group.setExpanded(True)
            symbol = STATE_STYLE[row.state][1]
            item = QTreeWidgetItem(group, [row.name, f"{symbol} {row.state}", row.message])
            item.setData(SOURCE_COLUMN, Qt.ItemDataRole.UserRole, row.group)
            item.setData(STATUS_COLUMN, _STATE_ROLE, row.state)
            self._sources.append(item)
            tip = f"{row.kind}: {row.path if row.path else row.name}"
            tip += f"\n{row.state}: {row.message}" if row.message else ""
            for column in (SOURCE_COLUMN, STATUS_COLUMN, DETAILS_COLUMN):
                item.setToolTip(column, tip)
        self._colour_states()
        failed = [item for item, row in zip(self._sources, rows) if row.failed]
        if failed:
            self.scrollToItem(failed[0].parent() or failed[0], self.ScrollHint.PositionAtTop)

    def _colour_states(self) -> None:
        """Colour each source's status in the current theme's shade of its state colour."""
        palette = self.palette()
        for item in self._sources:
            colour = STATE_STYLE[item.data(STATUS_COLUMN, _STATE_ROLE)][0]
            item.setForeground(STATUS_COLUMN, QBrush(colour.on(palette)))

    def changeEvent(self, event: QEvent) -> None:
        """Colour the states again for a new theme."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._colour_states()
