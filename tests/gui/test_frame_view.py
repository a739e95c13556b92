"""Frame view: overlay colours as rendered, colour bars, boxes, hover, title."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel

from referee.core.colours import OKABE_ITO
from referee.gui.viewer.frame_view import (
    COMPARISON,
    CONSENSUS,
    DETECTOR,
    DISAGREEMENT,
    GROUND_TRUTH,
    LAYERS,
    MASK_ALPHA,
    FrameView,
    colormap,
)
from referee.gui.widgets.palette import BoxDrawing, BoxLine

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
                line=BoxLine.DASHED,
                tooltip="vetoed pair",
                marker="false alarm",
            ),
            BoxDrawing(14, 9, 12, 8, "car", OKABE_ITO["blue"], highlighted=True),
            BoxDrawing(1, 12, 5, 5, "car", OKABE_ITO["blue"], line=BoxLine.DOTTED),
        ]
    )
    dashed, highlighted, dotted = view.box_items()
    assert dotted.pen().style() == Qt.PenStyle.DotLine
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


def test_the_comparison_starts_at_70_percent_opacity(qtbot) -> None:
    fresh = FrameView()
    qtbot.addWidget(fresh)
    fresh.resize(360, 260)
    fresh.show()
    qtbot.waitExposed(fresh)
    fresh.show_frame(np.full((20, 30, 3), FRAME_RGB, dtype=np.uint8))
    fresh.set_layer(COMPARISON, _codes())
    # 70 % of the false-positive colour over 30 % of the frame.
    expected = 0.7 * np.array(OKABE_ITO["vermillion"]) + 0.3 * np.array(FRAME_RGB)
    _assert_colour(fresh.rendered_rgb()[FP_CENTRE], expected)


@pytest.mark.parametrize("layer", [CONSENSUS, DISAGREEMENT])
def test_heat_maps_leave_zero_transparent_and_colour_one(view, layer) -> None:
    view.set_layer_visible(COMPARISON, False)
    heat = np.zeros((20, 30), dtype=np.float32)
    heat[:, 15:] = 1.0
    view.set_layer(layer, heat)
    view.set_layer_visible(layer, True)
    view.set_layer_opacity(layer, 1.0)
    rendered = view.rendered_rgb()
    _assert_colour(rendered[10, 5], FRAME_RGB)  # 0: the frame, untinted
    top = colormap(layer).getLookupTable(nPts=256, alpha=True)[-1]
    assert top[3] == 255
    _assert_colour(rendered[10, 25], top[:3])  # 1: the colour map's end, opaque
    table = colormap(layer).getLookupTable(nPts=256, alpha=True)
    assert table[0, 3] == 0 and (table[1:, 3] == 255).all()


def test_detector_mask_is_drawn_in_the_detector_colour(view) -> None:
    view.set_layer_visible(COMPARISON, False)
    mask = np.zeros((20, 30), dtype=bool)
    mask[TP_CENTRE] = True
    colour = (170, 68, 153)
    view.set_detector_colour(colour)
    view.set_layer(DETECTOR, mask)
    view.set_layer_visible(DETECTOR, True)
    view.set_layer_opacity(DETECTOR, 1.0)
    share = MASK_ALPHA / 255
    expected = share * np.array(colour) + (1 - share) * np.array(FRAME_RGB)
    _assert_colour(view.rendered_rgb()[TP_CENTRE], expected)


def test_the_title_is_drawn_in_the_palette_text_colour(view, qtbot) -> None:
    view.set_title("mog2")
    title = next(label for label in view.findChildren(QLabel) if label.text() == "mog2")
    assert view.title() == "mog2"
    app = QApplication.instance()
    original = app.palette()
    dark = QPalette(original)
    dark.setColor(QPalette.ColorRole.Window, QColor(45, 45, 48))
    dark.setColor(QPalette.ColorRole.WindowText, QColor(230, 230, 230))
    try:
        for palette in (original, dark):
            app.setPalette(palette)
            expected = palette.color(QPalette.ColorRole.WindowText)
            qtbot.waitUntil(
                lambda colour=expected: title.palette().color(title.foregroundRole()) == colour
            )
    finally:
        app.setPalette(original)
