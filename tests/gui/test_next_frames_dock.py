"""NextFramesDock: the ranking request, the ranked rows, going to a frame, annotated marks."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QPushButton

from referee.core.formats.cdnet import discover_videos
from referee.core.frames.results import result_sources
from referee.core.model.frame_set import FrameSet
from referee.core.ranking.choices import DEFAULT_GAP
from referee.core.ranking.order import rank_frames
from referee.core.ranking.scores import mask_scores
from referee.core.workflow.options import RankingOptions
from referee.core.workflow.results import RankingResult
from referee.gui.docks.next_frames import NO_ESTIMATE, NO_RANKING, NextFramesDock

METHODS = ("mog2", "knn", "cnt")


@pytest.fixture(scope="module")
def ranking(demo):
    """The top 6 frames of the demo's first video by vote entropy."""
    videos = discover_videos(demo.dataset, require_groundtruth=False)[:1]
    sources = {m: result_sources(videos, demo.results[m]) for m in METHODS}
    return rank_frames(mask_scores(videos, sources), DEFAULT_GAP, top=6)


@pytest.fixture
def dock(qtbot, ranking) -> NextFramesDock:
    dock = NextFramesDock()
    qtbot.addWidget(dock)
    dock.set_detectors(list(METHODS))
    dock.show_ranking(ranking)
    dock.resize(500, 400)
    dock.show()
    return dock


def _cells(table, row: int) -> list[str]:
    return [table.item(row, c).text() for c in range(table.columnCount())]


def test_rows_follow_the_ranking(dock, ranking) -> None:
    table = dock.table
    assert table.rowCount() == len(ranking) == 6
    for row, entry in enumerate(ranking):
        rank, video, frame, score = _cells(table, row)[:4]
        assert (int(rank), video, int(frame)) == (row + 1, entry.video, entry.frame)
        assert float(score) == pytest.approx(entry.score, abs=5e-5)
    frames = [int(_cells(table, r)[2]) for r in range(table.rowCount())]
    # The gap holds between every two listed frames of the one video.
    assert all(abs(a - b) > DEFAULT_GAP for a in frames for b in frames if a != b)


def test_enter_and_double_click_go_to_the_frame(qtbot, dock, ranking) -> None:
    table = dock.table
    table.setCurrentCell(2, 0)
    table.setFocus()
    with qtbot.waitSignal(dock.frame_requested) as signal:
        qtbot.keyClick(table, Qt.Key.Key_Return)
    assert signal.args == [ranking[2].video, ranking[2].frame]
    table.scrollToItem(table.item(4, 1))
    rect = table.visualItemRect(table.item(4, 1))
    # Qt's item views need the press of a first click before the double-click.
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    with qtbot.waitSignal(dock.frame_requested) as signal:
        qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert signal.args == [ranking[4].video, ranking[4].frame]


def test_annotated_frames_are_marked(dock, ranking) -> None:
    table = dock.table
    dock.set_annotated(
        {ranking[1].video: FrameSet.of([ranking[1].frame]), "elsewhere": FrameSet.of([3])}
    )
    marks = [table.item(r, 5).text() for r in range(table.rowCount())]
    assert marks == ["", "✓", "", "", "", ""]
    assert table.item(1, 5).toolTip() == "already annotated"
    dock.show_ranking(ranking[1:])
    assert table.item(0, 5).text() == "✓"


def test_update_sends_the_request(qtbot, dock) -> None:
    assert dock.request() == RankingOptions("vote-entropy")
    criterion = dock.findChildren(QComboBox)[0]
    criterion.setCurrentText("pairwise-dice")
    assert criterion.toolTip().startswith("1 − Dice")
    update = next(b for b in dock.findChildren(QPushButton) if b.text() == "Update")
    with qtbot.waitSignal(dock.run_requested) as signal:
        qtbot.mouseClick(update, Qt.MouseButton.LeftButton)
    assert signal.args == [RankingOptions("pairwise-dice", ("mog2", "knn"))]


def test_each_tab_says_why_it_is_empty_until_results_arrive(qtbot, ranking) -> None:
    dock = NextFramesDock()
    qtbot.addWidget(dock)
    assert dock.ranked_message is not None and dock.ranked_message.startswith("No project")
    dock.set_detectors(["mog2"])
    assert dock.ranked_message == (
        "Ranking frames needs at least two detectors with masks, and this project has only "
        "one. Add detectors in the Data dock (Add detector…), or open a dataset with a "
        "results folder beside it."
    )
    assert dock.sampled_message is not None
    assert dock.sampled_message.startswith("Proposing frames to label needs at least two")
    dock.set_detectors(list(METHODS))
    assert dock.ranked_message == NO_RANKING
    assert dock.sampled_message == NO_ESTIMATE
    dock.tabs.setCurrentIndex(1)  # the Ranked tab
    assert not dock.table.isVisibleTo(dock)
    dock.show_ranking(ranking)
    assert dock.ranked_message is None and dock.table.isVisibleTo(dock)
    dock.set_detectors(list(METHODS))  # another project: its ranking is still to come
    assert dock.ranked_message == NO_RANKING and dock.table.rowCount() == 0


def test_an_estimate_that_could_not_run_says_why(qtbot) -> None:
    dock = NextFramesDock()
    qtbot.addWidget(dock)
    dock.set_detectors(list(METHODS))
    reason = "the plain estimator needs labelled frames in every partly annotated video"
    dock.show_estimate(None, reason)
    assert dock.sampled_message == f"No estimate (docs/measures.md §12): {reason}."


def test_a_ranking_without_frames_says_why_in_the_tables_place(qtbot) -> None:
    dock = NextFramesDock()
    qtbot.addWidget(dock)
    dock.set_detectors(list(METHODS))
    result = RankingResult(
        options=RankingOptions(),
        criterion="vote-entropy",
        methods=METHODS,
        scores=[],
        frames=[],
        considered=40,
        annotated=40,
    )
    dock.show_result(result)
    assert dock.ranked_message == (
        "All 40 frames already have ground truth: nothing is left to annotate. "
        "Tick “Include annotated frames” to rank them anyway."
    )
