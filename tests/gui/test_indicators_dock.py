"""The Indicators dock shows the demo's counts, indicators and both summaries (docs/measures.md §2)."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from referee.core.evaluation.masks import VideoEvaluation, evaluate_method
from referee.core.formats.cdnet import discover_videos
from referee.core.workflow.options import PixelOptions
from referee.core.workflow.pixels import summarize_evaluations
from referee.gui.docks.indicators import IndicatorsDock

DETECTORS = ("mog2", "knn", "cnt")
EXPORT = Qt.ItemDataRole.UserRole


@pytest.fixture(scope="module")
def evaluations(demo) -> dict[str, list[VideoEvaluation]]:
    videos = discover_videos(demo.dataset)
    return {name: evaluate_method(videos, demo.results[name]) for name in DETECTORS}


@pytest.fixture
def dock(qtbot, evaluations) -> IndicatorsDock:
    widget = IndicatorsDock()
    qtbot.addWidget(widget)
    widget.resize(700, 450)
    # The session summarizes again when the scheme changes; here the test does it.
    widget.scheme_changed.connect(
        lambda scheme: widget.show_pixels(
            summarize_evaluations(evaluations, PixelOptions(weights=scheme))
        )
    )
    widget.show_pixels(summarize_evaluations(evaluations))
    return widget


def column(dock: IndicatorsDock, header: str) -> int:
    headers = [dock.table.horizontalHeaderItem(c).text() for c in range(dock.table.columnCount())]
    return headers.index(header)


def row_of(dock: IndicatorsDock, detector: str, label: str) -> int:
    for row in range(dock.table.rowCount()):
        if (dock.table.item(row, 0).text(), dock.table.item(row, 1).text()) == (detector, label):
            return row
    raise AssertionError(f"no row {detector} / {label}")


def value(dock: IndicatorsDock, row: int, header: str) -> float:
    return float(dock.table.item(row, column(dock, header)).data(EXPORT))


def normalized(e: VideoEvaluation) -> np.ndarray:
    """``[tp, fp, fn, tn]`` divided by the video's evaluated pixels."""
    counts = np.array([e.total.tp, e.total.fp, e.total.fn, e.total.tn], dtype=float)
    return counts / counts.sum()


def f1_of(tp: float, fp: float, fn: float) -> float:
    return 2 * tp / (2 * tp + fp + fn)


def test_video_row_holds_counts_and_recall(dock, evaluations):
    e = next(v for v in evaluations["knn"] if v.video == "street")
    row = row_of(dock, "knn", "baseline/street")
    cm = e.total
    for header, count in (
        ("TP", cm.tp),
        ("FP", cm.fp),
        ("FN", cm.fn),
        ("TN", cm.tn),
        ("Shadow errors", e.shadow_errors),
    ):
        assert dock.table.item(row, column(dock, header)).text() == f"{int(count):,}"
        assert int(dock.table.item(row, column(dock, header)).data(EXPORT)) == count
    recall = cm.tp / (cm.tp + cm.fn)
    assert value(dock, row, "TPR") == pytest.approx(recall, abs=1e-12)
    assert dock.table.item(row, column(dock, "TPR")).text() == f"{recall:.4f}"
    assert value(dock, row, "PWC") == pytest.approx(100 * (cm.fp + cm.fn) / cm.total, abs=1e-12)


def test_rows_per_detector_and_selector(dock, evaluations):
    per_detector = len(evaluations["mog2"]) + 2
    assert dock.table.rowCount() == len(DETECTORS) * per_detector
    dock.set_detector_checked("knn", False)
    assert dock.selected_detectors() == ["mog2", "cnt"]
    shown = {dock.table.item(r, 0).text() for r in range(dock.table.rowCount())}
    assert shown == {"mog2", "cnt"}
    assert dock.table.rowCount() == 2 * per_detector


def test_summary_rows_follow_the_scheme(dock, evaluations, qtbot):
    videos = evaluations["mog2"]
    p = np.array([normalized(e) for e in videos])
    with qtbot.waitSignal(dock.scheme_changed) as signal:
        dock.set_scheme("video")
    assert signal.args == ["video"]
    uniform = p.mean(axis=0)
    row = row_of(dock, "mog2", "summarized (video)")
    assert value(dock, row, "F1") == pytest.approx(f1_of(*uniform[:3]), abs=1e-12)
    assert value(dock, row, "TPR") == pytest.approx(
        uniform[0] / (uniform[0] + uniform[2]), abs=1e-12
    )

    dock.set_scheme("category")  # demo: baseline/plaza, baseline/street, shadow/corridor
    weights = np.array([1 / 4, 1 / 4, 1 / 2])
    assert [e.category for e in videos] == ["baseline", "baseline", "shadow"]
    blended = weights @ p
    row = row_of(dock, "mog2", "summarized (category)")
    assert value(dock, row, "F1") == pytest.approx(f1_of(*blended[:3]), abs=1e-12)
    assert value(dock, row, "F1") != pytest.approx(f1_of(*uniform[:3]), abs=1e-6)


