"""Light and dark palettes for the widgets and the pyqtgraph views.

:func:`apply_theme` switches the application palette and re-colours every
plot already made; plots made later take the theme from pyqtgraph's
configuration, which :func:`apply_theme` sets too, and their legends from
:func:`legend_options`.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsObject,
    QProxyStyle,
    QStyle,
    QStyleOption,
    QWidget,
)

_Role = QPalette.ColorRole

_DARK = {
    _Role.Window: (45, 45, 48),
    _Role.WindowText: (230, 230, 230),
    _Role.Base: (30, 30, 32),
    _Role.AlternateBase: (52, 52, 56),
    _Role.Text: (230, 230, 230),
    _Role.Button: (56, 56, 60),
    _Role.ButtonText: (230, 230, 230),
    _Role.BrightText: (255, 255, 255),
    _Role.Light: (82, 82, 88),
    _Role.Midlight: (68, 68, 73),
    _Role.Mid: (40, 40, 43),
    _Role.Dark: (24, 24, 26),
    _Role.Shadow: (0, 0, 0),
    _Role.ToolTipBase: (250, 250, 220),
    _Role.ToolTipText: (20, 20, 20),
    _Role.Highlight: (0, 114, 178),
    _Role.HighlightedText: (255, 255, 255),
    _Role.Link: (120, 180, 255),
    _Role.LinkVisited: (190, 150, 255),
    _Role.PlaceholderText: (150, 150, 150),
}
#: Text of disabled widgets in the dark theme: dimmer than enabled text, still legible.
_DARK_DISABLED = {
    _Role.WindowText: (135, 135, 135),
    _Role.Text: (135, 135, 135),
    _Role.ButtonText: (135, 135, 135),
}
#: Share of the text colour in the frame of check boxes and radio buttons (the rest is
#: the field's colour): 3:1 contrast or more with the field in both themes.
INDICATOR_BORDER_SHARE = 0.45
#: Qt property of a plot item that keeps its own colours in either theme (e.g. a
#: legend over video frames, dark on any frame).
KEEPS_COLOURS = "keeps_colours"
#: Opacity of legend backgrounds, so that a legend over a curve stays readable.
_LEGEND_ALPHA = 210
#: Frame of legends: a grey that shows on both backgrounds.
_LEGEND_BORDER_RGBA = (153, 153, 153, 120)


def theme_palette(dark: bool) -> QPalette:
    """The application palette of the light (the style's own) or the dark theme."""
    palette = QApplication.style().standardPalette()
    if dark:
        for role, rgb in _DARK.items():
            palette.setColor(role, QColor(*rgb))
        for role, rgb in _DARK_DISABLED.items():
            palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(*rgb))
    return palette


def indicator_border(palette: QPalette) -> QColor:
    """Colour of the frame of an (unchecked) check box: between the field and the text."""
    base, text = palette.color(_Role.Base), palette.color(_Role.Text)
    share = INDICATOR_BORDER_SHARE
    return QColor(
        round(base.red() + share * (text.red() - base.red())),
        round(base.green() + share * (text.green() - base.green())),
        round(base.blue() + share * (text.blue() - base.blue())),
    )


#: The primitives whose frame :class:`IndicatorStyle` draws again (every other one passes
#: through with one membership test: this style runs for every primitive painted).
_FRAMED_INDICATORS = (
    QStyle.PrimitiveElement.PE_IndicatorCheckBox,
    QStyle.PrimitiveElement.PE_IndicatorRadioButton,
)


class IndicatorStyle(QProxyStyle):
    """Fusion, with check-box and radio-button frames drawn in :func:`indicator_border`.

    Fusion draws them in a darker shade of the window colour, which vanishes
    on the dark theme's near-black fields.
    """

    def __init__(self) -> None:
        super().__init__("Fusion")

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        super().drawPrimitive(element, option, painter, widget)
        if element not in _FRAMED_INDICATORS:
            return
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(indicator_border(option.palette), 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        rect = QRectF(option.rect).adjusted(0.5, 0.5, -0.5, -0.5)
        if element == QStyle.PrimitiveElement.PE_IndicatorCheckBox:
            painter.drawRect(rect)
        else:
            painter.drawEllipse(rect)
        painter.restore()


def legend_options() -> dict[str, Any]:
    """Keyword arguments of a legend in the current theme (``addLegend``, ``LegendItem``)."""
    background = pg.mkColor(pg.getConfigOption("background"))
    background.setAlpha(_LEGEND_ALPHA)
    return {
        "brush": pg.mkBrush(background),
        "pen": pg.mkPen(_LEGEND_BORDER_RGBA),
        "labelTextColor": pg.mkColor(pg.getConfigOption("foreground")),
    }


def add_legend(
    plot: pg.PlotItem | pg.PlotWidget, offset: tuple[int, int], columns: int = 1
) -> pg.LegendItem:
    """A legend in the current theme; negative offsets anchor it right / bottom."""
    legend = plot.addLegend(offset=offset, **legend_options())
    legend.setColumnCount(columns)
    return legend


def apply_theme(window: QWidget, dark: bool) -> None:
    """Switch the application palette and every plot's colours under ``window``."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        raise RuntimeError("the theme applies to widgets: create the QApplication first")
    if not isinstance(app.style(), IndicatorStyle):
        app.setStyle(IndicatorStyle())
    palette = theme_palette(dark)
    app.setPalette(palette)
    background = palette.color(_Role.Base)
    foreground = palette.color(_Role.Text)
    pg.setConfigOptions(background=background, foreground=foreground)
    themed = {_rgb(theme_palette(d).color(_Role.Text)) for d in (False, True)}
    for view in window.findChildren(pg.GraphicsView):
        view.setBackground(background)
        for item in view.items():
            _recolour(item, foreground, themed)


def _rgb(colour: QColor) -> tuple[int, int, int]:
    return colour.red(), colour.green(), colour.blue()


def _recolour(item: object, foreground: QColor, themed: set[tuple[int, int, int]]) -> None:
    """Give a plot's axis, legend or text label the theme's colours.

    An item with the :data:`KEEPS_COLOURS` property, and a label with a colour of its
    own (one that is no theme's text colour), are left alone.
    """
    if isinstance(item, QGraphicsObject) and item.property(KEEPS_COLOURS):
        return
    if isinstance(item, pg.AxisItem):
        item.setPen(foreground)
        item.setTextPen(foreground)
    elif isinstance(item, pg.LegendItem):
        options = legend_options()
        item.setBrush(options["brush"])
        item.setPen(options["pen"])
        item.setLabelTextColor(foreground)
        for _, label in item.items:
            label.setText(label.text)
    elif isinstance(item, pg.LabelItem):
        colour = item.opts.get("color")
        if colour is None or _rgb(pg.mkColor(colour)) in themed:
            item.setText(item.text, color=foreground)
