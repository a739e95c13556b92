"""The window and the Export report dialog on a 1366×768 laptop: they fit, every button
can be reached, the viewer keeps most of the room and every dock tab keeps its title.

A button counts as reachable when it lies wholly inside the window and inside every
scroll area around it once those areas scroll to it (a dock's contents scroll when the
dock is smaller than they are: gui/window_docks.py). The offscreen platform does not clamp
a window to any screen, so a window shown smaller than its minimum size would simply
be larger than asked: the sizes below are what the layout allows.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QComboBox,
    QDialogButtonBox,
    QDockWidget,
    QPushButton,
    QScrollArea,
    QTabBar,
    QToolButton,
    QWidget,
)

from referee.core.demo.project import demo_project
from referee.core.model.project import Project
from referee.gui.app import dispose
from referee.gui.main_window import MainWindow
from referee.gui.report_dialog import DIALOG_SIZE, ReportDialog
from referee.gui.widgets.screen_fit import fitted_size
from referee.gui.worker import JobRunner
from tests.gui.test_report_dialog import build_returning, hand_built_report

#: A 1366×768 laptop screen, and the room its desktop's panel leaves to windows.
LAPTOP, LAPTOP_AVAILABLE = QSize(1366, 768), QSize(1366, 740)
#: Smallest share of the window's width the viewer keeps in the default layout.
VIEWER_SHARE = 0.45
CONTROLS = (QPushButton, QToolButton, QComboBox)


def _ancestors(widget: QWidget, top: QWidget) -> list[QWidget]:
    """``widget``'s parents up to (not including) ``top``, innermost first."""
    found, parent = [], widget.parentWidget()
    while parent is not None and parent is not top:
        found.append(parent)
        parent = parent.parentWidget()
    return found


def _behind_a_tab(widget: QWidget) -> bool:
    """Whether ``widget`` is a dock behind another tab (Qt keeps it visible, off the window)."""
    return isinstance(widget, QDockWidget) and widget.visibleRegion().isEmpty()


def _on_top(widget: QWidget, top: QWidget) -> QRect:
    return QRect(widget.mapTo(top, QPoint(0, 0)), widget.size())


def _unreachable(top: QWidget) -> list[str]:
    """The visible buttons and combo boxes of ``top`` that cannot be brought wholly into
    view: outside ``top``, or outside a scroll area's viewport after it scrolled to them."""
    missing = []
    controls = [c for kind in CONTROLS for c in top.findChildren(kind)]
    for control in controls:
        ancestors = _ancestors(control, top)
        if not control.isVisible() or any(_behind_a_tab(a) for a in ancestors):
            continue
        for area in ancestors:
            if isinstance(area, QScrollArea):
                area.ensureWidgetVisible(control, 0, 0)
        bounds = top.rect()
        for area in ancestors:
            if isinstance(area, QAbstractScrollArea):
                bounds = bounds.intersected(_on_top(area.viewport(), top))
        place = _on_top(control, top)
        if not bounds.contains(place):
            text = control.currentText() if isinstance(control, QComboBox) else control.text()
            name = text or control.toolTip()
            missing.append(f"{type(control).__name__} {name!r} at {place} outside {bounds}")
    return missing


def _shown_window(qtbot, demo, size: QSize) -> MainWindow:
    QApplication.instance().setOrganizationName("Referee-tests")
    window = MainWindow(remember_layout=False)
    window.resize(size)  # before it is shown, as `referee gui --screenshot --size` does
    window.show()
    window.open_project(demo_project(demo))
    qtbot.waitUntil(
        lambda: not window.runner.jobs and window.viewer.layers is not None, timeout=120_000
    )
    QApplication.processEvents()
    return window


@pytest.fixture
def laptop_window(qtbot, demo) -> MainWindow:
    window = _shown_window(qtbot, demo, LAPTOP)
    yield window
    window.close()
    dispose(window)


