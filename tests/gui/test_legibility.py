"""Every text of the main window is shown whole at the size it opens on a 1366×768 and a
1920×1080 screen, in both themes, and no dock needs scrolling sideways there; names that
share a start stay apart in the Indicators table's narrow columns.

The texts are measured with each widget's font metrics (tests/gui/legibility.py), not
compared with what Qt found room for: a check that can tell a tab's title cut to "Ann…".
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex, QSize
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QStyle,
    QStyleOptionViewItem,
    QTabBar,
    QTableView,
    QTableWidget,
    QTabWidget,
    QToolButton,
    QWidget,
)

from referee.core.demo.project import demo_project
from referee.core.evaluation.batch import evaluate_method
from referee.core.formats.cdnet import discover_videos
from referee.core.workflow.pixels import summarize_evaluations
from referee.gui.app import dispose
from referee.gui.docks.indicators import IndicatorsDock
from referee.gui.main_window import WINDOW_SIZE, MainWindow
from referee.gui.widgets.screen_fit import opening_size
from tests.gui.legibility import cut_texts

#: The room a 1366×768 and a 1920×1080 screen leave to windows beside a desktop's panel.
SCREENS = {"1366x768": QSize(1366, 740), "1920x1080": QSize(1920, 1050)}


def _settle(qtbot) -> None:
    for _ in range(3):
        QApplication.processEvents()
    qtbot.wait(10)


def _every_view(qtbot, window: MainWindow):
    """Raise each dock in turn and, in it, show each page of its tab widgets; yields the
    dock's title each time the window shows another view."""
    for dock in window.findChildren(QDockWidget):
        dock.raise_()
        qtbot.waitUntil(dock.isVisible, timeout=5000)
        _settle(qtbot)
        yield dock.windowTitle()
        for tabs in dock.findChildren(QTabWidget):
            for page in range(tabs.count()):
                tabs.setCurrentIndex(page)
                _settle(qtbot)
                yield f"{dock.windowTitle()} › {tabs.tabText(page)}"


@pytest.fixture(
    params=[(s, d) for s in SCREENS for d in (False, True)],
    ids=lambda p: f"{p[0]}-{'dark' if p[1] else 'light'}",
)
def opened_window(request, qtbot, demo) -> MainWindow:
    screen, dark = request.param
    QApplication.instance().setOrganizationName("Referee-tests")
    window = MainWindow(remember_layout=False)
    window.resize(opening_size(WINDOW_SIZE, SCREENS[screen]))
    if dark:
        window.dark_action.trigger()
    window.show()
    window.open_project(demo_project(demo))
    qtbot.waitUntil(
        lambda: not window.runner.jobs and window.viewer.layers is not None, timeout=120_000
    )
    _settle(qtbot)
    yield window
    window.close()
    dispose(window)


def test_the_window_opens_within_the_screen_and_as_asked(opened_window) -> None:
    window = opened_window
    fits = [opening_size(WINDOW_SIZE, available) for available in SCREENS.values()]
    assert window.size() in fits  # not made larger by a minimum size
    assert window.minimumSizeHint().height() <= min(f.height() for f in fits)


def test_every_text_is_shown_whole(qtbot, opened_window) -> None:
    window = opened_window
    found: dict[str, str] = {}
    for view in _every_view(qtbot, window):
        for text in cut_texts(window):
            found.setdefault(text, view)
    assert not found, "\n".join(f"{text} (with {view} shown)" for text, view in found.items())


def test_no_dock_scrolls_sideways(qtbot, opened_window) -> None:
    window = opened_window
    wide = []
    for dock in window.findChildren(QDockWidget):
        dock.raise_()
        qtbot.waitUntil(dock.isVisible, timeout=5000)
        _settle(qtbot)
        area = dock.widget()
        assert isinstance(area, QScrollArea)
        if area.horizontalScrollBar().maximum() > 0:
            holder = area.widget()
            wide.append(
                f"{dock.windowTitle()}: {dock.width()} px wide, its contents need "
                f"{holder.minimumSizeHint().width()}"
            )
    assert not wide, "\n".join(wide)


