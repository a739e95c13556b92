"""Zoom: fit and 100 % ranges worked out by hand, steps, limits, linked views, layouts."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from referee.gui.viewer.frame_grid import FrameGrid
from referee.gui.viewer.zoom import ZoomViewBox, next_step, zoom_text

# A 600×400 image in a 400×300 view: the fit is min(400/600, 300/400) = 2/3.
IMAGE_WIDTH, IMAGE_HEIGHT = 600, 400
VIEW_WIDTH, VIEW_HEIGHT = 400, 300


@pytest.fixture
def box(qtbot) -> ZoomViewBox:
    view = pg.GraphicsView()
    qtbot.addWidget(view)
    box = ZoomViewBox()
    view.setCentralItem(box)
    view.resize(VIEW_WIDTH, VIEW_HEIGHT)
    view.show()
    qtbot.waitExposed(view)
    assert (box.width(), box.height()) == (VIEW_WIDTH, VIEW_HEIGHT)
    assert box.pixel_ratio() == 1.0  # the offscreen screen: 100 % is one screen pixel
    box.set_image_size(IMAGE_WIDTH, IMAGE_HEIGHT)
    yield box  # (the view lives as long as the test)


def _ranges(box: ZoomViewBox) -> list[list[float]]:
    return [list(axis) for axis in box.viewRange()]


def _wheel(view: pg.GraphicsView, notches: int) -> None:
    """Turn the mouse wheel over the middle of ``view``: positive notches zoom in."""
    middle = QPointF(view.width() / 2, view.height() / 2)
    for _ in range(abs(notches)):
        event = QWheelEvent(
            middle,
            QPointF(view.mapToGlobal(middle.toPoint())),
            QPoint(0, 0),
            QPoint(0, 120 if notches > 0 else -120),
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        QApplication.sendEvent(view.viewport(), event)


def test_fit_shows_the_whole_image_centred(box) -> None:
    # Zoom 2/3: the 600-pixel width fills the 400-pixel view; the 300-pixel height shows
    # 300 / (2/3) = 450 image rows, centred on row 200.
    assert box.fitted
    assert _ranges(box) == [pytest.approx([0, 600]), pytest.approx([-25, 425])]
    assert box.zoom_percent() == pytest.approx(200 / 3)


def test_actual_size_shows_one_image_pixel_per_screen_pixel(box) -> None:
    box.set_zoom(1.0)
    # 400 × 300 image pixels around the centre (300, 200).
    assert _ranges(box) == [pytest.approx([100, 500]), pytest.approx([50, 350])]
    assert box.zoom_percent() == pytest.approx(100)
    assert not box.fitted


def test_a_fitted_image_stays_fitted_when_the_view_is_resized(box, qtbot) -> None:
    box.getViewWidget().resize(800, 300)
    qtbot.waitUntil(lambda: box.width() == 800)
    # Fit min(800/600, 300/400) = 3/4: 400 rows tall, 800 / (3/4) ≈ 1066.7 columns wide.
    assert _ranges(box) == [
        pytest.approx([300 - 1600 / 3, 300 + 1600 / 3]),
        pytest.approx([0, 400]),
    ]


def test_a_zoom_is_kept_when_the_view_is_resized(box, qtbot) -> None:
    box.set_zoom(2.0, QPointF(100, 100))
    box.getViewWidget().resize(600, 300)
    qtbot.waitUntil(lambda: box.width() == 600)
    assert _ranges(box) == [pytest.approx([-50, 250]), pytest.approx([25, 175])]


def test_the_wheel_never_shrinks_the_image_below_a_quarter_of_the_fit(box) -> None:
    _wheel(box.getViewWidget(), -60)
    assert box.zoom_percent() == pytest.approx(200 / 3 / 4)
    # At a sixth of a screen pixel per image pixel the view spans 2400 × 1800 image pixels.
    width = box.viewRange()[0][1] - box.viewRange()[0][0]
    assert width == pytest.approx(2400)


def test_the_wheel_stops_at_3200_percent(box) -> None:
    _wheel(box.getViewWidget(), 200)
    assert box.zoom_percent() == pytest.approx(3200)


def test_panning_keeps_the_centre_over_the_image(box) -> None:
    box.set_zoom(1.0)
    box.translateBy(x=5000, y=-5000)
    box.sigRangeChangedManually.emit([True, True])  # as a mouse drag does
    centre = box.centre()
    assert (centre.x(), centre.y()) == pytest.approx((600, 0))


def test_zoom_steps_pass_through_100_percent() -> None:
    assert next_step(66.7, up=True) == 100
    assert next_step(100, up=True) == 150
    assert next_step(100, up=False) == pytest.approx(66.7)
    assert next_step(3200, up=True) == 3200
    assert zoom_text(66.67, fitted=True) == "Fit (67 %)"
    assert zoom_text(250, fitted=False) == "250 %"


@pytest.fixture
def grid(qtbot) -> FrameGrid:
    grid = FrameGrid(2)
    qtbot.addWidget(grid)
    grid.resize(900, 400)
    grid.show()
    qtbot.waitExposed(grid)
    for view in grid.views:
        view.show_frame(np.zeros((IMAGE_HEIGHT, IMAGE_WIDTH), dtype=np.uint8))
    return grid


def test_grid_zoom_commands_and_limits(grid) -> None:
    first = grid.views[0].view_box
    fit = 100 * first.fit_factor()
    assert grid.fitted() and grid.zoom_percent() == pytest.approx(fit)
    grid.zoom_actual_size()
    assert grid.zoom_percent() == pytest.approx(100)
    grid.zoom_in()
    assert grid.zoom_percent() == pytest.approx(150)
    for _ in range(40):
        grid.zoom_out()
    assert grid.zoom_percent() == pytest.approx(fit / 4)
    for _ in range(40):
        grid.zoom_in()
    assert grid.zoom_percent() == pytest.approx(3200)
    grid.fit_to_window()
    assert grid.fitted() and grid.zoom_percent() == pytest.approx(fit)


def test_grid_views_follow_the_wheel_in_any_of_them(grid) -> None:
    first, second = (view.view_box for view in grid.views)
    _wheel(second.getViewWidget(), 5)
    assert not first.fitted
    assert first.zoom_factor() == pytest.approx(second.zoom_factor())
    assert (first.centre().x(), first.centre().y()) == pytest.approx(
        (second.centre().x(), second.centre().y())
    )
    assert first.zoom_factor() > first.fit_factor()


def test_a_new_layout_is_fitted(grid, qtbot) -> None:
    grid.zoom_actual_size()
    grid.set_count(4)
    assert len(grid.views) == 4
    assert grid.fitted()
    with pytest.raises(ValueError):
        grid.set_count(3)
