"""A progress bar shows new progress at the window's next paint, never by painting at once."""

from __future__ import annotations

from PySide6.QtWidgets import QProgressBar, QVBoxLayout, QWidget

from referee.gui.widgets.progress_bar import ProgressBar
from tests.gui.paint_counter import PaintCounter


def _shown(qtbot, bar: QProgressBar) -> tuple[QWidget, PaintCounter]:
    """``bar`` in a shown window (kept by the caller), and a count of its paints from now."""
    window = QWidget()
    qtbot.addWidget(window)
    QVBoxLayout(window).addWidget(bar)
    window.resize(300, 60)
    window.show()
    qtbot.waitExposed(window)
    paints = PaintCounter(bar)
    qtbot.wait(50)  # the first paints are done
    paints.count = 0
    return window, paints


def test_a_plain_qt_progress_bar_paints_at_once(qtbot) -> None:
    """What the project's bar avoids: Qt's own repaints as its value is set."""
    bar = QProgressBar()
    _window, paints = _shown(qtbot, bar)
    bar.setRange(0, 10)
    bar.setValue(5)
    assert paints.count >= 1


def test_new_progress_is_painted_with_the_window_not_at_once(qtbot) -> None:
    bar = ProgressBar()
    _window, paints = _shown(qtbot, bar)
    bar.show_progress(5, 10)
    assert (bar.minimum(), bar.maximum(), bar.value()) == (0, 10, 5)
    assert paints.count == 0  # nothing painted yet …
    qtbot.waitUntil(lambda: paints.count >= 1)  # … but at the window's next paint
    bar.show_progress(12, 10)  # more than the total: full
    assert bar.value() == 10
    bar.show_progress(-3, 10)
    assert bar.value() == 0
    bar.show_progress(4, 0)  # no total known: busy
    assert (bar.minimum(), bar.maximum()) == (0, 0)
    assert bar.updatesEnabled()
