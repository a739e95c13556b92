"""Light and dark palettes for the widgets and the pyqtgraph views."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QWidget

_DARK = {
    QPalette.ColorRole.Window: (45, 45, 48),
    QPalette.ColorRole.WindowText: (230, 230, 230),
    QPalette.ColorRole.Base: (30, 30, 32),
    QPalette.ColorRole.AlternateBase: (52, 52, 56),
    QPalette.ColorRole.Text: (230, 230, 230),
    QPalette.ColorRole.Button: (56, 56, 60),
    QPalette.ColorRole.ButtonText: (230, 230, 230),
    QPalette.ColorRole.ToolTipBase: (250, 250, 220),
    QPalette.ColorRole.ToolTipText: (20, 20, 20),
    QPalette.ColorRole.Highlight: (0, 114, 178),
    QPalette.ColorRole.HighlightedText: (255, 255, 255),
    QPalette.ColorRole.PlaceholderText: (150, 150, 150),
}


def apply_theme(window: QWidget, dark: bool) -> None:
    """Switch the application palette and every plot background under ``window``."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        raise RuntimeError("the theme applies to widgets: create the QApplication first")
    app.setStyle("Fusion")
    palette = app.style().standardPalette()
    if dark:
        for role, rgb in _DARK.items():
            palette.setColor(role, QColor(*rgb))
    app.setPalette(palette)
    background = palette.color(QPalette.ColorRole.Base)
    foreground = palette.color(QPalette.ColorRole.Text)
    pg.setConfigOptions(background=background, foreground=foreground)
    for view in window.findChildren(pg.GraphicsView):
        view.setBackground(background)
    for axis in window.findChildren(pg.GraphicsView):
        for item in axis.items():
            if isinstance(item, pg.AxisItem):
                item.setPen(foreground)
                item.setTextPen(foreground)
