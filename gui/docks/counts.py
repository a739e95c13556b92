"""The Counts dock: the ground-truth counts of the video shown and each detector's, over its
frames (docs/measures.md §6).

The series come from the counts stage's result
(:class:`~referee.core.workflow.results.CountsResult`); the ground truth of a video whose
counts are being edited comes from the annotation instead (:meth:`CountsDock.show_groundtruth`),
so that a count change shows at once, before it is saved. Ground truth is drawn in the
ground-truth yellow, outlined so that it reads on the light theme too, each detector in its
project colour; a vertical line marks the frame shown, and a click goes to a frame. Plot
items carry an ``objectName``: ``"counts: ground truth"``, ``"counts: <detector>"``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDockWidget, QWidget

from referee.core.colours import OKABE_ITO, detector_colours
from referee.core.formats.counts_csv import CountSeries
from referee.core.workflow.results import CountRow, CountsResult
from referee.gui.widgets.deferred_draw import DeferredDraw
from referee.gui.widgets.empty_state import EmptyState, no_project
from referee.gui.widgets.palette import GROUND_TRUTH_RGB
from referee.gui.widgets.plot_series import Items, SeriesItems
from referee.gui.widgets.theme import add_legend

GROUND_TRUTH = "ground truth"
CURRENT_FRAME_RGB = OKABE_ITO["vermillion"]
#: Outline of the ground-truth line: yellow alone hardly shows on the light theme's white.
OUTLINE_RGB = (70, 70, 70)
NO_PROJECT = no_project("see each video's counts over its frames")
NO_COUNTS = (
    "This project has no counts. Counts are a folder with one sub-folder per video holding "
    "groundtruth.csv and <detector>.csv (frame,count; docs/measures.md §10): name it in the "
    "project file (referee project new … --counts DIR), or mark count changes at a frame "
    "with + and − and save."
)
COMPUTING = "Computing the counts…"
#: Columns of the legend; room between it and the highest count, in pixels.
LEGEND_COLUMNS, LEGEND_GAP = 3, 16
#: Highest count whose axis is ticked at every whole number.
MAX_UNIT_TICKS = 12


def no_video_counts(video: str) -> str:
    """What the dock says when the video shown has no counts."""
    return (
        f"No counts for {video}: its folder in the counts folder has no groundtruth.csv with "
        "a detector's counts beside it. Mark count changes with + and − (Annotation dock) "
        "to start its ground truth."
    )


class _OutlinedSample(pg.ItemSample):
    """A legend sample that draws the line's outline (its ``shadowPen``) under it."""

    def paint(self, painter, *args) -> None:
        shadow = self.item.opts.get("shadowPen")
        if shadow is not None:
            painter.setPen(pg.mkPen(shadow))
            painter.drawLine(0, 11, 20, 11)
        super().paint(painter, *args)


def _frames(series: CountSeries) -> np.ndarray:
    return np.arange(series.first_frame, series.first_frame + len(series), dtype=float)


