"""The Plots dock: ROC and PR spaces, per-frame F, LIRIS performance-vs-quality curves.

Every plotted number comes from ``referee.core``; undefined values (NaN) are
left out, never drawn at 0. Plot items carry an ``objectName`` saying what
they are (``"video points: <detector>"``, ``"summary point: <detector>"``,
``"score curve: <detector>"``, ``"iso-F 0.5"``, ``"frame F: <detector>"``,
``"LIRIS F <key>: <detector>"``). A score curve's legend row gives its AUC (ROC
space) or AP (PR space), worded as the terminal and the report word them.

Drawing is incremental: the fixed items (chance line, iso-F lines, the LIRIS
panels) are made once, each detector's items when it first appears, and a new
result gives them new data. The dock draws only while it can be seen; a result
that arrives while it is tabbed behind another dock is drawn when it is shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import QDockWidget, QTabWidget, QVBoxLayout, QWidget

from referee.core.colours import OKABE_ITO, detector_colours
from referee.core.evaluation.masks import VideoEvaluation
from referee.core.exports.text_table import AREA_SYMBOLS, area_text
from referee.core.measures.action_matching import CRITERIA
from referee.core.measures.action_scores import ActionEvaluation
from referee.core.measures.curves import ISO_F_LEVELS, iso_f1_curve
from referee.core.measures.indicators import evaluate_all
from referee.core.measures.liris_parameters import THRESHOLD_KEYS
from referee.core.measures.summarize import Summary
from referee.core.workflow.results import CurvesResult, PixelResult
from referee.gui.widgets.deferred_draw import DeferredDraw
from referee.gui.widgets.plot_series import Items, SeriesItems
from referee.gui.widgets.theme import add_legend

FAINT_RGBA = (*OKABE_ITO["grey"], 120)
CURRENT_FRAME_RGB = OKABE_ITO["vermillion"]
VIDEO_POINT_SIZE = 9
SUMMARY_POINT_SIZE = 18
#: A per-frame F curve marks its points while it has at most this many (more hide the line).
MAX_MARKED_FRAMES = 200


def _finite(
    x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(xs) & np.isfinite(ys)
    return xs[keep], ys[keep]


def _space_plot(x_label: str, y_label: str, legend_offset: tuple[int, int]) -> pg.PlotWidget:
    plot = pg.PlotWidget()
    plot.setLabel("bottom", x_label)
    plot.setLabel("left", y_label)
    plot.setXRange(0, 1, padding=0.02)
    plot.setYRange(0, 1, padding=0.02)
    plot.showGrid(x=True, y=True, alpha=0.2)
    add_legend(plot, legend_offset)
    plot.setMinimumSize(200, 160)
    return plot


def _named(item: pg.GraphicsObject, name: str) -> pg.GraphicsObject:
    item.setObjectName(name)
    return item


class PlotsDock(QDockWidget):
    """Tabs of plots: ROC space, PR space, per-frame F, LIRIS curves.

    Signals
    -------
    frame_requested(frame)
        A frame number was clicked in the per-frame F plot.
    """

    frame_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Plots", parent)
        self.setObjectName("PlotsDock")
        self._pixels: PixelResult | None = None
        self._curves: CurvesResult | None = None
        self._detector_order: tuple[str, ...] = ()
        self._frame_f: tuple[str, Mapping[str, tuple[np.ndarray, np.ndarray]]] | None = None
        self._actions: Mapping[str, ActionEvaluation] = {}
        self._frames = np.zeros(0)
        self._frame_title: str | None = None
        self.roc_plot = _space_plot(
            "false positive rate (FPR)",
            "true positive rate (TPR, recall)",
            legend_offset=(-10, -10),
        )
        self.pr_plot = _space_plot("recall (TPR)", "precision (PPV)", legend_offset=(10, -10))
        self.frame_plot = self._make_frame_plot()
        self.current_frame_line = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen(CURRENT_FRAME_RGB, width=2)
        )
        self.frame_plot.addItem(self.current_frame_line, ignoreBounds=True)
        self._current_frame_sample = pg.PlotDataItem(pen=self.current_frame_line.pen)
        self.liris_view = pg.GraphicsLayoutWidget()
        self._liris_plots = [self._make_liris_plot(k, key) for k, key in enumerate(THRESHOLD_KEYS)]
        self.tabs = self._make_tabs()
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.tabs, 1)
        self.setWidget(body)
        self.setMinimumSize(320, 240)
        self._add_chance_line()
        self._add_iso_f_lines()
        self._summary_samples = [self._summary_sample() for _ in range(2)]
        self._summary_scheme: str | None = None
        self._space_series = [
            SeriesItems(plot.getPlotItem(), partial(self._make_space_items, plot))
            for plot in (self.roc_plot, self.pr_plot)
        ]
        self._curve_series = [
            SeriesItems(plot.getPlotItem(), self._make_score_curve)
            for plot in (self.roc_plot, self.pr_plot)
        ]
        self._frame_series = SeriesItems(self.frame_plot.getPlotItem(), self._make_frame_curve)
        self._liris_series = [
            SeriesItems(plot, partial(self._make_liris_curve, key))
            for key, plot in zip(THRESHOLD_KEYS, self._liris_plots)
        ]
        self._spaces_drawing = DeferredDraw(self, self._draw_spaces)
        self._curves_drawing = DeferredDraw(self, self._draw_curves)
        self._frame_f_drawing = DeferredDraw(self, self._draw_frame_f)
        self._actions_drawing = DeferredDraw(self, self._draw_actions)

    def _make_frame_plot(self) -> pg.PlotWidget:
        plot = pg.PlotWidget()
        plot.setLabel("bottom", "frame")
        plot.setLabel("left", "F1 of the frame")
        plot.setYRange(0, 1, padding=0.02)
        plot.showGrid(x=True, y=True, alpha=0.2)
        add_legend(plot, (-10, -10), columns=3)
        plot.setMinimumSize(200, 160)
        plot.setToolTip(
            "Per-frame F1 = 2tp/(2tp+fp+fn); frames where it is undefined "
            "(no positive and no detected pixel) are gaps. Click to go to a frame."
        )
        plot.scene().sigMouseClicked.connect(self._on_frame_plot_clicked)
        return plot

    def _make_tabs(self) -> QTabWidget:
        tabs = QTabWidget()
        for widget, title, tip in (
            (
                self.roc_plot,
                "ROC space",
                "FPR against TPR: one point per detector and "
                "video; large markers are the blended summaries",
            ),
            (self.pr_plot, "PR space", "Recall against precision, with iso-F1 lines"),
            (self.frame_plot, "Per-frame F", "F1 of every evaluated frame of one video"),
            (
                self.liris_view,
                "LIRIS curves",
                "LIRIS performance against quality: F as "
                "one threshold varies, the other three at ε",
            ),
        ):
            index = tabs.addTab(widget, title)
            tabs.setTabToolTip(index, tip)
        return tabs

    def set_detector_order(self, names: Sequence[str]) -> None:
        """The project's detector list: each detector's colour is that of its position there
        (from the next result shown on)."""
        self._detector_order = tuple(names)

    def clear(self) -> None:
        """Drop the results shown (another project was opened): the plots empty."""
        self._pixels, self._curves, self._frame_f, self._actions = None, None, None, {}
        self._frames = np.zeros(0)
        for drawing in (
            self._spaces_drawing,
            self._curves_drawing,
            self._frame_f_drawing,
            self._actions_drawing,
        ):
            drawing.request()

    def _colours(self, names: Sequence[str]) -> dict[str, tuple[int, int, int]]:
        return detector_colours(names, self._detector_order)

    # --- ROC and PR spaces -------------------------------------------------------------

    def show_pixels(self, result: PixelResult) -> None:
        """Show every detector's videos and its summarized point in the ROC and PR spaces."""
        self._pixels = result
        self._spaces_drawing.request()

    def _add_chance_line(self) -> None:
        chance = pg.PlotDataItem(
            [0, 1],
            [0, 1],
            name="chance (TPR = FPR)",
            pen=pg.mkPen(FAINT_RGBA, width=1, style=Qt.PenStyle.DashLine),
        )
        self.roc_plot.addItem(_named(chance, "chance line"))

    def _add_iso_f_lines(self) -> None:
        pen = pg.mkPen(FAINT_RGBA, width=1, style=Qt.PenStyle.DashLine)
        for f in ISO_F_LEVELS:
            recall, precision = iso_f1_curve(f)
            self.pr_plot.addItem(
                _named(pg.PlotDataItem(recall, precision, pen=pen), f"iso-F {f:.1f}")
            )
            label = pg.TextItem(f"F={f:.1f}", color=FAINT_RGBA[:3], anchor=(0, 1))
            label.setPos(f, f)  # where P = R = F
            self.pr_plot.addItem(label)

    def _make_space_items(self, plot: pg.PlotWidget, name: str) -> Items:
        """A detector's video points (its legend row) and summary star in one space."""
        points = pg.ScatterPlotItem(
            size=VIDEO_POINT_SIZE,
            pen=pg.mkPen("k"),
            name=name,
            hoverable=True,
            tip=self._point_tip,
        )
        star = pg.ScatterPlotItem(
            symbol="star",
            size=SUMMARY_POINT_SIZE,
            pen=pg.mkPen("k", width=1.2),
            hoverable=True,
            tip=self._point_tip,
        )
        return _named(points, f"video points: {name}"), _named(star, f"summary point: {name}")

    @staticmethod
    def _summary_sample() -> pg.ScatterPlotItem:
        """The legend's sample of a summary star (no plot item)."""
        return pg.ScatterPlotItem(
            [], [], symbol="star", size=SUMMARY_POINT_SIZE, brush=pg.mkBrush("w"), pen=pg.mkPen("k")
        )

    def _draw_spaces(self) -> None:
        result = self._pixels
        names = list(result.methods) if result is not None else []
        changed = [series.show(names) for series in self._space_series]
        scheme = result.scheme if result is not None else None
        if any(changed) or scheme != self._summary_scheme:
            self._show_summary_legend(scheme)
        if result is None:
            return
        colours = self._colours(names)
        for name, method in result.methods.items():
            self._set_video_points(name, result.evaluations.get(name, []), colours[name])
            self._set_summary_point(name, method.summary, colours[name])

    def _show_summary_legend(self, scheme: str | None) -> None:
        """The summary star's legend row, last; none without a result."""
        self._summary_scheme = scheme
        for plot, sample in zip((self.roc_plot, self.pr_plot), self._summary_samples):
            legend = plot.getPlotItem().legend
            legend.removeItem(sample)
            if scheme is not None:
                legend.addItem(sample, f"summarized ({scheme} weights)")

    def _set_video_points(
        self, name: str, evaluations: Sequence[VideoEvaluation], colour: tuple[int, int, int]
    ) -> None:
        values = [evaluate_all(e.total, ("fpr", "recall", "precision")) for e in evaluations]
        labels = [f"{name} — {e.confusion.label}" for e in evaluations]
        fpr, tpr, ppv = (
            np.array([v[k].value for v in values]) for k in ("fpr", "recall", "precision")
        )
        for series, x, y in zip(self._space_series, (fpr, tpr), (tpr, ppv)):
            points = series[name][0]
            keep = np.isfinite(x) & np.isfinite(y)
            points.setData(x[keep], y[keep], data=[lab for lab, k in zip(labels, keep) if k])
            points.setBrush(pg.mkBrush(*colour, 200))

    def _set_summary_point(self, name: str, summary: Summary, colour: tuple[int, int, int]) -> None:
        """Place the blended summary's star."""
        fpr, tpr, ppv = (summary.values[k].value for k in ("fpr", "recall", "precision"))
        label = f"{name} — summarized ({summary.scheme})"
        for series, x, y in zip(self._space_series, (fpr, tpr), (tpr, ppv)):
            star = series[name][1]
            xs, ys = _finite([x], [y])
            star.setData(xs, ys, data=[label] * len(xs))
            star.setBrush(pg.mkBrush(*colour))

    @staticmethod
    def _point_tip(x: float, y: float, data: str) -> str:
        return f"{data}\n({x:.4f}, {y:.4f})"

    # --- score curves ------------------------------------------------------------------

    def show_curves(self, result: CurvesResult | None) -> None:
        """Show every soft detector's summarized ROC and PR curves, with its AUC and AP in
        the legends (docs/measures.md §3); ``None`` removes them."""
        self._curves = result
        self._curves_drawing.request()

    @staticmethod
    def _make_score_curve(name: str) -> Items:
        curve = pg.PlotDataItem(connect="finite", name=f"{name} scores")
        return (_named(curve, f"score curve: {name}"),)

    def _draw_curves(self) -> None:
        result = self._curves
        summaries = result.summaries if result is not None else {}
        areas = result.areas if result is not None else {}
        for series in self._curve_series:
            series.show(list(summaries))
        colours = self._colours(list(summaries))
        plots = (self.roc_plot, self.pr_plot)
        for name, (_, curves) in summaries.items():
            ended = curves.with_end()
            spaces = ((ended.fpr, ended.tpr), (ended.tpr, ended.precision))
            for series, plot, (x, y), symbol, area in zip(
                self._curve_series, plots, spaces, AREA_SYMBOLS, areas[name]
            ):
                (curve,) = series[name]
                curve.setData(*_finite(x, y), pen=pg.mkPen(colours[name], width=2))
                text = f"{name} scores: {symbol} {area_text(area)}"
                for sample, label in plot.getPlotItem().legend.items:
                    if sample.item is curve:
                        label.setText(text)

    # --- per-frame F -------------------------------------------------------------------

    def show_frame_f(self, video: str, series: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> None:
        """Show per-frame F1 of one video: detector → (frame numbers, F1 with NaN gaps)."""
        self._frame_f = (video, series)
        frames = [np.asarray(frames) for frames, _ in series.values()]
        self._frames = np.unique(np.concatenate(frames)) if frames else np.zeros(0)
        self._frame_f_drawing.request()

    def _make_frame_curve(self, name: str) -> Items:
        curve = pg.PlotDataItem(connect="finite", name=name, symbolSize=4, symbolPen=None)
        return (_named(curve, f"frame F: {name}"),)

    def _draw_frame_f(self) -> None:
        video, series = self._frame_f if self._frame_f is not None else ("", {})
        plot = self.frame_plot.getPlotItem()
        if self._frame_series.show(list(series)):
            plot.legend.removeItem(self._current_frame_sample)
            if series:
                plot.legend.addItem(self._current_frame_sample, "current frame")
        title = f"Per-frame F1 — {video}" if self._frame_f is not None else None
        if title != self._frame_title:  # a new title lays the plot out again
            self._frame_title = title
            plot.setTitle(title)
        colours = self._colours(list(series))
        for name, (frames, f) in series.items():
            (curve,) = self._frame_series[name]
            x = np.asarray(frames, dtype=float)
            curve.setData(
                x,
                np.asarray(f, dtype=float),
                pen=pg.mkPen(colours[name], width=1.5),
                symbol="o" if len(x) <= MAX_MARKED_FRAMES else None,
                symbolBrush=pg.mkBrush(colours[name]),
            )

    def set_current_frame(self, frame: int) -> None:
        """Move the vertical line of the per-frame F plot to ``frame``."""
        self.current_frame_line.setValue(frame)

    def _on_frame_plot_clicked(self, event) -> None:
        view = self.frame_plot.getPlotItem().getViewBox()
        if self._frames.size == 0 or not view.sceneBoundingRect().contains(event.scenePos()):
            return
        x = view.mapSceneToView(event.scenePos()).x()
        nearest = self._frames[np.argmin(np.abs(self._frames - x))]
        self.frame_requested.emit(int(nearest))

    def frame_position(self, frame: float, f: float) -> QPointF:
        """Where the point (frame, F) of the per-frame plot is, in viewport pixels."""
        scene = self.frame_plot.getPlotItem().getViewBox().mapViewToScene(QPointF(frame, f))
        return QPointF(self.frame_plot.mapFromScene(scene))

    # --- LIRIS curves ------------------------------------------------------------------

    def show_actions(self, evaluations: Mapping[str, ActionEvaluation]) -> None:
        """Show F against each quality threshold (docs/measures.md §4), one panel per criterion."""
        self._actions = evaluations
        self._actions_drawing.request()

    def _make_liris_plot(self, k: int, key: str) -> pg.PlotItem:
        """One empty panel of the LIRIS curves (made once: making plots is slow)."""
        plot = self.liris_view.addPlot(row=k // 2, col=k % 2)
        plot.setLabel("bottom", f"t_{key}: {CRITERIA[key]} threshold")
        plot.setLabel("left", "F")
        plot.setXRange(0, 1, padding=0.02)
        plot.setYRange(0, 1, padding=0.02)
        plot.showGrid(x=True, y=True, alpha=0.2)
        if key == "tp":  # its curves stay high until the last grid values
            add_legend(plot, (10, -10), columns=2)
        return plot

    @staticmethod
    def _make_liris_curve(key: str, name: str) -> Items:
        curve = pg.PlotDataItem(connect="finite", name=name, symbol="o", symbolSize=5)
        return (_named(curve, f"LIRIS F {key}: {name}"),)

    def _draw_actions(self) -> None:
        evaluations = self._actions
        colours = self._colours(list(evaluations))
        for k, series in enumerate(self._liris_series):
            series.show(list(evaluations))
            for name, evaluation in evaluations.items():
                (curve,) = series[name]
                curves = evaluation.overall.curves
                curve.setData(
                    curves.grid,
                    curves.f[k],
                    pen=pg.mkPen(colours[name], width=2),
                    symbolBrush=pg.mkBrush(colours[name]),
                )


__all__ = ["PlotsDock"]
