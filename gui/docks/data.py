"""The Data dock: the project's sources as a tree with their status; add and remove detectors.

A source that could not be read says why in its row, and
:func:`failed_sources_message` words every such source for one dialog.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from referee.core.model.project import DetectorSource
from referee.core.workflow.sources import ERROR, LOADED, MISSING, SourceStatus, failed_sources
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


def source_title(row: SourceStatus) -> str:
    """How a dialog names a source: "dataset", "video", "ground-truth actions", "knn masks"."""
    if row.group in ("Dataset", "Videos"):
        return row.kind
    if row.group == "Ground truth":
        return f"ground-truth {row.kind}"
    return f"{row.group} {row.kind}"


def failed_sources_message(rows: Sequence[SourceStatus]) -> str | None:
    """One dialog text naming each source that could not be read, its file and why; ``None``
    when every source was read."""
    failed = failed_sources(rows)
    if not failed:
        return None
    head = (
        "1 source could not be read:"
        if len(failed) == 1
        else f"{len(failed)} sources could not be read:"
    )
    lines = [
        f"• {source_title(row)}" + (f" ({row.path})" if row.path else "") + f": {row.message}"
        for row in failed
    ]
    return "\n".join([head, *lines])


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


class DataDock(QDockWidget):
    """Project tree: groups (dataset, ground truth, each detector) and their sources.

    ``add_requested(DetectorSource)`` and ``remove_requested(name)`` ask the
    window to change the project; the dock changes nothing itself.
    ``sources_failed(message, paths)`` is emitted by :meth:`show_status` when
    some sources could not be read: the :func:`failed_sources_message` and
    their paths.
    """

    add_requested = Signal(object)
    remove_requested = Signal(str)
    sources_failed = Signal(str, list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Data", parent)
        self.setObjectName("DataDock")
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Source", "Status", "Details"])
        self.tree.setIndentation(12)
        self.tree.setUniformRowHeights(False)
        self.tree.setItemDelegateForColumn(DETAILS_COLUMN, _WrappedDetails(self.tree))
        header = self.tree.header()
        header.setStretchLastSection(True)
        for column in (SOURCE_COLUMN, STATUS_COLUMN):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.sectionResized.connect(lambda *_: self.tree.doItemsLayout())  # wrap anew
        self.tree.setToolTip(
            "What the project holds; Details says what was found, or why a source could "
            "not be read (hover a row for its path and the whole text)"
        )
        self.add_button = QPushButton("Add detector…")
        self.add_button.setToolTip(
            "Add a detector's results folder (<category>/<video>/bin%06d.png)"
        )
        self.add_button.clicked.connect(self._on_add)
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip(
            "Remove the selected detector from the project (its files stay on disk)"
        )
        self.remove_button.clicked.connect(self._on_remove)
        self._legend = QLabel()
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self._legend)
        layout.addLayout(buttons)
        self.setWidget(body)
        self._detectors: set[str] = set()
        #: The items of the sources (not of the groups), in tree order.
        self._sources: list[QTreeWidgetItem] = []
        self._colour_legend()

    def show_status(self, rows: Sequence[SourceStatus], detectors: Sequence[str]) -> None:
        """Fill the tree with ``rows``; ``detectors`` are the group names that can be removed.

        A source that could not be read says why in Details (wrapped, in view);
        ``sources_failed`` is emitted when any could not be read.
        """
        self._detectors = set(detectors)
        self._fill(rows)
        self.remove_button.setEnabled(bool(self._detectors))
        message = failed_sources_message(rows)
        if message is not None:
            paths = [row.path for row in failed_sources(rows) if row.path is not None]
            self.sources_failed.emit(message, paths)

    def _fill(self, rows: Sequence[SourceStatus]) -> None:
        self.tree.clear()
        self._sources = []
        groups: dict[str, QTreeWidgetItem] = {}
        for row in rows:
            group = groups.get(row.group)
            if group is None:
                group = groups[row.group] = QTreeWidgetItem(self.tree, [row.group])
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
        if failed:  # in a short dock, the first problem is in view under its group's name
            group = failed[0].parent() or failed[0]
            self.tree.scrollToItem(group, QTreeWidget.ScrollHint.PositionAtTop)

    def _colour_states(self) -> None:
        """Colour each source's status in the current theme's shade of its state colour."""
        palette = self.palette()  # the tree's fields follow it (and get it after the dock)
        for item in self._sources:
            colour = STATE_STYLE[item.data(STATUS_COLUMN, _STATE_ROLE)][0]
            item.setForeground(STATUS_COLUMN, QBrush(colour.on(palette)))

    def _colour_legend(self) -> None:
        palette = self.palette()
        self._legend.setText(
            "  ".join(
                f"<span style='color:{colour.on(palette, palette.ColorRole.Window).name()}'>"
                f"{symbol}</span> {state}"
                for state, (colour, symbol) in STATE_STYLE.items()
            )
        )

    def changeEvent(self, event: QEvent) -> None:
        """Colour the states again for a new theme."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._colour_legend()
            self._colour_states()

    def selected_detector(self) -> str | None:
        """The detector group of the selected row, if it is one."""
        item = self.tree.currentItem()
        group = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        return group if group in self._detectors else None

    def _on_add(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Detector results folder")
        if folder:
            path = Path(folder)
            self.add_requested.emit(DetectorSource(path.name, masks=path))

    def _on_remove(self) -> None:
        name = self.selected_detector()
        if name is not None:
            self.remove_requested.emit(name)
