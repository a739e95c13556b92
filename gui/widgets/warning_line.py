"""A warning icon and sentence, in a warning colour legible in the light and the dark theme."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QPalette, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStyle, QWidget

from referee.gui.widgets.text_colours import WARNING_TEXT


class WrappedText(QLabel):
    """A word-wrapped label whose minimum height is that of all its wrapped lines at its
    width, so that a crowded dock scrolls instead of cutting the sentence off."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)

    def setText(self, text: str) -> None:  # Qt override
        super().setText(text)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self._fit()

    def _fit(self) -> None:
        height = self.heightForWidth(self.width()) if self.text() and self.width() > 0 else 0
        if height != self.minimumHeight():
            self.setMinimumHeight(max(height, 0))


class WarningLine(QWidget):
    """A warning sign and a word-wrapped sentence in :data:`WARNING_TEXT`; hidden while
    there is nothing to say. The colour follows the theme when it changes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._icon = QLabel()
        self._icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self._text = WrappedText()
        self._text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.addWidget(self._icon)
        layout.addWidget(self._text, 1)
        self._recolour()
        self.setVisible(False)

    def set_text(self, text: str) -> None:
        """Say ``text``; an empty text hides the line."""
        self._text.setText(text)
        self.setVisible(bool(text))

    def text(self) -> str:
        """The sentence shown ("" when hidden)."""
        return self._text.text()

    def text_colour(self) -> QColor:
        """The colour the sentence is written in."""
        return self._text.palette().color(QPalette.ColorRole.WindowText)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._recolour()

    def _recolour(self) -> None:
        side = self._text.fontMetrics().height()
        icon = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        self._icon.setPixmap(icon.pixmap(side, side))
        palette = QPalette()  # only the text colour is set: the rest follows the theme
        colour = WARNING_TEXT.on(self.palette(), QPalette.ColorRole.Window)
        palette.setColor(QPalette.ColorRole.WindowText, colour)
        self._text.setPalette(palette)
