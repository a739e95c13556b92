"""PseudoDock: the committee request and the pseudo / true / correlation values it shows."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QListWidget, QPushButton
from scipy import stats

from referee.core.evaluation.batch import evaluate_method
from referee.core.formats.cdnet import discover_videos
from referee.core.pseudo.committee_options import CommitteeOptions
from referee.core.pseudo.dataset import pseudo_evaluate, summarize_pseudo
from referee.core.pseudo.truth import compare_with_truth
from referee.gui.docks.pseudo import NO_HEATMAP, NO_RESULT, PseudoDock, PseudoRequest

METHODS = ("mog2", "knn", "cnt")


@pytest.fixture(scope="module")
def evaluated(demo):
    """Pseudo result, truth comparison and true results on the demo's first video."""
    videos = discover_videos(demo.dataset, require_groundtruth=False)[:1]
    roots = {m: demo.results[m] for m in METHODS}
    result = pseudo_evaluate(videos, roots, entropy=False)
    true = {m: evaluate_method(videos, root) for m, root in roots.items()}
    return result, compare_with_truth(result, true), true


def _column(table, title: str) -> int:
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    return headers.index(title)


def _row(table, first_cell: str) -> int:
    return [table.item(r, 0).text() for r in range(table.rowCount())].index(first_cell)


def _f1(cm) -> float:
    return 2 * cm.tp / (2 * cm.tp + cm.fp + cm.fn)


def test_pseudo_values_match_core(qtbot, evaluated) -> None:
    result, _truth, _true = evaluated
    dock = PseudoDock()
    qtbot.addWidget(dock)
    dock.show_result(result)
    table = dock.values_table
    assert table.rowCount() == len(METHODS)
    assert not dock.correlation_table.isVisibleTo(dock)
    again = summarize_pseudo(result.videos)
    for method in METHODS:
        row = _row(table, method)
        # One video: the summary is that video's pseudo matrix, F1 = 2tp / (2tp + fp + fn).
        f1 = _f1(result.videos[0].totals[method])
        assert table.item(row, _column(table, "ps-F1")).text() == f"{f1:.4f}"
        precision = again[method].values["precision"].value
        assert table.item(row, _column(table, "ps-PPV")).text() == f"{precision:.4f}"


def test_true_values_and_correlations(qtbot, evaluated) -> None:
    result, truth, true = evaluated
    dock = PseudoDock()
    qtbot.addWidget(dock)
    dock.show_result(result, truth)
    table = dock.values_table
    true_f1 = {m: _f1(true[m][0].total) for m in METHODS}
    pseudo_f1 = {m: _f1(result.videos[0].totals[m]) for m in METHODS}
    for method in METHODS:
        assert (
            table.item(_row(table, method), _column(table, "F1 (true)")).text()
            == f"{true_f1[method]:.4f}"
        )
    correlations = dock.correlation_table
    assert correlations.isVisibleTo(dock)
    assert correlations.rowCount() == len(truth.summary)
    row = _row(correlations, "F1 (f1)")
    pearson = stats.pearsonr([pseudo_f1[m] for m in METHODS], [true_f1[m] for m in METHODS])
    assert correlations.item(row, 1).text() == f"{pearson.statistic:.3f}"
    assert correlations.item(row, 1).text() == f"{truth.summary['f1'].pearson.value:.3f}"
    assert correlations.item(row, 3).text() == "3"


def test_undefined_shows_dash_with_reason(qtbot, evaluated) -> None:
    result, truth, _ = evaluated
    dock = PseudoDock()
    qtbot.addWidget(dock)
    dock.show_result(result, truth)
    correlations = dock.correlation_table
    # Prevalence is the same for every detector (one ground truth): Pearson is undefined.
    row = _row(correlations, "π+ (prevalence)")
    assert correlations.item(row, 1).text() == "—"
    assert correlations.item(row, 1).toolTip().startswith("undefined")


def test_run_carries_checked_methods_and_options(qtbot) -> None:
    dock = PseudoDock()
    qtbot.addWidget(dock)
    dock.set_detectors(list(METHODS))
    assert dock.request() == PseudoRequest(METHODS, CommitteeOptions())
    dock.findChild(QListWidget).item(1).setCheckState(Qt.CheckState.Unchecked)
    boxes = {box.text(): box for box in dock.findChildren(QCheckBox)}
    boxes["leave one out"].setChecked(True)
    boxes["trivial all-ones/all-zeros voters"].setChecked(False)
    run = next(b for b in dock.findChildren(QPushButton) if b.text() == "Run")
    with qtbot.waitSignal(dock.run_requested) as signal:
        qtbot.mouseClick(run, Qt.MouseButton.LeftButton)
    assert signal.args == [
        PseudoRequest(("mog2", "cnt"), CommitteeOptions(include_trivial=False, leave_one_out=True))
    ]


