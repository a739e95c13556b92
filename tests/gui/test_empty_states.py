"""The small widgets that keep views from being silent: EmptyState (used by the Jobs dock
and others) and WarningLine, legible on the light and the dark theme."""

from __future__ import annotations

import threading

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QLabel, QTableView, QVBoxLayout, QWidget

from referee.gui.docks.jobs import NO_JOB, JobsDock
from referee.gui.widgets.empty_state import EmptyState
from referee.gui.widgets.warning_line import WarningLine
from referee.gui.worker import JobRunner
from tests.gui.paint_counter import PaintCounter

#: Window colours of the light theme (Fusion's) and of the dark theme (gui/widgets/theme.py).
LIGHT_WINDOW, DARK_WINDOW = (239, 239, 239), (45, 45, 48)


def _luminance(colour: QColor) -> float:
    """Relative luminance (WCAG 2)."""

    def linear(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in (colour.red(), colour.green(), colour.blue()))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: QColor, b: QColor) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_empty_state_says_why_until_there_is_content(qtbot) -> None:
    content = QLabel("the table")
    state = EmptyState(content, "Nothing yet: press Run.")
    qtbot.addWidget(state)
    state.show()
    assert state.message() == "Nothing yet: press Run." and not content.isVisible()
    state.show_content()
    assert state.message() is None and content.isVisible()
    state.show_message("Another project: its table is still to come.")
    assert state.message() == "Another project: its table is still to come."
    assert not content.isVisible()


def test_content_shown_as_a_plot_changes_is_painted_once(qtbot) -> None:
    """As the first results do: one handler redraws a plot (whose scene then paints the
    window at once) and shows a table in place of the message."""
    window = QWidget()
    qtbot.addWidget(window)
    plot = pg.PlotWidget()
    curve = plot.plot([0, 1], [0, 1])
    table = QTableView()
    model = QStandardItemModel(0, 3)
    table.setModel(model)
    area = EmptyState(table, "No result yet.")
    layout = QVBoxLayout(window)
    layout.addWidget(plot)
    layout.addWidget(area)
    window.resize(500, 500)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(100)
    paints = PaintCounter(table.viewport())

    def show_results() -> None:
        curve.setData([0, 1, 2], [1, 0, 1])
        for row in range(40):
            model.appendRow([QStandardItem(f"{row}.{column}") for column in range(3)])
        area.show_content()

    QTimer.singleShot(0, show_results)
    qtbot.wait(300)  # every later paint
    assert area.message() is None and table.isVisible()
    assert paints.count == 1


def test_the_jobs_dock_says_why_it_is_empty_and_lists_a_running_job(qtbot) -> None:
    runner = JobRunner()
    dock = JobsDock(runner)
    qtbot.addWidget(dock)
    assert dock.empty_message == NO_JOB
    release = threading.Event()
    try:
        job = runner.run("wait", "Waiting", lambda progress, cancel: release.wait(30))
        qtbot.waitUntil(lambda: bool(dock.rows()), timeout=5000)
        assert dock.empty_message is None
        assert [row.job for row in dock.rows()] == [job]
    finally:
        release.set()
    qtbot.waitUntil(lambda: not dock.rows(), timeout=10000)
    assert dock.empty_message == NO_JOB
    runner.wait()


def test_a_job_that_ends_at_once_gets_no_row(qtbot, monkeypatch) -> None:
    from referee.gui.docks import jobs

    built: list[object] = []

    class CountedRow(jobs._JobRow):
        def __init__(self, job, parent=None) -> None:
            super().__init__(job, parent)
            built.append(job)

    monkeypatch.setattr(jobs, "_JobRow", CountedRow)
    runner = JobRunner()
    dock = JobsDock(runner)
    qtbot.addWidget(dock)
    runner.run("quick", "Quick", lambda progress, cancel: 1)
    qtbot.waitUntil(lambda: not runner.jobs, timeout=5000)
    qtbot.wait(jobs.ROW_DELAY_MS + 200)
    assert built == [] and dock.empty_message == NO_JOB
    release = threading.Event()
    try:  # a job still running after the delay gets its row
        slow = runner.run("slow", "Slow", lambda progress, cancel: release.wait(30))
        qtbot.waitUntil(lambda: bool(dock.rows()), timeout=5000)
        assert built == [slow]
    finally:
        release.set()
    runner.wait()


@pytest.mark.parametrize("window", [LIGHT_WINDOW, DARK_WINDOW])
def test_a_warning_is_legible_on_either_theme(qtbot, window: tuple[int, int, int]) -> None:
    line = WarningLine()
    qtbot.addWidget(line)
    palette = QPalette()
    palette.setColor(QPalette.ColorRole.Window, QColor(*window))
    line.setPalette(palette)
    line.set_text("The consensus disagrees with the ground truth here.")
    line.show()
    assert line.isVisible() and line.text().startswith("The consensus")
    assert _contrast(line.text_colour(), QColor(*window)) >= 4.5
    line.set_text("")
    assert not line.isVisible()


def test_the_warning_colour_follows_the_theme(qtbot) -> None:
    line = WarningLine()
    qtbot.addWidget(line)
    colours = []
    for window in (LIGHT_WINDOW, DARK_WINDOW):
        palette = QPalette()
        palette.setColor(QPalette.ColorRole.Window, QColor(*window))
        line.setPalette(palette)
        colours.append(line.text_colour().name())
    assert colours[0] != colours[1]
