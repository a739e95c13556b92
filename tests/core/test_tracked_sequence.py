"""Tracked boxes as the tracking measures read them: identities renumbered densely in order
of appearance, and every frame's IoU (docs/measures.md §5)."""

from __future__ import annotations

import numpy as np
import pytest

from referee.core.errors import InvalidOptionError
from referee.core.measures.boxes import FrameBoxes, VideoBoxes
from referee.core.measures.tracked import TrackedSequence, tracked_sequence


def test_identities_are_renumbered_in_order_of_appearance_with_each_frames_iou() -> None:
    gt = VideoBoxes(
        "seq",
        {
            1: FrameBoxes([[0, 0, 10, 10]], ids=[7]),
            3: FrameBoxes([[1, 0, 10, 10], [50, 50, 5, 5]], ids=[7, 3]),
        },
    )
    tracker = VideoBoxes("t", {3: FrameBoxes([[0, 0, 10, 10]], ids=[42])})
    found = tracked_sequence(gt, tracker)
    assert found.num_frames == 2  # frames 1 and 3: those either side has
    assert [g.tolist() for g in found.gt_ids] == [[0], [0, 1]]
    assert [k.tolist() for k in found.tracker_ids] == [[], [0]]
    assert (found.num_gt_ids, found.num_tracker_ids) == (2, 1)
    assert (found.num_gt_dets, found.num_tracker_dets) == (3, 1)
    # [1, 11) × [0, 10) against [0, 10) × [0, 10): 90 / (100 + 100 − 90)
    assert found.similarity[1][:, 0].tolist() == pytest.approx([90 / 110, 0.0])
    assert found.similarity[0].shape == (1, 0)


def test_boxes_without_identities_are_refused() -> None:
    gt = VideoBoxes("seq", {1: FrameBoxes([[0, 0, 1, 1]])})
    with pytest.raises(InvalidOptionError, match="identity"):
        tracked_sequence(gt, VideoBoxes("t"))


def test_a_sequence_checks_its_identities_and_shapes() -> None:
    ids = (np.array([0, 0]),)
    with pytest.raises(InvalidOptionError, match="distinct"):
        TrackedSequence("s", ids, (np.zeros(0, np.int64),), (np.zeros((2, 0)),), 1, 0)
    with pytest.raises(InvalidOptionError, match="shape"):
        TrackedSequence("s", (np.array([0]),), (np.array([0]),), (np.zeros((2, 1)),), 1, 1)


def test_an_identity_twice_on_a_frame_is_named_with_its_frame() -> None:
    gt = VideoBoxes("seq", {7: FrameBoxes([[0, 0, 1, 1], [5, 5, 1, 1]], ids=[4, 4])})
    with pytest.raises(InvalidOptionError, match="seq: frame 7 has identity 4 on more than"):
        tracked_sequence(gt, VideoBoxes("t"))
