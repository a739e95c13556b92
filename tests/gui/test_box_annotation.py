"""Boxes: annotating them in the window (draw, move, resize, interpolate, edit, propagate,
undo, save) and how the boxes of an action evaluation are drawn, labelled and explained."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QItemSelectionModel, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QMessageBox

from referee.core.colours import DETECTOR_PALETTE
from referee.core.formats.liris_xml import parse_liris_bytes
from referee.core.formats.mot_csv import parse_mot_csv
from referee.core.formats.project_json import read_project
from referee.core.measures.action_scores import evaluate_actions
from referee.core.model.annotations import Action, AnnotationSet, VideoAnnotation
from referee.gui.annotation.mask_painter import Tool
from referee.gui.app import dispose
from referee.gui.docks.boxes import TRACKS
from referee.gui.main_window import MainWindow
from referee.gui.viewer.action_boxes import box_legend, boxes_for_frame
from referee.gui.viewer.box_overlay import BoxOverlay, label_positions
from referee.gui.viewer.frame_view import FrameView
from referee.gui.widgets.palette import (
    COMPARISON_RGBA,
    GROUND_TRUTH_RGB,
    LINE_SAMPLE_RGB,
    BoxDrawing,
    BoxLine,
    LegendEntry,
)

STREET, STREET_NAME = "baseline/street", "baseline_street"


@pytest.fixture
def window(qtbot, demo_copy: Path, monkeypatch) -> MainWindow:
    QApplication.instance().setOrganizationName("Referee-tests")
    window = MainWindow()
    window.show()
    window.open_project(read_project(demo_copy / "demo.referee.json"))
    qtbot.waitUntil(
        lambda: not window.runner.jobs and window.viewer.layers is not None, timeout=120000
    )
    yield window
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    window.close()
    dispose(window)


def _go(qtbot, window: MainWindow, frame: int) -> None:
    window.viewer.go_to(STREET, frame)
    qtbot.waitUntil(lambda: window.annotation.boxes._frame == (STREET_NAME, frame), timeout=10000)


def _actions(window: MainWindow) -> dict[int, object]:
    video = window.annotation.editor.document.actions.videos[STREET_NAME]
    return {action.number: action for action in video.actions}


def _drag(tool, start: tuple[float, float], end: tuple[float, float]) -> None:
    tool.press(*start)
    tool.drag((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
    tool.drag(*end)
    tool.release()


def _pen_styles(window: MainWindow) -> list[Qt.PenStyle]:
    """Pen style of every box drawn (handles are solid squares and come after their box)."""
    return [item.pen().style() for item in window.annotation.boxes.tool.rect_items()]


def test_draw_move_resize_interpolate_undo_redo_and_save(qtbot, window, demo_copy) -> None:
    boxes, stack = window.annotation.boxes, window.annotation.editor.stack
    existing = set(_actions(window))
    _go(qtbot, window, 20)
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_R)  # the Box tool
    qtbot.keyClick(window, Qt.Key.Key_8)  # class 8, handshaking
    assert boxes.tool.active and boxes.action_class == 8
    assert "handshaking" in boxes.dock.class_box.currentText()
    # Drag on empty ground (the scene's top right is free at frame 20): a new action.
    _drag(boxes.tool, (100.0, 10.0), (130.0, 50.0))
    (number,) = set(_actions(window)) - existing
    assert number == max(existing) + 1
    action = _actions(window)[number]
    assert (action.action_class, action.first, action.last) == (8, 20, 20)
    assert action.box_at(20) == (100, 10, 30, 40)
    # On frame 30, move the (still selected) box by (+10, +20): a second keyframe there,
    # and frames 21–29 interpolated between them.
    _go(qtbot, window, 30)
    assert boxes.selected is not None and boxes.selected.number == number
    qtbot.keyClick(window, Qt.Key.Key_K)  # keyframe here: the box copied to frame 30
    assert (_actions(window)[number].first, _actions(window)[number].last) == (20, 30)
    _drag(boxes.tool, (110.0, 20.0), (120.0, 40.0))
    action = _actions(window)[number]
    assert action.box_at(30) == (110, 30, 30, 40)
    assert action.box_at(25) == (105, 20, 30, 40)  # halfway, by hand
    assert action.interpolated.tolist() == [False] + [True] * 9 + [False]
    # Resize by the bottom-right corner (140, 70) → (150, 90): w 40, h 60 at frame 30;
    # at frame 25, w and h are halfway: 35 and 50.
    _drag(boxes.tool, (140.0, 70.0), (150.0, 90.0))
    action = _actions(window)[number]
    assert action.box_at(30) == (110, 30, 40, 60)
    assert action.box_at(25) == (105, 20, 35, 50)
    # Keyframes are drawn solid, interpolated boxes dashed.
    assert Qt.PenStyle.SolidLine in _pen_styles(window)
    _go(qtbot, window, 25)
    styles = _pen_styles(window)
    assert Qt.PenStyle.DashLine in styles
    # Ground truth is drawn in its yellow, and a legend over the frame says what the lines are.
    outlines = boxes.tool.overlay.rect_items()
    assert {item.pen().color().getRgb()[:3] for item in outlines} == {GROUND_TRUTH_RGB}
    assert boxes.tool.overlay.legend.isVisible()
    assert "ground truth, interpolated" in boxes.tool.overlay.legend_texts()
    # The list shows the class by name, the span and the keyframe count.
    rows = boxes.dock.items
    row = next(r for r in range(rows.rowCount()) if rows.item(r, 0).text() == str(number))
    assert [rows.item(row, c).text() for c in range(1, 4)] == ["handshaking", "20–30", "2"]
    # Undo the resize, the move, the keyframe and the new action; redo them all.
    assert not stack.isClean()
    stack.undo()
    assert _actions(window)[number].box_at(30) == (110, 30, 30, 40)
    stack.undo()
    assert _actions(window)[number].box_at(30) == (100, 10, 30, 40)
    stack.undo()
    assert _actions(window)[number].last == 20
    stack.undo()
    assert number not in _actions(window)
    assert stack.isClean()
    for _ in range(4):
        stack.redo()
    assert _actions(window)[number].box_at(25) == (105, 20, 35, 50)
    # Saved, the LIRIS file holds the same action, keyframes and all.
    assert window.annotation.save()
    path = read_project(demo_copy / "demo.referee.json").actions_groundtruth
    saved = parse_liris_bytes(path.read_bytes(), path).videos[STREET_NAME].action(number)
    assert saved.same_as(_actions(window)[number])


def test_end_split_merge_and_delete(qtbot, window, monkeypatch) -> None:
    boxes = window.annotation.boxes
    window.annotation.set_tool(Tool.BOX)
    _go(qtbot, window, 40)
    _drag(boxes.tool, (100.0, 10.0), (120.0, 30.0))
    number = boxes.selected.number
    _go(qtbot, window, 60)
    boxes.run("keyframe")  # the box copied to frame 60: frames 40–60
    assert (_actions(window)[number].first, _actions(window)[number].last) == (40, 60)
    _go(qtbot, window, 55)
    boxes.run("end")
    assert _actions(window)[number].last == 55
    _go(qtbot, window, 50)
    boxes.run("split")
    first, second = _actions(window)[number], boxes.selected
    assert (first.first, first.last, second.first, second.last) == (40, 49, 50, 55)
    # Select both rows and merge: one action over 40–55 again, with the first's number.
    rows = boxes.dock.items
    numbers = [rows.item(r, 0).text() for r in range(rows.rowCount())]
    rows.clearSelection()
    for n in (first.number, second.number):
        index = rows.model().index(numbers.index(str(n)), 0)
        flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        rows.selectionModel().select(index, flags)
    boxes.run("merge")
    assert second.number not in _actions(window)
    merged = _actions(window)[number]
    assert (merged.first, merged.last) == (40, 55)
    # Delete the box of an inner frame: the action is cut in two around it.
    boxes.selected = merged
    _go(qtbot, window, 45)
    boxes.run("delete_box")
    spans = sorted((a.first, a.last) for a in _actions(window).values() if a.first >= 40)
    assert (40, 44) in spans and (46, 55) in spans
    # Deleting a whole action asks; Cancel keeps it, Yes deletes it, Undo brings it back.
    boxes.selected = _actions(window)[number]
    asked: list[str] = []

    def answer(button):
        def ask(parent, title, text, *args, **kwargs):
            asked.append(text)
            return button

        return ask

    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Cancel))
    boxes.run("delete_item")
    assert number in _actions(window) and "5 boxes" in asked[-1]
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Yes))
    boxes.run("delete_item")
    assert number not in _actions(window)
    window.annotation.editor.stack.undo()
    assert (_actions(window)[number].first, _actions(window)[number].last) == (40, 44)


def test_tracks_propagate_accept_and_save_as_mot(qtbot, window, demo_copy) -> None:
    boxes = window.annotation.boxes
    boxes.set_kind(TRACKS)
    window.annotation.set_tool(Tool.BOX)
    assert boxes.items() == ()
    assert "No tracks yet" in boxes.dock.empty_note.text()
    # The street's first object (ground-truth action 1) is 9×19 pixels at frame 20; draw a
    # slightly larger box around it and let CSRT follow it for 10 frames.
    truth = _actions(window)[1]
    x, y, w, h = truth.box_at(20)
    _go(qtbot, window, 20)
    _drag(boxes.tool, (x - 2.0, y - 2.0), (x + w + 2.0, y + h + 2.0))
    (track,) = boxes.items()
    assert track.track_id == 1 and np.allclose(track.boxes[0], [x - 2, y - 2, w + 4, h + 4])
    boxes.dock.tracker_box.setCurrentText("CSRT")
    boxes.dock.frames_box.setValue(10)
    boxes.run("propagate")
    qtbot.waitUntil(lambda: boxes.drafts is not None, timeout=60000)
    assert sorted(boxes.drafts.boxes) == list(range(21, 31))
    # The tracker follows the object: each draft overlaps its true box well.
    for frame, (dx, dy, dw, dh) in boxes.drafts.boxes.items():
        tx, ty, tw, th = truth.box_at(frame)
        inter = max(0, min(dx + dw, tx + tw) - max(dx, tx)) * max(
            0, min(dy + dh, ty + th) - max(dy, ty)
        )
        assert inter / (tw * th) > 0.5, frame
    drafts = dict(boxes.drafts.boxes)
    # Drafts are drawn dotted; accepting on frame 25 takes frames 21–25 only.
    _go(qtbot, window, 25)
    assert Qt.PenStyle.DotLine in _pen_styles(window)
    assert "tracker draft" in boxes.tool.overlay.legend_texts()
    boxes.run("accept")
    (track,) = boxes.items()
    assert (track.first, track.last) == (20, 25)
    assert sorted(boxes.drafts.boxes) == list(range(26, 31))
    # The drafts line says what is left, not what the tracker first proposed.
    assert boxes.dock.drafts_note.text().startswith("5 drafts, frames 26–30, from CSRT")
    # Choosing the track in the list keeps frame 25, which the track spans.
    boxes.dock.items.selectRow(0)
    assert window.viewer.timeline.frame() == 25
    # A draft can be moved (undoably) before it is accepted: frame 27's, by (3, 2).
    _go(qtbot, window, 27)
    dx, dy, dw, dh = boxes.drafts.boxes[27]
    _drag(boxes.tool, (dx + dw / 2, dy + dh / 2), (dx + dw / 2 + 3, dy + dh / 2 + 2))
    assert boxes.drafts.boxes[27] == (dx + 3, dy + 2, dw, dh)
    assert boxes.items()[0].last == 25  # still a draft, not a keyframe
    window.annotation.editor.stack.undo()
    assert boxes.drafts.boxes[27] == (dx, dy, dw, dh)
    window.annotation.editor.stack.redo()
    drafts[27] = (dx + 3, dy + 2, dw, dh)
    _go(qtbot, window, 20)
    boxes.run("accept")  # outside the drafts' span: all the rest
    (track,) = boxes.items()
    assert (track.first, track.last) == (20, 30) and boxes.drafts is None
    for frame, box in drafts.items():
        assert np.array_equal(track.boxes[frame - 20], box)
    # Undo and redo the acceptance; save writes a MOTChallenge file that reads back the same.
    stack = window.annotation.editor.stack
    stack.undo()
    assert boxes.items()[0].last == 25
    stack.redo()
    assert window.annotation.save()
    project = read_project(demo_copy / "demo.referee.json")
    rows = parse_mot_csv(project.boxes_groundtruth.read_text(), project.boxes_groundtruth)
    assert rows.frames.tolist() == list(range(20, 31))
    assert np.array_equal(rows.boxes, track.boxes) and set(rows.ids.tolist()) == {1}
    # Opened again, a project whose box ground truth is a MOTChallenge file edits tracks.
    boxes.set_kind("actions")
    window.open_project(project)
    qtbot.waitUntil(lambda: boxes.kind == TRACKS and boxes.dock.kind == TRACKS, timeout=10000)
    _go(qtbot, window, 22)
    (reread,) = boxes.items()
    assert reread.track_id == 1 and np.array_equal(reread.boxes, track.boxes)


def _mouse(widget, kind: QEvent.Type, point: QPointF, held: Qt.MouseButton) -> None:
    """A real mouse event on the frame view's viewport (QTest's moves carry no held button)."""
    event = QMouseEvent(
        kind,
        point,
        widget.mapToGlobal(point),
        Qt.MouseButton.LeftButton,
        held,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, event)


def test_the_mouse_draws_a_box_and_navigation_mode_leaves_it_alone(qtbot, window) -> None:
    qtbot.waitUntil(lambda: bool(window.session.actions), timeout=60000)
    boxes = window.annotation.boxes
    _go(qtbot, window, 70)
    view = window.viewer.grid.views[0]
    graphics = view._graphics
    before = set(_actions(window))

    def at(x: float, y: float) -> QPointF:
        scene = view.view_box.mapViewToScene(QPointF(x, y))
        return QPointF(graphics.mapFromScene(scene))

    def drag() -> None:
        left = Qt.MouseButton.LeftButton
        _mouse(graphics.viewport(), QEvent.Type.MouseButtonPress, at(100, 20), left)
        _mouse(graphics.viewport(), QEvent.Type.MouseMove, at(115, 35), left)
        _mouse(graphics.viewport(), QEvent.Type.MouseMove, at(130, 50), left)
        _mouse(
            graphics.viewport(),
            QEvent.Type.MouseButtonRelease,
            at(130, 50),
            Qt.MouseButton.NoButton,
        )

    window.annotation.set_tool(Tool.NONE)
    assert boxes.tool.rect_items() == []  # editable boxes are drawn with the Box tool only
    assert not boxes.tool.overlay.legend.isVisible()
    drag()
    assert set(_actions(window)) == before  # navigating: the drag pans, nothing is drawn
    evaluation_boxes = len(view.box_items())
    window.annotation.set_tool(Tool.BOX)
    assert len(boxes.tool.rect_items()) >= 2  # street's actions on frame 70
    assert evaluation_boxes > 0 and view.box_items() == []  # the evaluation's boxes step aside
    drag()
    (number,) = set(_actions(window)) - before
    x, y, w, h = _actions(window)[number].box_at(70)
    assert abs(x - 100) <= 1 and abs(y - 20) <= 1 and abs(w - 30) <= 1 and abs(h - 30) <= 1


# --- what the boxes of an action evaluation look like ------------------------------------------

SQUARE = (10, 10, 20, 20)
DETECTOR_RGB = DETECTOR_PALETTE[3]


def _action(number: int, action_class: int, first: int, last: int, box) -> Action:
    return Action.from_boxes(number, action_class, dict.fromkeys(range(first, last + 1), box))


@pytest.fixture(scope="module")
def crafted():
    """One video: GT 1 and det 11 vetoed on temporal recall (frames 19 and 20 of GT's
    20 in common: 2/20 = 0.1, not > ε = 0.1), GT 3 and det 13 accepted (the same box),
    GT 2 a miss, det 12 a false alarm."""
    gt = (
        _action(1, 4, 1, 20, SQUARE),
        _action(2, 5, 1, 10, (100, 10, 10, 10)),
        _action(3, 7, 1, 10, (50, 50, 10, 10)),
    )
    det = (
        _action(11, 4, 19, 25, SQUARE),
        _action(12, 5, 1, 5, (60, 80, 10, 10)),
        _action(13, 7, 1, 10, (50, 50, 10, 10)),
    )
    return evaluate_actions(
        AnnotationSet.from_videos([VideoAnnotation("v", gt)]),
        AnnotationSet.from_videos([VideoAnnotation("v", det)]),
    )


def test_pair_boxes_take_the_truth_and_detector_colours_and_say_what_they_are(crafted) -> None:
    drawings = boxes_for_frame(crafted, "v", 5, detector_rgb=DETECTOR_RGB)
    seen = {d.text: (d.colour, d.line) for d in drawings}
    yellow, solid, dashed, dotted = GROUND_TRUTH_RGB, BoxLine.SOLID, BoxLine.DASHED, BoxLine.DOTTED
    assert seen == {
        "GT 1 enter/leave room · vetoed det 11": (yellow, dashed),
        "GT 2 try to enter · miss": (yellow, dotted),
        "GT 3 leave baggage unattended · matched det 13": (yellow, solid),
        "det 12 try to enter · false alarm": (DETECTOR_RGB, dotted),
        "det 13 leave baggage unattended · matched GT 3": (DETECTOR_RGB, solid),
    }
    overlay_colours = {rgba[:3] for rgba in COMPARISON_RGBA}
    assert not {d.colour for d in drawings} & overlay_colours
    matched = next(d for d in drawings if d.label.startswith("det 13"))
    assert (matched.x, matched.y, matched.width, matched.height) == (50, 50, 10, 10)
    assert "temporal recall 0.100" in next(
        d.tooltip for d in drawings if d.label.startswith("GT 1")
    )
    assert boxes_for_frame(crafted, "v", 40, detector_rgb=DETECTOR_RGB) == []


def test_the_box_legend_names_the_colours_and_the_lines_drawn(crafted) -> None:
    at_5 = boxes_for_frame(crafted, "v", 5, detector_rgb=DETECTOR_RGB)
    grey = LINE_SAMPLE_RGB
    assert box_legend(at_5, DETECTOR_RGB) == [
        LegendEntry("ground truth", GROUND_TRUTH_RGB),
        LegendEntry("detection", DETECTOR_RGB),
        LegendEntry("matched pair", grey, BoxLine.SOLID),
        LegendEntry("vetoed pair", grey, BoxLine.DASHED),
        LegendEntry("miss or false alarm", grey, BoxLine.DOTTED),
    ]
    at_19 = boxes_for_frame(crafted, "v", 19, detector_rgb=DETECTOR_RGB)  # GT 1 and det 11
    assert [e.text for e in box_legend(at_19, DETECTOR_RGB)][2:] == ["vetoed pair"]


def test_the_selected_pair_is_highlighted(crafted) -> None:
    vetoed = next(r for r in crafted.pairs if r.outcome == "vetoed")
    at_5 = boxes_for_frame(crafted, "v", 5, selected=vetoed, detector_rgb=DETECTOR_RGB)
    assert [d.label for d in at_5 if d.highlighted] == ["GT 1 enter/leave room"]
    at_19 = boxes_for_frame(crafted, "v", 19, selected=vetoed, detector_rgb=DETECTOR_RGB)
    assert {d.label for d in at_19 if d.highlighted} == {
        "GT 1 enter/leave room",
        "det 11 enter/leave room",
    }


# --- labels that do not overlap -------------------------------------------------------------------


def _overlap(a, b) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def test_labels_of_overlapping_boxes_do_not_overlap() -> None:
    boxes = [(10.0, 20.0, 30.0, 30.0), (12.0, 22.0, 30.0, 30.0), (11.0, 21.0, 30.0, 30.0)]
    size = (40.0, 8.0)
    corners = label_positions(boxes, [size] * 3, frame=(160, 120))
    rects = [(x, y, *size) for x, y in corners]
    assert corners[0] == (10.0, 12.0)  # the first label sits on its box
    for a, b in itertools.combinations(rects, 2):
        assert not _overlap(a, b), (a, b)
    for x, y, w, h in rects:
        assert x >= 0 and x + w <= 160 and y >= 0 and y + h <= 120


def test_a_label_goes_below_a_box_at_the_top_of_the_frame() -> None:
    assert label_positions([(10.0, 0.0, 30.0, 30.0)], [(40.0, 8.0)], frame=(160, 120)) == [
        (10.0, 30.0)
    ]


def test_the_overlay_places_labels_apart_at_the_zoom_shown_and_explains_the_boxes(qtbot) -> None:
    view = FrameView()
    qtbot.addWidget(view)
    view.resize(480, 360)
    view.show()
    qtbot.waitExposed(view)
    view.show_frame(np.zeros((120, 160), dtype=np.uint8))
    view.view_box.scaleBy((0.5, 0.5))  # zoomed in
    overlay = BoxOverlay(view.view_box, 50)
    drawings = [
        BoxDrawing(20, 30, 40, 40, "GT 1 enter/leave room", GROUND_TRUTH_RGB, BoxLine.DOTTED),
        BoxDrawing(24, 33, 40, 40, "det 4 enter/leave room", DETECTOR_RGB, marker="matched GT 3"),
    ]
    legend = box_legend(drawings, DETECTOR_RGB)
    overlay.show(drawings, legend, (160, 120))
    first, second = overlay.label_rects()
    assert first[2] > 0 and first[3] > 0
    assert first[:2] == pytest.approx((20, 30 - first[3]))  # right above its box
    assert not _overlap(first, second)
    assert overlay.legend.isVisible()
    texts = ["ground truth", "detection", "matched pair", "miss or false alarm"]
    assert overlay.legend_texts() == texts
    assert [item.pen().style() for item in overlay.rect_items()] == [
        Qt.PenStyle.DotLine,
        Qt.PenStyle.SolidLine,
    ]
    assert [label.toPlainText() for label in overlay.label_items()] == [
        "GT 1 enter/leave room",
        "det 4 enter/leave room · matched GT 3",
    ]
    # Zoomed out, the labels (of a fixed size on screen) cover more image pixels: placed again.
    view.view_box.scaleBy((2.0, 2.0))
    first_zoomed, second_zoomed = overlay.label_rects()
    assert first_zoomed[3] > 1.5 * first[3]
    assert first_zoomed[:2] == pytest.approx((20, 30 - first_zoomed[3]))
    assert not _overlap(first_zoomed, second_zoomed)
    overlay.show([], legend)
    assert not overlay.legend.isVisible()


def test_the_overlay_reuses_its_items_from_frame_to_frame(qtbot) -> None:
    view = FrameView()
    qtbot.addWidget(view)
    view.show_frame(np.zeros((120, 160, 3), dtype=np.uint8))
    overlay = BoxOverlay(view.view_box, 10)
    legend = [LegendEntry("ground truth", GROUND_TRUTH_RGB, BoxLine.DOTTED)]

    def boxes(*texts: str) -> list[BoxDrawing]:
        return [
            BoxDrawing(10 + 30 * k, 40, 20, 20, text, GROUND_TRUTH_RGB, BoxLine.DOTTED)
            for k, text in enumerate(texts)
        ]

    overlay.show(boxes("GT 1", "GT 2"), legend)
    rects, labels = overlay.rect_items(), overlay.label_items()
    rows = list(overlay.legend.items)
    # The next frame has one box fewer, then one more: the same items, given new boxes.
    overlay.show(boxes("GT 2"), legend)
    assert overlay.rect_items() == rects[:1] and overlay.label_items() == labels[:1]
    assert not rects[1].isVisible() and not labels[1].isVisible()
    assert overlay.label_items()[0].toPlainText() == "GT 2"
    assert overlay.legend.items == rows  # the same legend: its rows were not made again
    overlay.show(boxes("GT 3", "GT 4", "GT 5"), legend)
    assert overlay.rect_items()[:2] == rects and len(overlay.rect_items()) == 3
    assert all(item.isVisible() for item in overlay.rect_items())
    assert [r.rect().x() for r in overlay.rect_items()] == [10, 40, 70]
    assert [label.toPlainText() for label in overlay.label_items()] == ["GT 3", "GT 4", "GT 5"]
    detection = [LegendEntry("detection", LINE_SAMPLE_RGB, BoxLine.SOLID)]
    overlay.show(boxes("GT 3"), detection)
    assert overlay.legend_texts() == ["detection"]
    rows = list(overlay.legend.items)
    # A frame without boxes hides the legend; the next frame with the same entries shows
    # the same rows again.
    overlay.show([], [])
    assert not overlay.legend.isVisible() and overlay.rect_items() == []
    overlay.show(boxes("GT 3"), detection)
    assert overlay.legend.isVisible() and overlay.legend.items == rows


def test_the_boxes_list_is_filled_when_its_dock_is_shown(qtbot, window) -> None:
    boxes = window.annotation.boxes
    _go(qtbot, window, 70)
    # The Boxes dock is tabbed behind another and the Box tool is not in use: no list yet.
    assert boxes.dock.visibleRegion().isEmpty() and not boxes.tool.active
    assert boxes.dock.items.rowCount() == 0
    boxes.dock.raise_()
    expected = len(_actions(window))
    qtbot.waitUntil(lambda: boxes.dock.items.rowCount() == expected > 0)
