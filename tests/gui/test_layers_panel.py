"""Layers panel: starting opacities, legends that say 0 is transparent, detector swatches."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QSlider

from referee.gui.viewer.frame_view import (
    ANNOTATORS,
    COMPARISON,
    CONSENSUS,
    DETECTOR,
    DISAGREEMENT,
    GROUND_TRUTH,
    colormap,
)
from referee.gui.viewer.layers_panel import ColorMapLegendWidget, LayersPanel


@pytest.fixture
def panel(qtbot) -> LayersPanel:
    widget = LayersPanel()
    qtbot.addWidget(widget)
    return widget


def test_sliders_start_at_the_layer_opacities(panel) -> None:
    assert panel.opacity(COMPARISON) == pytest.approx(0.7)
    assert panel.opacity(GROUND_TRUTH) == pytest.approx(1.0)
    assert panel.opacity(CONSENSUS) == pytest.approx(0.6)
    assert len(panel.findChildren(QSlider)) == 6


@pytest.mark.parametrize("layer", [CONSENSUS, DISAGREEMENT, ANNOTATORS])
def test_colour_map_legends_show_zero_as_transparent(qtbot, layer) -> None:
    legend = ColorMapLegendWidget(layer)
    qtbot.addWidget(legend)
    texts = [label.text() for label in legend.findChildren(QLabel)]
    assert "(0: transparent)" in texts
    gradient = next(label for label in legend.findChildren(QLabel) if not label.text())
    image = gradient.pixmap().toImage()
    # The left square is a checkerboard of white and light grey, not the colour map's
    # colour at 0 (dark purple or black for both maps).
    first_colour = colormap(layer).getLookupTable(nPts=2, alpha=False)[0]
    corner = image.pixelColor(2, 2)
    beside = image.pixelColor(6, 2)
    assert {corner.name(), beside.name()} == {"#ffffff", "#aaaaaa"}
    assert corner != QColor(*(int(c) for c in first_colour))
    # The colours start after the square.
    end = image.pixelColor(image.width() - 1, 6)
    top = colormap(layer).getLookupTable(nPts=2, alpha=False)[-1]
    assert max(abs(a - int(b)) for a, b in zip(end.getRgb()[:3], top)) <= 10


def test_detector_legend_follows_the_detectors_shown(panel) -> None:
    default = panel.detector_legend()
    assert default == ["colour of the detector shown"]
    panel.show_detector_colours([("mog2", (100, 143, 255)), ("knn", (238, 136, 102))])
    assert panel.detector_legend() == ["mog2", "knn"]
    swatch = next(
        label
        for label in panel.findChildren(QLabel)
        if label.pixmap() is not None
        and not label.pixmap().isNull()
        and label.pixmap().toImage().pixelColor(6, 6) == QColor(100, 143, 255)
    )
    assert swatch.isVisibleTo(panel)
    panel.show_detector_colours([])
    assert panel.detector_legend() == default


def test_layers_panel_reports_switches_and_opacity(qtbot, panel) -> None:
    with qtbot.waitSignal(panel.visibility_changed) as signal:
        panel.set_checked(DETECTOR, False)
    assert signal.args == [DETECTOR, False]
    with qtbot.waitSignal(panel.opacity_changed) as signal:
        panel.set_opacity(CONSENSUS, 0.25)
    assert signal.args == [CONSENSUS, 0.25]
