"""The Indicators dock shows the demo's indicators, counts and both summaries (docs/measures.md §2)."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication, QIcon

from referee.core.colours import detector_colour
from referee.core.evaluation.batch import evaluate_method
from referee.core.evaluation.masks import VideoEvaluation
from referee.core.formats.cdnet import discover_videos
from referee.core.workflow.options import PixelOptions
from referee.core.workflow.pixels import summarize_evaluations
from referee.gui.docks.indicator_model import EXPORT_ROLE
from referee.gui.docks.indicators import IndicatorsDock

DETECTORS = ("mog2", "knn", "cnt")


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


def shown(widget: IndicatorsDock, qtbot) -> IndicatorsDock:
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def headers(dock: IndicatorsDock) -> list[str]:
    model = dock.table.model()
    return [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]


def column(dock: IndicatorsDock, header: str) -> int:
    return headers(dock).index(header)


def cell(dock: IndicatorsDock, row: int, header: str, role=Qt.ItemDataRole.DisplayRole):
    return dock.table.model().index(row, column(dock, header)).data(role)


def labels(dock: IndicatorsDock) -> list[tuple[str, str]]:
    """(detector, video label) of every row, in view order."""
    rows = range(dock.table.model().rowCount())
    return [(cell(dock, r, "Detector"), cell(dock, r, "Video")) for r in rows]


def row_of(dock: IndicatorsDock, detector: str, label: str) -> int:
    return labels(dock).index((detector, label))


def value(dock: IndicatorsDock, row: int, header: str) -> float:
    return float(cell(dock, row, header, EXPORT_ROLE))


def normalized(e: VideoEvaluation) -> np.ndarray:
    """``[tp, fp, fn, tn]`` divided by the video's evaluated pixels."""
    counts = np.array([e.total.tp, e.total.fp, e.total.fn, e.total.tn], dtype=float)
    return counts / counts.sum()


def f1_of(tp: float, fp: float, fn: float) -> float:
    return 2 * tp / (2 * tp + fp + fn)


def demo_f1(evaluations) -> dict[tuple[str, str], float]:
    """Every row's F1 by hand: per video from its counts; summarized (category weights
    1/4, 1/4, 1/2 for baseline/plaza, baseline/street, shadow/corridor) from the blend of
    normalized counts; CDnet as the mean per category, then the mean of the categories."""
    expected = {}
    weights = np.array([1 / 4, 1 / 4, 1 / 2])
    for name in DETECTORS:
        videos = evaluations[name]
        assert [e.category for e in videos] == ["baseline", "baseline", "shadow"]
        f1 = [f1_of(e.total.tp, e.total.fp, e.total.fn) for e in videos]
        for e, f in zip(videos, f1):
            expected[(name, f"{e.category}/{e.video}")] = f
        blended = weights @ np.array([normalized(e) for e in videos])
        expected[(name, "summarized (category)")] = f1_of(*blended[:3])
        expected[(name, "CDnet procedure")] = ((f1[0] + f1[1]) / 2 + f1[2]) / 2
    return expected


