"""ActionsDock and action_boxes: the pair table, selecting a pair, the boxes of a frame."""

from __future__ import annotations

import pytest

from referee.core.demo.dataset import TRACKED_METHODS
from referee.core.formats.liris_xml import read_liris
from referee.core.measures.action_scores import evaluate_actions, pair_table
from referee.core.model.annotations import Action, AnnotationSet, VideoAnnotation
from referee.gui.docks.actions import (
    MATCHING_ACTIONS,
    NO_ACTION_TRUTH,
    NO_DETECTED_ACTIONS,
    ActionsDock,
)
from referee.gui.viewer.action_boxes import OUTCOME_RGB

SQUARE = (10, 10, 20, 20)


def _action(number: int, action_class: int, first: int, last: int, box) -> Action:
    return Action.from_boxes(number, action_class, dict.fromkeys(range(first, last + 1), box))


@pytest.fixture(scope="module")
def crafted():
    """One video: a pair vetoed on temporal recall (frames 19 and 20 of 20 in common:
    2/20 = 0.1, not > ε = 0.1),
    an accepted pair, a miss and a false alarm."""
    gt = AnnotationSet.from_videos(
        [
            VideoAnnotation(
                "v",
                (
                    _action(1, 4, 1, 20, SQUARE),
                    _action(2, 5, 1, 10, (100, 10, 10, 10)),
                    _action(3, 7, 1, 10, (50, 50, 10, 10)),
                ),
            )
        ]
    )
    det = AnnotationSet.from_videos(
        [
            VideoAnnotation(
                "v",
                (
                    _action(11, 4, 19, 25, SQUARE),
                    _action(12, 5, 1, 5, (60, 80, 10, 10)),
                    _action(13, 7, 1, 10, (50, 50, 10, 10)),
                ),
            )
        ]
    )
    return evaluate_actions(gt, det)


@pytest.fixture(scope="module")
def demo_evaluations(demo):
    gt = read_liris(demo.actions_gt)
    return {m: evaluate_actions(gt, read_liris(demo.actions[m])) for m in TRACKED_METHODS}


def _row_of(evaluation, outcome: str):
    return next(r for r in evaluation.pairs if r.outcome == outcome)


def test_one_row_per_pair_of_the_chosen_detector(qtbot, demo_evaluations) -> None:
    dock = ActionsDock()
    qtbot.addWidget(dock)
    dock.show_evaluations(demo_evaluations)
    for method, evaluation in demo_evaluations.items():
        dock.select_detector(method)
        assert dock.table.rowCount() == len(pair_table(evaluation.matching))
    outcomes = [dock.table.item(r, 1) for r in range(dock.table.rowCount())]
    for item in outcomes:
        assert item.background().color().getRgb()[:3] == OUTCOME_RGB[item.text()]


def test_selecting_a_vetoed_row_goes_to_the_first_common_frame(qtbot, crafted) -> None:
    dock = ActionsDock()
    qtbot.addWidget(dock)
    dock.show_evaluations({"crafted": crafted})
    index = [r.outcome for r in crafted.pairs].index("vetoed")
    row = crafted.pairs[index]
    assert row.failed == ("temporal recall",)
    assert dock.table.item(index, 11).text() == "temporal recall"
    with qtbot.waitSignal(dock.action_selected) as signal:
        dock.select_row(index)
    # GT frames 1..20 and detection frames 19..25 share 19 and 20.
    assert signal.args[:2] == ["v", 19]
    assert signal.args[2] is row
    miss = [r.outcome for r in crafted.pairs].index("miss")
    with qtbot.waitSignal(dock.action_selected) as signal:
        dock.select_row(miss)
    assert signal.args[:2] == ["v", 1]


def test_the_dock_says_why_it_has_no_pair_until_evaluations_arrive(qtbot, demo_evaluations) -> None:
    dock = ActionsDock()
    qtbot.addWidget(dock)
    assert dock.empty_message is not None and dock.empty_message.startswith("No project is open")
    dock.set_project_actions(has_groundtruth=False, detectors=0)
    assert dock.empty_message == NO_ACTION_TRUTH
    assert dock.empty_message.startswith("No action ground truth in this project")
    dock.set_project_actions(has_groundtruth=True, detectors=0)
    assert dock.empty_message == NO_DETECTED_ACTIONS
    dock.set_project_actions(has_groundtruth=True, detectors=len(demo_evaluations))
    assert dock.empty_message == MATCHING_ACTIONS
    assert not dock.table.isVisibleTo(dock)
    dock.show_evaluations(demo_evaluations)
    assert dock.empty_message is None and dock.table.isVisibleTo(dock)
    assert dock.table.rowCount() > 0
    dock.set_project_actions(has_groundtruth=False, detectors=0)  # another project
    assert dock.empty_message == NO_ACTION_TRUTH and dock.table.rowCount() == 0
