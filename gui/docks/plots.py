"""The Plots dock: ROC and PR spaces, per-frame F, LIRIS performance-vs-quality curves.

Every plotted number comes from ``referee.core``; undefined values (NaN) are
left out, never drawn at 0. Plot items carry an ``objectName`` saying what
they are (``"video points: <detector>"``, ``"summary point: <detector>"``,
``"iso-F 0.5"``, ``"frame F: <detector>"``, ``"LIRIS F <key>: <detector>"``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import QDockWidget, QLabel, QTabWidget, QVBoxLayout, QWidget

from referee.core.evaluation.masks import VideoEvaluation
from referee.core.measures.action_matching import CRITERIA, THRESHOLD_KEYS
from referee.core.measures.action_scores import ActionEvaluation
from referee.core.measures.curves import ISO_F_LEVELS, iso_f1_curve
from referee.core.measures.indicators import evaluate_all
from referee.core.measures.summarize import Summary
from referee.core.workflow.results import PixelResult
from referee.gui.widgets.palette import OKABE_ITO, series_colour

FAINT_RGBA = (*OKABE_ITO["grey"], 120)
CURRENT_FRAME_RGB = OKABE_ITO["vermillion"]
LEGEND_BRUSH_RGBA = (255, 255, 255, 210)
VIDEO_POINT_SIZE = 9
SUMMARY_POINT_SIZE = 18


def _finite(x: Sequence[float], y: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(xs) & np.isfinite(ys)
    return xs[keep], ys[keep]


def _add_legend(plot: pg.PlotItem | pg.PlotWidget, offset: tuple[int, int]) -> pg.LegendItem:
    """A legend with an opaque-ish background; negative offsets anchor right / bottom."""
    return plot.addLegend(
        offset=offset,
        labelTextColor="k",
        brush=pg.mkBrush(*LEGEND_BRUSH_RGBA),
        pen=pg.mkPen(FAINT_RGBA),
    )


def _space_plot(x_label: str, y_label: str, legend_offset: tuple[int, int]) -> pg.PlotWidget:
    plot = pg.PlotWidget()
    plot.setBackground("w")
    plot.setLabel("bottom", x_label)
    plot.setLabel("left", y_label)
    plot.setXRange(0, 1, padding=0.02)
    plot.setYRange(0, 1, padding=0.02)
    plot.showGrid(x=True, y=True, alpha=0.2)
    _add_legend(plot, legend_offset)
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
        self._frames = np.zeros(0)
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
        self.liris_view = pg.GraphicsLayoutWidget()
        self.liris_view.setBackground("w")
        self.note_label = QLabel()
        self.note_label.setWordWrap(True)
        self.note_label.setVisible(False)
        self._liris_plots: list[pg.PlotItem] = []
        self.tabs = self._make_tabs()
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.note_label)
        self.setWidget(body)
        self.setMinimumSize(320, 240)
        self._draw_spaces()

    def _make_frame_plot(self) -> pg.PlotWidget:
        plot = pg.PlotWidget()
        plot.setBackground("w")
        plot.setLabel("bottom", "frame")
        plot.setLabel("left", "F1 of the frame")
        plot.setYRange(0, 1, padding=0.02)
        plot.showGrid(x=True, y=True, alpha=0.2)
        _add_legend(plot, (-10, -10)).setColumnCount(3)
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

    # --- ROC and PR spaces -------------------------------------------------------------

    def show_pixels(self, result: PixelResult) -> None:
        """Show every detector's videos and its summarized point in the ROC and PR spaces."""
        self._pixels = result
        self._draw_spaces()

    def _draw_spaces(self) -> None:
        for plot in (self.roc_plot, self.pr_plot):
            plot.clear()
        self._draw_chance_line()
        self._draw_iso_f_lines()
        notes: list[str] = []
        result = self._pixels
        if result is not None:
            for index, (name, method) in enumerate(result.methods.items()):
                colour = series_colour(index)
                self._draw_video_points(name, result.evaluations.get(name, []), colour)
                self._draw_summary_point(name, method.summary, colour)
            self._add_summary_legend(result.scheme)
        self._set_note(notes)

    def _draw_chance_line(self) -> None:
        chance = pg.PlotDataItem(
            [0, 1],
            [0, 1],
            name="chance (TPR = FPR)",
            pen=pg.mkPen(FAINT_RGBA, width=1, style=Qt.PenStyle.DashLine),
        )
        self.roc_plot.addItem(_named(chance, "chance line"))

    def _draw_iso_f_lines(self) -> None:
        pen = pg.mkPen(FAINT_RGBA, width=1, style=Qt.PenStyle.DashLine)
        for f in ISO_F_LEVELS:
            recall, precision = iso_f1_curve(f)
            self.pr_plot.addItem(
                _named(pg.PlotDataItem(recall, precision, pen=pen), f"iso-F {f:.1f}")
            )
            label = pg.TextItem(f"F={f:.1f}", color=FAINT_RGBA[:3], anchor=(0, 1))
            label.setPos(f, f)  # where P = R = F
            self.pr_plot.addItem(label)

    def _draw_video_points(
        self, name: str, evaluations: Sequence[VideoEvaluation], colour: tuple[int, int, int]
    ) -> None:
        values = [evaluate_all(e.total, ("fpr", "recall", "precision")) for e in evaluations]
        labels = [f"{name} — {e.confusion.label}" for e in evaluations]
        fpr, tpr, ppv = (
            np.array([v[k].value for v in values]) for k in ("fpr", "recall", "precision")
        )
        for plot, x, y in ((self.roc_plot, fpr, tpr), (self.pr_plot, tpr, ppv)):
            keep = np.isfinite(x) & np.isfinite(y)
            points = pg.ScatterPlotItem(
                x[keep],
                y[keep],
                data=[lab for lab, k in zip(labels, keep) if k],
                size=VIDEO_POINT_SIZE,
                brush=pg.mkBrush(*colour, 200),
                pen=pg.mkPen("k"),
                name=name,
                hoverable=True,
                tip=self._point_tip,
            )
            plot.addItem(_named(points, f"video points: {name}"))

    def _draw_summary_point(
        self, name: str, summary: Summary, colour: tuple[int, int, int]
    ) -> None:
        """Draw the blended summary's point."""
        fpr, tpr, ppv = (summary.values[k].value for k in ("fpr", "recall", "precision"))
        label = f"{name} — summarized ({summary.scheme})"
        for plot, x, y in ((self.roc_plot, fpr, tpr), (self.pr_plot, tpr, ppv)):
            xs, ys = _finite([x], [y])
            point = pg.ScatterPlotItem(
                xs,
                ys,
                data=[label] * len(xs),
                symbol="star",
                size=SUMMARY_POINT_SIZE,
                brush=pg.mkBrush(*colour),
                pen=pg.mkPen("k", width=1.2),
                hoverable=True,
                tip=self._point_tip,
            )
            plot.addItem(_named(point, f"summary point: {name}"))

    def _add_summary_legend(self, scheme: str) -> None:
        for plot in (self.roc_plot, self.pr_plot):
            sample = pg.ScatterPlotItem(
                [],
                [],
                symbol="star",
                size=SUMMARY_POINT_SIZE,
                brush=pg.mkBrush("w"),
                pen=pg.mkPen("k"),
            )
            plot.getPlotItem().legend.addItem(sample, f"summarized ({scheme} weights)")

    @staticmethod
    def _point_tip(x: float, y: float, data: str) -> str:
        return f"{data}\n({x:.4f}, {y:.4f})"

    # --- per-frame F -------------------------------------------------------------------

    def show_frame_f(self, video: str, series: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> None:
        """Show per-frame F1 of one video: detector → (frame numbers, F1 with NaN gaps)."""
        plot = self.frame_plot
        plot.clear()
        plot.setTitle(f"Per-frame F1 — {video}", color="k")
        all_frames = []
        for index, (name, (frames, f)) in enumerate(series.items()):
            curve = pg.PlotDataItem(
                np.asarray(frames, dtype=float),
                np.asarray(f, dtype=float),
                connect="finite",
                name=name,
                pen=pg.mkPen(series_colour(index), width=1.5),
                symbol="o",
                symbolSize=4,
                symbolBrush=pg.mkBrush(series_colour(index)),
                symbolPen=None,
            )
            plot.addItem(_named(curve, f"frame F: {name}"))
            all_frames.append(np.asarray(frames))
        if series:
            plot.getPlotItem().legend.addItem(
                pg.PlotDataItem(pen=self.current_frame_line.pen), "current frame"
            )
        self._frames = np.unique(np.concatenate(all_frames)) if all_frames else np.zeros(0)
        plot.addItem(self.current_frame_line, ignoreBounds=True)

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
        if not self._liris_plots:
            self._liris_plots = [
                self._make_liris_plot(k, key) for k, key in enumerate(THRESHOLD_KEYS)
            ]
        for k, (key, plot) in enumerate(zip(THRESHOLD_KEYS, self._liris_plots)):
            plot.clear()
            for index, (name, evaluation) in enumerate(evaluations.items()):
                curves = evaluation.overall.curves
                item = pg.PlotDataItem(
                    curves.grid,
                    curves.f[k],
                    connect="finite",
                    name=name,
                    pen=pg.mkPen(series_colour(index), width=2),
                    symbol="o",
                    symbolSize=5,
                    symbolBrush=pg.mkBrush(series_colour(index)),
                )
                plot.addItem(_named(item, f"LIRIS F {key}: {name}"))

    def _make_liris_plot(self, k: int, key: str) -> pg.PlotItem:
        """One empty panel of the LIRIS curves (made once: making plots is slow)."""
        plot = self.liris_view.addPlot(row=k // 2, col=k % 2)
        plot.setLabel("bottom", f"t_{key}: {CRITERIA[key]} threshold")
        plot.setLabel("left", "F")
        plot.setXRange(0, 1, padding=0.02)
        plot.setYRange(0, 1, padding=0.02)
        plot.showGrid(x=True, y=True, alpha=0.2)
        if key == "tp":  # its curves stay high until the last grid values
            _add_legend(plot, (10, -10)).setColumnCount(2)
        return plot

    # --- notes -------------------------------------------------------------------------

    def _set_note(self, notes: Sequence[str]) -> None:
        self.note_label.setText("\n".join(notes))
        self.note_label.setVisible(bool(notes))


__all__ = ["PlotsDock"]
