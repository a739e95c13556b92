"""The brush's reach drawn around the pointer, at its true size in image pixels.

:class:`BrushCursor` lives in the frame's image coordinates, like the label map, so the
circle grows and shrinks with the zoom: it covers exactly the pixels a click would paint
(those whose centre lies within the radius). Its outline is a light line over a darker,
wider one, so that it shows on bright and dark frames alike, whatever the theme.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

#: The outline's two tones, drawn in this order: (colour, width in screen pixels).
_TONES: tuple[tuple[QColor, float], ...] = (
    (QColor(0, 0, 0, 200), 4.0),
    (QColor(255, 255, 255), 2.0),
)
#: Screen pixels around the circle that the outline and its antialiasing may cover.
_MARGIN_PX = 3.5


def _pen(colour: QColor, width: float) -> QPen:
    pen = QPen(colour, width)
    pen.setCosmetic(True)  # the width stays in screen pixels at any zoom
    return pen


class BrushCursor(QGraphicsItem):
    """A circle of the brush radius around the pointer, in image coordinates."""

    def __init__(self, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        self._circle = QRectF()
        self._margin = 0.0
        self._pens = [_pen(colour, width) for colour, width in _TONES]
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setVisible(False)

    def place(self, centre: QPointF, radius: float, zoom: float) -> None:
        """Centre the circle of ``radius`` image pixels on ``centre``; ``zoom`` (screen pixels
        per image pixel) says how much room the outline takes around it."""
        self.prepareGeometryChange()
        self._circle = QRectF(centre.x() - radius, centre.y() - radius, 2 * radius, 2 * radius)
        self._margin = _MARGIN_PX / zoom if zoom > 0 else 0.0

    def circle(self) -> QRectF:
        """The circle's bounding square, in image coordinates."""
        return QRectF(self._circle)

    def boundingRect(self) -> QRectF:
        margin = self._margin
        return self._circle.adjusted(-margin, -margin, margin, margin)

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for pen in self._pens:
            painter.setPen(pen)
            painter.drawEllipse(self._circle)
