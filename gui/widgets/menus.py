"""Menu entries with a window-wide keyboard shortcut."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget


def add_key_action(
    window: QWidget,
    menu: QMenu,
    text: str,
    key: str | Sequence[str],
    slot: Callable[[], object],
) -> QAction:
    """Add ``text`` to ``menu``: ``key`` (or any of several keys) anywhere in ``window`` or a
    click calls ``slot()``.

    A field being typed in keeps the keys it types (Qt asks it first); Return and
    Escape end typing in a number box without reaching a shortcut
    (:class:`~referee.gui.widgets.focus.FieldFocus`)."""
    action = QAction(text, window)
    keys = [key] if isinstance(key, str) else list(key)
    action.setShortcuts([QKeySequence(k) for k in keys])
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.triggered.connect(lambda _=False: slot())
    menu.addAction(action)
    return action
