"""Annotating masks at speed, driven by real mouse and key events: the brush cursor at the
brush's true size, a key per ground-truth level, [ and ] for the brush size (and for the
flagged frames with other tools), and a GrabCut draft from a box, undone by Ctrl+Z."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import QAction, QKeySequence, QMouseEvent
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from referee.core.formats.project_json import read_project
from referee.gui.annotation.mask_painter import Tool
from referee.gui.app import dispose
from referee.gui.main_window import MainWindow

STREET, FRAME = "baseline/street", 70
LEFT, NO_BUTTON = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton
SHIFT = Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def window(qtbot, demo_copy: Path, monkeypatch) -> MainWindow:
    QApplication.instance().setOrganizationName("Referee-tests")
    window = MainWindow()
    window.show()
    window.activateWindow()
    window.open_project(read_project(demo_copy / "demo.referee.json"))
    qtbot.waitUntil(
        lambda: not window.runner.jobs and window.viewer.layers is not None, timeout=120000
    )
    window.viewer.go_to(STREET, FRAME)
    qtbot.waitUntil(
        lambda: (
            window.annotation._frame == (STREET, FRAME)
            and window.viewer.layers.frame == FRAME
            and QApplication.activeWindow() is window
        ),
        timeout=10000,
    )
    window.viewer.grid.views[0].setFocus()
    yield window
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    window.close()
    dispose(window)


def _press(qtbot, window: MainWindow, key: Qt.Key, modifier=Qt.KeyboardModifier.NoModifier):
    """A key pressed by the user: it goes to whatever has the focus (else the active window)."""
    target = QApplication.focusWidget() or QApplication.activeWindow() or window
    qtbot.keyClick(target, key, modifier)


def _viewport(window: MainWindow) -> QWidget:
    return window.viewer.grid.views[0]._graphics.viewport()


def _at(window: MainWindow, x: float, y: float) -> QPointF:
    """The viewport point (whole screen pixels) over image point ``(x, y)``."""
    view = window.viewer.grid.views[0]
    scene = view.view_box.mapViewToScene(QPointF(x, y))
    return QPointF(view._graphics.mapFromScene(scene))


def _mouse(window: MainWindow, kind: QEvent.Type, point: QPointF, held: Qt.MouseButton) -> None:
    viewport = _viewport(window)
    button = NO_BUTTON if kind == QEvent.Type.MouseMove else LEFT
    event = QMouseEvent(
        kind, point, viewport.mapToGlobal(point), button, held, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(viewport, event)


def _drag(window: MainWindow, start: tuple[float, float], end: tuple[float, float]) -> None:
    """Press over image point ``start``, move in two steps to ``end``, release."""
    first, last = _at(window, *start), _at(window, *end)
    _mouse(window, QEvent.Type.MouseButtonPress, first, LEFT)
    _mouse(window, QEvent.Type.MouseMove, (first + last) / 2, LEFT)
    _mouse(window, QEvent.Type.MouseMove, last, LEFT)
    _mouse(window, QEvent.Type.MouseButtonRelease, last, NO_BUTTON)


def _on_screen(window: MainWindow) -> QRectF:
    """The brush cursor's circle as drawn in the viewport, in screen pixels."""
    cursor = window.annotation.painter.cursor
    graphics = window.viewer.grid.views[0]._graphics
    return cursor.deviceTransform(graphics.viewportTransform()).mapRect(cursor.circle())