class CountsDock(QDockWidget):
    """Counts over the frames of the video shown: ground truth and every detector.

    Signals
    -------
    frame_requested(frame)
        A frame was clicked in the plot.
    """

    frame_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Counts", parent)
        self.setObjectName("CountsDock")
        self._result: CountsResult | None = None
        self._edits: dict[str, CountSeries] = {}
        self._video: tuple[str, str] | None = None  # (counts folder, label)
        self._order: tuple[str, ...] = ()
        self._has_counts = False
        self._waiting = NO_PROJECT
        self._frames = np.zeros(0)
        self._title: str | None = None
        self._top = 0
        self.plot = self._make_plot()
        self.current_frame_line = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen(CURRENT_FRAME_RGB, width=2)
        )
        self.plot.addItem(self.current_frame_line, ignoreBounds=True)
        self._current_frame_sample = pg.PlotDataItem(pen=self.current_frame_line.pen)
        self._series = SeriesItems(self.plot.getPlotItem(), self._make_curve)
        self.plot.getPlotItem().getViewBox().sigResized.connect(self._fit_range)
        self._state = EmptyState(self.plot, NO_PROJECT)
        self.setWidget(self._state)
        self.setMinimumSize(300, 200)
        self._drawing = DeferredDraw(self, self._draw)

    def _make_plot(self) -> pg.PlotWidget:
        plot = pg.PlotWidget()
        plot.setLabel("bottom", "frame")
        plot.setLabel("left", "count")
        plot.showGrid(x=True, y=True, alpha=0.2)
        plot.getPlotItem().getViewBox().setLimits(yMin=-0.5)
        add_legend(plot, (10, 10), columns=LEGEND_COLUMNS)
        plot.setMinimumSize(200, 140)
        plot.setToolTip(
            "Ground-truth counts (yellow) and each detector's counts per frame "
            "(docs/measures.md §6); unsaved count changes show at once. Click to go to a frame."
        )
        plot.scene().sigMouseClicked.connect(self._on_clicked)
        return plot

    # --- what the window tells ---------------------------------------------------------

    def clear(self, has_counts: bool | None = None) -> None:
        """Another project (``has_counts``: whether it names a counts folder; ``None``: no
        project): the series and edits shown are dropped, and the dock says what comes."""
        self._result, self._edits, self._has_counts = None, {}, bool(has_counts)
        self._waiting = NO_PROJECT if has_counts is None else COMPUTING if has_counts else NO_COUNTS
        self._drawing.request()

    def set_detector_order(self, names: Sequence[str]) -> None:
        """The project's detector list, which gives each detector its colour."""
        self._order = tuple(names)
        self._drawing.request()

    def show_result(self, result: CountsResult | None, reason: str | None = None) -> None:
        """Show the counts stage's ``result``; ``None`` with the ``reason`` it was skipped."""
        self._result = result
        if result is None:
            known = reason is not None and self._has_counts
            self._waiting = f"No counts to show: {reason}." if known else NO_COUNTS
        self._drawing.request()

    def show_video(self, folder: str, label: str) -> None:
        """Show the video whose counts folder is ``folder`` (named ``label`` to users)."""
        if self._video != (folder, label):
            self._video = (folder, label)
            self._drawing.request()

    def show_groundtruth(self, folder: str, series: CountSeries) -> None:
        """Show ``series`` as the ground truth of ``folder``'s video (counts being edited),
        in place of the result's, until another project is opened."""
        if self._edits.get(folder) is series:
            return
        self._edits[folder] = series
        if self._video is not None and self._video[0] == folder:
            self._drawing.request()

    def set_current_frame(self, frame: int) -> None:
        """Move the vertical line to ``frame``."""
        self.current_frame_line.setValue(frame)

    # --- what is shown -----------------------------------------------------------------

    def _rows(self, folder: str) -> list[CountRow]:
        rows = [] if self._result is None else self._result.rows
        return [row for row in rows if row.video == folder]

    def series(self) -> dict[str, CountSeries]:
        """The series shown for the video shown: ``"ground truth"`` first, then each
        detector's, in the project's order."""
        if self._video is None:
            return {}
        folder = self._video[0]
        rows = self._rows(folder)
        truth = self._edits.get(folder)
        if truth is None and rows:
            truth = rows[0].groundtruth
        if truth is None:
            return {}
        order = {name: k for k, name in enumerate(self._order)}
        rows.sort(key=lambda row: order.get(row.detector, len(order)))
        return {GROUND_TRUTH: truth, **{row.detector: row.estimate for row in rows}}

    @property
    def empty_message(self) -> str | None:
        """What the dock says in place of its plot, or ``None`` while it shows counts."""
        return self._state.message()

    def _make_curve(self, name: str) -> Items:
        if name == GROUND_TRUTH:
            curve = pg.PlotDataItem(
                stepMode="left",
                pen=pg.mkPen(GROUND_TRUTH_RGB, width=2.5),
                shadowPen=pg.mkPen(OUTLINE_RGB, width=5),
            )
        else:
            curve = pg.PlotDataItem(stepMode="left")
        curve.setObjectName(f"counts: {name}")
        return (curve,)

    def _draw(self) -> None:
        series = self.series()
        legend = self.plot.getPlotItem().legend
        if self._series.show(list(series)):
            legend.clear()
            for name in series:
                (curve,) = self._series[name]
                sample = _OutlinedSample(curve) if name == GROUND_TRUTH else curve
                legend.addItem(sample, name)
            if series:
                legend.addItem(self._current_frame_sample, "current frame")
        colours = detector_colours([n for n in series if n != GROUND_TRUTH], self._order)
        for name, counts in series.items():
            (curve,) = self._series[name]
            if name != GROUND_TRUTH:
                curve.setPen(pg.mkPen(colours[name], width=1.5))
            curve.setData(_frames(counts), np.asarray(counts.counts, dtype=float))
        truth = series.get(GROUND_TRUTH)
        self._frames = _frames(truth) if truth is not None else np.zeros(0)
        self._fit_counts(series)
        if series:
            title = f"Counts — {self._video[1] if self._video is not None else ''}"
            if title != self._title:  # a new title lays the plot out again
                self._title = title
                self.plot.getPlotItem().setTitle(title)
            self._state.show_content()
        elif self._result is not None and self._video is not None:
            self._state.show_message(no_video_counts(self._video[1]))
        else:
            self._state.show_message(self._waiting)

    def _fit_counts(self, series: dict[str, CountSeries]) -> None:
        """Ticks at every whole number while the counts are small; the range to the top."""
        self._top = max((int(np.max(s.counts)) for s in series.values() if len(s)), default=0)
        axis = self.plot.getPlotItem().getAxis("left")
        if self._top <= MAX_UNIT_TICKS:
            axis.setTickSpacing(1, 1)
        else:
            axis.setTickSpacing()
        self._fit_range()

    def _fit_range(self) -> None:
        """Counts from 0 to the highest, with the legend's height above them (it then covers
        no line), as the plot's height changes."""
        item = self.plot.getPlotItem()
        height = item.getViewBox().height()
        legend = item.legend.boundingRect().height() + LEGEND_GAP
        share = min(legend / height, 0.6) if height > 0 else 0.3
        top = max(self._top, 1)
        item.setYRange(-0.04 * top, top / (1 - share), padding=0)

    def _on_clicked(self, event) -> None:
        view = self.plot.getPlotItem().getViewBox()
        if self._frames.size == 0 or not view.sceneBoundingRect().contains(event.scenePos()):
            return
        x = view.mapSceneToView(event.scenePos()).x()
        nearest = self._frames[np.argmin(np.abs(self._frames - x))]
        self.frame_requested.emit(int(nearest))


__all__ = ["CountsDock"]