def test_the_window_fits_a_laptop_screen(laptop_window) -> None:
    window = laptop_window
    hint = window.minimumSizeHint()
    assert hint.width() <= LAPTOP_AVAILABLE.width(), hint
    assert hint.height() <= LAPTOP_AVAILABLE.height(), hint
    assert window.width() <= LAPTOP.width() and window.height() <= LAPTOP.height()


def test_every_button_of_every_dock_can_be_reached(qtbot, laptop_window) -> None:
    window = laptop_window
    missing: list[str] = []
    for dock in window.findChildren(QDockWidget):
        dock.raise_()  # a dock behind another tab shows no buttons
        qtbot.waitUntil(dock.isVisible, timeout=5000)
        missing += [f"{dock.windowTitle()}: {m}" for m in _unreachable(window)]
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("size", [LAPTOP, QSize(1920, 1080)], ids=["1366x768", "1920x1080"])
def test_the_viewer_keeps_most_of_the_width_between_both_dock_areas(qtbot, demo, size) -> None:
    window = _shown_window(qtbot, demo, size)
    try:
        viewer = window.viewer
        assert viewer.width() >= VIEWER_SHARE * window.width(), (viewer.width(), window.width())
        assert window.data_dock.geometry().right() < viewer.geometry().left()
        assert window.indicators_dock.geometry().left() > viewer.geometry().right()
        assert window.next_frames_dock.geometry().left() > viewer.geometry().right()
    finally:
        window.close()
        dispose(window)


def test_every_dock_tab_shows_its_whole_title(laptop_window) -> None:
    bars = [
        bar
        for bar in laptop_window.findChildren(QTabBar)
        if bar.parent() is laptop_window and bar.isVisible()
    ]
    assert len(bars) == 4  # two groups of tabs on each side
    cut = [
        bar.tabText(i)
        for bar in bars
        for i in range(bar.count())
        if bar.tabRect(i).width() < bar.tabSizeHint(i).width()
    ]
    assert not cut, cut


# --- the Export report dialog ------------------------------------------------------------------


@pytest.fixture
def report_dialog(qtbot) -> ReportDialog:
    report = hand_built_report()
    dialog = ReportDialog(JobRunner(), Project(name="Laptop"), build=build_returning(report))
    qtbot.addWidget(dialog)
    return dialog


def test_the_dialog_opens_within_its_screen(report_dialog) -> None:
    available = report_dialog.screen().availableGeometry().size()
    assert report_dialog.width() <= 0.9 * available.width()
    assert report_dialog.height() <= 0.9 * available.height()


def test_a_dialog_size_is_its_preferred_size_bounded_to_most_of_the_screen() -> None:
    # 90 % of 1366×740 is 1229.4×666: whole pixels, rounded down.
    assert fitted_size(QSize(1000, 900), LAPTOP_AVAILABLE) == QSize(1000, 666)
    assert fitted_size(QSize(1760, 990), LAPTOP_AVAILABLE) == QSize(1229, 666)
    assert fitted_size(QSize(1000, 900), QSize(1920, 1050)) == QSize(1000, 900)


@pytest.mark.parametrize("available", [LAPTOP_AVAILABLE, QSize(800, 600)], ids=["1366", "800"])
def test_every_dialog_button_is_in_view_on_a_small_screen(qtbot, report_dialog, available) -> None:
    dialog = report_dialog
    size = fitted_size(DIALOG_SIZE, available)
    dialog.resize(size)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.export_button.isEnabled(), timeout=10_000)
    assert dialog.size() == size, dialog.size()
    assert not _unreachable(dialog), _unreachable(dialog)
    close = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Close)
    for button in (dialog.export_button, close):
        assert not any(isinstance(a, QScrollArea) for a in _ancestors(button, dialog))
        assert dialog.rect().contains(_on_top(button, dialog))
    assert dialog.preview.height() >= size.height() / 3