def test_heatmap_shows_the_frame_on_a_fixed_scale(qtbot) -> None:
    dock = PseudoDock()
    qtbot.addWidget(dock)
    dock.show()
    consensus = np.array([[0.0, 0.25], [np.nan, 1.0]])
    dock.show_heatmap(consensus, 7)
    np.testing.assert_array_equal(dock.heatmap_image.image, consensus)
    assert tuple(dock.colour_bar.levels()) == (0.0, 1.0)
    assert tuple(dock.heatmap_image.getLevels()) == (0.0, 1.0)


def test_the_consensus_is_chosen_and_trivial_voters_belong_to_the_committee(qtbot) -> None:
    dock = PseudoDock()
    qtbot.addWidget(dock)
    assert dock.request().options.consensus == "staple" and not dock._trivial.isEnabled()
    dock._consensus.setCurrentText("committee")
    assert dock._trivial.isEnabled()
    dock._trivial.setChecked(False)
    request = dock.request()
    assert request.options.consensus == "committee" and not request.options.include_trivial


# --- what the dock says before a result, and when the consensus disagrees with the truth ------


def test_before_a_result_the_dock_says_why_it_is_empty(qtbot, evaluated) -> None:
    result, truth, _ = evaluated
    dock = PseudoDock()
    qtbot.addWidget(dock)
    assert dock.empty_message is not None and dock.empty_message.startswith("No project is open")
    dock.set_detectors(["mog2"])
    assert dock.empty_message == (
        "Pseudo ground truth needs at least two detectors with masks, and this project has "
        "only one. Add detectors in the Data dock (Add detector…), or open a dataset with a "
        "results folder beside it."
    )
    dock.set_detectors(list(METHODS))
    assert dock.empty_message == NO_RESULT
    assert not dock.values_table.isVisibleTo(dock)
    dock.show_result(result, truth)
    assert dock.empty_message is None
    assert dock.values_table.isVisibleTo(dock)
    dock.set_detectors(list(METHODS))  # another project: its result is still to come
    assert dock.empty_message == NO_RESULT


def test_the_heatmap_says_why_it_is_empty_until_a_frame_is_shown(qtbot) -> None:
    dock = PseudoDock()
    qtbot.addWidget(dock)
    assert dock.heatmap_message == NO_HEATMAP
    dock.show_heatmap(np.zeros((2, 2)), 1)
    assert dock.heatmap_message == NO_HEATMAP  # not drawn while it cannot be seen
    dock.show()
    assert dock.heatmap_message is None  # drawn once shown


@pytest.fixture(scope="module")
def committee_evaluated(demo):
    """The demo's first video under the committee's mean vote, which ranks these three
    detectors backwards (its all-ones member rewards detectors that mark many pixels)."""
    videos = discover_videos(demo.dataset, require_groundtruth=False)[:1]
    roots = {m: demo.results[m] for m in METHODS}
    result = pseudo_evaluate(videos, roots, CommitteeOptions(consensus="committee"), entropy=False)
    true = {m: evaluate_method(videos, root) for m, root in roots.items()}
    return result, compare_with_truth(result, true), true


def _pseudo_and_true_f1(result, true) -> tuple[list[float], list[float]]:
    pseudo = [_f1(result.videos[0].totals[m]) for m in METHODS]
    return pseudo, [_f1(true[m][0].total) for m in METHODS]


def test_a_consensus_that_disagrees_with_the_truth_is_warned_about(
    qtbot, committee_evaluated
) -> None:
    result, truth, true = committee_evaluated
    pseudo, true_f1 = _pseudo_and_true_f1(result, true)
    pearson = stats.pearsonr(pseudo, true_f1).statistic
    error = sum(abs(p - t) for p, t in zip(pseudo, true_f1)) / len(METHODS)
    assert pearson < 0 and error > 0.1  # the case: both rules fire
    dock = PseudoDock()
    qtbot.addWidget(dock)
    dock.set_detectors(list(METHODS))
    dock.show_result(result, truth)
    assert dock.warning.isVisibleTo(dock)
    assert dock.warning.text() == (
        "The consensus disagrees with the ground truth here: pseudo and true F1 correlate "
        f"at {pearson:.3f} over the detectors (below 0.5) and differ by {error:.3f} on "
        "average (more than 0.1). Trust the estimates from labelled frames instead "
        "(Indicators › estimates, Annotate next › Sampled)."
    )
    dock.show_result(result)  # without the truth, nothing to compare with
    assert not dock.warning.isVisibleTo(dock)


def test_a_consensus_that_follows_the_truth_is_not_warned_about(qtbot, evaluated) -> None:
    result, truth, true = evaluated
    pseudo, true_f1 = _pseudo_and_true_f1(result, true)
    assert stats.pearsonr(pseudo, true_f1).statistic > 0.5
    assert sum(abs(p - t) for p, t in zip(pseudo, true_f1)) / len(METHODS) < 0.1
    dock = PseudoDock()
    qtbot.addWidget(dock)
    dock.show_result(result, truth)
    assert not dock.warning.isVisibleTo(dock) and dock.warning.text() == ""
