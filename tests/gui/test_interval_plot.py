"""The interval plot draws each detector's F1 after each draw with its band, keeps its
items from one draw to the next and draws only while it can be seen."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg

from referee.core.colours import DETECTOR_PALETTE
from referee.core.estimation.result import Estimate, VideoEstimate
from referee.gui.docks.estimates import IntervalPlot

METHODS = ("mog2", "knn")


def _video(steps: int) -> VideoEstimate:
    """A trace of ``steps`` draws: mog2 at 0.5 + k/100 within ±0.1, knn at 0.3 without an
    interval on the first two draws."""
    trace = tuple(
        {
            "mog2": Estimate(0.5 + k / 100, 0.4 + k / 100, 0.6 + k / 100),
            "knn": Estimate(0.3, math.nan, math.nan) if k < 2 else Estimate(0.3, 0.2, 0.4),
        }
        for k in range(steps)
    )
    return VideoEstimate("corridor", 100, steps - 1, trace[-1], trace=trace)


def _lines(plot: IntervalPlot) -> dict[str, pg.PlotDataItem]:
    return {i.name(): i for i in plot.listDataItems() if i.name()}


def _bands(plot: IntervalPlot) -> list[pg.FillBetweenItem]:
    return [i for i in plot.getPlotItem().items if isinstance(i, pg.FillBetweenItem)]


def _shown(qtbot) -> IntervalPlot:
    plot = IntervalPlot()
    qtbot.addWidget(plot)
    plot.show()
    qtbot.waitExposed(plot)
    return plot


def test_each_detector_has_its_line_band_and_colour(qtbot) -> None:
    plot = _shown(qtbot)
    plot.set_detector_order(("cnt", "knn", "mog2"))
    plot.show_trace(METHODS, _video(4))
    lines = _lines(plot)
    assert set(lines) == set(METHODS)
    np.testing.assert_allclose(lines["mog2"].yData, [0.50, 0.51, 0.52, 0.53])
    np.testing.assert_array_equal(lines["knn"].xData, [0, 1, 2, 3])
    assert pg.mkPen(lines["mog2"].opts["pen"]).color().getRgb()[:3] == DETECTOR_PALETTE[2]
    mog2_band, knn_band = _bands(plot)
    low, high = (curve.getData()[1] for curve in mog2_band.curves)
    np.testing.assert_allclose(low, [0.40, 0.41, 0.42, 0.43])
    np.testing.assert_allclose(high, [0.60, 0.61, 0.62, 0.63])
    # knn's band covers the draws with an interval only: the last two.
    np.testing.assert_array_equal(knn_band.curves[0].getData()[0], [2, 3])
    assert mog2_band.isVisible() and knn_band.isVisible()
    rows = [label.text for _, label in plot.getPlotItem().legend.items]
    assert rows == list(METHODS)


def test_the_next_draw_reuses_the_items(qtbot) -> None:
    plot = _shown(qtbot)
    plot.show_trace(METHODS, _video(3))
    lines, bands = _lines(plot), _bands(plot)
    plot.show_trace(METHODS, _video(5))
    again = _lines(plot)
    assert set(again) == set(lines) and all(again[name] is line for name, line in lines.items())
    assert all(a is b for a, b in zip(_bands(plot), bands, strict=True))
    np.testing.assert_array_equal(_lines(plot)["knn"].xData, [0, 1, 2, 3, 4])
    assert len(plot.getPlotItem().legend.items) == len(METHODS)


def test_a_band_needs_two_intervals(qtbot) -> None:
    plot = _shown(qtbot)
    plot.show_trace(METHODS, _video(2))  # knn has no interval yet
    mog2_band, knn_band = _bands(plot)
    assert mog2_band.isVisible() and not knn_band.isVisible()


def test_no_video_empties_the_plot(qtbot) -> None:
    plot = _shown(qtbot)
    plot.show_trace(METHODS, _video(3))
    plot.show_trace(METHODS, None)
    assert _lines(plot) == {} and _bands(plot) == []
    assert plot.getPlotItem().legend.items == []


def test_a_hidden_plot_draws_the_latest_trace_when_shown(qtbot) -> None:
    plot = IntervalPlot()
    qtbot.addWidget(plot)
    plot.show_trace(METHODS, _video(3))
    plot.show_trace(("mog2",), _video(4))
    assert _lines(plot) == {}
    plot.show()
    qtbot.waitExposed(plot)
    assert list(_lines(plot)) == ["mog2"]
    assert len(_lines(plot)["mog2"].xData) == 4
