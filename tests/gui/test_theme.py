"""The dark and light themes: every plot's text follows, check boxes stand out on both."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QColor, QPalette, QTextCursor
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QDockWidget,
    QStyle,
    QStyleOptionButton,
    QWidget,
)

from referee.core.demo.project import demo_project
from referee.gui.app import dispose
from referee.gui.docks.estimates import IntervalPlot
from referee.gui.docks.plots import PlotsDock
from referee.gui.main_window import MainWindow
from referee.gui.widgets.theme import apply_theme, indicator_border


def _luminance(colour: QColor) -> float:
    """WCAG relative luminance."""

    def linear(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * linear(colour.red())
        + 0.7152 * linear(colour.green())
        + 0.0722 * linear(colour.blue())
    )


def _contrast(a: QColor, b: QColor) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _document_colour(document) -> QColor:
    """Colour of the first character of a label's rich text."""
    cursor = QTextCursor(document)
    cursor.setPosition(1)
    return cursor.charFormat().foreground().color()


def _plot_texts(root: QWidget) -> dict[str, QColor]:
    """Every title, legend row and axis label and tick text of the plots under ``root``."""
    texts: dict[str, QColor] = {}
    for view in root.findChildren(pg.GraphicsView):
        for item in view.items():
            if isinstance(item, pg.LabelItem) and item.text.strip():
                texts[f"{view.objectName()} label {item.text!r}"] = _document_colour(
                    item.item.document()
                )
            elif isinstance(item, pg.AxisItem):
                texts[f"{view.objectName()} ticks of {item.orientation}"] = item.textPen().color()
                if item.label.isVisible():
                    texts[f"axis label {item.labelText!r}"] = _document_colour(
                        item.label.document()
                    )
    return texts


def _dock_texts(window: MainWindow) -> dict[str, QColor]:
    texts: dict[str, QColor] = {}
    for dock in window.findChildren(QDockWidget):
        texts.update(_plot_texts(dock))
    return texts


@pytest.fixture
def window(qtbot, demo) -> MainWindow:
    QApplication.instance().setOrganizationName("Referee-tests")
    window = MainWindow()
    window.show()
    apply_theme(window, dark=True)  # before the project: plots made for it come afterwards
    window.open_project(demo_project(demo))
    qtbot.waitUntil(
        lambda: not window.runner.jobs and bool(window.session.actions),
        timeout=120000,
    )
    dock = window.significance_dock
    dock.run_requested.emit(dock.request())
    qtbot.waitUntil(lambda: window.session.significance is not None, timeout=60000)
    yield window
    apply_theme(window, dark=False)
    window.close()
    dispose(window)


def test_every_plot_text_is_light_on_dark_and_dark_on_light(window) -> None:
    texts = _dock_texts(window)
    # Titles, the α legend and the LIRIS panels (made after the switch) are among them.
    assert any("paired t-test" in key for key in texts)
    assert any("'α = 0.05'" in key for key in texts)
    assert sum("t_sr: spatial recall threshold" in key for key in texts) == 1
    dark_texts = {key: _luminance(c) for key, c in texts.items() if _luminance(c) <= 0.6}
    assert dark_texts == {}
    apply_theme(window, dark=False)
    light_texts = {
        key: _luminance(c) for key, c in _dock_texts(window).items() if _luminance(c) >= 0.2
    }
    assert light_texts == {}


def test_plots_made_after_the_switch_follow_the_theme(qtbot) -> None:
    anchor = QWidget()
    qtbot.addWidget(anchor)
    apply_theme(anchor, dark=True)
    try:
        dock = PlotsDock()
        qtbot.addWidget(dock)
        dock.show()  # a hidden dock draws when it is shown
        dock.show_frame_f("v", {"a": (np.arange(3), np.array([0.2, 0.5, 0.9]))})
        plot = IntervalPlot(dock)
        texts = {**_plot_texts(dock), **_plot_texts(plot)}
        assert any("Per-frame F1 — v" in key for key in texts)
        assert any("'current frame'" in key for key in texts)  # a legend row
        assert {key: _luminance(c) for key, c in texts.items() if _luminance(c) <= 0.6} == {}
        background = dock.frame_plot.backgroundBrush().color()
        assert _luminance(background) < 0.05
    finally:
        apply_theme(anchor, dark=False)


@pytest.mark.parametrize("dark", [True, False])
def test_an_unchecked_check_box_stands_out_from_its_field(qtbot, dark: bool) -> None:
    box = QCheckBox("a detector")
    qtbot.addWidget(box)
    apply_theme(box, dark=dark)
    try:
        box.show()
        qtbot.waitExposed(box)
        palette = QApplication.palette()
        field = palette.color(QPalette.ColorRole.Base)
        assert _contrast(indicator_border(palette), field) >= 3
        # As drawn: the indicator's left edge against its middle.
        option = QStyleOptionButton()
        box.initStyleOption(option)
        indicator = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box)
        image = box.grab().toImage()
        middle = indicator.center()
        edge = image.pixelColor(indicator.left(), middle.y())
        assert _contrast(edge, image.pixelColor(middle)) >= 3
    finally:
        apply_theme(box, dark=False)
