"""Keys never go astray and the window layout is kept: number boxes give the keys back to
the frame view on Return or Escape, single-key shortcuts work whatever had the focus, the
wheel changes only a focused box, the click that focuses the frame view paints nothing,
and the layout is saved as it changes. All driven by real key, mouse and wheel events."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QAction, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QDockWidget,
    QLineEdit,
    QMessageBox,
    QScrollArea,
    QStackedWidget,
    QWidget,
)

from referee.core.formats.project_json import read_project
from referee.gui.annotation.mask_painter import Tool
from referee.gui.app import dispose
from referee.gui.main_window import MainWindow
from referee.gui.widgets.menus import add_key_action
from referee.gui.window_docks import LAYOUT_VERSION

STREET, STREET_NAME, FRAME = "baseline/street", "baseline_street", 70  # label, actions name
LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def window(qtbot, demo_copy: Path, monkeypatch) -> MainWindow:
    QApplication.instance().setOrganizationName("Referee-tests")
    window = MainWindow()
    window.resize(1366, 768)  # a laptop's screen (the offscreen one is 800×800)
    window.show()
    window.activateWindow()
    window.open_project(read_project(demo_copy / "demo.referee.json"))
    qtbot.waitUntil(
        lambda: not window.runner.jobs and window.viewer.layers is not None, timeout=120000
    )
    window.viewer.go_to(STREET, FRAME)
    qtbot.waitUntil(
        lambda: (
            window.annotation.boxes._frame == (STREET_NAME, FRAME)
            and window.annotation.painter.target is not None
            and QApplication.activeWindow() is window
        ),
        timeout=10000,
    )
    yield window
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    window.close()
    dispose(window)


def _view(window: MainWindow) -> QWidget:
    return window.viewer.grid.views[0]


def _press(qtbot, window: MainWindow, key: Qt.Key, modifier=Qt.KeyboardModifier.NoModifier):
    """A key pressed by the user: it goes to whatever has the focus (else the active window)."""
    target = QApplication.focusWidget() or QApplication.activeWindow() or window
    qtbot.keyClick(target, key, modifier)


def _reveal(qtbot, widget: QWidget) -> None:
    """Raise the dock of ``widget`` and choose the tabs it is on, as a user would."""
    child, parent = widget, widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QStackedWidget):
            parent.setCurrentWidget(child)
        elif isinstance(parent, QDockWidget):
            parent.raise_()
        child, parent = parent, parent.parentWidget()
    qtbot.waitUntil(widget.isVisible, timeout=5000)


def _type_into(qtbot, box: QAbstractSpinBox, text: str) -> None:
    """Show the box, click into its text, select it all and type ``text``."""
    _reveal(qtbot, box)
    edit = box.findChild(QLineEdit)
    qtbot.mouseClick(edit, LEFT, pos=QPoint(4, edit.height() // 2))
    assert box.hasFocus()
    qtbot.keyClick(box, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(box, text)


def test_return_applies_a_number_box_escape_leaves_it_and_both_give_the_keys_back(
    qtbot, window
) -> None:
    """The annotator's report: a frame typed, Return, then R and 3 must choose the box
    tool and class 3, not type into the frame box (and show frame 3)."""
    frame_box, view = window.viewer.timeline._spin_box, _view(window)
    boxes = window.annotation.boxes
    _type_into(qtbot, frame_box, "12")
    _press(qtbot, window, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.viewer.layers.frame == 12, timeout=10000)
    _press(qtbot, window, Qt.Key.Key_R)
    _press(qtbot, window, Qt.Key.Key_3)
    assert window.annotation.painter.tool is Tool.BOX and boxes.action_class == 3
    assert window.viewer.timeline.frame() == 12 and frame_box.value() == 12
    assert view.hasFocus()
    # Escape: the frame typed is not gone to, the box shows the frame again.
    _type_into(qtbot, frame_box, "30")
    _press(qtbot, window, Qt.Key.Key_Escape)
    assert view.hasFocus() and frame_box.text() == "12" and window.viewer.timeline.frame() == 12
    _press(qtbot, window, Qt.Key.Key_5)
    assert boxes.action_class == 5
    # The Boxes dock's propagation length and the brush radius, the same way.
    _type_into(qtbot, boxes.dock.frames_box, "40")
    _press(qtbot, window, Qt.Key.Key_Return)
    assert boxes.dock.frames_box.value() == 40 and view.hasFocus()
    _type_into(qtbot, window.annotation.dock.radius_box, "9")
    _press(qtbot, window, Qt.Key.Key_Escape)
    assert window.annotation.painter.radius == 9.0 and view.hasFocus()
    _press(qtbot, window, Qt.Key.Key_B)
    assert window.annotation.painter.tool is Tool.BRUSH


def test_single_keys_are_typed_into_a_box_and_are_shortcuts_once_it_is_left(qtbot, window) -> None:
    """Every number box of the window keeps the digits typed into it; after Return or
    Escape the same keys are shortcuts, as they are from any other widget of a dock."""
    controller, boxes = window.annotation, window.annotation.boxes
    number_boxes = window.findChildren(QAbstractSpinBox)
    assert len(number_boxes) >= 6  # frame, radius, propagation, annotate-next (2), alpha
    for k, box in enumerate(number_boxes):
        boxes.set_class(1)
        _type_into(qtbot, box, "7")
        assert boxes.action_class == 1 and box.hasFocus()  # typed, not a class key
        _press(qtbot, window, (Qt.Key.Key_Return, Qt.Key.Key_Escape)[k % 2])
        _press(qtbot, window, Qt.Key.Key_7)
        _press(qtbot, window, Qt.Key.Key_E)
        assert boxes.action_class == 7, box.toolTip()
        assert controller.painter.tool is Tool.ERASER, box.toolTip()
        controller.set_tool(Tool.NONE)
    others = [
        controller.dock.level_box,
        controller.dock.next_button,
        boxes.dock.tracker_box,
        boxes.dock.items,
        window.indicators_dock.scheme_combo,
    ]
    for k, widget in enumerate(others):
        _reveal(qtbot, widget)
        widget.setFocus(Qt.FocusReason.TabFocusReason)
        assert widget.hasFocus()
        key = (Qt.Key.Key_2, Qt.Key.Key_4)[k % 2]
        _press(qtbot, window, key)
        _press(qtbot, window, Qt.Key.Key_P)
        assert boxes.action_class == (2, 4)[k % 2] and controller.painter.tool is Tool.POLYGON
        controller.set_tool(Tool.NONE)
    # A floating dock is a window of its own: Return there leaves the box for that window.
    boxes.dock.setFloating(True)
    boxes.dock.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is boxes.dock, timeout=5000)
    _type_into(qtbot, boxes.dock.frames_box, "40")
    _press(qtbot, window, Qt.Key.Key_Return)
    _press(qtbot, window, Qt.Key.Key_6)
    _press(qtbot, window, Qt.Key.Key_F)
    assert boxes.action_class == 6 and controller.painter.tool is Tool.FILL
    assert boxes.dock.frames_box.value() == 40


def test_return_in_a_number_box_is_not_a_window_shortcut_and_is_one_elsewhere(
    qtbot, window
) -> None:
    triggered: list[str] = []
    keys = ("Return", "Enter")
    for action in window.findChildren(QAction):  # the dummies stand for any action on these
        action.setShortcuts([k for k in action.shortcuts() if k.toString() not in keys])
    menu = window.menuBar().addMenu("Test")
    for key in keys:
        add_key_action(window, menu, "Accept frame", key, lambda k=key: triggered.append(k))
    radius = window.annotation.dock.radius_box
    _type_into(qtbot, radius, "9")
    _press(qtbot, window, Qt.Key.Key_Return)
    assert triggered == []  # the box took Return: no frame accepted
    assert window.annotation.painter.radius == 9.0 and _view(window).hasFocus()
    _type_into(qtbot, radius, "8")
    _press(qtbot, window, Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)
    assert triggered == []
    assert window.annotation.painter.radius == 8.0 and _view(window).hasFocus()
    _press(qtbot, window, Qt.Key.Key_Return)
    _press(qtbot, window, Qt.Key.Key_Enter)
    assert triggered == ["Return", "Enter"]
    window.annotation.dock.level_box.setFocus(Qt.FocusReason.TabFocusReason)
    _press(qtbot, window, Qt.Key.Key_Return)
    assert triggered == ["Return", "Enter", "Return"]


def _wheel(window: MainWindow, widget: QWidget, up: bool) -> None:
    """One notch of a real wheel over the middle of ``widget``."""
    point = QPointF(widget.mapTo(window, widget.rect().center()))
    QTest.wheelEvent(window.windowHandle(), point, QPoint(0, 120 if up else -120))


def _scroll_area(widget: QWidget) -> QScrollArea:
    area = widget.parentWidget()
    while not isinstance(area, QScrollArea):
        area = area.parentWidget()
    return area


def test_the_wheel_scrolls_past_an_unfocused_box_and_changes_a_focused_one(qtbot, window) -> None:
    dock = window.annotation.dock
    dock.raise_()
    qtbot.waitUntil(dock.radius_box.isVisible, timeout=5000)
    _view(window).setFocus()  # no box has the focus
    for box in (dock.radius_box, dock.level_box):
        area = _scroll_area(box)
        bar = area.verticalScrollBar()
        assert bar.maximum() > 0, "the dock must be able to scroll for this test"
        bar.setValue(bar.maximum() // 2)
        area.ensureWidgetVisible(box)
        start, radius, level = bar.value(), dock.radius_box.value(), dock.level_box.currentIndex()
        up = start > 0
        _wheel(window, box, up)
        qtbot.waitUntil(lambda: bar.value() != start, timeout=5000)  # noqa: B023
        assert (bar.value() < start) == up
        assert dock.radius_box.value() == radius and dock.level_box.currentIndex() == level
        assert not box.hasFocus()  # the wheel gives no focus
    # Focused by a click, the radius box takes the wheel (and the dock does not scroll).
    _type_into(qtbot, dock.radius_box, "10")
    bar = _scroll_area(dock.radius_box).verticalScrollBar()
    start = bar.value()
    _wheel(window, dock.radius_box, up=True)
    qtbot.waitUntil(lambda: window.annotation.painter.radius == 11.0, timeout=5000)
    assert bar.value() == start


def _mouse(widget: QWidget, kind: QEvent.Type, point: QPointF, held: Qt.MouseButton) -> None:
    """A mouse event sent to the frame view's viewport (a move with the button held)."""
    event = QMouseEvent(
        kind, point, widget.mapToGlobal(point), LEFT, held, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(widget, event)


def test_the_click_that_focuses_the_frame_view_paints_and_draws_nothing(qtbot, window) -> None:
    controller, view = window.annotation, _view(window)
    graphics = view._graphics
    viewport = graphics.viewport()

    def at(x: float, y: float) -> QPointF:
        return QPointF(graphics.mapFromScene(view.view_box.mapViewToScene(QPointF(x, y))))

    def focus_elsewhere() -> None:
        _type_into(qtbot, window.viewer.timeline._spin_box, "")
        assert not view.hasFocus()

    # Brush: the first click (a real one, which Qt focuses the view for) only focuses.
    controller.set_tool(Tool.BRUSH)
    label_map = controller.editor.document.label_map(STREET, FRAME)
    level = controller.painter.level
    height, width = label_map.shape
    x, y = next(
        (x, y)
        for y in range(20, height - 20)
        for x in range(20, width - 20)
        if label_map[y, x] != level
    )
    before = label_map.copy()
    focus_elsewhere()
    qtbot.mouseClick(viewport, LEFT, pos=at(x + 0.5, y + 0.5).toPoint())
    assert np.array_equal(label_map, before)
    assert view.hasFocus()
    qtbot.mouseClick(viewport, LEFT, pos=at(x + 0.5, y + 0.5).toPoint())
    assert label_map[y, x] == level  # focused, the next click paints

    # Box: the first drag only focuses; the next draws a box.
    controller.set_tool(Tool.BOX)
    document = controller.editor.document

    def actions() -> set[int]:
        return {a.number for a in document.actions.videos[STREET_NAME].actions}

    def drag() -> None:
        _mouse(viewport, QEvent.Type.MouseButtonPress, at(100, 20), LEFT)
        _mouse(viewport, QEvent.Type.MouseMove, at(115, 35), LEFT)
        _mouse(viewport, QEvent.Type.MouseMove, at(130, 50), LEFT)
        _mouse(viewport, QEvent.Type.MouseButtonRelease, at(130, 50), Qt.MouseButton.NoButton)

    existing = actions()
    focus_elsewhere()
    drag()
    assert actions() == existing and view.hasFocus()
    drag()
    assert len(actions() - existing) == 1


def test_the_window_layout_is_saved_when_it_changes_without_closing(qtbot) -> None:
    QApplication.instance().setOrganizationName("Referee-tests")
    window = MainWindow()
    window.show()
    qtbot.waitExposed(window)

    def saved() -> bool:
        settings = QSettings()
        return settings.value("window/geometry") == window.saveGeometry() and settings.value(
            "window/state"
        ) == window.saveState(LAYOUT_VERSION)

    try:
        size = window.size()
        window.resize(size.width() - 60, size.height() - 40)
        qtbot.waitUntil(lambda: window.size() != size and saved(), timeout=10000)
        # A double click on a dock's title bar floats it: that layout is kept too.
        dock = window.findChild(QDockWidget, "LayersDock")
        title = QPoint(dock.width() // 2, 6)
        qtbot.mouseDClick(dock, LEFT, pos=title)
        qtbot.waitUntil(lambda: dock.isFloating() and saved(), timeout=10000)
        assert window.isVisible()
    finally:
        window.close()
        dispose(window)
