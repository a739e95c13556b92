"""Estimates over every frame of partly annotated videos, with 95% intervals
(docs/measures.md §12).

:class:`EstimatesPanel` lists, for each video whose ground truth covers only
some frames, every detector's F1, precision and recall over all its frames and
how many labelled draws they rest on; the Indicators dock shows it beneath the
evaluation, which covers the annotated frames only. :class:`IntervalPlot` draws
one video's F1 estimates after each labelled draw, so that the annotator sees
the intervals shrink; the Annotate next dock shows it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QVBoxLayout, QWidget

from referee.core.colours import detector_colours
from referee.core.estimation.estimators import MEASURES
from referee.core.estimation.result import Estimate, EstimateResult, VideoEstimate
from referee.core.exports.estimate import consensus_sentences, estimate_cell, trust_sentences
from referee.gui.widgets.deferred_draw import DeferredDraw
from referee.gui.widgets.plot_series import Items, SeriesItems
from referee.gui.widgets.tables import UNDEFINED_TEXT, filling, read_only_table, text_item
from referee.gui.widgets.theme import add_legend
from referee.gui.widgets.warning_line import WarningLine, WrappedText

#: Column titles of the measures.
TITLES = {"f1": "F1", "precision": "Precision", "recall": "Recall"}
_HEADERS = ("Video", "Detector", *(TITLES[m] for m in MEASURES), "Labelled")
NO_INTERVAL_TIP = "no interval: it needs two labelled draws of this video"


def estimate_text(e: Estimate) -> str:
    """``0.8123 [0.7900, 0.8346]``; the estimate alone without an interval; "—" undefined."""
    return estimate_cell(e, UNDEFINED_TEXT)


def labelled_text(video: VideoEstimate) -> str:
    """How many draws the estimates rest on, of how many frames."""
    draws = "draw" if video.labels == 1 else "draws"
    return f"{video.labels} {draws} of {video.frames} frames"


class EstimatesPanel(QWidget):
    """Every detector's estimates over every frame of each partly annotated video."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = WrappedText()
        self.warnings = WarningLine()
        self.table = read_only_table(_HEADERS)
        self.table.setToolTip(
            "Estimated over every frame of the video from the consensus and its labelled "
            "frames, with 95% intervals (docs/measures.md §12)"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(self.warnings)
        layout.addWidget(self.table, 1)
        self.setVisible(False)

    def show_estimate(self, result: EstimateResult | None) -> None:
        """List the partly annotated videos' estimates; hidden when there are none."""
        videos = () if result is None else result.videos
        self.setVisible(bool(videos))
        if result is None or not videos:
            self.table.setRowCount(0)
            return
        self.caption.setText(
            f"Over every frame of the partly annotated videos ({result.confidence:.0%} "
            "intervals, docs/measures.md §12); the rows above cover the annotated frames only."
        )
        warnings = [*consensus_sentences(result), *trust_sentences(result)]
        self.warnings.set_text("\n".join(warnings))
        self.table.setRowCount(0)
        with filling(self.table):
            self._fill(result)

    def _fill(self, result: EstimateResult) -> None:
        for video in result.videos:
            for method in result.methods:
                row = self.table.rowCount()
                self.table.insertRow(row)
                estimates = video.estimates[method]
                cells = [
                    text_item(video.video),
                    text_item(method),
                    *(
                        text_item(
                            estimate_text(estimates[m]),
                            NO_INTERVAL_TIP if math.isnan(estimates[m].low) else "",
                        )
                        for m in MEASURES
                    ),
                    text_item(labelled_text(video)),
                ]
                for column, item in enumerate(cells):
                    self.table.setItem(row, column, item)


class IntervalPlot(pg.PlotWidget):
    """One video's F1 per detector after 0, 1, 2, … labelled draws, with 95% intervals.

    Each detector's line and band are made once and given new data after each draw;
    the plot draws only while it can be seen (else when it is shown).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("interval plot")
        self.setLabel("bottom", "labelled draws")
        self.setLabel("left", "F1 over every frame")
        self.setYRange(0, 1)
        self.showGrid(x=True, y=True, alpha=0.2)
        self.setMinimumHeight(160)
        # Bottom right, as F1 is rarely low; in columns, so that it stays short.
        add_legend(self, (-10, -10), columns=3)
        self._detector_order: tuple[str, ...] = ()
        self._trace: tuple[tuple[str, ...], VideoEstimate | None] = ((), None)
        self._series = SeriesItems(self.getPlotItem(), self._make_series)
        self._drawing = DeferredDraw(self, self._draw)

    def set_detector_order(self, names: Sequence[str]) -> None:
        """The project's detector list: each detector's colour is that of its position there
        (from the next trace shown on)."""
        self._detector_order = tuple(names)

    def show_trace(self, methods: tuple[str, ...], video: VideoEstimate | None) -> None:
        """Draw ``video``'s trace (nothing without one)."""
        self._trace = (methods, video)
        self._drawing.request()

    @staticmethod
    def _make_series(method: str) -> Items:
        """A detector's line (its legend row) and the band of its intervals."""
        line = pg.PlotDataItem(name=method)
        line.setObjectName(f"F1 trace: {method}")
        lower, upper = pg.PlotDataItem(pen=pg.mkPen(None)), pg.PlotDataItem(pen=pg.mkPen(None))
        return line, pg.FillBetweenItem(lower, upper)

    def _draw(self) -> None:
        methods, video = self._trace
        if video is None or not video.trace:
            self._series.show(())
            return
        self._series.show(methods)
        steps = np.arange(len(video.trace), dtype=np.float64)
        colours = detector_colours(methods, self._detector_order)
        for method in methods:
            colour = colours[method]
            line, band = self._series[method]
            values = np.array([t[method].estimate for t in video.trace])
            low = np.array([t[method].low for t in video.trace])
            high = np.array([t[method].high for t in video.trace])
            line.setData(steps, values, pen=pg.mkPen(colour, width=2))
            known = ~(np.isnan(low) | np.isnan(high))
            band.setVisible(bool(known.sum() >= 2))
            if known.sum() >= 2:
                lower, upper = band.curves
                lower.setData(steps[known], low[known])
                upper.setData(steps[known], high[known])
                band.setBrush(pg.mkBrush(*colour, 50))
        last = max(1, len(video.trace) - 1)
        self.getAxis("bottom").setTickSpacing(max(1, math.ceil(last / 8)), 1)  # whole draws
        self.setXRange(0, last)
