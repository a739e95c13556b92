"""Draw a widget's contents only while the user can see them.

A dock tabbed behind another one is moved off the window, not hidden: it stays
"visible" but no pixel of it shows. Redrawing its plots for every new result
costs the event loop time the user feels and shows them nothing. A
:class:`DeferredDraw` draws at once while its widget can be seen, and otherwise
keeps the request until the widget is shown (its tab chosen, its dock raised).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QDockWidget, QWidget


def enclosing_dock(widget: QWidget) -> QDockWidget | None:
    """The dock ``widget`` is in (itself, if a dock), or ``None``."""
    found: QWidget | None = widget
    while found is not None and not isinstance(found, QDockWidget):
        found = found.parentWidget()
    return found


def can_be_seen(widget: QWidget) -> bool:
    """Whether ``widget`` is shown and, inside a dock, that dock is not behind another's tab.

    A docked dock behind a tab lies outside its window (cheaper to ask than its
    ``visibleRegion``); a floating dock is a window of its own.
    """
    if not widget.isVisible():
        return False
    dock = enclosing_dock(widget)
    if dock is None or dock.isWindow():
        return True
    window = dock.parentWidget()
    return window is None or window.rect().intersects(dock.geometry())


class DeferredDraw(QObject):
    """Calls ``draw()`` when asked if ``widget`` can be seen, else once it is shown.

    Only the last request counts: ``draw`` reads the newest data itself.
    """

    def __init__(self, widget: QWidget, draw: Callable[[], None]) -> None:
        super().__init__(widget)
        self._widget = widget
        self._draw = draw
        self._pending = False
        self._watched: list[QDockWidget] = []
        widget.installEventFilter(self)

    @property
    def pending(self) -> bool:
        """Whether a draw waits for the widget to be shown."""
        return self._pending

    def request(self) -> None:
        """Draw now if the widget can be seen; else when it is next shown."""
        if can_be_seen(self._widget):
            self._pending = False
            self._draw()
            return
        self._pending = True
        dock = enclosing_dock(self._widget)  # looked up now: the widget may have moved
        if dock is not None and dock not in self._watched:
            dock.visibilityChanged.connect(self._on_dock_visibility)
            self._watched.append(dock)

    def flush(self) -> None:
        """Draw now what waits, seen or not (before saving a picture of the widget, say)."""
        if self._pending:
            self._pending = False
            self._draw()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A widget shown (a tab chosen): draw what waits, if it can be seen."""
        if event.type() == QEvent.Type.Show and self._pending and can_be_seen(self._widget):
            self.flush()
        return super().eventFilter(watched, event)

    def _on_dock_visibility(self, visible: bool) -> None:
        if visible and can_be_seen(self._widget):
            self.flush()
