"""Timeline: stepping, frame box, marks, playback, clicks on the strip, legible captions."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QSpinBox

from referee.gui.viewer.timeline import TimelineWidget


@pytest.fixture
def timeline(qtbot) -> TimelineWidget:
    widget = TimelineWidget()
    qtbot.addWidget(widget)
    widget.resize(800, 130)
    widget.set_range(1, 100)
    return widget


def test_step_forward_ten_emits_the_new_frame(timeline, qtbot) -> None:
    with qtbot.waitSignal(timeline.frame_changed) as signal:
        timeline.step(10)
    assert signal.args == [11]
    assert timeline.frame() == 11


def test_steps_stop_at_the_ends(timeline) -> None:
    timeline.step(-5)
    assert timeline.frame() == 1
    timeline.step(500)
    assert timeline.frame() == 100


def test_set_frame_does_not_emit(timeline, qtbot) -> None:
    with qtbot.assertNotEmitted(timeline.frame_changed):
        timeline.set_frame(42)
    assert timeline.frame() == 42


def test_typing_a_frame_number_emits_it(timeline, qtbot) -> None:
    spin_box = timeline.findChild(QSpinBox)
    spin_box.selectAll()
    with qtbot.waitSignal(timeline.frame_changed) as signal:
        QTest.keyClicks(spin_box, "37")
        QTest.keyClick(spin_box, Qt.Key.Key_Return)
    assert signal.args == [37]


def test_next_and_previous_marked_frames(timeline) -> None:
    timeline.set_marks([50, 3, 20])
    timeline.set_frame(5)
    timeline.next_marked()
    assert timeline.frame() == 20
    timeline.previous_marked()
    assert timeline.frame() == 3
    timeline.previous_marked()
    assert timeline.frame() == 3


def test_playback_advances_and_stops_at_the_last_frame(timeline, qtbot) -> None:
    timeline.set_range(1, 12)
    timeline.set_fps(100)
    timeline.toggle_play()
    assert timeline.playing
    qtbot.waitUntil(lambda: timeline.frame() > 1, timeout=2000)
    qtbot.waitUntil(lambda: not timeline.playing, timeout=3000)
    assert timeline.frame() == 12


def test_clicking_the_strip_jumps_to_the_frame_under_the_mouse(timeline, qtbot) -> None:
    timeline.show()
    qtbot.waitExposed(timeline)
    view = timeline.findChild(pg.GraphicsLayoutWidget)
    box = timeline.strip_view_box
    middle_y = box.viewRange()[1][0] + (box.viewRange()[1][1] - box.viewRange()[1][0]) / 2
    scene_point = box.mapViewToScene(QPointF(64, middle_y))
    with qtbot.waitSignal(timeline.frame_changed) as signal:
        qtbot.mouseClick(
            view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(scene_point)
        )
    assert signal.args == [64]


def test_row_labels_are_drawn_at_a_legible_size(timeline) -> None:
    for label in timeline.row_labels:
        assert label.text_font.pointSizeF() >= 9
        # Paint the label alone onto white, at its own size: the letters (all with an
        # ascender: "marks" has k, "cached" has h and d) are at least 8 pixels tall,
        # and nothing is cut off at the row's edges.
        rect = label.rect()
        image = QImage(int(rect.width()), int(rect.height()), QImage.Format.Format_RGB32)
        image.fill(QColor("white"))
        painter = QPainter(image)
        label.paint(painter)
        painter.end()
        pixels = np.frombuffer(image.constBits(), dtype=np.uint8).reshape(
            image.height(), image.bytesPerLine()
        )[:, : image.width() * 4]
        ink_rows = np.nonzero((pixels.reshape(image.height(), -1, 4)[..., :3] < 128).any(2).any(1))[
            0
        ]
        assert ink_rows.size, f"{label.text} is not drawn"
        assert ink_rows[-1] - ink_rows[0] + 1 >= 8
        assert ink_rows[0] > 0 and ink_rows[-1] < image.height() - 1
