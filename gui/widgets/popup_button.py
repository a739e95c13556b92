"""A button that drops a widget down beneath it and keeps it open while it is used."""

from __future__ import annotations

from PySide6.QtWidgets import QMenu, QToolButton, QWidget, QWidgetAction


def popup_button(text: str, content: QWidget, tooltip: str = "") -> QToolButton:
    """A button labelled ``text`` that shows ``content`` in a drop-down; clicks inside
    ``content`` (checking boxes, say) leave it open, a click outside closes it."""
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tooltip)
    button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    menu = QMenu(button)
    holder = QWidgetAction(menu)
    holder.setDefaultWidget(content)
    menu.addAction(holder)
    button.setMenu(menu)
    return button
