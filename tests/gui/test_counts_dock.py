"""The Counts dock draws the counts stage's series of the video shown (the demo's count
files, read here with the csv module), marks the frame shown, goes to a clicked frame,
shows unsaved count changes at once and says why it is empty."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from referee.core.colours import DETECTOR_PALETTE
from referee.core.demo.project import demo_project
from referee.core.formats.counts_csv import CountSeries
from referee.core.model.project import Project
from referee.core.workflow.detections import run_counts
from referee.gui.app import dispose
from referee.gui.docks.counts import (
    COMPUTING,
    GROUND_TRUTH,
    NO_COUNTS,
    NO_PROJECT,
    CountsDock,
    no_video_counts,
)
from referee.gui.main_window import MainWindow
from referee.gui.widgets.palette import GROUND_TRUTH_RGB


def _read_counts(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Frames and counts of a ``frame,count`` file, read without Referee."""
    with path.open(newline="") as file:
        rows = [(int(row["frame"]), int(row["count"])) for row in csv.DictReader(file)]
    return np.array([f for f, _ in rows], float), np.array([c for _, c in rows], float)


def _curves(dock: CountsDock) -> dict[str, pg.PlotDataItem]:
    return {
        item.objectName().removeprefix("counts: "): item
        for item in dock.plot.getPlotItem().items
        if isinstance(item, pg.PlotDataItem) and item.objectName().startswith("counts: ")
    }


def _rgb(curve: pg.PlotDataItem) -> tuple[int, int, int]:
    colour = curve.opts["pen"].color()
    return colour.red(), colour.green(), colour.blue()


@pytest.fixture
def window(qtbot, demo_copy) -> MainWindow:
    QApplication.instance().setOrganizationName("Referee-tests")
    shown = MainWindow(remember_layout=False)
    shown.resize(1366, 768)
    shown.show()
    shown.open(demo_copy / "demo.referee.json")
    qtbot.waitUntil(
        lambda: not shown.runner.jobs and shown.viewer.layers is not None, timeout=120_000
    )
    shown.counts_dock.raise_()
    qtbot.waitUntil(lambda: shown.counts_dock.empty_message is None, timeout=5000)
    yield shown
    # Unsaved count changes are dropped, unasked.
    QMessageBox.question = lambda *a, **k: QMessageBox.StandardButton.Discard  # type: ignore[method-assign]
    shown.close()
    dispose(shown)


def _show(qtbot, window: MainWindow, label: str, frame: int) -> None:
    window.viewer.go_to(label, frame)
    qtbot.waitUntil(
        lambda: (
            window.viewer.current_video_label() == label
            and window.viewer.layers is not None
            and window.viewer.layers.frame == frame
        ),
        timeout=10_000,
    )


def test_the_plotted_series_are_the_count_files_of_the_video_shown(qtbot, window):
    detectors = [d.name for d in window.session.project.detectors]
    for label in ("baseline/plaza", "baseline/street", "shadow/corridor"):
        _show(qtbot, window, label, 1)
        folder = window.session.project.counts / label.replace("/", "_")
        curves = _curves(window.counts_dock)
        expected = {GROUND_TRUTH} | {d for d in detectors if (folder / f"{d}.csv").is_file()}
        assert set(curves) == expected and len(expected) == 4, label
        for name, curve in curves.items():
            file = folder / f"{'groundtruth' if name == GROUND_TRUTH else name}.csv"
            frames, counts = _read_counts(file)
            np.testing.assert_array_equal(curve.xData, frames)
            np.testing.assert_array_equal(curve.yData, counts)
            colour = (
                GROUND_TRUTH_RGB
                if name == GROUND_TRUTH
                else DETECTOR_PALETTE[detectors.index(name)]
            )
            assert _rgb(curve) == colour, (label, name)
        assert window.counts_dock.plot.getPlotItem().titleLabel.text == f"Counts — {label}"
    legend = [label.text for _, label in window.counts_dock.plot.getPlotItem().legend.items]
    assert legend == [GROUND_TRUTH, *[d for d in detectors if d in expected], "current frame"]


def test_the_current_frame_line_follows_the_viewer(qtbot, window):
    for frame in (17, 120, 3):
        _show(qtbot, window, "baseline/street", frame)
        assert window.counts_dock.current_frame_line.value() == frame