def click_header(view, header: str, dock: IndicatorsDock, qtbot) -> None:
    bar = view.horizontalHeader()
    c = column(dock, header)
    x = bar.sectionViewportPosition(c) + bar.sectionSize(c) // 2
    qtbot.mouseClick(bar.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, bar.height() // 2))


def click_cell(view, row: int, col: int, qtbot) -> None:
    rect = view.visualRect(view.model().index(row, col))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


# --- contents ----------------------------------------------------------------------------


def test_columns_put_f1_precision_recall_first_and_counts_last(dock):
    names = headers(dock)
    assert names[:5] == ["Detector", "Video", "F1", "Precision", "Recall"]
    assert names[-5:] == ["TP", "FP", "FN", "TN", "Shadow errors"]
    assert {"PWC", "MCC", "TNR", "FPR"} <= set(names[5:-5])


def test_video_row_holds_counts_and_indicators(dock, evaluations):
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
        assert cell(dock, row, header) == f"{int(count):,}"
        assert int(cell(dock, row, header, EXPORT_ROLE)) == count
    recall = cm.tp / (cm.tp + cm.fn)
    assert value(dock, row, "Recall") == pytest.approx(recall, abs=1e-12)
    assert cell(dock, row, "Recall") == f"{recall:.4f}"
    assert value(dock, row, "Precision") == pytest.approx(cm.tp / (cm.tp + cm.fp), abs=1e-12)
    assert value(dock, row, "F1") == pytest.approx(f1_of(cm.tp, cm.fp, cm.fn), abs=1e-12)
    assert value(dock, row, "PWC") == pytest.approx(100 * (cm.fp + cm.fn) / cm.total, abs=1e-12)


def test_rows_per_detector_and_selector(dock, evaluations):
    per_detector = len(evaluations["mog2"]) + 2
    assert dock.table.model().rowCount() == len(DETECTORS) * per_detector
    dock.set_detector_checked("knn", False)
    assert dock.selected_detectors() == ["mog2", "cnt"]
    assert {detector for detector, _ in labels(dock)} == {"mog2", "cnt"}
    assert dock.table.model().rowCount() == 2 * per_detector


def test_summary_rows_follow_the_scheme(dock, evaluations, qtbot):
    videos = evaluations["mog2"]
    p = np.array([normalized(e) for e in videos])
    with qtbot.waitSignal(dock.scheme_changed) as signal:
        dock.set_scheme("video")
    assert signal.args == ["video"]
    uniform = p.mean(axis=0)
    row = row_of(dock, "mog2", "summarized (video)")
    assert value(dock, row, "F1") == pytest.approx(f1_of(*uniform[:3]), abs=1e-12)
    assert value(dock, row, "Recall") == pytest.approx(
        uniform[0] / (uniform[0] + uniform[2]), abs=1e-12
    )
    dock.set_scheme("category")
    expected = demo_f1(evaluations)
    row = row_of(dock, "mog2", "summarized (category)")
    assert value(dock, row, "F1") == pytest.approx(expected[("mog2", "summarized (category)")])
    assert value(dock, row, "F1") != pytest.approx(f1_of(*uniform[:3]), abs=1e-6)


def test_cdnet_row_averages_per_category(dock, evaluations):
    videos = evaluations["mog2"]
    pwc = [100 * (e.total.fp + e.total.fn) / e.total.total for e in videos]
    row = row_of(dock, "mog2", "CDnet procedure")
    assert value(dock, row, "F1") == pytest.approx(
        demo_f1(evaluations)[("mog2", "CDnet procedure")], abs=1e-12
    )
    assert value(dock, row, "PWC") == pytest.approx(((pwc[0] + pwc[1]) / 2 + pwc[2]) / 2)


def test_summary_rows_show_their_values_without_scrolling(dock, evaluations, qtbot):
    shown(dock, qtbot)
    expected = demo_f1(evaluations)
    viewport = dock.table.viewport().rect()
    for title in ("summarized (category)", "CDnet procedure"):
        row = row_of(dock, "knn", title)
        assert cell(dock, row, "F1") == f"{expected[('knn', title)]:.4f}"
        assert cell(dock, row, "Detector", Qt.ItemDataRole.FontRole).bold()
        for header in ("F1", "Precision", "Recall"):
            rect = dock.table.visualRect(dock.table.model().index(row, column(dock, header)))
            assert viewport.contains(rect), header  # in view as the dock opens


def test_undefined_value_shows_a_dash_with_the_reason(qtbot):
    no_positive = VideoEvaluation.from_per_frame("", "empty", np.array([[1, 0, 5, 0, 95, 0]]))
    dock = IndicatorsDock()
    qtbot.addWidget(dock)
    dock.show_pixels(summarize_evaluations({"m": [no_positive]}))
    row = row_of(dock, "m", "empty")
    assert cell(dock, row, "Recall") == "—"
    assert cell(dock, row, "Recall", Qt.ItemDataRole.ToolTipRole) == "undefined: no positive pixels"
    assert cell(dock, row, "Recall", EXPORT_ROLE) == ""
    assert cell(dock, row, "FPR") == "0.0500"


def test_header_tooltips_give_formulas(dock):
    model = dock.table.model()
    tips = {
        name: model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
        for c, name in enumerate(headers(dock))
    }
    assert "tp / (tp + fn)" in tips["Recall"]
    assert "2·tp / (2·tp + fp + fn)" in tips["F1"]
    assert "100 · (fp + fn) / n" in tips["PWC"]


def test_detector_swatch_has_the_plot_colour(dock):
    model = dock.table.model()
    for index, name in enumerate(DETECTORS):
        row = row_of(dock, name, "CDnet procedure")
        icon = model.index(row, 0).data(Qt.ItemDataRole.DecorationRole)
        assert isinstance(icon, QIcon)
        image = icon.pixmap(12, 12).toImage()
        centre = image.pixelColor(6, 6)
        assert (centre.red(), centre.green(), centre.blue()) == detector_colour(index)


def test_csv_parses_back_and_ctrl_c_copies_it(dock, qtbot, evaluations):
    dock.set_detector_checked("cnt", False)
    rows = list(csv.reader(io.StringIO(dock.table_csv())))
    assert rows[0] == headers(dock)
    assert len(rows) == 1 + dock.table.model().rowCount() == 1 + 2 * 5
    plaza = next(e for e in evaluations["mog2"] if e.video == "plaza")
    first = dict(zip(rows[0], rows[1]))
    assert (first["Detector"], first["Video"]) == ("mog2", "baseline/plaza")
    assert int(first["TP"]) == plaza.total.tp and int(first["TN"]) == plaza.total.tn
    assert float(first["Recall"]) == pytest.approx(
        plaza.total.tp / (plaza.total.tp + plaza.total.fn)
    )
    dock.columns.set_column_shown(column(dock, "TN"), False)
    assert "TN" not in next(csv.reader(io.StringIO(dock.table_csv())))

    QGuiApplication.clipboard().clear()
    shown(dock, qtbot)
    qtbot.keyClick(dock.table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == dock.table_csv()


# --- sorting, columns, frozen columns ----------------------------------------------------


def test_clicking_f1_sorts_rows_best_first_then_worst_first_then_back(dock, evaluations, qtbot):
    shown(dock, qtbot)
    original = labels(dock)
    expected = demo_f1(evaluations)
    by_f1 = sorted(expected, key=expected.get, reverse=True)
    click_header(dock.table, "F1", dock, qtbot)
    assert labels(dock) == by_f1
    click_header(dock.table, "F1", dock, qtbot)
    assert labels(dock) == by_f1[::-1]
    click_header(dock.table, "F1", dock, qtbot)
    assert labels(dock) == original
    click_header(dock.table.frozen, "Detector", dock, qtbot)  # the frozen header sorts too
    assert [d for d, _ in labels(dock)] == sorted(d for d, _ in original)
    assert dock.table.horizontalHeader().sortIndicatorSection() == 0


def test_undefined_and_empty_values_sort_last_both_ways(qtbot):
    defined = VideoEvaluation.from_per_frame("", "v", np.array([[1, 5, 1, 1, 93, 0]]))
    nothing = VideoEvaluation.from_per_frame("", "v", np.array([[1, 0, 0, 0, 100, 0]]))
    dock = IndicatorsDock()
    qtbot.addWidget(dock)
    shown(dock, qtbot)
    dock.show_pixels(summarize_evaluations({"a": [defined], "b": [nothing]}))
    dock.table.sortByColumn(column(dock, "F1"), Qt.SortOrder.AscendingOrder)
    f1_texts = [cell(dock, r, "F1") for r in range(6)]
    assert f1_texts[-3:] == ["—"] * 3 and "—" not in f1_texts[:3]
    dock.table.sortByColumn(column(dock, "F1"), Qt.SortOrder.DescendingOrder)
    assert [cell(dock, r, "F1") for r in range(6)][-3:] == ["—"] * 3
    for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
        dock.table.sortByColumn(column(dock, "TP"), order)
        assert [cell(dock, r, "TP") for r in range(6)][-4:] == [""] * 4  # summary rows


def test_column_chooser_hides_and_shows_a_column(dock, qtbot):
    shown(dock, qtbot)
    header = dock.table.horizontalHeader()
    with qtbot.waitSignal(dock.columns.menu.aboutToShow):
        header.customContextMenuRequested.emit(QPoint(10, 5))
    menu = dock.columns.menu
    names = [a.text() for a in menu.actions() if a.isCheckable()]
    assert names == headers(dock)[2:]  # Detector and Video cannot be hidden
    fn = next(a for a in menu.actions() if a.text() == "FN")
    fn.trigger()
    menu.close()
    assert dock.table.isColumnHidden(column(dock, "FN"))
    dock.set_scheme("video")  # a new result keeps the choice
    assert dock.table.isColumnHidden(column(dock, "FN"))
    dock.table.setColumnHidden(column(dock, "Video"), True)
    assert not dock.table.isColumnHidden(column(dock, "Video"))
    menu.popup(dock.mapToGlobal(QPoint(0, 0)))
    next(a for a in menu.actions() if a.text() == "FN").trigger()
    menu.close()
    assert not dock.table.isColumnHidden(column(dock, "FN"))


def test_detector_and_video_stay_in_view_after_scrolling_right(dock, qtbot):
    shown(dock, qtbot)
    table, frozen = dock.table, dock.table.frozen
    bar = table.horizontalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum())
    row = row_of(dock, "knn", "summarized (category)")
    last = table.visualRect(table.model().index(row, len(headers(dock)) - 1))
    assert table.viewport().rect().contains(last)  # scrolled to the end
    assert table.visualRect(table.model().index(row, 0)).right() < 0  # scrolled away beneath
    assert frozen.isVisible() and frozen.geometry().width() == table.frozen_width()
    for c in (0, 1):
        rect = frozen.visualRect(frozen.model().index(row, c))
        assert frozen.viewport().rect().contains(rect)
    assert all(frozen.isColumnHidden(c) for c in range(2, len(headers(dock))))
    # A scrolling cell made current is not left under the frozen columns.
    table.setCurrentIndex(table.model().index(row, column(dock, "F1")))
    assert table.visualRect(table.currentIndex()).left() >= table.frozen_width()


# --- highlights --------------------------------------------------------------------------


def ranking_case() -> dict[str, list[VideoEvaluation]]:
    """Three detectors on two 100-pixel videos of two categories, no false positive.

    By hand (category weights 1/2, 1/2):
    a: v1 tp 1 fn 9, v2 tp 50 fn 0 → F1 per video 2/11, 1 → CDnet 0.5909;
       blend tp 25.5 fn 4.5 → summarized F1 51/55.5 = 0.9189.
    b: v1 tp 5 fn 5, v2 tp 40 fn 10 → F1 2/3, 8/9 → CDnet 0.7778;
       blend tp 22.5 fn 7.5 → summarized 45/52.5 = 0.8571.
    c: v1 tp 0 fn 10, v2 tp 10 fn 40 → F1 0, 1/3 → CDnet 0.1667;
       blend tp 5 fn 25 → summarized 10/35 = 0.2857.
    F1 ranks a, b, c summarized but b, a, c by the CDnet procedure: a and b swap, c stays.
    Precision is 1 for all three summarized (tied, rank 1); by the CDnet procedure a and b
    keep 1 but c is undefined (no detection on v1), so ranks 3. PWC averages the same both
    ways (4.5, 7.5, 25: no change); prevalence is the same for every detector (tied).
    """

    def video(category: str, tp: int, fn: int) -> VideoEvaluation:
        return VideoEvaluation.from_per_frame(
            category, category + "-video", np.array([[1, tp, 0, fn, 100 - tp - fn, 0]])
        )

    return {
        "a": [video("one", 1, 9), video("two", 50, 0)],
        "b": [video("one", 5, 5), video("two", 40, 10)],
        "c": [video("one", 0, 10), video("two", 10, 40)],
    }


def test_highlights_mark_the_cells_whose_rank_changes_between_procedures(qtbot):
    dock = IndicatorsDock()
    qtbot.addWidget(dock)
    dock.show_pixels(summarize_evaluations(ranking_case()))
    summarized = {d: row_of(dock, d, "summarized (category)") for d in "abc"}
    cdnet = {d: row_of(dock, d, "CDnet procedure") for d in "abc"}
    hand = {"a": (51 / 55.5, (2 / 11 + 1) / 2), "b": (45 / 52.5, (2 / 3 + 8 / 9) / 2)}
    hand["c"] = (10 / 35, (0 + 1 / 3) / 2)
    for d, (blended, averaged) in hand.items():
        assert value(dock, summarized[d], "F1") == pytest.approx(blended, abs=1e-12)
        assert value(dock, cdnet[d], "F1") == pytest.approx(averaged, abs=1e-12)
    f1 = column(dock, "F1")
    for d, swapped in (("a", True), ("b", True), ("c", False)):
        assert dock.is_highlighted(summarized[d], f1) == swapped
        assert dock.is_highlighted(cdnet[d], f1) == swapped
    tip = cell(dock, summarized["a"], "F1", Qt.ItemDataRole.ToolTipRole)
    assert tip == "F1 ranks a 1 of 3 when summarized but 2 of 3 by the CDnet procedure"
    assert cell(dock, summarized["a"], "F1", Qt.ItemDataRole.BackgroundRole) is not None
    assert cell(dock, summarized["c"], "F1", Qt.ItemDataRole.BackgroundRole) is None
    precision = column(dock, "Precision")
    assert [dock.is_highlighted(summarized[d], precision) for d in "abc"] == [False, False, True]
    assert cell(dock, cdnet["c"], "Precision") == "—"
    for d in "abc":
        for header in ("PWC", "π+", "Detector", "Video", "TP"):
            assert not dock.is_highlighted(summarized[d], column(dock, header))
        video_row = row_of(dock, d, "one/one-video")
        assert not any(dock.is_highlighted(video_row, c) for c in range(len(headers(dock))))


def test_demo_highlights_follow_the_f1_ranks_and_skip_ties(dock, evaluations):
    expected = demo_f1(evaluations)
    ranks = {}
    for title in ("summarized (category)", "CDnet procedure"):
        best_first = sorted(DETECTORS, key=lambda d: expected[(d, title)], reverse=True)
        ranks[title] = {d: best_first.index(d) for d in DETECTORS}
    f1 = column(dock, "F1")
    for d in DETECTORS:
        moved = ranks["summarized (category)"][d] != ranks["CDnet procedure"][d]
        assert dock.is_highlighted(row_of(dock, d, "summarized (category)"), f1) == moved
    # docs/measures.md §2: the CDnet mean of PWC equals its category-weighted summary;
    # prevalence depends on the ground truth only, so every detector ties.
    rows = range(dock.table.model().rowCount())
    for header in ("PWC", "π+"):
        assert not any(dock.is_highlighted(r, column(dock, header)) for r in rows)


# --- selection ---------------------------------------------------------------------------


def test_selecting_a_row_emits_detector_category_and_video(dock, qtbot):
    shown(dock, qtbot)
    frozen = dock.table.frozen
    row = row_of(dock, "knn", "shadow/corridor")
    with qtbot.waitSignal(dock.row_selected) as selected:
        click_cell(frozen, row, 1, qtbot)
    assert selected.args == ["knn", "shadow", "corridor"]
    with qtbot.waitSignal(dock.row_selected) as selected:
        qtbot.keyClick(dock.table, Qt.Key.Key_Down)
    assert selected.args == ["knn", "", ""]  # knn's summarized row follows its last video
    with qtbot.waitSignal(dock.row_selected) as selected:  # clicking the current row again
        click_cell(dock.table, row + 1, column(dock, "F1"), qtbot)
    assert selected.args == ["knn", "", ""]
    summary = row_of(dock, "mog2", "CDnet procedure")
    with qtbot.waitSignal(dock.row_selected) as selected:
        click_cell(frozen, summary, 0, qtbot)
    assert selected.args == ["mog2", "", ""]


def test_selection_survives_a_new_summary_without_a_signal(dock, qtbot):
    shown(dock, qtbot)
    row = row_of(dock, "cnt", "baseline/street")
    click_cell(dock.table.frozen, row, 1, qtbot)
    with qtbot.assertNotEmitted(dock.row_selected):
        dock.set_scheme("pixels")
    current = dock.table.currentIndex()
    assert labels(dock)[current.row()] == ("cnt", "baseline/street")


# --- empty states and identity -----------------------------------------------------------


def test_empty_states_say_what_will_appear(qtbot, evaluations):
    dock = IndicatorsDock()
    qtbot.addWidget(dock)
    assert "F1, precision and recall" in dock.table_area.message()
    assert not dock.detector_button.isEnabled()
    dock.show_pixels(summarize_evaluations(evaluations))
    assert dock.table_area.message() is None
    assert dock.table_area.currentWidget() is dock.table
    for name in DETECTORS:
        dock.set_detector_checked(name, False)
    assert "choose some under Detectors" in dock.table_area.message()
    assert dock.detector_button.text() == "Detectors 0/3"


def test_a_skipped_evaluation_says_why_until_results_come(qtbot, evaluations):
    dock = IndicatorsDock()
    qtbot.addWidget(dock)
    dock.show_unavailable("no detector has masks")
    assert dock.table_area.message() == (
        "No indicators (docs/measures.md §1): no detector has masks."
    )
    assert not dock.detector_button.isEnabled()
    assert dock.legend.isHidden()  # a key to cells no table shows
    dock.show_pixels(summarize_evaluations(evaluations))
    assert dock.table_area.message() is None
    assert not dock.legend.isHidden()


def test_dock_identity(dock):
    assert dock.objectName() == "IndicatorsDock"
    assert dock.windowTitle() == "Indicators"
    assert dock.scheme() == "auto"
    assert "custom" not in [dock.scheme_combo.itemText(i) for i in range(dock.scheme_combo.count())]
