"""The application carries Referee's icon and desktop id."""

from __future__ import annotations

from PySide6.QtGui import QColor

from referee.gui.app import application

#: Fill of the icon's rounded square: Okabe–Ito blue.
ICON_BLUE = QColor(0, 114, 178)


def test_application_has_the_referee_window_icon() -> None:
    app = application()
    icon = app.windowIcon()
    assert not icon.isNull()
    image = icon.pixmap(64, 64).toImage()
    assert image.width() == 64
    # Left edge, halfway down: inside the blue square, outside the film strip.
    assert image.pixelColor(5, 32).rgb() == ICON_BLUE.rgb()
    assert app.desktopFileName() == "org.referee.Referee"
