"""Boxes over a frame, with labels that do not overlap and a legend of what the boxes mean.

:class:`BoxOverlay` draws :class:`~referee.gui.widgets.palette.BoxDrawing`
objects on a view box: the outline in the box's colour and line style, a label
(white on black, framed in the box's colour, so that it reads on any frame and
in either theme) and, while there are boxes, a legend in the view's corner, white
on black as the labels.
:func:`label_positions` places the labels: above the box, else below it, else
inside its top, never over another label.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsRectItem

from referee.gui.widgets.palette import BoxDrawing, BoxLine, LegendEntry
from referee.gui.widgets.theme import KEEPS_COLOURS

Rect = tuple[float, float, float, float]
Size = tuple[float, float]

#: Pen style of each :class:`BoxLine`.
PEN_STYLES: dict[BoxLine, Qt.PenStyle] = {
    BoxLine.SOLID: Qt.PenStyle.SolidLine,
    BoxLine.DASHED: Qt.PenStyle.DashLine,
    BoxLine.DOTTED: Qt.PenStyle.DotLine,
}
BOX_WIDTH = 2
HIGHLIGHTED_BOX_WIDTH = 4
_LABEL_FILL_RGBA = (0, 0, 0, 190)
_LABEL_TEXT_RGB = (255, 255, 255)
_LEGEND_BORDER_RGBA = (255, 255, 255, 90)
#: Where the legend sits: this many screen pixels from the view's top-left corner.
_LEGEND_OFFSET = (6, 6)


def box_pen(rgb: tuple[int, int, int], line: BoxLine, width: int, alpha: int = 255) -> QPen:
    """A cosmetic pen (its width in screen pixels at any zoom) for a box outline."""
    pen = QPen(QColor(*rgb, alpha), width, PEN_STYLES[line])
    pen.setCosmetic(True)
    return pen


def _overlaps(a: Rect, b: Rect) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _inside(rect: Rect, frame: Size | None) -> bool:
    if frame is None:
        return True
    x, y, w, h = rect
    return x >= 0 and y >= 0 and x + w <= frame[0] and y + h <= frame[1]


def label_positions(
    boxes: Sequence[Rect], sizes: Sequence[Size], frame: Size | None = None
) -> list[tuple[float, float]]:
    """Top-left corner of each box's label, all in image pixels.

    Each label goes above its box, else below it, else inside its top (each
    left-aligned with the box, then right-aligned): the first of these places
    inside ``frame`` (width, height; anywhere when ``None``) that no earlier
    label takes. When every such place is taken the label moves down or up, a
    label height at a time, to the nearest free place.
    """
    placed: list[Rect] = []
    corners: list[tuple[float, float]] = []
    for (x, y, w, h), (width, height) in zip(boxes, sizes):
        candidates = [(cx, cy) for cy in (y - height, y + h, y) for cx in (x, x + w - width)]
        inside = [c for c in candidates if _inside((*c, width, height), frame)]
        start = inside[0] if inside else candidates[0]
        steps = [0] + [sign * k for k in range(1, len(placed) + 2) for sign in (1, -1)]
        shifted = [(start[0], start[1] + step * height) for step in steps]
        free = [
            c
            for c in [*inside, *shifted]
            if not any(_overlaps((*c, width, height), p) for p in placed)
        ]
        corner = next((c for c in free if _inside((*c, width, height), frame)), None)
        corner = corner or (free[0] if free else start)
        placed.append((*corner, width, height))
        corners.append(corner)
    return corners


class BoxOverlay(QObject):
    """The boxes, labels and box legend drawn over ``view_box`` (z values from ``z``).

    It is drawn again on every frame: its outlines and labels are kept and given the
    next frame's boxes (those left over are hidden), and the legend is made again only
    when the entries of a frame with boxes change (without boxes it is hidden).
    """

    def __init__(self, view_box: pg.ViewBox, z: float) -> None:
        super().__init__(view_box)
        self._view_box = view_box
        self._z = z
        self._boxes: list[BoxDrawing] = []
        self._rects: list[QGraphicsRectItem] = []  # the first len(self._boxes) are shown
        self._labels: list[pg.TextItem] = []
        self._frame: Size | None = None
        self._legend_entries: list[LegendEntry] = []
        self._legend = pg.LegendItem(
            offset=_LEGEND_OFFSET,
            brush=pg.mkBrush(*_LABEL_FILL_RGBA),
            pen=pg.mkPen(_LEGEND_BORDER_RGBA),
            labelTextColor=_LABEL_TEXT_RGB,
            labelTextSize="8pt",
            verSpacing=-4,
        )
        self._legend.setObjectName("box legend")
        self._legend.setProperty(KEEPS_COLOURS, True)
        self._legend.setParentItem(view_box)
        self._legend.setZValue(z + 2)
        self._legend.setVisible(False)
        view_box.sigTransformChanged.connect(self._place_labels)

    def show(
        self,
        boxes: Sequence[BoxDrawing],
        legend: Sequence[LegendEntry],
        frame: tuple[int, int] | None = None,
    ) -> None:
        """Draw ``boxes`` (labels kept inside ``frame``, width × height) and the ``legend``."""
        self._boxes, self._frame = list(boxes), frame
        while len(self._rects) < len(self._boxes):
            self._add_box_items()
        for k, (rect, label) in enumerate(zip(self._rects, self._labels)):
            shown = k < len(self._boxes)
            if shown:
                self._set_rect(rect, self._boxes[k])
                self._set_label(label, self._boxes[k])
            rect.setVisible(shown)
            label.setVisible(shown)
        if self._boxes and list(legend) != self._legend_entries:  # no box: it is hidden
            self._legend_entries = list(legend)
            self._legend.clear()
            for entry in legend:
                sample = pg.PlotDataItem(pen=box_pen(entry.colour, entry.line, BOX_WIDTH))
                self._legend.addItem(sample, entry.text)
        self._legend.setVisible(bool(self._boxes) and bool(legend))
        self._place_labels()

    def rect_items(self) -> list[QGraphicsRectItem]:
        """The box outlines, in the order given to :meth:`show`."""
        return self._rects[: len(self._boxes)]

    def label_items(self) -> list[pg.TextItem]:
        """The labels, in the order of the boxes."""
        return self._labels[: len(self._boxes)]

    def label_rects(self) -> list[Rect]:
        """Each label's rectangle in image pixels, as placed at the current zoom."""
        labels = self.label_items()
        sizes = [self._label_size(label) for label in labels]  # brings the zoom up to date
        return [(label.pos().x(), label.pos().y(), *size) for label, size in zip(labels, sizes)]

    @property
    def legend(self) -> pg.LegendItem:
        """The legend of the boxes' colours and lines (hidden while there is no box)."""
        return self._legend

    def legend_texts(self) -> list[str]:
        """The legend's rows, in order (those of the last frame with boxes)."""
        return [label.text for _, label in self._legend.items]

    def _add_box_items(self) -> None:
        """One more outline and label, kept for the frames to come."""
        rect = QGraphicsRectItem()
        rect.setZValue(self._z)
        label = pg.TextItem(
            color=_LABEL_TEXT_RGB, fill=pg.mkBrush(*_LABEL_FILL_RGBA), anchor=(0, 0)
        )
        label.setZValue(self._z + 1)
        self._view_box.addItem(rect)
        self._view_box.addItem(label)
        self._rects.append(rect)
        self._labels.append(label)

    @staticmethod
    def _set_rect(rect: QGraphicsRectItem, box: BoxDrawing) -> None:
        width = HIGHLIGHTED_BOX_WIDTH if box.highlighted else BOX_WIDTH
        rect.setRect(box.x, box.y, box.width, box.height)
        rect.setPen(box_pen(box.colour, box.line, width))
        rect.setToolTip(box.tooltip)

    @staticmethod
    def _set_label(label: pg.TextItem, box: BoxDrawing) -> None:
        if label.toPlainText() != box.text:
            label.setText(box.text)
        label.border = pg.mkPen(box.colour)  # TextItem draws its frame with this pen
        label.setToolTip(box.tooltip)
        label.update()

    def _label_size(self, label: pg.TextItem) -> Size:
        """The label's size in image pixels at the current zoom (its text keeps its screen size)."""
        pixel_width, pixel_height = self._view_box.viewPixelSize()
        rect = label.textItem.boundingRect()
        scale_x = pixel_width if pixel_width > 0 else 1.0
        scale_y = abs(pixel_height) if pixel_height else 1.0
        return rect.width() * scale_x, rect.height() * scale_y

    def _place_labels(self) -> None:
        labels = self.label_items()
        if not labels:
            return
        rects = [(b.x, b.y, b.width, b.height) for b in self._boxes]
        sizes = [self._label_size(label) for label in labels]
        for label, (x, y) in zip(labels, label_positions(rects, sizes, self._frame)):
            label.setPos(x, y)
