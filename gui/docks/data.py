"""The Data dock: the project's sources as a tree with their status; add and remove detectors.

A source that could not be read says why in its row, and
:func:`failed_sources_message` words every such source for one dialog.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from referee.core.model.project import DetectorSource
from referee.core.workflow.sources import SourceStatus, failed_sources
from referee.gui.widgets.source_tree import SourceTree, legend_html


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
        f"• {row.title}" + (f" ({row.path})" if row.path else "") + f": {row.message}"
        for row in failed
    ]
    return "\n".join([head, *lines])


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
        self.tree = SourceTree()
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
        self._legend.setText(legend_html(self.palette()))

    def show_status(self, rows: Sequence[SourceStatus], detectors: Sequence[str]) -> None:
        """Fill the tree with ``rows``; ``detectors`` are the group names that can be removed.

        A source that could not be read says why in Details (wrapped, in view);
        ``sources_failed`` is emitted when any could not be read.
        """
        self._detectors = set(detectors)
        self.tree.show_rows(rows)
        self.remove_button.setEnabled(bool(self._detectors))
        message = failed_sources_message(rows)
        if message is not None:
            paths = [row.path for row in failed_sources(rows) if row.path is not None]
            self.sources_failed.emit(message, paths)

    def changeEvent(self, event: QEvent) -> None:
        """Colour the legend again for a new theme."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._legend.setText(legend_html(self.palette()))

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
