"""Counting the paint events a widget gets, for tests of when the window paints."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget


class PaintCounter(QObject):
    """Counts the paint events ``widget`` gets from now on (``count``)."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return super().eventFilter(watched, event)
