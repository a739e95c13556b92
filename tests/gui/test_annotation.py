"""Annotating masks and counts in the window: paint, undo, save, recover, the annotate-next loop."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

from referee.core.annotation.autosave import autosave_path
from referee.core.annotation.review import FrameStatus
from referee.core.demo.project import (
    ANNOTATED_EVERY,
    PARTLY_ANNOTATED_VIDEO,
)
from referee.core.exports.estimate import consensus_sentences, trust_sentences
from referee.core.formats.project_json import read_project
from referee.core.measures.pixel import GT_MOTION, GT_SHADOW, GT_STATIC
from referee.gui.annotation.mask_painter import Tool
from referee.gui.app import dispose
from referee.gui.main_window import MainWindow
from tests.gui.conftest import opened

CORRIDOR = PARTLY_ANNOTATED_VIDEO


@pytest.fixture
def window(qtbot, demo_copy: Path, monkeypatch) -> MainWindow:
    QApplication.instance().setOrganizationName("Referee-tests")
    window = MainWindow()
    window.show()
    window.open_project(read_project(demo_copy / "demo.referee.json"))
    _wait_results(qtbot, window)
    yield window
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    window.close()
    dispose(window)


def _wait_results(qtbot, window: MainWindow) -> None:
    qtbot.waitUntil(
        lambda: (
            not window.runner.jobs
            and window.viewer.layers is not None
            and bool(window.session.evaluations)
            and bool(window.session.ranking)
            and window.session.estimate is not None
        ),
        timeout=120000,
    )


def _wait_frame(qtbot, window: MainWindow, label: str, frame: int) -> None:
    qtbot.waitUntil(
        lambda: (
            window.viewer.layers is not None
            and window.viewer.layers.frame == frame
            and window.viewer.current_video_label() == label
            and window.annotation._frame == (label, frame)
        ),
        timeout=10000,
    )


def _corridor_total(window: MainWindow, detector: str) -> np.ndarray:
    """tp, fp, fn, tn, se of ``detector`` on the corridor, from its per-frame rows."""
    evaluation = next(
        e
        for e in window.session.evaluations[detector]
        if (e.category, e.video) == ("shadow", "corridor")
    )
    return evaluation.per_frame[:, 1:].sum(axis=0)


def _frame_counts(video_folder: Path, result: Path, frame: int) -> np.ndarray:
    """tp, fp, fn, tn, se of one frame by a plain numpy statement of docs/measures.md §1."""
    roi = cv2.imread(str(video_folder / "ROI.bmp"), cv2.IMREAD_GRAYSCALE) > 0
    gt = cv2.imread(str(video_folder / "groundtruth" / f"gt{frame:06d}.png"), cv2.IMREAD_UNCHANGED)
    detected = cv2.imread(str(result / f"bin{frame:06d}.png"), cv2.IMREAD_GRAYSCALE) == 255
    evaluated = roi & np.isin(gt, [0, 50, 255])
    positive = gt == 255
    return np.array(
        [
            np.sum(evaluated & positive & detected),
            np.sum(evaluated & ~positive & detected),
            np.sum(evaluated & positive & ~detected),
            np.sum(evaluated & ~positive & ~detected),
            np.sum(evaluated & (gt == 50) & detected),
        ]
    )


def test_the_annotate_next_loop_for_three_frames(qtbot, window, demo_copy: Path) -> None:
    controller = window.annotation
    document = controller.editor.document
    video = document.videos[CORRIDOR]
    recorded = len(video.frames[::ANNOTATED_EVERY])
    assert f"of {sum(v.n_frames for v in document.videos.values()):,}" in (
        controller.dock.progress.text()
    )
    result = demo_copy / "results" / "mog2" / "shadow" / "corridor"
    window.session.run_significance()
    qtbot.waitUntil(lambda: window.session.significance is not None, timeout=60000)
    for step in range(3):
        # The sampler proposes the corridor's next draw: the other videos are fully annotated.
        estimate = window.session.estimate
        assert [v.video for v in estimate.videos] == [CORRIDOR]
        labels = estimate.videos[0].labels
        assert window.next_frames_dock.proposal() == (CORRIDOR, estimate.videos[0].next_frame)
        top = next(r for r in window.session.ranking if not document.is_annotated(r.video, r.frame))
        top = replace(top, frame=estimate.videos[0].next_frame)
        assert not document.is_annotated(CORRIDOR, top.frame)
        before = _corridor_total(window, "mog2")
        controller.next_suggested()
        _wait_frame(qtbot, window, top.video, top.frame)
        # The consensus was offered as a draft: the frame is changed, unsaved, not accepted.
        assert document.map_edited((CORRIDOR, top.frame))
        assert document.status(CORRIDOR, top.frame) is FrameStatus.DRAFT
        assert window.isWindowModified()
        controller.set_tool(Tool.BRUSH)
        controller.painter.set_level(GT_SHADOW)
        controller.painter.press(10.2, 10.7)
        controller.painter.drag(30.5, 12.0)
        controller.painter.release()
        assert document.label_map(CORRIDOR, top.frame)[11, 20] == GT_SHADOW
        # A draft, even corrected, is not saved until accepted.
        gt = video.gt_path(top.frame)
        assert controller.save() and not gt.exists() and window.isWindowModified()
        assert "1 draft frame not accepted" in window.statusBar().currentMessage()
        controller.accept_frame()
        assert document.status(CORRIDOR, top.frame) is FrameStatus.ACCEPTED
        assert controller.save() and gt.exists()
        assert not window.isWindowModified()
        _wait_results(qtbot, window)
        qtbot.waitUntil(lambda: window.session.pixels is not None, timeout=60000)
        # Evaluation now counts exactly one more frame, with exactly that frame's counts.
        after = _corridor_total(window, "mog2")
        expected = _frame_counts(video.folder, result, top.frame)
        assert np.array_equal(after - before, expected)
        frames = read_project(demo_copy / "demo.referee.json").annotated_frames(CORRIDOR)
        assert top.frame in frames and len(frames) == recorded + step + 1  # type: ignore[arg-type]
        assert all(r.frame != top.frame or r.video != CORRIDOR for r in window.session.ranking)
        # The estimate now rests on one labelled draw more at least, each step plotted.
        (mine,) = window.session.estimate.videos
        assert mine.labels > labels and len(mine.trace) == mine.labels + 1
        traces = [i for i in window.next_frames_dock.plot.listDataItems() if i.name()]
        assert sorted(i.name() for i in traces) == sorted(window.session.estimate.methods)
        assert all(len(i.xData) == mine.labels + 1 for i in traces)
    panel = window.indicators_dock.estimates
    assert panel.isVisibleTo(window) and panel.table.rowCount() == len(mine.estimates)
    for row, method in enumerate(window.session.estimate.methods):
        f1 = mine.estimates[method]["f1"]
        assert panel.table.item(row, 0).text() == CORRIDOR
        assert panel.table.item(row, 1).text() == method
        expected = f"{f1.estimate:.4f}" + ("" if np.isnan(f1.low) else f" [{f1.low:.4f}, ")
        assert panel.table.item(row, 2).text().startswith(expected)
        assert panel.table.item(row, 5).text().startswith(f"{mine.labels} draw")
    # The panel says what `referee estimate` says: the consensus check and the annotated
    # frames the sampler has not drawn (every 8th frame of the evaluated range, less those drawn).
    estimate = window.session.estimate
    words = panel.warnings.text()
    assert words == "\n".join([*consensus_sentences(estimate), *trust_sentences(estimate)])
    first, last = map(int, (video.folder / "temporalROI.txt").read_text().split())
    annotated = read_project(demo_copy / "demo.referee.json").annotated_frames(CORRIDOR)
    in_range = sum(first <= f <= last for f in annotated)  # type: ignore[union-attr]
    drawn = len({f.frame for f in estimate.frames if f.video == CORRIDOR})
    assert in_range > drawn
    assert f"{in_range - drawn} annotated frames of {CORRIDOR} were not drawn" in words
    assert not panel.warnings.isHidden()
    assert controller.dock.changes_table.rowCount() == len(window.session.evaluations)
    # The significance test ran again on the new ground truth, and the dock says its verdict.
    qtbot.waitUntil(lambda: window.session.significance is not None, timeout=60000)
    assert "Significance" in controller.dock.changes_note.text()


def test_strokes_fill_undo_redo_and_clean_state(qtbot, window) -> None:
    controller, editor = window.annotation, window.annotation.editor
    video = editor.document.videos[CORRIDOR]
    frame = next(f for f in video.frames if not editor.document.is_annotated(CORRIDOR, f))
    window.viewer.go_to(CORRIDOR, frame)
    _wait_frame(qtbot, window, CORRIDOR, frame)
    label_map = editor.document.label_map(CORRIDOR, frame)
    original = label_map.copy()
    controller.set_tool(Tool.BRUSH)
    controller.painter.set_radius(3)
    controller.painter.press(20.5, 20.5)
    controller.painter.drag(40.5, 20.5)
    controller.painter.release()
    assert label_map[20, 20] == GT_MOTION and label_map[20, 40] == GT_MOTION
    assert label_map[20, 45] == original[20, 45]
    assert editor.document.map_edited((CORRIDOR, frame))
    painted = label_map.copy()
    controller.set_tool(Tool.ERASER)
    controller.painter.press(30.5, 20.5)
    controller.painter.release()
    assert label_map[20, 30] == GT_STATIC
    controller.set_tool(Tool.POLYGON)
    for x, y in ((60, 60), (80, 60), (80, 80), (60, 80)):
        controller.painter.press(x, y)
    controller.painter.close_polygon()
    assert label_map[70, 70] == GT_MOTION
    controller.set_tool(Tool.FILL)
    controller.painter.set_level(GT_SHADOW)
    controller.painter.press(70.5, 70.5)  # the polygon's square, 4-connected
    assert label_map[61, 61] == GT_SHADOW and label_map[59, 59] == original[59, 59]
    assert editor.stack.count() == 4 and window.isWindowModified()
    for _ in range(3):
        editor.stack.undo()
    assert np.array_equal(label_map, painted)
    editor.stack.undo()
    assert np.array_equal(label_map, original)
    assert not window.isWindowModified()  # back to the saved state
    editor.stack.redo()
    assert np.array_equal(label_map, painted) and window.isWindowModified()
    view = controller.painter.item
    assert view.boundingRect().width() == label_map.shape[1]


def test_count_changes_and_undo(qtbot, window) -> None:
    controller = window.annotation
    window.viewer.go_to("baseline/street", 60)
    _wait_frame(qtbot, window, "baseline/street", 60)
    video = controller.editor.document.videos["baseline/street"]
    series = controller.editor.document.counts(video)
    before = series.counts.copy()
    controller.change_count(1)
    after = controller.editor.document.counts(video).counts
    k = 60 - series.first_frame
    assert np.array_equal(after[k:], before[k:] + 1) and np.array_equal(after[:k], before[:k])
    assert f"count at this frame: {before[k] + 1}" in controller.dock.count_label.text()
    controller.editor.stack.undo()
    assert np.array_equal(controller.editor.document.counts(video).counts, before)


def test_a_file_changed_on_disk_is_kept_unless_the_user_says(
    qtbot, window, demo_copy: Path, monkeypatch
) -> None:
    controller = window.annotation
    window.viewer.go_to("baseline/street", 60)
    _wait_frame(qtbot, window, "baseline/street", 60)
    controller.set_tool(Tool.BRUSH)
    controller.painter.press(5.5, 5.5)
    controller.painter.release()
    gt = demo_copy / "dataset" / "baseline" / "street" / "groundtruth" / "gt000060.png"
    theirs = np.full_like(cv2.imread(str(gt), cv2.IMREAD_UNCHANGED), GT_SHADOW)
    cv2.imwrite(str(gt), theirs)
    asked: list[str] = []

    def cancel(parent, title, text, *args, **kwargs):
        asked.append(text)
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "warning", cancel)
    assert not controller.save()
    assert asked and str(gt) in asked[0]
    assert np.array_equal(cv2.imread(str(gt), cv2.IMREAD_UNCHANGED), theirs)
    assert window.isWindowModified()


def test_an_autosave_is_offered_on_the_next_start(
    qtbot, window, demo_copy: Path, monkeypatch
) -> None:
    controller = window.annotation
    window.viewer.go_to("baseline/street", 70)
    _wait_frame(qtbot, window, "baseline/street", 70)
    controller.set_tool(Tool.BRUSH)
    controller.painter.press(8.5, 8.5)
    controller.painter.release()
    painted = controller.editor.document.label_map("baseline/street", 70).copy()
    sidecar = controller.editor.autosave()
    assert sidecar == autosave_path(demo_copy / "demo.referee.json")
    # The application stops without saving; the next start offers the autosave.
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    controller.editor.stack.clear()  # as if the process had ended
    controller.editor.document = None
    window.open_project(read_project(demo_copy / "demo.referee.json"))
    _wait_results(qtbot, window)
    document = controller.editor.document
    assert np.array_equal(document.label_map("baseline/street", 70), painted)
    assert controller.editor.modified and window.isWindowModified()
    assert controller.save() and not sidecar.exists()


def test_the_autosave_interval_is_a_preference(window, monkeypatch) -> None:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QInputDialog

    from referee.gui.annotation.editor import (
        AUTOSAVE_SETTING,
        DEFAULT_AUTOSAVE_SECONDS,
        autosave_seconds,
    )

    editor = window.annotation.editor
    assert editor.autosave_interval == DEFAULT_AUTOSAVE_SECONDS  # on by default
    monkeypatch.setattr(QInputDialog, "getInt", lambda *a, **k: (5, True))
    window.annotation.choose_autosave_interval()
    assert editor.autosave_interval == 5 and autosave_seconds() == 5
    assert int(QSettings().value(AUTOSAVE_SETTING)) == 5
    monkeypatch.setattr(QInputDialog, "getInt", lambda *a, **k: (0, True))
    window.annotation.choose_autosave_interval()
    assert editor.autosave_interval == 0


def test_a_partly_annotated_folder_is_evaluated_and_saved_without_asking(
    qtbot, demo_copy: Path, tmp_path: Path, monkeypatch
) -> None:
    """A dataset folder opened as it is (no project file), whose corridor has ground truth on
    every eighth frame only: it is evaluated on those frames; the first save writes a
    project file and the annotation beside it without asking about Referee's own write;
    a Cancel keeps the title's *."""
    from PySide6.QtWidgets import QFileDialog

    from referee.gui.project_edits import save_project

    QApplication.instance().setOrganizationName("Referee-tests")
    window = MainWindow()
    window.show()
    try:
        assert opened(qtbot, window.open(demo_copy / "dataset"))
        qtbot.waitUntil(lambda: window.session.pixels is not None, timeout=120000)
        corridor = next(v for v in window.session.videos if v.label == CORRIDOR)
        kept = corridor.frames[::ANNOTATED_EVERY]
        partial = window.session.pixels.annotated_only[CORRIDOR]
        assert (partial.count, partial.of) == (len(kept), corridor.n_frames)
        assert window.indicators_dock.table_model.rowCount() > 0
        frame = kept[0] + 1
        window.viewer.go_to(CORRIDOR, frame)
        _wait_frame(qtbot, window, CORRIDOR, frame)
        controller = window.annotation
        controller.set_tool(Tool.BRUSH)
        controller.painter.press(12.5, 12.5)
        controller.painter.release()
        assert controller.editor.document.status(CORRIDOR, frame) is FrameStatus.ACCEPTED
        # Another program changes a frame being saved: the question comes, and Cancel keeps *.
        street = demo_copy / "dataset" / "baseline" / "street" / "groundtruth" / "gt000060.png"
        window.viewer.go_to("baseline/street", 60)
        _wait_frame(qtbot, window, "baseline/street", 60)
        controller.painter.press(5.5, 5.5)
        controller.painter.release()
        cv2.imwrite(str(street), np.full((120, 160), GT_SHADOW, np.uint8))
        asked: list[str] = []

        def cancel(parent, title, text, *args, **kwargs):
            asked.append(text)
            return QMessageBox.StandardButton.Cancel

        file = tmp_path / "mine.referee.json"
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(file), ""))
        monkeypatch.setattr(QMessageBox, "warning", cancel)
        save_project(window)
        assert len(asked) == 1 and str(street) in asked[0]  # not the project file just written
        assert file.exists() and window.isWindowModified()
        assert not corridor.gt_path(frame).exists()
        # Without the other program's change, the save goes through without a question.
        controller.editor.stack.undo()  # the street stroke
        save_project(window)
        assert len(asked) == 1 and corridor.gt_path(frame).exists()
        assert not window.isWindowModified()
        recorded = read_project(file).annotated_frames(CORRIDOR)
        assert recorded is not None and frame in recorded
        assert recorded.count_within(corridor.first, corridor.last) == len(kept) + 1
    finally:
        monkeypatch.setattr(
            QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard
        )
        window.close()
        dispose(window)
