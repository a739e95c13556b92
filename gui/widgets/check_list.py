"""A short list of names with check boxes: which detectors take part."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget


class CheckList(QListWidget):
    """Names, each with a check box; :meth:`checked_names` gives the checked ones in order."""

    def __init__(self, tooltip: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setToolTip(tooltip)
        self.setMaximumHeight(90)

    def set_names(self, names: Sequence[str], checked: int | None = None) -> None:
        """List ``names``; the first ``checked`` are checked (all when ``None``)."""
        self.clear()
        for index, name in enumerate(names):
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            on = checked is None or index < checked
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            self.addItem(item)

    def checked_names(self) -> tuple[str, ...]:
        """The checked names, in list order."""
        return tuple(
            self.item(i).text()
            for i in range(self.count())
            if self.item(i).checkState() == Qt.CheckState.Checked
        )
