"""A button that drops a widget down beneath it and keeps it open while it is used."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QMenu, QStyle, QToolButton, QWidget, QWidgetAction


class MenuToolButton(QToolButton):
    """A tool button that opens its menu at once, as wide as its text and the menu's arrow
    (Fusion draws the arrow in the button's corner, against the text when there is no room)."""

    def __init__(self, text: str, tooltip: str = "", menu: QMenu | None = None) -> None:
        super().__init__()
        self.setText(text)
        self.setToolTip(tooltip)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setMenu(menu if menu is not None else QMenu(self))

    def sizeHint(self) -> QSize:  # Qt override
        hint = super().sizeHint()
        arrow = self.style().pixelMetric(QStyle.PixelMetric.PM_MenuButtonIndicator, None, self)
        return QSize(hint.width() + arrow, hint.height())

    def minimumSizeHint(self) -> QSize:  # Qt override
        return self.sizeHint()


def popup_button(text: str, content: QWidget, tooltip: str = "") -> QToolButton:
    """A button labelled ``text`` that shows ``content`` in a drop-down; clicks inside
    ``content`` (checking boxes, say) leave it open, a click outside closes it."""
    button = MenuToolButton(text, tooltip)
    menu = button.menu()
    holder = QWidgetAction(menu)
    holder.setDefaultWidget(content)
    menu.addAction(holder)
    return button
