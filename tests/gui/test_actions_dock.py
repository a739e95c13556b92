"""ActionsDock and action_boxes: the pair table, selecting a pair, the boxes of a frame."""

from __future__ import annotations

import pytest

from referee.core.demo.dataset import TRACKED_METHODS
from referee.core.formats.liris_xml import read_liris
from referee.core.measures.action_scores import evaluate_actions, pair_table
from referee.core.model.annotations import Action, AnnotationSet, VideoAnnotation
from referee.gui.docks.actions import ActionsDock
from referee.gui.viewer.action_boxes import OUTCOME_RGB, boxes_for_frame

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


def test_pair_boxes_share_a_colour_and_vetoes_are_dashed(crafted) -> None:
    at_5 = {d.label: d for d in boxes_for_frame(crafted, "v", 5)}
    assert set(at_5) == {"GT EN", "GT ET", "GT UB", "det ET", "det UB"}
    accepted_gt, accepted_det = at_5["GT UB"], at_5["det UB"]
    assert accepted_gt.colour == accepted_det.colour
    assert not accepted_gt.dashed and accepted_gt.marker is None
    assert (accepted_gt.x, accepted_gt.y, accepted_gt.width, accepted_gt.height) == (50, 50, 10, 10)
    assert at_5["GT ET"].marker == "miss"
    assert at_5["det ET"].marker == "false alarm"
    at_19 = {d.label: d for d in boxes_for_frame(crafted, "v", 19)}
    vetoed_gt, vetoed_det = at_19["GT EN"], at_19["det EN"]
    assert vetoed_gt.dashed and vetoed_det.dashed
    assert vetoed_gt.colour == vetoed_det.colour != accepted_gt.colour
    assert "temporal recall" in vetoed_gt.tooltip
    # 2 common frames / 20 GT frames; / 7 detected frames.
    assert "temporal recall 0.100, temporal precision 0.286" in vetoed_gt.tooltip
    assert boxes_for_frame(crafted, "v", 40) == []


def test_selected_pair_is_highlighted(crafted) -> None:
    vetoed = _row_of(crafted, "vetoed")
    drawings = boxes_for_frame(crafted, "v", 5, selected=vetoed)
    assert {d.label for d in drawings if d.highlighted} == {"GT EN"}
    drawings = boxes_for_frame(crafted, "v", 19, selected=vetoed)
    assert {d.label for d in drawings if d.highlighted} == {"GT EN", "det EN"}
