"""The Data dock: the project's sources as a tree with their status; add and remove detectors."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from referee.core.model.project import DetectorSource
from referee.core.workflow.sources import SourceStatus
from referee.gui.widgets.palette import OKABE_ITO

#: Colour and symbol of each source state.
STATE_STYLE: dict[str, tuple[tuple[int, int, int], str]] = {
    "loaded": (OKABE_ITO["bluish green"], "✔"),
    "missing": (OKABE_ITO["orange"], "?"),
    "error": (OKABE_ITO["vermillion"], "✖"),
}


class DataDock(QDockWidget):
    """Project tree: groups (dataset, ground truth, each detector) and their sources.

    ``add_requested(DetectorSource)`` and ``remove_requested(name)`` ask the
    window to change the project; the dock changes nothing itself.
    """

    add_requested = Signal(object)
    remove_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Data", parent)
        self.setObjectName("DataDock")
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Source", "Kind", "Status"])
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setToolTip("What the project holds; hover a row for its path and any problem")
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
        legend = QLabel(
            "  ".join(
                f"<span style='color:rgb{colour}'>{symbol}</span> {state}"
                for state, (colour, symbol) in STATE_STYLE.items()
            )
        )
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.tree, 1)
        layout.addWidget(legend)
        layout.addLayout(buttons)
        self.setWidget(body)
        self._detectors: set[str] = set()

    def show_status(self, rows: Sequence[SourceStatus], detectors: Sequence[str]) -> None:
        """Fill the tree with ``rows``; ``detectors`` are the group names that can be removed."""
        self._detectors = set(detectors)
        self.tree.clear()
        groups: dict[str, QTreeWidgetItem] = {}
        for row in rows:
            group = groups.get(row.group)
            if group is None:
                group = groups[row.group] = QTreeWidgetItem(self.tree, [row.group])
                group.setData(0, Qt.ItemDataRole.UserRole, row.group)
                group.setExpanded(True)
            colour, symbol = STATE_STYLE.get(row.state, (OKABE_ITO["grey"], "·"))
            item = QTreeWidgetItem(group, [row.name, row.kind, f"{symbol} {row.state}"])
            item.setData(0, Qt.ItemDataRole.UserRole, row.group)
            item.setForeground(2, QBrush(QColor(*colour)))
            tip = str(row.path) if row.path else row.name
            item.setToolTip(0, tip + (f"\n{row.message}" if row.message else ""))
            item.setToolTip(2, row.message or row.state)
        self.remove_button.setEnabled(bool(self._detectors))

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
