"""Keeping a main window's size, position and dock layout as soon as they change.

Saved only on a normal exit, a layout the user arranged is lost when the
application is killed or crashes; :class:`LayoutKeeper` saves it shortly after
every change instead.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow

#: Quiet time after the last move, resize or dock change before the layout is saved, in ms:
#: a drag saves once, when it ends.
SAVE_DELAY_MS = 1000
_CHANGES = frozenset(
    {
        QEvent.Type.Move,
        QEvent.Type.Resize,
        QEvent.Type.Show,
        QEvent.Type.Hide,
        QEvent.Type.WindowStateChange,
    }
)


class LayoutKeeper(QObject):
    """Calls ``save()`` once ``window`` and its docks have kept still for
    :data:`SAVE_DELAY_MS` after a move, a resize, a dock moved, floated, resized, shown,
    hidden or tabbed."""

    def __init__(self, window: QMainWindow, save: Callable[[], None]) -> None:
        super().__init__(window)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SAVE_DELAY_MS)
        self._timer.timeout.connect(lambda: save())
        self._watched = [window, *window.findChildren(QDockWidget)]
        for widget in self._watched:
            widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _CHANGES:
            self._timer.start()
        return False

    def stop(self) -> None:
        """Save no more (the window is closing and saves its layout itself)."""
        self._timer.stop()
        for widget in self._watched:
            widget.removeEventFilter(self)
