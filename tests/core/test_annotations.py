"""The action annotation model (docs/measures.md §4): actions, keyframe interpolation, sets of videos."""

from __future__ import annotations

import numpy as np
import pytest

from referee.core.errors import InvalidOptionError, RefereeError
from referee.core.model.annotations import (
    ACTION_CLASSES,
    Action,
    AnnotationSet,
    VideoAnnotation,
    interpolate_action,
)


def test_interpolation_hand_example() -> None:
    # x: 0 → 4 over 4 frames; y: 0 → 2 (0.5, 1, 1.5); w fixed; h: 10 → 15 over 2 frames (12.5).
    keyframes = {14: (4, 2, 10, 20), 10: (0, 0, 10, 10), 12: (2, 1, 10, 15)}
    action = interpolate_action(7, 3, keyframes)
    assert (action.number, action.action_class, action.first, action.last) == (7, 3, 10, 14)
    assert action.boxes.tolist() == [
        [0, 0, 10, 10],
        [1, 1, 10, 13],  # y 0.5 → 1 and h 12.5 → 13: halves round up
        [2, 1, 10, 15],
        [3, 2, 10, 18],  # y 1.5 → 2, h 17.5 → 18
        [4, 2, 10, 20],
    ]
    assert action.interpolated.tolist() == [False, True, False, True, False]


def test_interpolation_rounds_to_nearest_and_handles_shrinking_boxes() -> None:
    action = interpolate_action(1, 1, {0: (9, 0, 3, 0), 3: (0, 3, 0, 1)})
    # x: 9, 6, 3, 0; y: 0, 1, 2, 3; w: 3, 2, 1, 0; h: 0, 1/3 → 0, 2/3 → 1, 1
    assert action.boxes.tolist() == [[9, 0, 3, 0], [6, 1, 2, 0], [3, 2, 1, 1], [0, 3, 0, 1]]
    assert action.interpolated.tolist() == [False, True, True, False]


def test_interpolation_halves_round_up_whichever_the_direction() -> None:
    up = interpolate_action(1, 1, {0: (0, 0, 0, 0), 2: (1, 1, 1, 1)})
    down = interpolate_action(1, 1, {0: (1, 1, 1, 1), 2: (0, 0, 0, 0)})
    assert up.box_at(1) == (1, 1, 1, 1) and down.box_at(1) == (1, 1, 1, 1)


def test_a_single_keyframe_is_a_one_frame_action() -> None:
    action = interpolate_action(2, 10, {5: (1, 2, 3, 4)})
    assert action.frames.tolist() == [5] and action.box_at(5) == (1, 2, 3, 4)
    assert action.interpolated.tolist() == [False]


def test_adjacent_keyframes_leave_nothing_to_interpolate() -> None:
    action = interpolate_action(1, 1, {5: (0, 0, 1, 1), 6: (9, 9, 9, 9)})
    assert not action.interpolated.any() and action.boxes.tolist() == [[0, 0, 1, 1], [9, 9, 9, 9]]


@pytest.mark.parametrize(
    ("keyframes", "words"),
    [
        ({}, "no keyframe"),
        ({3: (1, 2, 3)}, "3 values"),
        ({3: (1, 2, -3, 4)}, "negative"),
    ],
)
def test_interpolation_refuses_bad_keyframes(keyframes, words: str) -> None:
    with pytest.raises(InvalidOptionError, match=words):
        interpolate_action(1, 1, keyframes)


def test_interpolation_refuses_an_unknown_class() -> None:
    with pytest.raises(InvalidOptionError, match="not a LIRIS class"):
        interpolate_action(1, 11, {0: (0, 0, 1, 1)})


def test_action_checks_its_frames_and_boxes() -> None:
    with pytest.raises(InvalidOptionError, match="consecutive"):
        Action(1, 1, np.array([3, 5]), np.zeros((2, 4)))
    with pytest.raises(InvalidOptionError, match="no box"):
        Action(1, 1, np.array([], dtype=np.int64), np.zeros((0, 4)))
    assert len(ACTION_CLASSES) == 10 and ACTION_CLASSES[8][0] == "HS"


def test_from_videos_keeps_order_and_refuses_duplicate_names() -> None:
    a, b = VideoAnnotation("b"), VideoAnnotation("a")
    annotations = AnnotationSet.from_videos([a, b])
    assert list(annotations.videos) == ["b", "a"] and [v.name for v in annotations] == ["b", "a"]
    with pytest.raises(InvalidOptionError, match="'b' is given twice") as caught:
        AnnotationSet.from_videos([a, b, VideoAnnotation("b")])
    assert isinstance(caught.value, RefereeError)


def test_same_as_compares_names_order_and_actions() -> None:
    first = Action.from_boxes(1, 2, {4: (0, 0, 2, 2), 5: (1, 1, 2, 2)}, interpolated=[5])
    same = Action.from_boxes(1, 2, {5: (1, 1, 2, 2), 4: (0, 0, 2, 2)}, interpolated=[5])
    keyframed = Action.from_boxes(1, 2, {4: (0, 0, 2, 2), 5: (1, 1, 2, 2)})
    other = Action.from_boxes(2, 2, {4: (0, 0, 2, 2)})
    video = VideoAnnotation("v", (first, other))
    assert video.same_as(VideoAnnotation("v", (same, other)))
    assert not video.same_as(VideoAnnotation("v", (keyframed, other)))
    assert not video.same_as(VideoAnnotation("v", (other, first)))
    assert not video.same_as(VideoAnnotation("v", (first,)))
    assert not video.same_as(VideoAnnotation("w", (first, other)))
    x, y = AnnotationSet.from_videos([video, VideoAnnotation("w")]), VideoAnnotation("w")
    assert x.same_as(AnnotationSet.from_videos([VideoAnnotation("v", (same, other)), y]))
    assert not x.same_as(AnnotationSet.from_videos([y, video]))
    assert not x.same_as(AnnotationSet.from_videos([video]))
