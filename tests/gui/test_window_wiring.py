"""What the main window connects: the Indicators table to the viewer, the zoom keys, the
detector colours in the Layers dock, one colour per detector across docks, the demo's
progress."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QGridLayout, QLabel, QMenu

from referee.core.colours import DETECTOR_PALETTE
from referee.gui.app import dispose
from referee.gui.main_window import MainWindow
from referee.gui.viewer.layers_panel import LayersPanel, LegendWidget
from tests.gui.conftest import demo_window

#: The demo's detectors, in its project's order (``referee demo-data``).
DEMO_ORDER = ("mog2", "knn", "mog", "cnt", "running-average")


@pytest.fixture
def window(qtbot, demo):
    yield from demo_window(qtbot, demo, lambda window: bool(window.session.evaluations))


def test_the_demo_lists_its_detectors_in_the_order_the_colours_assume(window) -> None:
    assert tuple(d.name for d in window.session.project.detectors) == DEMO_ORDER


def test_choosing_a_row_shows_its_detector_on_its_video(window, qtbot) -> None:
    dock = window.indicators_dock
    dock.raise_()
    table = dock.table
    model = table.model()
    rows = [(model.index(r, 0).data(), model.index(r, 1).data()) for r in range(model.rowCount())]
    row = rows.index(("knn", "baseline/street"))
    rect = table.frozen.visualRect(model.index(row, 1))
    qtbot.mouseClick(table.frozen.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: window.viewer.current_video_label() == "baseline/street")
    assert window.viewer.detectors_shown()[0] == "knn"
    summary = rows.index(("cnt", "CDnet procedure"))
    rect = table.frozen.visualRect(model.index(summary, 0))
    qtbot.mouseClick(table.frozen.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: window.viewer.detectors_shown()[0] == "cnt")
    assert window.viewer.current_video_label() == "baseline/street"  # a summary keeps the video


def test_zoom_entries_of_the_view_menu_have_their_keys(window) -> None:
    actions = {
        a.text().replace("&", ""): a.shortcut()
        for menu in window.menuBar().findChildren(QMenu)
        for a in menu.actions()
    }
    assert actions["Fit to window"] == QKeySequence("Ctrl+0")
    assert actions["Zoom in"] == QKeySequence("Ctrl++")
    assert actions["Zoom out"] == QKeySequence("Ctrl+-")


def test_zoom_in_then_fit_from_the_window(window, qtbot) -> None:
    viewer = window.viewer
    fitted = viewer.zoom_percent()
    viewer.zoom_in()
    assert viewer.zoom_percent() > fitted
    viewer.fit_to_window()
    assert viewer.zoom_percent() == pytest.approx(fitted)


def _drawn_legend(panel: LayersPanel) -> dict[str, tuple[int, int, int]]:
    """Each name the panel's legends show, with the colour drawn at the centre of the swatch
    beside it (read from the rendered legend, not from what the panel was given)."""
    QApplication.processEvents()  # new swatches are shown and laid out by the event loop
    drawn: dict[str, tuple[int, int, int]] = {}
    for legend in panel.findChildren(LegendWidget):
        grid = legend.layout()
        assert isinstance(grid, QGridLayout)
        picture = legend.grab().toImage()
        for index in range(grid.count()):
            label = grid.itemAt(index).widget()
            if not isinstance(label, QLabel) or not label.text():
                continue
            row, column, _, _ = grid.getItemPosition(index)
            swatch = grid.itemAtPosition(row, column - 1).widget()
            colour = picture.pixelColor(swatch.geometry().center())
            drawn[label.text()] = (colour.red(), colour.green(), colour.blue())
    return drawn


def test_the_layers_dock_names_the_shown_detector_in_its_colour(window, qtbot) -> None:
    window.layers_dock.raise_()
    for name in ("mog2", "cnt"):
        if name != "mog2":  # the first detector is shown when the project opens
            window.viewer.show_detector(name)
        qtbot.waitUntil(lambda name=name: window.layers_panel.detector_legend() == [name])
        # The project's colour of the detector: the palette's entry at its place in the
        # project's detector list (mog2 first, cnt fourth).
        expected = DETECTOR_PALETTE[DEMO_ORDER.index(name)]
        drawn = _drawn_legend(window.layers_panel)
        assert drawn[name] == expected
        # The other detectors are not in the legend.
        assert not set(drawn) & (set(DEMO_ORDER) - {name})


def test_a_detector_has_its_project_colour_in_the_plots(window) -> None:
    colours = window.plots_dock._colours(["cnt", "mog2"])
    # The palette's own entries, by place in the project's list (cnt is fourth).
    assert colours == {"cnt": DETECTOR_PALETTE[3], "mog2": DETECTOR_PALETTE[0]}


def test_preparing_the_demo_shows_a_progress_bar(qtbot, tmp_path: Path) -> None:
    window = MainWindow(remember_layout=False)
    window.show()
    try:
        window.open_demo(tmp_path / "demo")
        assert window.viewer.message_shown() == "Preparing the demo project…"
        bar = window.viewer.message.progress_bar
        assert bar.isVisible()
        seen: list[tuple[int, int]] = []
        bar.valueChanged.connect(lambda value: seen.append((value, bar.maximum())))
        qtbot.waitUntil(lambda: window.session.project is not None, timeout=120000)
        assert any(total > 0 and 0 < done <= total for done, total in seen)  # real progress
        qtbot.waitUntil(lambda: window.viewer.message_shown() is None, timeout=60000)
    finally:
        window.runner.cancel_all()
        window.runner.wait(30000)
        window.close()
        dispose(window)