def test_the_opening_size_is_the_preferred_one_or_the_screen_less_its_frame() -> None:
    assert opening_size(WINDOW_SIZE, SCREENS["1920x1080"]) == WINDOW_SIZE
    assert opening_size(WINDOW_SIZE, SCREENS["1366x768"]) == QSize(1354, 696)


# --- the check itself -------------------------------------------------------------------------


def test_the_check_names_each_kind_of_cut_text(qtbot) -> None:
    """A check that passes nothing cut: each kind of widget, made too narrow, is named."""
    top = QWidget()
    qtbot.addWidget(top)
    tabs = QTabBar()
    tabs.addTab("A rather long tab title")
    tabs.addTab("Another long tab title")
    table = QTableWidget(1, 1)
    table.setHorizontalHeaderLabels(["A long column header"])
    table.setColumnWidth(0, 30)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    tool = QToolButton()
    tool.setText("Columns of the table")
    widgets = [
        tabs,
        QPushButton("A long button text"),
        tool,
        QLabel("A single line of label text"),
        QCheckBox("A long check box text"),
        table,
    ]
    layout = QHBoxLayout(top)
    for widget in widgets:
        widget.setMinimumWidth(0)
        layout.addWidget(widget)
    top.show()
    qtbot.waitExposed(top)
    for widget in widgets[:-1]:
        widget.setFixedWidth(40)
    tabs.setFixedWidth(90)
    table.setFixedWidth(120)
    _settle(qtbot)
    found = "\n".join(cut_texts(top))
    for expected in (
        "'A rather long tab title'",
        "QPushButton 'A long button text'",
        "QToolButton 'Columns of the table'",
        "QLabel 'A single line of label text'",
        "QCheckBox 'A long check box text'",
        "'A long column header'",
    ):
        assert expected in found, (expected, found)
    for widget in widgets:
        widget.setMinimumWidth(0)
        widget.setMaximumWidth(16_777_215)
    tabs.setFixedWidth(tabs.sizeHint().width() + 10)
    table.setFixedWidth(400)
    table.setColumnWidth(0, 300)
    top.resize(2400, 200)
    _settle(qtbot)
    assert not cut_texts(top)


# --- names in the Indicators table ------------------------------------------------------------


def _shown_text(view: QTableView, index: QModelIndex) -> str:
    """The text ``view`` draws in the cell ``index``: elided as the view elides it."""
    option = QStyleOptionViewItem()
    view.itemDelegateForIndex(index).initStyleOption(option, index)
    option.rect = view.visualRect(index)
    style = view.style()
    room = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, view).width()
    room -= 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1)
    return option.fontMetrics.elidedText(option.text, view.textElideMode(), room)


def test_names_that_share_a_start_stay_apart_in_a_narrow_table(qtbot, demo) -> None:
    videos = discover_videos(demo.dataset)
    results = {  # names as a user's detectors may be called, each sharing a start
        "MOG": "mog",
        "MOG2": "mog2",
        "subtractor-version-1": "knn",
        "subtractor-version-2": "cnt",
    }
    evaluations = {name: evaluate_method(videos, demo.results[m]) for name, m in results.items()}
    dock = IndicatorsDock()
    qtbot.addWidget(dock)
    dock.show()
    dock.resize(dock.minimumSize())  # the frozen columns then share 45 % of a narrow table
    qtbot.waitExposed(dock)
    dock.show_pixels(summarize_evaluations(evaluations))
    _settle(qtbot)
    view = dock.table.frozen
    model = view.model()
    shown: dict[str, set[str]] = {}
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        shown.setdefault(index.data(), set()).add(_shown_text(view, index))
    assert set(shown) == set(results)
    assert shown["MOG"] == {"MOG"} and shown["MOG2"] == {"MOG2"}, shown  # room for them
    long_names = shown["subtractor-version-1"] | shown["subtractor-version-2"]
    assert all("…" in text for text in long_names), shown  # narrow indeed: these are cut
    assert not shown["subtractor-version-1"] & shown["subtractor-version-2"], shown
