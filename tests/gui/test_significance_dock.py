"""SignificanceDock: the request it sends, and the p curve, α line, table and verdict it shows."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QComboBox, QListWidget, QPushButton
from scipy import stats

from referee.core.evaluation.batch import evaluate_method
from referee.core.formats.cdnet import discover_videos
from referee.core.significance.cases import frame_f1_cases
from referee.core.significance.choices import DEFAULT_ALPHA
from referee.core.significance.sweep import compare_cases
from referee.core.significance.wording import verdict_text
from referee.gui.docks.significance import SignificanceDock, SignificanceRequest
from referee.gui.widgets.theme import apply_theme


@pytest.fixture(scope="module")
def cases(demo):
    """Per-frame F1 of mog2 and knn on the demo's first video."""
    videos = discover_videos(demo.dataset)[:1]
    return frame_f1_cases({m: evaluate_method(videos, demo.results[m]) for m in ("mog2", "knn")})


@pytest.fixture
def dock(qtbot) -> SignificanceDock:
    dock = SignificanceDock()
    qtbot.addWidget(dock)
    dock.set_detectors(["mog2", "knn", "cnt"])
    dock.set_case_kinds(["frames", "pseudo"])
    return dock


def test_p_curve_alpha_line_and_table(dock, cases) -> None:
    result = compare_cases(cases, alpha=0.01)
    dock.show_result(result)
    x, y = dock.p_curve.getOriginalDataset()
    # Default grid: 20 thresholds k·max d/20, normalized by their sum → k / 190.
    np.testing.assert_allclose(x, np.arange(20) / 190)
    # The first threshold removes nothing: the plain paired t-test on every frame.
    everything = stats.ttest_rel(cases.column("mog2"), cases.column("knn")).pvalue
    assert y[0] == pytest.approx(everything)
    assert len(y) == len(result.rows)
    assert 10 ** dock.alpha_line.value() == pytest.approx(0.01)  # log10 p axis
    assert dock.alpha_line.angle == 0
    table = dock.table
    assert table.rowCount() == 20
    assert table.item(0, 3).text() == str(len(cases))
    assert table.item(0, 6).text() == f"{everything:.3g}"
    legend = [label.text for _, label in dock.p_curve.getViewBox().parentItem().legend.items]
    assert legend == ["p-value", "α = 0.01"]


def test_verdict_is_shown_in_words(dock, cases) -> None:
    assert dock.empty_message is not None and dock.empty_message.startswith("No test yet")
    result = compare_cases(cases)
    dock.show_result(result)
    assert dock.empty_message is None  # the plot and the table in its place
    assert verdict_text(result) in dock.verdict_text
    assert dock.verdict_text.startswith(("mog2 and knn differ", "no significant difference"))


def test_run_sends_methods_kind_test_and_alpha(qtbot, dock) -> None:
    assert dock.request() == SignificanceRequest(("mog2", "knn"), "frames", "auto", DEFAULT_ALPHA)
    dock.findChild(QListWidget).item(2).setCheckState(Qt.CheckState.Checked)
    kind, test = dock.findChildren(QComboBox)[:2]
    assert kind.itemText(1) == "pseudo (per-frame pseudo-F1)"
    kind.setCurrentIndex(1)
    test.setCurrentIndex(test.findData("friedman"))
    run = next(b for b in dock.findChildren(QPushButton) if b.text() == "Run")
    with qtbot.waitSignal(dock.run_requested) as signal:
        qtbot.mouseClick(run, Qt.MouseButton.LeftButton)
    assert signal.args == [
        SignificanceRequest(("mog2", "knn", "cnt"), "pseudo", "friedman", DEFAULT_ALPHA)
    ]


def test_the_default_request_runs_through_the_session(qtbot, demo) -> None:
    """The default test, 'auto', once failed with "unknown test 'auto'"."""
    from referee.core.demo.project import demo_project
    from referee.gui.session import ProjectSession
    from referee.gui.worker import JobRunner

    dock = SignificanceDock()
    qtbot.addWidget(dock)
    dock.set_detectors(["mog2", "knn", "cnt"])
    dock.set_case_kinds(["frames", "pseudo"])
    runner = JobRunner()
    session = ProjectSession(runner)
    session.project = demo_project(demo)
    errors: list[str] = []
    session.error.connect(errors.append)
    session.run_significance(dock.request().options())
    qtbot.waitUntil(lambda: session.significance is not None or bool(errors), timeout=60000)
    assert errors == []
    assert session.significance.test == "t" and session.significance.methods == ("mog2", "knn")
    dock.show_result(session.significance)
    assert dock.verdict_text.startswith(verdict_text(session.significance))
    runner.wait()


def test_the_p_curve_is_drawn_in_the_text_colour_of_either_theme(dock) -> None:
    # The p-value curve is no detector's: it takes the text colour, and follows the theme.
    for dark in (True, False):
        apply_theme(dock, dark=dark)
        QApplication.processEvents()  # the palette reaches widgets by a posted event
        text = QApplication.palette().color(QPalette.ColorRole.Text)
        assert dock.p_curve.opts["pen"].color().getRgb() == text.getRgb()