def test_the_brush_cursor_has_the_brush_radius_times_the_zoom(qtbot, window) -> None:
    controller = window.annotation
    box, cursor = window.viewer.grid.views[0].view_box, controller.painter.cursor
    controller.set_tool(Tool.BRUSH)
    controller.choose_radius(5.0)
    for zoom in (2.0, 5.0):
        box.set_zoom(zoom, QPointF(80, 60))
        assert box.zoom_factor() == pytest.approx(zoom)  # not held back by the zoom limits
        pointer = _at(window, 70.5, 55.5)
        _mouse(window, QEvent.Type.MouseMove, pointer, NO_BUTTON)
        assert cursor.isVisible()
        drawn = _on_screen(window)
        assert drawn.width() / 2 == pytest.approx(5.0 * zoom)
        assert drawn.height() / 2 == pytest.approx(5.0 * zoom)
        assert abs(drawn.center().x() - pointer.x()) <= 0.5
        assert abs(drawn.center().y() - pointer.y()) <= 0.5
    # The radius keys resize it at once, without moving the mouse.
    _press(qtbot, window, Qt.Key.Key_BracketRight)
    assert controller.painter.radius == 6.0
    assert _on_screen(window).width() / 2 == pytest.approx(6.0 * 5.0)
    # Zooming by key under a still pointer keeps it the brush's size.
    window.viewer.zoom_out()
    zoom = box.zoom_factor()
    assert zoom < 5.0 and _on_screen(window).width() / 2 == pytest.approx(6.0 * zoom)
    # Only the brush and the eraser have it, and only over the frame.
    for tool, shown in ((Tool.POLYGON, False), (Tool.ERASER, True), (Tool.NONE, False)):
        controller.set_tool(tool)
        assert cursor.isVisible() is shown, tool
    controller.set_tool(Tool.BRUSH)
    QApplication.sendEvent(_viewport(window), QEvent(QEvent.Type.Leave))
    assert not cursor.isVisible()


def test_the_cursor_is_drawn_light_over_dark_where_the_brush_reaches(qtbot, window) -> None:
    """In the rendered view, the circle's outline lies at the radius from the pointer:
    there a light pixel beside a dark one, whatever the frame underneath."""
    controller = window.annotation
    box = window.viewer.grid.views[0].view_box
    controller.set_tool(Tool.BRUSH)
    controller.choose_radius(8.0)
    box.set_zoom(4.0, QPointF(80, 60))
    pointer = _at(window, 80.5, 60.5)
    _mouse(window, QEvent.Type.MouseMove, pointer, NO_BUTTON)
    qtbot.waitUntil(lambda: controller.painter.cursor.isVisible(), timeout=5000)
    image = _viewport(window).grab().toImage()
    scale = image.devicePixelRatio()
    row = [
        image.pixelColor(round((pointer.x() + dx) * scale), round(pointer.y() * scale))
        for dx in range(24, 40)
    ]
    light = [k for k, c in enumerate(row) if min(c.red(), c.green(), c.blue()) >= 200]
    dark = [k for k, c in enumerate(row) if max(c.red(), c.green(), c.blue()) <= 70]
    assert light and abs(24 + light[0] - 8.0 * 4.0) <= 1  # the ring is at 32 screen pixels
    assert any(abs(k - light[0]) <= 2 for k in dark)


def test_each_level_key_then_a_stroke_paints_that_level(qtbot, window) -> None:
    controller, dock = window.annotation, window.annotation.dock
    stack = controller.editor.stack
    controller.set_tool(Tool.BRUSH)
    controller.choose_radius(1.0)
    label_map = controller.editor.document.label_map(STREET, FRAME)
    # The levels of docs/measures.md §1, each with Shift and its initial.
    expected = ((Qt.Key.Key_S, 0), (Qt.Key.Key_H, 50), (Qt.Key.Key_O, 85))
    expected += ((Qt.Key.Key_U, 170), (Qt.Key.Key_M, 255))
    for k, (key, level) in enumerate(expected):
        row = 20 + 6 * k
        label_map[row, 30:60] = 255 if level != 255 else 0  # another level, to see the change
        _press(qtbot, window, key, SHIFT)
        assert dock.level_box.currentData() == level and controller.painter.level == level
        _drag(window, (30.5, row + 0.5), (59.5, row + 0.5))
        assert np.all(label_map[row, 32:58] == level), (key, np.unique(label_map[row, 32:58]))
    # Shift+M and Shift+O are not M (mark annotated) and O (end the box here).
    assert [stack.text(i) for i in range(stack.count())] == [
        "Paint static",
        "Paint hard shadow",
        "Paint outside the ROI",
        "Paint unknown motion",
        "Paint motion",
    ]
    assert "Shift+M" in dock.level_box.toolTip()
    assert dock.level_box.itemData(4, Qt.ItemDataRole.ToolTipRole) == "motion: Shift+M"


