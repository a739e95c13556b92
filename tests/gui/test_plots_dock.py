"""The Plots dock draws the demo's points, iso-F lines, per-frame F and LIRIS curves."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt

from referee.core.evaluation.masks import VideoEvaluation, evaluate_method
from referee.core.formats.cdnet import discover_videos
from referee.core.formats.liris_xml import read_liris
from referee.core.measures.action_scores import ActionEvaluation, evaluate_actions, operating_point
from referee.core.measures.curves import ISO_F_LEVELS
from referee.core.workflow.options import PixelOptions
from referee.core.workflow.pixels import summarize_evaluations
from referee.gui.docks.plots import PlotsDock

DETECTORS = ("mog2", "knn", "cnt")


@pytest.fixture(scope="module")
def evaluations(demo) -> dict[str, list[VideoEvaluation]]:
    videos = discover_videos(demo.dataset)
    return {name: evaluate_method(videos, demo.results[name]) for name in DETECTORS}


@pytest.fixture(scope="module")
def actions(demo) -> dict[str, ActionEvaluation]:
    gt = read_liris(demo.actions_gt)
    return {name: evaluate_actions(gt, read_liris(demo.actions[name])) for name in DETECTORS}


@pytest.fixture
def dock(qtbot, evaluations) -> PlotsDock:
    widget = PlotsDock()
    qtbot.addWidget(widget)
    widget.resize(700, 450)
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
    dock = PlotsDock()
    qtbot.addWidget(dock)
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