def test_cdnet_row_and_highlighted_cells(dock, evaluations):
    videos = evaluations["mog2"]
    f1 = [f1_of(e.total.tp, e.total.fp, e.total.fn) for e in videos]
    pwc = [100 * (e.total.fp + e.total.fn) / e.total.total for e in videos]
    cdnet_f1 = ((f1[0] + f1[1]) / 2 + f1[2]) / 2
    cdnet_pwc = ((pwc[0] + pwc[1]) / 2 + pwc[2]) / 2
    summary, cdnet = (
        row_of(dock, "mog2", "summarized (category)"),
        row_of(dock, "mog2", "CDnet procedure"),
    )
    assert value(dock, cdnet, "F1") == pytest.approx(cdnet_f1, abs=1e-12)
    assert value(dock, cdnet, "PWC") == pytest.approx(cdnet_pwc, abs=1e-12)
    # docs/measures.md §2: average PWC equals the category-weighted summary; F does not.
    assert dock.is_highlighted(summary, column(dock, "F1"))
    assert dock.is_highlighted(cdnet, column(dock, "F1"))
    assert not dock.is_highlighted(summary, column(dock, "PWC"))
    first_indicator = column(dock, "Shadow errors") + 1
    for c in range(first_indicator, dock.table.columnCount()):
        a, b = (float(dock.table.item(r, c).data(EXPORT)) for r in (summary, cdnet))
        differ = abs(a - b) > 1e-9
        assert dock.is_highlighted(summary, c) == differ
        assert dock.is_highlighted(cdnet, c) == differ
        brush = dock.table.item(summary, c).background()
        assert (brush.style() != Qt.BrushStyle.NoBrush) == differ
    for c in range(first_indicator):
        assert not dock.is_highlighted(summary, c)


def test_undefined_value_shows_a_dash_with_the_reason(qtbot):
    no_positive = VideoEvaluation.from_per_frame("", "empty", np.array([[1, 0, 5, 0, 95, 0]]))
    dock = IndicatorsDock()
    qtbot.addWidget(dock)
    dock.show_pixels(summarize_evaluations({"m": [no_positive]}))
    row = row_of(dock, "m", "empty")
    item = dock.table.item(row, column(dock, "TPR"))
    assert item.text() == "—"
    assert item.toolTip() == "undefined: no positive pixels"
    assert item.data(EXPORT) == ""
    assert dock.table.item(row, column(dock, "FPR")).text() == "0.0500"


def test_header_tooltips_give_formulas(dock):
    tips = {
        dock.table.horizontalHeaderItem(c).text(): dock.table.horizontalHeaderItem(c).toolTip()
        for c in range(dock.table.columnCount())
    }
    assert "tp / (tp + fn)" in tips["TPR"]
    assert "2·tp / (2·tp + fp + fn)" in tips["F1"]
    assert "100 · (fp + fn) / n" in tips["PWC"]


def test_csv_parses_back_and_ctrl_c_copies_it(dock, qtbot, evaluations):
    dock.set_detector_checked("cnt", False)
    rows = list(csv.reader(io.StringIO(dock.table_csv())))
    header = [dock.table.horizontalHeaderItem(c).text() for c in range(dock.table.columnCount())]
    assert rows[0] == header
    assert len(rows) == 1 + dock.table.rowCount() == 1 + 2 * 5
    plaza = next(e for e in evaluations["mog2"] if e.video == "plaza")
    first = dict(zip(header, rows[1]))
    assert (first["Detector"], first["Video"]) == ("mog2", "baseline/plaza")
    assert int(first["TP"]) == plaza.total.tp and int(first["TN"]) == plaza.total.tn
    assert float(first["TPR"]) == pytest.approx(plaza.total.tp / (plaza.total.tp + plaza.total.fn))

    QGuiApplication.clipboard().clear()
    dock.show()
    qtbot.waitExposed(dock)
    qtbot.keyClick(dock.table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == dock.table_csv()


def test_clicking_a_video_row_selects_the_video(dock, qtbot):
    dock.show()
    qtbot.waitExposed(dock)
    row = row_of(dock, "knn", "shadow/corridor")
    rect = dock.table.visualItemRect(dock.table.item(row, 1))
    with qtbot.waitSignal(dock.video_selected) as signal:
        qtbot.mouseClick(dock.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert signal.args == ["shadow", "corridor"]
    summary = dock.table.visualItemRect(dock.table.item(row_of(dock, "mog2", "CDnet procedure"), 1))
    with qtbot.assertNotEmitted(dock.video_selected):
        qtbot.mouseClick(dock.table.viewport(), Qt.MouseButton.LeftButton, pos=summary.center())


def test_dock_identity(dock):
    assert dock.objectName() == "IndicatorsDock"
    assert dock.windowTitle() == "Indicators"
    assert dock.scheme() == "auto"
    assert "custom" not in [dock.scheme_combo.itemText(i) for i in range(dock.scheme_combo.count())]