def test_a_click_goes_to_the_frame_clicked(qtbot, window):
    _show(qtbot, window, "baseline/plaza", 5)
    dock = window.counts_dock
    view = dock.plot.getPlotItem().getViewBox()
    qtbot.waitUntil(lambda: view.sceneBoundingRect().width() > 200)
    qtbot.wait(20)  # let the view range settle after layout
    scene = view.mapViewToScene(QPointF(100, 0.5))
    position = dock.plot.mapFromScene(scene)
    with qtbot.waitSignal(dock.frame_requested) as signal:
        qtbot.mouseClick(dock.plot.viewport(), Qt.MouseButton.LeftButton, pos=position)
    assert signal.args == [100]
    qtbot.waitUntil(lambda: window.viewer.layers.frame == 100, timeout=10_000)
    assert window.viewer.current_video_label() == "baseline/plaza"


def test_an_unsaved_count_change_shows_at_once_and_its_undo_too(qtbot, window):
    _show(qtbot, window, "baseline/street", 60)
    folder = window.session.project.counts / "baseline_street"
    frames, counts = _read_counts(folder / "groundtruth.csv")
    window.annotation.change_count(1)
    curve = _curves(window.counts_dock)[GROUND_TRUTH]
    np.testing.assert_array_equal(curve.yData, counts + (frames >= 60))
    assert window.annotation.editor.modified  # not saved: the files still hold the old counts
    np.testing.assert_array_equal(_read_counts(folder / "groundtruth.csv")[1], counts)
    window.annotation.editor.stack.undo()
    np.testing.assert_array_equal(_curves(window.counts_dock)[GROUND_TRUTH].yData, counts)


def test_recovered_count_changes_show_when_the_project_opens(qtbot, window, demo_copy, monkeypatch):
    _show(qtbot, window, "baseline/street", 30)
    frames, counts = _read_counts(
        window.session.project.counts / "baseline_street" / "groundtruth.csv"
    )
    window.annotation.change_count(2)
    assert window.annotation.editor.autosave() is not None
    # The application stops without saving; the next start recovers the autosave.
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    window.annotation.editor.stack.clear()
    window.annotation.editor.document = None
    window.open(demo_copy / "demo.referee.json")
    qtbot.waitUntil(
        lambda: not window.runner.jobs and window.viewer.layers is not None, timeout=120_000
    )
    _show(qtbot, window, "baseline/street", 31)
    curve = _curves(window.counts_dock)[GROUND_TRUTH]
    np.testing.assert_array_equal(curve.yData, counts + 2 * (frames >= 30))


# --- the dock alone ---------------------------------------------------------------------------


@pytest.fixture
def dock(qtbot) -> CountsDock:
    widget = CountsDock()
    qtbot.addWidget(widget)
    widget.resize(500, 300)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_the_dock_says_why_it_is_empty(dock, demo):
    assert dock.empty_message == NO_PROJECT
    dock.clear(has_counts=False)
    assert dock.empty_message == NO_COUNTS
    dock.show_result(None, "the project has no ground-truth counts")
    assert dock.empty_message == NO_COUNTS  # says how to add some
    dock.clear(has_counts=True)
    assert dock.empty_message == COMPUTING
    dock.show_result(None, "the project has no ground-truth counts")
    assert dock.empty_message == "No counts to show: the project has no ground-truth counts."
    dock.show_result(run_counts(demo_project(demo)))
    dock.show_video("nowhere_video", "nowhere/video")
    assert dock.empty_message == no_video_counts("nowhere/video")
    dock.show_video("baseline_plaza", "baseline/plaza")
    assert dock.empty_message is None and next(iter(dock.series())) == GROUND_TRUTH


def test_a_series_given_replaces_the_results_ground_truth(dock, demo):
    dock.set_detector_order(["mog2", "knn", "mog", "cnt"])
    dock.show_result(run_counts(demo_project(demo)))
    dock.show_video("baseline_plaza", "baseline/plaza")
    edited = CountSeries(1, np.arange(5, dtype=np.int64))
    dock.show_groundtruth("baseline_street", edited)  # another video's: nothing changes here
    assert dock.series()[GROUND_TRUTH] is not edited
    dock.show_video("baseline_street", "baseline/street")
    assert dock.series()[GROUND_TRUTH] is edited
    np.testing.assert_array_equal(_curves(dock)[GROUND_TRUTH].yData, [0, 1, 2, 3, 4])
    assert list(dock.series()) == [GROUND_TRUTH, "mog2", "knn", "cnt"]
    dock.clear(has_counts=True)  # another project: its edits are not this one's
    assert dock.series() == {}


def test_a_project_without_counts_says_so_in_the_window(qtbot, demo):
    window = MainWindow(remember_layout=False)
    try:
        window.show()
        project = demo_project(demo)
        window.open_project(Project(name="No counts", dataset=project.dataset))
        window.counts_dock.raise_()
        qtbot.waitUntil(lambda: not window.runner.jobs, timeout=120_000)
        assert window.counts_dock.empty_message == NO_COUNTS
    finally:
        window.close()
        dispose(window)
