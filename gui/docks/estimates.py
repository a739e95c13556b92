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

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from referee.core.estimation.estimators import MEASURES
from referee.core.estimation.result import Estimate, EstimateResult, VideoEstimate
from referee.core.exports.estimate import estimate_cell
from referee.gui.widgets.palette import series_colour
from referee.gui.widgets.tables import UNDEFINED_TEXT, read_only_table, text_item

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
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.table = read_only_table(_HEADERS)
        self.table.setToolTip(
            "Estimated over every frame of the video from the consensus and its labelled "
            "frames, with 95% intervals (docs/measures.md §12)"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
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
            "intervals, docs/measures.md §12): the rows above cover the annotated frames only. "
            "Label the frames the Annotate next dock proposes and the intervals shrink."
        )
        self.table.setRowCount(0)
        for video in videos:
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
    """One video's F1 per detector after 0, 1, 2, … labelled draws, with 95% intervals."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("interval plot")
        self.setLabel("bottom", "labelled draws")
        self.setLabel("left", "F1 over every frame")
        self.setYRange(0, 1)
        self.showGrid(x=True, y=True, alpha=0.2)
        self.setMinimumHeight(160)
        self._legend = self.addLegend(offset=(-10, -10))  # bottom right: F1 is rarely low

    def show_trace(self, methods: tuple[str, ...], video: VideoEstimate | None) -> None:
        """Draw ``video``'s trace (nothing without one)."""
        self.clear()
        self._legend.clear()
        if video is None or not video.trace:
            return
        steps = np.arange(len(video.trace), dtype=np.float64)
        for j, method in enumerate(methods):
            colour = series_colour(j)
            values = np.array([t[method].estimate for t in video.trace])
            low = np.array([t[method].low for t in video.trace])
            high = np.array([t[method].high for t in video.trace])
            line = self.plot(steps, values, pen=pg.mkPen(colour, width=2), name=method)
            line.setObjectName(f"F1 trace: {method}")
            known = ~(np.isnan(low) | np.isnan(high))
            if known.sum() >= 2:
                lower = pg.PlotDataItem(steps[known], low[known], pen=pg.mkPen(None))
                upper = pg.PlotDataItem(steps[known], high[known], pen=pg.mkPen(None))
                band = pg.FillBetweenItem(lower, upper, brush=pg.mkBrush(*colour, 50))
                self.addItem(band)
        last = max(1, len(video.trace) - 1)
        self.getAxis("bottom").setTickSpacing(max(1, math.ceil(last / 8)), 1)  # whole draws
        self.setXRange(0, last)
