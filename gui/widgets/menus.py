"""Menu entries with a window-wide keyboard shortcut."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget


def add_key_action(
    window: QWidget, menu: QMenu, text: str, key: str, slot: Callable[[], object]
) -> QAction:
    """Add ``text`` to ``menu``: ``key`` anywhere in ``window`` or a click calls ``slot()``.

    A field being typed in keeps the keys it types (Qt asks it first); Return and
    Escape end typing in a number box without reaching a shortcut
    (:class:`~referee.gui.widgets.focus.FieldFocus`)."""
    action = QAction(text, window)
    action.setShortcut(QKeySequence(key))
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.triggered.connect(lambda _=False: slot())
    menu.addAction(action)
    return action
