"""The Plots dock draws the demo's points, iso-F lines, per-frame F and LIRIS curves;
it keeps its items from one result to the next and draws only while it can be seen."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow

from referee.core.colours import DETECTOR_PALETTE
from referee.core.demo.project import demo_project
from referee.core.evaluation.batch import evaluate_method
from referee.core.evaluation.masks import VideoEvaluation
from referee.core.formats.cdnet import discover_videos
from referee.core.formats.liris_xml import read_liris
from referee.core.measures.action_scores import ActionEvaluation, evaluate_actions, operating_point
from referee.core.measures.curves import ISO_F_LEVELS
from referee.core.workflow.options import CurveOptions, PixelOptions
from referee.core.workflow.pixels import run_curves, summarize_evaluations
from referee.core.workflow.results import CurvesResult
from referee.gui.docks.plots import PlotsDock
from tests.core.test_curve_areas import weighted_scikit_areas

DETECTORS = ("mog2", "knn", "cnt")
#: The demo's detector with soft scores.
SOFT = "running-average"
#: The Plots dock's size in the default layout of a 1366×768 window.
LAPTOP_DOCK = (451, 389)


@pytest.fixture(scope="module")
def evaluations(demo) -> dict[str, list[VideoEvaluation]]:
    videos = discover_videos(demo.dataset)
    return {name: evaluate_method(videos, demo.results[name]) for name in DETECTORS}


@pytest.fixture(scope="module")
def actions(demo) -> dict[str, ActionEvaluation]:
    gt = read_liris(demo.actions_gt)
    return {name: evaluate_actions(gt, read_liris(demo.actions[name])) for name in DETECTORS}


def shown_dock(qtbot) -> PlotsDock:
    """A Plots dock on screen (a dock draws only while it can be seen)."""
    widget = PlotsDock()
    qtbot.addWidget(widget)
    widget.resize(700, 450)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@pytest.fixture
def dock(qtbot, evaluations) -> PlotsDock:
    widget = shown_dock(qtbot)
    widget.show_pixels(summarize_evaluations(evaluations))
    return widget


def named(plot, prefix: str) -> list:
    return [item for item in plot.getPlotItem().items if item.objectName().startswith(prefix)]


def scatter_points(items) -> set[tuple[float, float]]:
    points = set()
    for item in items:
        x, y = item.getData()
        points |= {(round(float(a), 12), round(float(b), 12)) for a, b in zip(x, y)}
    return points


def test_roc_space_holds_one_point_per_detector_and_video(dock, evaluations):
    items = named(dock.roc_plot, "video points: ")
    assert sum(len(item.getData()[0]) for item in items) == len(DETECTORS) * 3
    expected = {
        (
            round(e.total.fp / (e.total.fp + e.total.tn), 12),
            round(e.total.tp / (e.total.tp + e.total.fn), 12),
        )
        for videos in evaluations.values()
        for e in videos
    }
    assert scatter_points(items) == expected
    assert {item.name() for item in items} == set(DETECTORS)


def test_summary_point_is_the_blend_of_the_scheme(dock, evaluations):
    dock.show_pixels(summarize_evaluations(evaluations, PixelOptions(weights="video")))
    counts = np.array(
        [[e.total.tp, e.total.fp, e.total.fn, e.total.tn] for e in evaluations["knn"]], dtype=float
    )
    tp, fp, fn, tn = (counts / counts.sum(axis=1, keepdims=True)).mean(axis=0)
    (roc,) = named(dock.roc_plot, "summary point: knn")
    (pr,) = named(dock.pr_plot, "summary point: knn")
    assert scatter_points([roc]) == {(round(fp / (fp + tn), 12), round(tp / (tp + fn), 12))}
    assert scatter_points([pr]) == {(round(tp / (tp + fn), 12), round(tp / (tp + fp), 12))}


def test_iso_f_lines_satisfy_their_f(dock):
    for f in ISO_F_LEVELS:
        (line,) = named(dock.pr_plot, f"iso-F {f:.1f}")
        recall, precision = line.getData()
        assert len(recall) > 10
        assert np.all((recall >= 0) & (recall <= 1 + 1e-12))
        assert np.all((precision >= 0) & (precision <= 1 + 1e-12))
        np.testing.assert_allclose(2 * precision * recall / (precision + recall), f, atol=1e-12)


def test_undefined_points_are_left_out(qtbot):
    no_positive = VideoEvaluation.from_per_frame("", "empty", np.array([[1, 0, 5, 0, 95, 0]]))
    some = VideoEvaluation.from_per_frame("", "some", np.array([[1, 3, 1, 1, 95, 0]]))
    dock = shown_dock(qtbot)
    dock.show_pixels(summarize_evaluations({"m": [no_positive, some]}))
    assert scatter_points(named(dock.roc_plot, "video points: ")) == {(round(1 / 96, 12), 0.75)}
    assert scatter_points(named(dock.pr_plot, "video points: ")) == {(0.75, 0.75)}


def test_per_frame_f_and_its_curve(dock, evaluations):
    street = evaluations["cnt"][1]
    rows = street.per_frame
    tp, fp, fn = (rows[:, k].astype(float) for k in (1, 2, 3))
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), math.nan)
    frames, f = street.frame_f1()
    np.testing.assert_array_equal(frames, rows[:, 0])
    np.testing.assert_allclose(f, expected, atol=1e-12)

    dock.show_frame_f("baseline/street", {"cnt": (frames, f)})
    (curve,) = named(dock.frame_plot, "frame F: cnt")
    np.testing.assert_array_equal(curve.yData, expected)
    np.testing.assert_array_equal(curve.xData, rows[:, 0])
    dock.set_current_frame(int(frames[5]))
    assert dock.current_frame_line.value() == frames[5]


def test_per_frame_gap_is_nan_not_zero(qtbot):
    rows = np.array([[1, 4, 0, 0, 96, 0], [2, 0, 0, 0, 100, 0], [3, 2, 2, 0, 96, 0]])
    _frames, f = VideoEvaluation.from_per_frame("", "v", rows).frame_f1()
    assert f[0] == 1.0 and math.isnan(f[1]) and f[2] == pytest.approx(4 / 6)


def test_clicking_a_point_requests_its_frame(dock, evaluations, qtbot):
    frames, f = evaluations["mog2"][0].frame_f1()
    dock.show_frame_f("baseline/plaza", {"mog2": (frames, f)})
    dock.tabs.setCurrentWidget(dock.frame_plot)
    dock.show()
    qtbot.waitExposed(dock)
    view = dock.frame_plot.getPlotItem().getViewBox()
    qtbot.waitUntil(lambda: view.sceneBoundingRect().width() > 300)
    qtbot.wait(20)  # let the view range settle after layout
    k = len(frames) // 2
    position = dock.frame_position(float(frames[k]), float(np.nan_to_num(f[k])))
    with qtbot.waitSignal(dock.frame_requested) as signal:
        qtbot.mouseClick(
            dock.frame_plot.viewport(), Qt.MouseButton.LeftButton, pos=position.toPoint()
        )
    assert signal.args == [int(frames[k])]


def test_liris_curves_are_f_at_each_threshold(dock, actions):
    dock.show_actions(actions)
    plots = [item for item in dock.liris_view.ci.items if isinstance(item, pg.PlotItem)]
    assert len(plots) == 4
    for k, key in enumerate(("sr", "sp", "tr", "tp")):
        plot = next(
            p for p in plots if any(i.objectName() == f"LIRIS F {key}: knn" for i in p.items)
        )
        (curve,) = [i for i in plot.items if i.objectName() == f"LIRIS F {key}: knn"]
        for t, y in zip(curve.xData, curve.yData):
            thresholds = [0.1] * 4
            thresholds[k] = t
            assert y == pytest.approx(operating_point(actions["knn"].matching, thresholds).f.value)
        assert list(curve.xData) == pytest.approx([i / 10 for i in range(11)])


def test_dock_identity(dock):
    assert dock.objectName() == "PlotsDock"
    assert dock.windowTitle() == "Plots"
    assert [dock.tabs.tabText(i) for i in range(dock.tabs.count())] == [
        "ROC space",
        "PR space",
        "Per-frame F",
        "LIRIS curves",
    ]


def _rgb(colour) -> tuple[int, int, int]:
    return colour.getRgb()[:3]


def test_a_detector_has_its_project_colour_in_every_plot(dock, evaluations, actions):
    # The project lists mog before cnt; the ROC plot has mog2, knn, cnt, the LIRIS curves
    # only cnt and knn: cnt is the project's 4th detector in both.
    dock.set_detector_order(("mog2", "knn", "mog", "cnt"))
    dock.show_pixels(summarize_evaluations(evaluations))
    cnt, knn = DETECTOR_PALETTE[3], DETECTOR_PALETTE[1]
    (points,) = named(dock.roc_plot, "video points: cnt")
    assert _rgb(points.opts["brush"].color()) == cnt
    (star,) = named(dock.pr_plot, "summary point: knn")
    assert _rgb(star.opts["brush"].color()) == knn
    frames, f = evaluations["cnt"][0].frame_f1()
    dock.show_frame_f("baseline/plaza", {"cnt": (frames, f)})
    (curve,) = named(dock.frame_plot, "frame F: cnt")
    assert _rgb(pg.mkPen(curve.opts["pen"]).color()) == cnt
    dock.show_actions({"cnt": actions["cnt"], "knn": actions["knn"]})
    liris = [i for plot in dock.liris_view.ci.items for i in getattr(plot, "items", [])]
    (sr,) = [i for i in liris if i.objectName() == "LIRIS F sr: cnt"]
    assert _rgb(pg.mkPen(sr.opts["pen"]).color()) == cnt


def test_the_order_colours_the_next_result(dock, evaluations):
    (before,) = named(dock.roc_plot, "video points: cnt")
    assert _rgb(before.opts["brush"].color()) == DETECTOR_PALETTE[2]  # third in the plot
    dock.set_detector_order(("cnt", "mog2", "knn"))
    dock.show_pixels(summarize_evaluations(evaluations))
    (after,) = named(dock.roc_plot, "video points: cnt")
    assert _rgb(after.opts["brush"].color()) == DETECTOR_PALETTE[0]


def test_clearing_empties_every_plot(dock, evaluations, actions):
    frames, f = evaluations["cnt"][0].frame_f1()
    dock.show_frame_f("baseline/plaza", {"cnt": (frames, f)})
    dock.show_actions(actions)
    dock.clear()
    for plot in (dock.roc_plot, dock.pr_plot):
        assert named(plot, "video points: ") == named(plot, "summary point: ") == []
        rows = [label.text for _, label in plot.getPlotItem().legend.items]
        assert not any(row.startswith("summarized") for row in rows)
    assert named(dock.frame_plot, "frame F: ") == []
    assert dock.frame_plot.getPlotItem().legend.items == []
    liris = [i for plot in dock.liris_view.ci.items for i in getattr(plot, "items", [])]
    assert not [i for i in liris if i.objectName().startswith("LIRIS F ")]
    # The fixed items stay.
    assert len(named(dock.pr_plot, "iso-F ")) == len(ISO_F_LEVELS)
    assert len(named(dock.roc_plot, "chance line")) == 1


def test_redrawing_keeps_one_legend_row_each(dock, evaluations):
    dock.show_pixels(summarize_evaluations(evaluations))
    dock.set_detector_order(("cnt",))
    rows = [label.text for _, label in dock.roc_plot.getPlotItem().legend.items]
    # The chance line, each detector, the summary star: once each.
    assert len(rows) == len(set(rows)) == 1 + len(DETECTORS) + 1
    assert {"chance (TPR = FPR)", *DETECTORS} < set(rows)


def test_showing_another_video_keeps_one_current_frame_row(dock, evaluations):
    for video in (0, 1):
        frames, f = evaluations["cnt"][video].frame_f1()
        dock.show_frame_f(f"video {video}", {"cnt": (frames, f)})
    rows = [label.text for _, label in dock.frame_plot.getPlotItem().legend.items]
    assert rows == ["cnt", "current frame"]


def _space_items(dock: PlotsDock) -> list:
    return [
        item
        for plot in (dock.roc_plot, dock.pr_plot)
        for item in plot.getPlotItem().items
        if item.objectName().startswith(("video points: ", "summary point: "))
    ]


def test_a_new_result_of_the_same_detectors_reuses_the_plot_items(dock, evaluations, actions):
    first = _space_items(dock)
    before = scatter_points(named(dock.roc_plot, "video points: knn"))
    frames, f = evaluations["cnt"][0].frame_f1()
    dock.show_frame_f("baseline/plaza", {"cnt": (frames, f)})
    dock.show_actions(actions)
    (curve,) = named(dock.frame_plot, "frame F: cnt")
    liris = [i for p in dock.liris_view.ci.items for i in getattr(p, "items", [])]
    # A second result: knn's first video left out, so that its points change.
    fewer = dict(evaluations, knn=evaluations["knn"][1:])
    dock.show_pixels(summarize_evaluations(fewer))
    frames2, f2 = evaluations["cnt"][1].frame_f1()
    dock.show_frame_f("baseline/street", {"cnt": (frames2, f2)})
    dock.show_actions(dict(actions))
    assert len(first) == 4 * len(DETECTORS)
    assert all(a is b for a, b in zip(_space_items(dock), first, strict=True))
    (same_curve,) = named(dock.frame_plot, "frame F: cnt")
    assert same_curve is curve
    np.testing.assert_array_equal(same_curve.xData, frames2)
    assert [i for p in dock.liris_view.ci.items for i in getattr(p, "items", [])] == liris
    # The reused items show the new data: knn lost the point of its first video.
    after = scatter_points(named(dock.roc_plot, "video points: knn"))
    assert len(after) == 2 and after < before


def test_a_hidden_dock_draws_the_latest_result_when_shown(qtbot, evaluations):
    widget = PlotsDock()
    qtbot.addWidget(widget)
    widget.resize(700, 450)
    widget.show_pixels(summarize_evaluations({"knn": evaluations["knn"]}))
    widget.show_pixels(summarize_evaluations(evaluations))
    assert named(widget.roc_plot, "video points: ") == []  # not drawn while hidden
    widget.show()
    qtbot.waitExposed(widget)
    items = named(widget.roc_plot, "video points: ")
    assert {item.name() for item in items} == set(DETECTORS)  # the latest result


def test_a_dock_behind_another_tab_draws_when_raised(qtbot, evaluations):
    window = QMainWindow()
    qtbot.addWidget(window)
    window.setCentralWidget(QLabel("frames"))
    front, plots = QDockWidget("Front", window), PlotsDock(window)
    front.setWidget(QLabel("in front"))
    for widget in (front, plots):
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, widget)
    window.tabifyDockWidget(front, plots)
    window.resize(1200, 700)
    window.show()
    front.raise_()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: plots.visibleRegion().isEmpty())
    plots.show_pixels(summarize_evaluations(evaluations))
    assert plots.isVisible() and named(plots.roc_plot, "video points: ") == []
    plots.raise_()
    qtbot.waitUntil(lambda: len(named(plots.roc_plot, "video points: ")) == len(DETECTORS))


@pytest.fixture(scope="module")
def curves(demo) -> CurvesResult:
    return run_curves(demo_project(demo), CurveOptions(workers=1))


def legend_rows(plot) -> list[str]:
    return [label.text for _, label in plot.getPlotItem().legend.items]


def test_score_curves_carry_scikit_learns_auc_and_ap_in_their_legends(
    qtbot, demo, curves, evaluations
):
    dock = shown_dock(qtbot)
    dock.resize(*LAPTOP_DOCK)
    dock.show_pixels(summarize_evaluations(evaluations))  # their legend rows too
    dock.show_curves(curves)
    # The summary weighs categories (auto): baseline's two videos 1/4 each, shadow's one 1/2,
    # each pixel its video's weight over its pixels.
    weights = {"plaza": 0.25, "street": 0.25, "corridor": 0.5}
    auc, ap = weighted_scikit_areas(discover_videos(demo.dataset), demo.soft_results[SOFT], weights)
    for plot, symbol, value in ((dock.roc_plot, "AUC", auc), (dock.pr_plot, "AP", ap)):
        dock.tabs.setCurrentWidget(plot)
        view = plot.getPlotItem().getViewBox()
        qtbot.waitUntil(lambda view=view: view.sceneBoundingRect().width() > dock.width() / 2)
        assert f"{SOFT} scores: {symbol} {value:.4f}" in legend_rows(plot)
        legend = plot.getPlotItem().legend
        # Legible: the whole legend lies inside the plot, none of its rows cut.
        assert view.sceneBoundingRect().contains(legend.sceneBoundingRect())
    # The ROC line runs from "all detected" (1, 1) to "nothing detected" (0, 0); its trapezoids
    # are the AUC.
    (line,) = named(dock.roc_plot, f"score curve: {SOFT}")
    fpr, tpr = line.getData()
    assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (1.0, 1.0, 0.0, 0.0)
    assert np.sum((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2) == pytest.approx(auc, rel=1e-9)


def test_score_curves_are_redrawn_in_place_and_cleared(qtbot, curves):
    dock = shown_dock(qtbot)
    dock.show_curves(curves)
    (before,) = named(dock.pr_plot, f"score curve: {SOFT}")
    dock.show_curves(curves)
    assert named(dock.pr_plot, f"score curve: {SOFT}") == [before]
    assert sum("scores:" in row for row in legend_rows(dock.pr_plot)) == 1
    dock.clear()
    for plot in (dock.roc_plot, dock.pr_plot):
        assert named(plot, "score curve: ") == []
        assert not any("scores:" in row for row in legend_rows(plot))
