"""Switches, opacity sliders and colour legends for the overlay layers of the frame views."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from referee.gui.viewer.frame_view import (
    ANNOTATORS,
    COMPARISON,
    CONSENSUS,
    DEFAULT_OPACITY,
    DETECTOR,
    DISAGREEMENT,
    GROUND_TRUTH,
    LAYER_TITLES,
    LAYERS,
    MASK_ALPHA,
    colormap,
    layer_legend,
)

# Position in the layer title of the letter that Alt+letter toggles (all distinct).
_MNEMONIC_INDEX = {
    COMPARISON: 0,
    GROUND_TRUTH: 0,
    DETECTOR: 0,
    CONSENSUS: 2,
    DISAGREEMENT: 1,
    ANNOTATORS: 0,
}

#: Checkbox text of each layer: its title with "&" before its mnemonic letter.
MNEMONIC_TITLES: dict[str, str] = {
    name: f"{title[: _MNEMONIC_INDEX[name]]}&{title[_MNEMONIC_INDEX[name] :]}"
    for name, title in LAYER_TITLES.items()
}

_SWATCH_SIZE = 12
_GRADIENT_WIDTH = 64
#: Side of the squares of the checkerboard that stands for "transparent".
_CHECKER = 4
_CHECKER_GREYS = (QColor(255, 255, 255), QColor(170, 170, 170))


def _swatch_pixmap(rgba: tuple[int, int, int, int]) -> QPixmap:
    """A small opaque square of the colour, framed, so faint colours stay readable."""
    pixmap = QPixmap(_SWATCH_SIZE, _SWATCH_SIZE)
    pixmap.fill(QColor(*rgba[:3]))
    painter = QPainter(pixmap)
    painter.setPen(QColor(90, 90, 90))
    painter.drawRect(0, 0, _SWATCH_SIZE - 1, _SWATCH_SIZE - 1)
    painter.end()
    return pixmap


def _gradient_pixmap(layer: str) -> QPixmap:
    """The colour map of a continuous layer: a checkerboard square for 0 (transparent, on
    the left), then the colours from just above 0 to 1 (right)."""
    colours = colormap(layer).getLookupTable(nPts=_GRADIENT_WIDTH, alpha=False)
    pixmap = QPixmap(_SWATCH_SIZE + _GRADIENT_WIDTH, _SWATCH_SIZE)
    painter = QPainter(pixmap)
    for row in range(0, _SWATCH_SIZE, _CHECKER):
        for column in range(0, _SWATCH_SIZE, _CHECKER):
            grey = _CHECKER_GREYS[(row + column) // _CHECKER % 2]
            painter.fillRect(column, row, _CHECKER, _CHECKER, grey)
    for x, (red, green, blue) in enumerate(colours, _SWATCH_SIZE):
        painter.setPen(QColor(int(red), int(green), int(blue)))
        painter.drawLine(x, 0, x, _SWATCH_SIZE - 1)
    painter.setPen(QColor(90, 90, 90))
    painter.drawRect(0, 0, _SWATCH_SIZE - 1, _SWATCH_SIZE - 1)
    painter.end()
    return pixmap


class LegendWidget(QWidget):
    """Colour swatches with their names, two per row.

    Parameters
    ----------
    entries
        ``(rgba, name)`` pairs, as given by ``frame_view.layer_legend``.
    """

    def __init__(
        self,
        entries: Sequence[tuple[tuple[int, int, int, int], str]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._layout = QGridLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setHorizontalSpacing(6)
        self._layout.setVerticalSpacing(2)
        self._layout.setColumnStretch(3, 1)
        self.set_entries(entries)

    def set_entries(self, entries: Sequence[tuple[tuple[int, int, int, int], str]]) -> None:
        """Show these ``(rgba, name)`` swatches instead of the present ones."""
        while self._layout.count():
            item = self._layout.takeAt(0)
            widget = None if item is None else item.widget()
            if widget is not None:
                widget.deleteLater()
        self._names = [name for _, name in entries]
        for index, (rgba, name) in enumerate(entries):
            swatch = QLabel()
            swatch.setPixmap(_swatch_pixmap(rgba))
            row, column = divmod(index, 2)
            self._layout.addWidget(swatch, row, 2 * column)
            self._layout.addWidget(QLabel(name), row, 2 * column + 1)

    def names(self) -> list[str]:
        """The names shown, in order."""
        return list(self._names)


class ColorMapLegendWidget(QWidget):
    """The colour map of a continuous layer, labelled with its ends 0 (transparent) and 1."""

    def __init__(self, layer: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        gradient = QLabel()
        gradient.setPixmap(_gradient_pixmap(layer))
        gradient.setToolTip(
            f"{LAYER_TITLES[layer]}: 0 is transparent (the chequered square), "
            "then the colour goes from just above 0 (left) to 1 (right)"
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("0"))
        layout.addWidget(gradient)
        layout.addWidget(QLabel("1"))
        layout.addWidget(QLabel("(0: transparent)"))
        layout.addStretch(1)


class LayersPanel(QWidget):
    """For each overlay layer: an on/off checkbox, an opacity slider (0–100 %) and its legend.

    Signals
    -------
    visibility_changed(str, bool)
        A layer was switched on or off (by the user or :meth:`set_checked`).
    opacity_changed(str, float)
        A layer's opacity changed, 0..1.
    availability_changed(str, bool)
        A layer can be switched on, or no longer (:meth:`set_available`).
    """

    visibility_changed = Signal(str, bool)
    opacity_changed = Signal(str, float)
    availability_changed = Signal(str, bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._checkboxes: dict[str, QCheckBox] = {}
        self._sliders: dict[str, QSlider] = {}
        self._detector_legend = LegendWidget(layer_legend(DETECTOR))
        layout = QVBoxLayout(self)
        for name in LAYERS:
            layout.addWidget(self._make_layer_section(name))
        layout.addStretch(1)

    def _make_layer_section(self, name: str) -> QWidget:
        section = QWidget()
        layout = QVBoxLayout(section)
        layout.setContentsMargins(0, 0, 0, 6)
        layout.setSpacing(2)
        checkbox = QCheckBox(MNEMONIC_TITLES[name])
        checkbox.setChecked(True)
        checkbox.toggled.connect(lambda checked: self.visibility_changed.emit(name, checked))
        layout.addWidget(checkbox)
        layout.addLayout(self._make_opacity_row(name))
        legend = layer_legend(name)
        if name == DETECTOR:
            layout.addWidget(self._detector_legend)
        else:
            layout.addWidget(LegendWidget(legend) if legend else ColorMapLegendWidget(name))
        self._checkboxes[name] = checkbox
        return section

    def _make_opacity_row(self, name: str) -> QHBoxLayout:
        slider = QSlider(Qt.Orientation.Horizontal)
        slider.setRange(0, 100)
        slider.setValue(round(DEFAULT_OPACITY[name] * 100))
        slider.setToolTip(f"Opacity of the {LAYER_TITLES[name].lower()} layer")
        slider.setAccessibleName(f"{LAYER_TITLES[name]} opacity")
        value = QLabel(f"{slider.value()} %")
        value.setMinimumWidth(value.fontMetrics().horizontalAdvance("100 %"))
        value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        slider.valueChanged.connect(lambda percent: value.setText(f"{percent} %"))
        slider.valueChanged.connect(lambda percent: self.opacity_changed.emit(name, percent / 100))
        row = QHBoxLayout()
        row.addWidget(QLabel("Opacity"))
        row.addWidget(slider, 1)
        row.addWidget(value)
        self._sliders[name] = slider
        return row

    def show_detector_colours(self, detectors: Sequence[tuple[str, tuple[int, int, int]]]) -> None:
        """The detector mask layer's legend: each ``(name, rgb)`` of the detectors shown
        (the viewer's ``detector_colours_changed``); a general swatch when there is none."""
        entries = [((*rgb, MASK_ALPHA), name) for name, rgb in detectors]
        self._detector_legend.set_entries(entries or layer_legend(DETECTOR))

    def detector_legend(self) -> list[str]:
        """The names in the detector mask layer's legend."""
        return self._detector_legend.names()

    def set_available(self, name: str, why_not: str | None) -> None:
        """Let layer ``name`` be switched on (``why_not`` is ``None``), or grey its switch and
        slider out, their tooltip saying ``why_not``."""
        for widget in (self._checkboxes[name], self._sliders[name]):
            widget.setEnabled(why_not is None)
        self._checkboxes[name].setToolTip(why_not or "")
        self.availability_changed.emit(name, why_not is None)

    def is_available(self, name: str) -> bool:
        """Whether layer ``name`` can be switched on."""
        return self._checkboxes[name].isEnabled()

    def set_checked(self, name: str, checked: bool) -> None:
        """Switch layer ``name`` on or off; emits :attr:`visibility_changed` if it changed."""
        self._checkboxes[name].setChecked(checked)

    def is_checked(self, name: str) -> bool:
        """Whether layer ``name`` is switched on."""
        return self._checkboxes[name].isChecked()

    def set_opacity(self, name: str, opacity: float) -> None:
        """Set the slider of layer ``name`` (0..1); emits :attr:`opacity_changed` if it changed."""
        self._sliders[name].setValue(round(min(max(opacity, 0.0), 1.0) * 100))

    def opacity(self, name: str) -> float:
        """Opacity of layer ``name`` as set on its slider, 0..1."""
        return self._sliders[name].value() / 100