def _shortcut(window: MainWindow, text: str) -> QKeySequence:
    (action,) = [a for a in window.findChildren(QAction) if a.text() == text]
    return action.shortcut()


def test_brackets_size_the_brush_within_its_limits_and_else_go_to_flagged_frames(
    qtbot, window
) -> None:
    controller, timeline = window.annotation, window.viewer.timeline
    timeline.set_marks([60, 75, 90])
    controller.set_tool(Tool.NONE)
    controller.choose_radius(6.0)
    _press(qtbot, window, Qt.Key.Key_BracketRight)  # next flagged frame
    qtbot.waitUntil(lambda: controller._frame == (STREET, 75), timeout=10000)
    assert controller.painter.radius == 6.0
    assert _shortcut(window, "Next flagged frame") == QKeySequence("]")
    assert _shortcut(window, "Larger brush (brush or eraser)").isEmpty()
    controller.set_tool(Tool.BRUSH)
    assert _shortcut(window, "Next flagged frame").isEmpty()
    assert _shortcut(window, "Larger brush (brush or eraser)") == QKeySequence("]")
    _press(qtbot, window, Qt.Key.Key_BracketRight)
    assert controller.painter.radius == 8.0 and window.annotation.dock.radius_box.value() == 8.0
    controller.set_tool(Tool.ERASER)
    _press(qtbot, window, Qt.Key.Key_BracketLeft)
    _press(qtbot, window, Qt.Key.Key_BracketLeft)
    assert controller.painter.radius == 5.0
    for _ in range(30):
        _press(qtbot, window, Qt.Key.Key_BracketLeft)
    assert controller.painter.radius == 0.5 and window.annotation.dock.radius_box.value() == 0.5
    for _ in range(30):
        _press(qtbot, window, Qt.Key.Key_BracketRight)
    assert controller.painter.radius == 200.0
    assert timeline.frame() == 75  # no frame went by while the brush was sized
    controller.set_tool(Tool.FILL)
    _press(qtbot, window, Qt.Key.Key_BracketLeft)  # previous flagged frame
    qtbot.waitUntil(lambda: controller._frame == (STREET, 60), timeout=10000)
    assert controller.painter.radius == 200.0


def test_a_grabcut_box_is_one_edit_that_ctrl_z_takes_back(qtbot, window) -> None:
    controller = window.annotation
    document, stack = controller.editor.document, controller.editor.stack
    label_map = document.label_map(STREET, FRAME)
    before = label_map.copy()
    car = before == 255
    car[:90] = False  # the red car at the bottom left: columns 35–66, rows 101–114
    car[:, 80:] = False
    assert car.sum() > 300
    label_map[car] = 0  # forgotten, as on a frame being annotated
    forgotten = label_map.copy()
    _press(qtbot, window, Qt.Key.Key_C)
    assert controller.painter.tool is Tool.GRABCUT
    _drag(window, (29.0, 95.0), (73.0, 119.9))
    assert stack.count() == 1 and stack.text(0) == "GrabCut from a box"
    painted = label_map.copy()
    changed = np.argwhere(painted != forgotten)
    assert changed[:, 0].min() >= 94 and changed[:, 1].min() >= 28 and changed[:, 1].max() <= 73
    motion = painted == 255
    assert (motion & car).sum() / car.sum() >= 0.9  # the car is found again…
    edge = before == 170  # the car's outline, unknown motion in the ground truth
    extra = motion & ~car & ~edge
    assert extra[90:, :80].sum() <= 0.05 * car.sum()  # …and little else
    assert controller.painter.item.isVisible()
    _press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert np.array_equal(label_map, forgotten)
    _press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | SHIFT)
    assert np.array_equal(label_map, painted)
    # A box too small for GrabCut paints nothing and says why.
    _drag(window, (10.0, 10.0), (11.5, 11.5))
    assert stack.count() == 1 and "GrabCut" in window.statusBar().currentMessage()
