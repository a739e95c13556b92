"""Where the keyboard and the mouse go: number boxes give the keys back, the wheel scrolls.

The window's single-key shortcuts (tools, classes, box edits…) fire wherever the
focus is, except in a field being typed in, which keeps its digits and letters
(Qt asks the focused widget first). :class:`FieldFocus` makes typing end
cleanly: Return or Enter in a number box applies the value, Escape leaves it,
and either gives the focus back to a home widget (the frame view), so that the
next key is a shortcut again; neither key triggers a window shortcut meanwhile.
It also keeps the mouse wheel from changing a box the user only scrolls past.
:class:`FocusingClick` tells a view's tools which click only focused the view.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSpinBox,
    QComboBox,
    QDoubleSpinBox,
    QSpinBox,
    QWidget,
)

#: Keys that end typing in a number box: the first two apply the value, Escape does not.
APPLY_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
LEAVE_KEYS = (*APPLY_KEYS, Qt.Key.Key_Escape)
_KEYS = (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress)


class FieldFocus(QObject):
    """The focus rules of the number boxes and combo boxes of a window.

    * In a spin box, Return or Enter applies the typed value and Escape leaves the
      value as it stands (a box that applies as the user types has applied it; the
      frame box shows its frame again); then the focus goes to ``home`` (if shown, in
      the box's window), else leaves the box for its window. These keys reach the
      box, never a window shortcut (such as an "Accept frame" on Return).
    * The wheel changes a spin box or combo box only while it has the focus (a
      click or Tab gives it, not the wheel); otherwise the wheel event goes on to
      the box's parents: a dock's scroll area scrolls.
    """

    def __init__(self, home: QWidget) -> None:
        super().__init__(home)
        self.home = home

    def guard(self, root: QWidget) -> None:
        """Apply the rules to every spin box and combo box inside ``root``."""
        for field in [*root.findChildren(QAbstractSpinBox), *root.findChildren(QComboBox)]:
            field.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            field.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Wheel and isinstance(watched, QWidget):
            if watched.hasFocus():
                return False
            event.ignore()  # handled here, ignored: Qt offers it to the parents
            return True
        if kind not in _KEYS or not isinstance(watched, QAbstractSpinBox):
            return False
        key: QKeyEvent = event  # type: ignore[assignment]
        modifiers = key.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if key.key() not in LEAVE_KEYS or modifiers != Qt.KeyboardModifier.NoModifier:
            return False
        if kind == QEvent.Type.ShortcutOverride:
            key.accept()  # the key press comes to the box, not to a shortcut
            return True
        self.leave(watched, apply=key.key() in APPLY_KEYS)
        return True

    def leave(self, box: QAbstractSpinBox, apply: bool) -> None:
        """End typing in ``box``: apply its text (or show its value again), focus home."""
        if apply:
            box.interpretText()
        elif isinstance(box, QSpinBox | QDoubleSpinBox):
            # Its own value again: the text typed is dropped, nothing is emitted.
            box.setValue(box.value())  # type: ignore[arg-type]
        if self.home.isVisible() and self.home.window() is box.window():
            self.home.setFocus(Qt.FocusReason.OtherFocusReason)
        else:  # a floating dock's box, or no frame shown: the keys go to the window
            box.clearFocus()


class FocusingClick(QObject):
    """Whether the last mouse press on ``view`` was the one that gave it the focus.

    The first click on an unfocused frame view only focuses it: its tools look at
    :attr:`focusing` when the button goes down and then leave that gesture alone.
    A press that Qt did not focus the view for (a synthesized event) focuses it here.
    """

    def __init__(self, view: QAbstractScrollArea) -> None:
        super().__init__(view)
        self.view = view
        self.focusing = False
        self._focused_by_mouse = False  # since the focus came with the press under way
        view.installEventFilter(self)
        view.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.FocusIn and watched is self.view:
            reason = event.reason()  # type: ignore[attr-defined]
            self._focused_by_mouse = reason == Qt.FocusReason.MouseFocusReason
        elif kind == QEvent.Type.FocusOut and watched is self.view:
            self._focused_by_mouse = False
        elif kind == QEvent.Type.MouseButtonPress and watched is self.view.viewport():
            self.focusing = self._focused_by_mouse or not self.view.hasFocus()
            self.view.setFocus(Qt.FocusReason.MouseFocusReason)
            self._focused_by_mouse = False
        return False
