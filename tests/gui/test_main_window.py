"""The application driven as a user drives it: open the demo, step, toggle layers, jump, cancel."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from referee.core.demo.project import demo_project
from referee.core.formats import annotated
from referee.core.progress import check
from referee.core.workflow import projects
from referee.core.workflow.options import RankingOptions
from referee.gui import session as session_module
from referee.gui.app import dispose
from referee.gui.main_window import MainWindow
from referee.gui.viewer.frame_view import COMPARISON, LAYERS
from referee.gui.widgets.palette import COMPARISON_RGBA
from tests.gui.conftest import opened


def _ready(window: MainWindow) -> bool:
    return not window.runner.jobs and window.viewer.layers is not None


def _dispose(window: MainWindow) -> None:
    window.close()
    dispose(window)


@pytest.fixture
def window(qtbot, demo) -> MainWindow:
    QApplication.instance().setOrganizationName("Referee-tests")
    window = MainWindow()
    window.show()
    window.open_project(demo_project(demo))
    qtbot.waitUntil(lambda: _ready(window) and bool(window.session.evaluations), timeout=120000)
    yield window
    _dispose(window)


def _wait_frame(qtbot, window: MainWindow, frame: int) -> None:
    qtbot.waitUntil(
        lambda: window.viewer.layers is not None and window.viewer.layers.frame == frame,
        timeout=10000,
    )


def test_opening_the_demo_evaluates_every_detector(window, demo) -> None:
    assert set(window.session.evaluations) == set(demo.results)
    assert window.viewer.video_labels[:1] == ["baseline/plaza"]
    assert window.indicators_dock.table_csv().count("\n") > len(demo.results)


def test_arrow_keys_step_frames(qtbot, window) -> None:
    start = window.viewer.timeline.frame()
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_Right)
    _wait_frame(qtbot, window, start + 1)
    qtbot.keyClick(window, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    _wait_frame(qtbot, window, start + 11)
    qtbot.keyClick(window, Qt.Key.Key_Left)
    _wait_frame(qtbot, window, start + 10)


def test_comparison_colours_at_known_pixels_and_layer_toggle(qtbot, window) -> None:
    viewer = window.viewer
    for name in LAYERS:
        window.layers_panel.set_checked(name, name == COMPARISON)
    window.layers_panel.set_opacity(COMPARISON, 1.0)
    detector = viewer.detectors_shown()[0]
    evaluation = window.session.evaluations[detector][0]
    rows = evaluation.per_frame
    frame = int(rows[(rows[:, 1] > 0) & (rows[:, 2] > 0) & (rows[:, 3] > 0)][0, 0])
    viewer.go_to(viewer.video_labels[0], frame)
    _wait_frame(qtbot, window, frame)
    layers = viewer.layers
    codes = layers.comparisons[detector]
    view = viewer.grid.views[0]
    view.set_boxes([])  # action boxes are drawn over the pixels; this test is about the codes
    for code in (1, 2, 3):  # a true positive, a false positive, a false negative
        ys, xs = np.nonzero(codes == code)
        assert ys.size, f"no pixel with code {code} on this frame"
        y, x = ys[len(ys) // 2], xs[len(xs) // 2]
        rendered = view.rendered_rgb()[y, x]
        assert np.abs(rendered.astype(int) - COMPARISON_RGBA[code][:3]).max() <= 3
    # Alt+1 switches the comparison off: the frame itself shows through.
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier)
    assert not view.layer_visible(COMPARISON)
    rendered = view.rendered_rgb()[y, x]
    assert np.abs(rendered.astype(int) - layers.image[y, x].astype(int)).max() <= 3


def test_a_bad_path_shows_an_error_dialog(qtbot, window, tmp_path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("hello")
    assert not opened(qtbot, window.open(bad))
    boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox)]
    assert any(str(bad) in box.text() for box in boxes)
    for box in boxes:
        box.close()


def test_opening_lists_no_folder_on_the_gui_thread(qtbot, demo, monkeypatch) -> None:
    on_gui_thread: list[bool] = []

    def recorded(function):
        def call(*args, **kwargs):
            on_gui_thread.append(threading.current_thread() is threading.main_thread())
            return function(*args, **kwargs)

        return call

    for module, name in (
        (projects, "discover_dataset"),  # the path opened as a project
        (projects, "project_videos"),  # its videos
        (annotated, "annotated_frames"),  # their frames with ground truth
    ):
        monkeypatch.setattr(module, name, recorded(getattr(module, name)))
    QApplication.instance().setOrganizationName("Referee-tests")
    window = MainWindow(remember_layout=False)
    try:
        window.show()
        assert opened(qtbot, window.open(demo.dataset))
        qtbot.waitUntil(lambda: window.viewer.layers is not None, timeout=30_000)
        assert window.session.videos and on_gui_thread
        assert not any(on_gui_thread), "a folder was listed on the GUI thread"
    finally:
        window.runner.cancel_all()
        window.runner.wait()
        _dispose(window)


def test_a_new_projects_stages_start_once_its_first_frame_is_shown(qtbot, demo, monkeypatch):
    shown_when_started: list[bool] = []
    window = MainWindow(remember_layout=False)
    stage_run = session_module.run_stage

    def recorded(*args, **kwargs):
        shown_when_started.append(window.viewer.layers is not None)
        return stage_run(*args, **kwargs)

    monkeypatch.setattr(session_module, "run_stage", recorded)
    try:
        window.show()
        assert opened(qtbot, window.open_project(demo_project(demo)))
        qtbot.waitUntil(lambda: bool(window.session.evaluations), timeout=120_000)
        assert shown_when_started and all(shown_when_started)
    finally:
        window.runner.cancel_all()
        window.runner.wait()
        _dispose(window)


def _until_cancelled(progress, cancel) -> None:
    while True:
        check(cancel)  # raises once cancelled
        time.sleep(0.01)


def test_cancel_from_the_jobs_dock(qtbot, window) -> None:
    job = window.runner.run("wait", "A long job", _until_cancelled)
    qtbot.waitUntil(lambda: bool(window.jobs_dock.rows()), timeout=5000)
    row = next(r for r in window.jobs_dock.rows() if r.job is job)
    qtbot.mouseClick(row.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: job.state == job.CANCELLED, timeout=30000)
    qtbot.waitUntil(lambda: not window.jobs_dock.rows(), timeout=5000)


def test_layout_is_restored(qtbot, window) -> None:
    window.plots_dock.raise_()
    window.data_dock.hide()
    window.save_settings()
    second = MainWindow()
    second.show()
    assert second.data_dock.isHidden()
    _dispose(second)
    assert QSettings().value("window/state") is not None


def test_enter_on_the_ranking_jumps_to_that_frame(qtbot, window) -> None:
    # Every demo frame has ground truth, so the default ranking is empty: include them.
    window.session.run_ranking(RankingOptions(include_annotated=True))
    qtbot.waitUntil(lambda: bool(window.session.ranking), timeout=60000)
    ranked = window.session.ranking[-1]
    table = window.next_frames_dock.table
    qtbot.waitUntil(lambda: table.rowCount() == len(window.session.ranking), timeout=10000)
    table.setCurrentCell(table.rowCount() - 1, 0)
    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_Return)
    _wait_frame(qtbot, window, ranked.frame)
    assert window.viewer.current_video_label() == ranked.video
