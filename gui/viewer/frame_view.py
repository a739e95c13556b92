"""One video frame with overlay layers and boxes, zoomable and pannable.

The views only draw the arrays they are given: the main window reads frames and
asks ``referee.core`` for comparison codes, consensus and disagreement images.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPalette
from PySide6.QtWidgets import (
    QGraphicsRectItem,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from referee.core.colours import detector_colour
from referee.core.measures.pixel import COMPARISON_LABELS
from referee.gui.viewer.box_overlay import BoxOverlay
from referee.gui.viewer.zoom import ZoomViewBox
from referee.gui.widgets.focus import FocusingClick
from referee.gui.widgets.palette import COMPARISON_RGBA, GROUND_TRUTH_RGB, BoxDrawing, LegendEntry

COMPARISON = "comparison"
GROUND_TRUTH = "ground truth"
DETECTOR = "detector"
CONSENSUS = "consensus"
DISAGREEMENT = "disagreement"
ANNOTATORS = "annotators' disagreement"

#: Overlay layers, in the order they are listed to the user.
LAYERS: tuple[str, ...] = (
    COMPARISON,
    GROUND_TRUTH,
    DETECTOR,
    CONSENSUS,
    DISAGREEMENT,
    ANNOTATORS,
)

# Stacking order, bottom to top: heat maps under the crisp per-pixel layers.
_STACKING = (CONSENSUS, DISAGREEMENT, ANNOTATORS, COMPARISON, GROUND_TRUTH, DETECTOR)

#: Display title of each layer.
LAYER_TITLES: dict[str, str] = {
    COMPARISON: "Comparison with ground truth",
    GROUND_TRUTH: "Ground-truth mask",
    DETECTOR: "Detector mask",
    CONSENSUS: "Consensus (share of detectors)",
    DISAGREEMENT: "Disagreement (vote entropy)",
    ANNOTATORS: "Annotators' disagreement",
}

#: Opacity a layer starts with, 0..1.
DEFAULT_OPACITY: dict[str, float] = {
    COMPARISON: 0.7,  # the object shows through its colour
    GROUND_TRUTH: 1.0,
    DETECTOR: 1.0,
    CONSENSUS: 0.6,
    DISAGREEMENT: 0.6,
    ANNOTATORS: 0.6,
}

#: Short name of each layer, for colour-bar titles.
LAYER_SHORT_TITLES: dict[str, str] = {
    COMPARISON: "comparison",
    GROUND_TRUTH: "ground truth",
    DETECTOR: "detector",
    CONSENSUS: "consensus",
    DISAGREEMENT: "disagreement",
    ANNOTATORS: "annotators' disagreement",
}

#: Name of the pyqtgraph colour map of each continuous layer (perceptually uniform).
COLORMAP_NAMES: dict[str, str] = {
    CONSENSUS: "viridis",
    DISAGREEMENT: "inferno",
    ANNOTATORS: "plasma",
}
#: Entries in the lookup table of a continuous layer; its first, for 0, is transparent.
COLORMAP_ENTRIES = 256

#: Alpha (0..255) of a fully set mask pixel, so that the frame shows through.
MASK_ALPHA = 150

_COMPARISON_LUT = np.array(COMPARISON_RGBA, dtype=np.uint8)


def layer_legend(name: str) -> tuple[tuple[tuple[int, int, int, int], str], ...]:
    """Colour swatches (RGBA) and names that explain a discrete layer; empty for colour maps."""
    if name == COMPARISON:
        return tuple(
            (rgba, label) for rgba, label in zip(COMPARISON_RGBA, COMPARISON_LABELS) if rgba[3] > 0
        )
    if name == GROUND_TRUTH:
        return (((*GROUND_TRUTH_RGB, MASK_ALPHA), LAYER_TITLES[name]),)
    if name == DETECTOR:  # until the viewer says which detectors it shows
        return (((*detector_colour(0), MASK_ALPHA), "colour of the detector shown"),)
    return ()


def colormap(name: str) -> pg.ColorMap:
    """The colour map of the continuous layer ``name`` (a key of :data:`COLORMAP_NAMES`),
    with 0 transparent: where no detector sees motion (or all agree) the frame is left
    untouched."""
    table = pg.colormap.get(COLORMAP_NAMES[name]).getLookupTable(nPts=COLORMAP_ENTRIES, alpha=True)
    table[0, 3] = 0
    return pg.ColorMap(np.linspace(0.0, 1.0, COLORMAP_ENTRIES), table)


def comparison_rgba(codes: np.ndarray) -> np.ndarray:
    """RGBA image (``uint8``, H×W×4) of a comparison code image, true negatives transparent."""
    return _COMPARISON_LUT[np.asarray(codes, dtype=np.uint8)]


def mask_rgba(mask: np.ndarray, rgb: tuple[int, int, int]) -> np.ndarray:
    """RGBA image of a boolean or 0..255 mask: ``rgb`` with alpha ``MASK_ALPHA × value / 255``."""
    mask = np.asarray(mask)
    strength = mask.astype(np.uint16) * 255 if mask.dtype == bool else mask.astype(np.uint16)
    rgba = np.empty((*mask.shape, 4), dtype=np.uint8)
    rgba[..., :3] = rgb
    rgba[..., 3] = strength * MASK_ALPHA // 255
    return rgba


class FrameView(QWidget):
    """A frame with switchable overlay layers, boxes and a title, zoomable and pannable.

    Signals
    -------
    pixel_hovered(int, int)
        Image coordinates (x, y) of the pixel under the mouse, when it changes.
    """

    pixel_hovered = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._title = self._make_title()
        self._graphics = pg.GraphicsLayoutWidget()
        self._view_box = ZoomViewBox()
        self._graphics.addItem(self._view_box, row=0, col=0)
        self._frame_item = pg.ImageItem(axisOrder="row-major")
        self._view_box.addItem(self._frame_item)
        self._layer_items = {
            name: self._make_layer_item(name, z) for z, name in enumerate(_STACKING, 1)
        }
        self._colour_bars = {name: self._make_colour_bar(name) for name in COLORMAP_NAMES}
        self._has_data = dict.fromkeys(LAYERS, False)
        self._boxes = BoxOverlay(self._view_box, len(LAYERS) + 2)
        self._image_size: tuple[int, int] | None = None
        self._detector_rgb = detector_colour(0)
        self._hovered: tuple[int, int] | None = None
        self._graphics.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self._focusing_click = FocusingClick(self._graphics)
        self.setFocusProxy(self._graphics)  # focusing the view focuses the frame
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self._title)
        layout.addWidget(self._graphics, 1)

    @staticmethod
    def _make_title() -> QLabel:
        """The caption above the frame, in the palette's text colour (legible in both themes)."""
        title = QLabel()
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        font = title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        title.setFont(font)
        return title

    def _make_layer_item(self, name: str, z: int) -> pg.ImageItem:
        item = pg.ImageItem(axisOrder="row-major")
        item.setZValue(z)
        item.setOpacity(DEFAULT_OPACITY[name])
        self._view_box.addItem(item)
        return item

    def _make_colour_bar(self, name: str) -> pg.ColorBarItem:
        item = self._layer_items[name]
        bar = pg.ColorBarItem(
            values=(0.0, 1.0),
            colorMap=colormap(name),
            interactive=False,
            colorMapMenu=False,
            width=15,
        )
        # The constructor's label goes on the tick-less side, over the bar: title the value axis.
        bar.getAxis("right").setLabel(LAYER_SHORT_TITLES[name])
        bar.setImageItem(item)
        bar.setVisible(False)
        self._colour_bar_pens(bar)
        return bar

    def _colour_bar_pens(self, bar: pg.ColorBarItem) -> None:
        """Draw the colour bar's axis and title in the palette's text colour."""
        colour = self.palette().color(QPalette.ColorRole.Text)
        axis = bar.getAxis("right")
        axis.setPen(colour)
        axis.setTextPen(colour)

    def changeEvent(self, event: QEvent) -> None:
        """Follow the theme: colour bars not on screen now are redrawn with it too."""
        if event.type() == QEvent.Type.PaletteChange:
            for bar in self._colour_bars.values():
                self._colour_bar_pens(bar)
        super().changeEvent(event)

    @property
    def image_size(self) -> tuple[int, int] | None:
        """Width and height of the frame shown, in pixels (``None`` before the first)."""
        return self._image_size

    @property
    def view_box(self) -> ZoomViewBox:
        """The view box holding the image: its zoom, and the items drawn over the frame."""
        return self._view_box

    @property
    def focusing_click(self) -> bool:
        """Whether the mouse press under way gave the view the focus: the tools leave that
        click alone (it only focuses the view)."""
        return self._focusing_click.focusing

    def set_title(self, text: str) -> None:
        """Show ``text`` (typically the detector's name) above the frame."""
        self._title.setText(text)

    def title(self) -> str:
        """The caption above the frame."""
        return self._title.text()

    def show_frame(self, image: np.ndarray) -> None:
        """Draw the base frame: ``uint8`` grey (H×W) or RGB (H×W×3); a frame of a new size
        is fitted to the view."""
        self._frame_item.setImage(np.asarray(image), autoLevels=False, levels=(0, 255))
        self._image_size = (image.shape[1], image.shape[0])
        self._view_box.set_image_size(*self._image_size)

    def set_detector_colour(self, rgb: tuple[int, int, int]) -> None:
        """The colour of the detector mask layer (the shown detector's), from the next
        :meth:`set_layer`."""
        self._detector_rgb = rgb

    def set_layer(self, name: str, data: np.ndarray | None) -> None:
        """Give layer ``name`` its image, or clear it with ``None``.

        COMPARISON takes the code image of
        :func:`~referee.core.measures.pixel.comparison_labels`;
        GROUND_TRUTH and DETECTOR a boolean or 0..255 mask; CONSENSUS, DISAGREEMENT
        and ANNOTATORS a float image in [0, 1] (NaN is transparent).
        """
        item = self._layer_items[name]
        self._has_data[name] = data is not None
        if data is None:
            item.clear()
        elif name == COMPARISON:
            item.setImage(comparison_rgba(data), autoLevels=False, levels=(0, 255))
        elif name in (GROUND_TRUTH, DETECTOR):
            rgb = GROUND_TRUTH_RGB if name == GROUND_TRUTH else self._detector_rgb
            item.setImage(mask_rgba(data, rgb), autoLevels=False, levels=(0, 255))
        else:
            item.setImage(np.asarray(data, dtype=np.float32), autoLevels=False, levels=(0.0, 1.0))
        self._update_colour_bar(name)

    def set_layer_visible(self, name: str, visible: bool) -> None:
        """Show or hide layer ``name`` (its data is kept)."""
        self._layer_items[name].setVisible(visible)
        self._update_colour_bar(name)

    def layer_visible(self, name: str) -> bool:
        """Whether layer ``name`` is switched on."""
        return self._layer_items[name].isVisible()

    def set_layer_opacity(self, name: str, opacity: float) -> None:
        """Opacity of layer ``name``, from 0 (invisible) to 1 (opaque)."""
        self._layer_items[name].setOpacity(min(max(opacity, 0.0), 1.0))

    def colour_bar_visible(self, name: str) -> bool:
        """Whether the colour bar of the continuous layer ``name`` is shown."""
        return self._colour_bars[name].isVisible()

    def _update_colour_bar(self, name: str) -> None:
        if name not in self._colour_bars:
            return
        bar = self._colour_bars[name]
        show = self._has_data[name] and self.layer_visible(name)
        if show and not bar.isVisible():
            self._graphics.addItem(bar, row=0, col=1 + list(COLORMAP_NAMES).index(name))
            bar.setVisible(True)
        elif not show and bar.isVisible():
            self._graphics.removeItem(bar)
            bar.setVisible(False)

    def set_boxes(self, boxes: Sequence[BoxDrawing], legend: Sequence[LegendEntry] = ()) -> None:
        """Replace the boxes drawn over the frame, with the legend of what they mean."""
        self._boxes.show(boxes, legend, self._image_size)

    @property
    def box_overlay(self) -> BoxOverlay:
        """The boxes drawn over the frame, their labels and legend."""
        return self._boxes

    def box_items(self) -> list[QGraphicsRectItem]:
        """The rectangle items of the current boxes, in the order given to :meth:`set_boxes`."""
        return self._boxes.rect_items()

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        if self._image_size is None or not self._view_box.sceneBoundingRect().contains(scene_pos):
            return
        point = self._view_box.mapSceneToView(scene_pos)
        x, y = math.floor(point.x()), math.floor(point.y())
        inside = 0 <= x < self._image_size[0] and 0 <= y < self._image_size[1]
        if inside and (x, y) != self._hovered:
            self._hovered = (x, y)
            self.pixel_hovered.emit(x, y)

    def rendered_rgb(self) -> np.ndarray:
        """The frame region as drawn on screen (layers and boxes composited), H×W×3 ``uint8``.

        The scene is rendered at one output pixel per image pixel; parts of
        the image panned out of view come out black.
        """
        if self._image_size is None:
            raise ValueError("no frame shown yet")
        width, height = self._image_size
        source = self._view_box.mapViewToScene(QRectF(0, 0, width, height)).boundingRect()
        image = QImage(width, height, QImage.Format.Format_RGB32)
        image.fill(QColor(0, 0, 0))
        painter = QPainter(image)
        self._graphics.scene().render(painter, QRectF(0, 0, width, height), source)
        painter.end()
        image = image.convertToFormat(QImage.Format.Format_RGB888)
        stride = image.bytesPerLine()
        buffer = np.frombuffer(image.constBits(), dtype=np.uint8, count=stride * height)
        return buffer.reshape(height, stride)[:, : width * 3].reshape(height, width, 3).copy()
