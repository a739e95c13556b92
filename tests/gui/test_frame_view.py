"""Frame view: overlay colours as rendered, colour bars, boxes, hover, linked grid, layers panel."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF, Qt

from referee.gui.viewer.frame_view import (
    COMPARISON,
    CONSENSUS,
    DETECTOR,
    DISAGREEMENT,
    GROUND_TRUTH,
    LAYERS,
    FrameGrid,
    FrameView,
)
from referee.gui.viewer.layers_panel import LayersPanel
from referee.gui.widgets.palette import OKABE_ITO, BoxDrawing

FRAME_RGB = (40, 80, 120)
TP_CENTRE = (4, 5)  # (row, column) inside the true-positive block
FP_CENTRE = (13, 20)  # inside the false-positive block
TOLERANCE = 3


def _codes() -> np.ndarray:
    """20×30 comparison codes: a true-positive block, a false-positive block, the rest TN."""
    codes = np.zeros((20, 30), dtype=np.uint8)
    codes[1:8, 2:9] = 1
    codes[10:17, 15:26] = 2
    return codes


@pytest.fixture
def view(qtbot) -> FrameView:
    widget = FrameView()
    qtbot.addWidget(widget)
    widget.resize(360, 260)
    widget.show()
    qtbot.waitExposed(widget)
    frame = np.empty((20, 30, 3), dtype=np.uint8)
    frame[...] = FRAME_RGB
    widget.show_frame(frame)
    widget.set_layer(COMPARISON, _codes())
    for name in LAYERS:
        widget.set_layer_visible(name, name == COMPARISON)
    widget.set_layer_opacity(COMPARISON, 1.0)
    return widget


def _assert_colour(pixel: np.ndarray, expected) -> None:
    assert np.all(np.abs(pixel.astype(int) - np.asarray(expected, dtype=float)) <= TOLERANCE), (
        f"{tuple(pixel)} is not {tuple(expected)}"
    )


def test_comparison_layer_draws_true_and_false_positives_in_palette_colours(view) -> None:
    rendered = view.rendered_rgb()
    assert rendered.shape == (20, 30, 3)
    _assert_colour(rendered[TP_CENTRE], OKABE_ITO["bluish green"])
    _assert_colour(rendered[FP_CENTRE], OKABE_ITO["vermillion"])
    _assert_colour(rendered[18, 1], FRAME_RGB)  # true negative: transparent


def test_hiding_the_comparison_layer_shows_the_frame(view) -> None:
    view.set_layer_visible(COMPARISON, False)
    assert not view.layer_visible(COMPARISON)
    _assert_colour(view.rendered_rgb()[TP_CENTRE], FRAME_RGB)


def test_half_opacity_blends_overlay_and_frame(view) -> None:
    view.set_layer_opacity(COMPARISON, 0.5)
    expected = (np.array(FRAME_RGB) + np.array(OKABE_ITO["vermillion"])) / 2
    _assert_colour(view.rendered_rgb()[FP_CENTRE], expected)


def test_clearing_a_layer_shows_the_frame(view) -> None:
    view.set_layer(COMPARISON, None)
    _assert_colour(view.rendered_rgb()[FP_CENTRE], FRAME_RGB)


def test_masks_tint_only_their_pixels(view) -> None:
    view.set_layer_visible(COMPARISON, False)
    mask = np.zeros((20, 30), dtype=bool)
    mask[TP_CENTRE] = True
    view.set_layer(GROUND_TRUTH, mask)
    view.set_layer_visible(GROUND_TRUTH, True)
    rendered = view.rendered_rgb()
    assert np.abs(rendered[TP_CENTRE].astype(int) - FRAME_RGB).max() > 40
    _assert_colour(rendered[FP_CENTRE], FRAME_RGB)


def test_colour_bar_is_visible_only_with_its_layer(view) -> None:
    assert not view.colour_bar_visible(CONSENSUS)
    view.set_layer(CONSENSUS, np.linspace(0, 1, 600).reshape(20, 30))
    view.set_layer_visible(CONSENSUS, True)
    assert view.colour_bar_visible(CONSENSUS)
    assert not view.colour_bar_visible(DISAGREEMENT)
    view.set_layer_visible(CONSENSUS, False)
    assert not view.colour_bar_visible(CONSENSUS)
    view.set_layer_visible(CONSENSUS, True)
    view.set_layer(CONSENSUS, None)
    assert not view.colour_bar_visible(CONSENSUS)


def test_boxes_have_their_pen_style_width_and_tooltip(view) -> None:
    view.set_boxes(
        [
            BoxDrawing(
                2,
                2,
                10,
                6,
                "person",
                OKABE_ITO["orange"],
                dashed=True,
                tooltip="vetoed pair",
                marker="false alarm",
            ),
            BoxDrawing(14, 9, 12, 8, "car", OKABE_ITO["blue"], highlighted=True),
        ]
    )
    dashed, highlighted = view.box_items()
    assert dashed.pen().style() == Qt.PenStyle.DashLine
    assert dashed.toolTip() == "vetoed pair"
    assert dashed.rect().width() == 10 and dashed.rect().height() == 6
    assert highlighted.pen().style() == Qt.PenStyle.SolidLine
    assert highlighted.pen().widthF() > dashed.pen().widthF()
    view.set_boxes([])
    assert view.box_items() == []


def test_boxes_are_drawn_on_the_frame(view) -> None:
    view.set_layer_visible(COMPARISON, False)
    view.set_boxes([BoxDrawing(10, 4, 12, 10, "car", OKABE_ITO["yellow"])])
    rendered = view.rendered_rgb()
    left_edge = rendered[6:12, 9:12].reshape(-1, 3).astype(int)
    assert (np.abs(left_edge - OKABE_ITO["yellow"]).max(axis=1) < 60).any()
    _assert_colour(rendered[9, 16], FRAME_RGB)  # inside the box: untouched


def test_hovering_emits_image_coordinates(view, qtbot) -> None:
    graphics = view.findChild(pg.GraphicsLayoutWidget)
    scene_point = view.view_box.mapViewToScene(QPointF(12.5, 7.5))
    with qtbot.waitSignal(view.pixel_hovered) as signal:
        qtbot.mouseMove(graphics.viewport(), graphics.mapFromScene(scene_point))
    assert signal.args == [12, 7]


def test_grid_links_zoom_and_pan(qtbot) -> None:
    grid = FrameGrid(2)
    qtbot.addWidget(grid)
    assert len(grid.views) == 2
    first, second = (view.view_box for view in grid.views)
    first.setRange(xRange=(3, 9), yRange=(2, 6), padding=0)
    x_range, _ = second.viewRange()
    assert x_range == pytest.approx(first.viewRange()[0])
    grid.set_count(4)
    assert len(grid.views) == 4
    with pytest.raises(ValueError):
        grid.set_count(3)


def test_layers_panel_reports_switches_and_opacity(qtbot) -> None:
    panel = LayersPanel()
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.visibility_changed) as signal:
        panel.set_checked(DETECTOR, False)
    assert signal.args == [DETECTOR, False]
    with qtbot.waitSignal(panel.opacity_changed) as signal:
        panel.set_opacity(CONSENSUS, 0.25)
    assert signal.args == [CONSENSUS, 0.25]
