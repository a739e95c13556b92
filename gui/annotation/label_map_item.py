"""A ground-truth label map drawn over the frame, repainted one rectangle at a time.

The item keeps an RGBA copy of the label map in a ``QImage`` that shares its
memory with a NumPy array: an edit recolours only the rectangle it changed and
asks Qt to repaint only that rectangle, so painting stays fluid on large frames.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QGraphicsItem, QGraphicsObject, QStyleOptionGraphicsItem, QWidget

from referee.core.annotation.label_maps import Rect
from referee.core.colours import OKABE_ITO
from referee.core.measures.pixel import (
    GT_MOTION,
    GT_OUTSIDE,
    GT_SHADOW,
    GT_STATIC,
    GT_UNKNOWN,
)

#: RGBA of each ground-truth level while annotating; static is transparent. Motion has the
#: colour of the ground-truth layer, shadow that of shadow errors in the comparison layer.
LEVEL_RGBA: dict[int, tuple[int, int, int, int]] = {
    GT_STATIC: (0, 0, 0, 0),
    GT_SHADOW: (*OKABE_ITO["reddish purple"], 150),
    GT_OUTSIDE: (*OKABE_ITO["grey"], 160),
    GT_UNKNOWN: (*OKABE_ITO["orange"], 150),
    GT_MOTION: (*OKABE_ITO["yellow"], 170),
}

_LUT = np.zeros((256, 4), dtype=np.uint8)
_LUT[:, :] = (255, 0, 255, 200)  # any other grey level stands out
for _level, _rgba in LEVEL_RGBA.items():
    _LUT[_level] = _rgba


class LabelMapItem(QGraphicsObject):
    """Draws a label map in image coordinates (one scene unit per pixel)."""

    def __init__(self, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        self._rgba = np.zeros((1, 1, 4), dtype=np.uint8)
        self._image = QImage()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)

    def set_label_map(self, label_map: np.ndarray | None) -> None:
        """Show ``label_map`` (``uint8`` H×W), or nothing."""
        self.prepareGeometryChange()
        if label_map is None:
            self._rgba = np.zeros((1, 1, 4), dtype=np.uint8)
            self._image = QImage()
        else:
            self._rgba = np.ascontiguousarray(_LUT[label_map])
            height, width = label_map.shape
            self._image = QImage(
                self._rgba.data, width, height, width * 4, QImage.Format.Format_RGBA8888
            )
        self.update()

    def refresh(self, label_map: np.ndarray, rect: Rect) -> None:
        """Recolour and repaint only ``rect`` ``(x0, y0, x1, y1)`` of ``label_map``."""
        x0, y0, x1, y1 = rect
        self._rgba[y0:y1, x0:x1] = _LUT[label_map[y0:y1, x0:x1]]
        self.update(QRectF(x0, y0, x1 - x0, y1 - y0))

    def boundingRect(self) -> QRectF:
        if self._image.isNull():
            return QRectF()
        return QRectF(0, 0, self._image.width(), self._image.height())

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if self._image.isNull():
            return
        exposed = option.exposedRect.intersected(self.boundingRect())
        painter.drawImage(exposed, self._image, exposed)
