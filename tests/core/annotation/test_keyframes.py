"""Editing keyframed boxes of actions and tracks (docs/measures.md §4, §5).

Expected boxes are worked out by hand, or by the small exact reference below
(fractions, halves rounded up), never by the code under test. Boxes set or
filled in are whole pixels, for actions and tracks alike (docs/measures.md §10).
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import pairwise

import numpy as np
import pytest

from referee.core.annotation.keyframes import (
    ended_at,
    keyframes_of,
    merged,
    split_at,
    with_keyframe,
    with_keyframes,
    without_keyframe,
)
from referee.core.errors import InvalidOptionError
from referee.core.model.annotations import Action, interpolate_action, whole_pixels
from referee.core.model.tracks import Track


def _reference(keyframes: dict[int, tuple[float, ...]]) -> dict[int, list[float]]:
    """Every frame's box from the keyframes, linear between neighbours, computed exactly
    and rounded to whole pixels, halves up."""
    frames = sorted(keyframes)
    boxes = {f: list(keyframes[f]) for f in frames}
    for f0, f1 in pairwise(frames):
        for f in range(f0 + 1, f1):
            values = [
                Fraction(v0) + (Fraction(v1) - Fraction(v0)) * Fraction(f - f0, f1 - f0)
                for v0, v1 in zip(keyframes[f0], keyframes[f1])
            ]
            boxes[f] = [math.floor(v + Fraction(1, 2)) for v in values]
    return boxes


def _action(boxes: dict[int, tuple[int, ...]], interpolated: tuple[int, ...] = ()) -> Action:
    return Action.from_boxes(7, 3, boxes, interpolated)


def _boxes(item: Action | Track) -> dict[int, list[float]]:
    return dict(zip(item.frames.tolist(), item.boxes.tolist()))


def _flags(item: Action | Track) -> list[bool]:
    return item.interpolated.tolist()


def test_action_interpolation_rounds_halves_up() -> None:
    # x: 0 + 2·s/4 = 0.5, 1, 1.5 → 1, 1, 2;   y: 5·s/4 = 1.25, 2.5, 3.75 → 1, 3, 4
    # w: 10 − 2·s/4 = 9.5, 9, 8.5 → 10, 9, 9; h: 5 − 2·s/4 = 4.5, 4, 3.5 → 5, 4, 4
    action = with_keyframe(_action({0: (0, 0, 10, 5)}), 4, (2, 5, 8, 3))
    assert action.frames.tolist() == [0, 1, 2, 3, 4]
    assert action.boxes.tolist() == [
        [0, 0, 10, 5],
        [1, 1, 10, 5],
        [1, 3, 9, 4],
        [2, 4, 9, 4],
        [2, 5, 8, 3],
    ]
    assert _flags(action) == [False, True, True, True, False]
    assert action.boxes.dtype == np.int64


def test_track_boxes_set_or_filled_in_are_whole_pixels_halves_up() -> None:
    # Frame 1 as read from a file (x = 0.4) stays; the keyframe (2.5, 0.1, 3, 1.5) is
    # stored (3, 0, 3, 2); between them x: 0.4 + 2.6·s/4 = 1.05, 1.7, 2.35 → 1, 2, 2;
    # w: 1 + 2·s/4 = 1.5, 2, 2.5 → 2, 2, 3; h: 1 + s/4 = 1.25, 1.5, 1.75 → 1, 2, 2.
    track = with_keyframe(Track(4, [1], [[0.4, 0, 1, 1]]), 5, (2.5, 0.1, 3, 1.5))
    assert track.frames.tolist() == [1, 2, 3, 4, 5]
    assert track.boxes.tolist() == [
        [0.4, 0, 1, 1],
        [1, 0, 2, 1],
        [2, 0, 2, 2],
        [2, 0, 3, 2],
        [3, 0, 3, 2],
    ]
    assert track.boxes.dtype == np.float64
    assert _flags(track) == [False, True, True, True, False]


def test_whole_pixels_rounds_halves_up_exactly() -> None:
    values = [2.5, -2.5, -0.5, 0.49999999999999994, 1.4999999, -1.5000001, 7.0]
    assert whole_pixels(values).tolist() == [3, -2, 0, 0, 1, -2, 7]


def test_a_keyframe_set_to_the_box_it_has_keeps_its_decimals() -> None:
    loaded = Track(1, [1, 2], [[0.4, 1.5, 2, 2], [1.6, 1.5, 2, 2]], conf=[0, 0])
    same = with_keyframe(loaded, 2, (1.6, 1.5, 2, 2))
    assert same.boxes.tolist() == loaded.boxes.tolist()
    extended = with_keyframe(loaded, 3, (1.6, 1.5, 2, 2))  # beyond the span: a new box
    assert extended.boxes[2].tolist() == [2, 2, 2, 2]
    assert extended.conf.tolist() == [0, 0, 0]  # new rows take the confidence of the end
    before = with_keyframe(Track(1, [5], [[0, 0, 1, 1]], conf=[0.5]), 3, (4, 0, 1, 1))
    assert before.conf.tolist() == [0.5, 0.5, 0.5]


@pytest.mark.parametrize("seed", range(8))
def test_random_edits_match_the_exact_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    keys: dict[int, tuple[float, ...]] = {20: (50, 50, 30, 30)}
    item: Action | Track = _action(keys) if seed % 2 == 0 else Track(1, [20], [keys[20]])
    for _ in range(25):
        frame = int(rng.integers(1, 60))
        if frame in keys and len(keys) > 1 and rng.random() < 0.4:
            changed = without_keyframe(item, frame)
            assert changed is not None
            item = changed
            del keys[frame]
            continue
        box = rng.uniform(-0.5, 200, 4).round(1).tolist()
        if isinstance(item, Action):
            box = [abs(v) for v in box]
        item = with_keyframe(item, frame, box)
        keys[frame] = tuple(math.floor(Fraction(v) + Fraction(1, 2)) for v in box)
    expected = _reference(keys)
    assert item.frames.tolist() == list(range(min(keys), max(keys) + 1))
    assert keyframes_of(item) == keys
    assert _boxes(item) == expected
    if isinstance(item, Action):
        assert item.same_as(interpolate_action(7, 3, keys))


def test_editing_a_keyframe_leaves_boxes_outside_its_segment_as_they_were() -> None:
    # As read from a file: interpolated boxes that are not what interpolation gives.
    loaded = _action(
        {f: (f * 3 + 1, 7, 9, 11) for f in range(9)} | {0: (0, 0, 10, 10), 4: (8, 8, 10, 10)},
        interpolated=(1, 2, 3, 5, 6, 7, 8),
    )
    moved = with_keyframe(loaded, 8, (16, 0, 10, 10))  # segment 4..8
    assert [_boxes(moved)[f] for f in (1, 2, 3)] == [
        [4, 7, 9, 11],
        [7, 7, 9, 11],
        [10, 7, 9, 11],
    ]
    # 8 + 8·s/4 = 10, 12, 14;  8 − 8·s/4 = 6, 4, 2
    assert [_boxes(moved)[f] for f in (5, 6, 7)] == [
        [10, 6, 10, 10],
        [12, 4, 10, 10],
        [14, 2, 10, 10],
    ]
    inserted = with_keyframe(loaded, 6, (20, 20, 10, 10))  # segments 4..6 and 6..8
    assert [_boxes(inserted)[f] for f in (1, 2, 3, 7, 8)] == [
        [4, 7, 9, 11],
        [7, 7, 9, 11],
        [10, 7, 9, 11],
        [22, 7, 9, 11],  # 6..8 has no keyframe at 8: 7 and 8 keep their loaded boxes
        [25, 7, 9, 11],
    ]
    assert _boxes(inserted)[5] == [14, 14, 10, 10]  # (8 + 20) / 2
    assert _flags(inserted) == [False, True, True, True, False, True, False, True, True]


def test_editing_a_track_keyframe_keeps_loaded_interpolated_floats() -> None:
    loaded = Track(
        2,
        [1, 2, 3, 4, 5],
        [[0, 0, 4, 4], [0.3, 0, 4, 4], [2, 0, 4, 4], [9.7, 0, 4, 4], [8, 0, 4, 4]],
        [False, True, False, True, False],
        conf=[0.5, 0.6, 0.7, 0.8, 0.9],
    )
    moved = with_keyframe(loaded, 5, (4, 2, 4, 4))
    assert moved.boxes[:2].tolist() == [[0, 0, 4, 4], [0.3, 0, 4, 4]]
    assert moved.boxes[3].tolist() == [3, 1, 4, 4]
    assert moved.conf.tolist() == [0.5, 0.6, 0.7, 0.8, 0.9]
    assert loaded.boxes[4].tolist() == [8, 0, 4, 4]  # the argument is untouched


def test_extending_interpolates_from_the_old_end_box_and_keeps_the_rest() -> None:
    loaded = _action({3: (0, 0, 4, 4), 4: (9, 9, 4, 4), 5: (10, 0, 4, 4)}, interpolated=(4, 5))
    after = with_keyframe(loaded, 8, (16, 6, 4, 4))
    assert after.frames.tolist() == [3, 4, 5, 6, 7, 8]
    # from frame 5's box: 10 + 6·s/3 = 12, 14;  0 + 6·s/3 = 2, 4
    assert after.boxes[:3].tolist() == loaded.boxes.tolist()
    assert after.boxes[3:].tolist() == [[12, 2, 4, 4], [14, 4, 4, 4], [16, 6, 4, 4]]
    assert _flags(after) == [False, True, True, True, True, False]
    before = with_keyframe(loaded, 0, (3, 3, 7, 4))
    assert before.frames.tolist() == [0, 1, 2, 3, 4, 5]
    # 3 − 3·s/3 = 2, 1;  7 − 3·s/3 = 6, 5
    assert before.boxes[:3].tolist() == [[3, 3, 7, 4], [2, 2, 6, 4], [1, 1, 5, 4]]
    assert before.boxes[3:].tolist() == loaded.boxes.tolist()
    assert _flags(before) == [False, True, True, False, True, True]


def test_several_keyframes_at_once_whatever_their_order() -> None:
    start = interpolate_action(7, 3, {10: (0, 0, 10, 10), 12: (4, 0, 10, 10)})
    drafts = {16: (16, 0, 10, 10), 13: (9, 1, 10, 10), 8: (8, 8, 8, 8), 11: (3, 3, 10, 10)}
    expected = _reference({10: (0, 0, 10, 10), 12: (4, 0, 10, 10)} | drafts)
    for order in (sorted(drafts), sorted(drafts, reverse=True), [13, 8, 16, 11]):
        result = with_keyframes(start, {f: drafts[f] for f in order})
        assert _boxes(result) == expected
        assert sorted(keyframes_of(result)) == [8, 10, 11, 12, 13, 16]


def test_several_keyframes_before_the_span_keep_a_loaded_first_box() -> None:
    loaded = _action({10: (50, 0, 4, 4), 11: (20, 0, 4, 4), 12: (22, 0, 4, 4)}, interpolated=(10,))
    for drafts in ({6: (0, 0, 4, 4), 8: (40, 0, 4, 4)}, {8: (40, 0, 4, 4), 6: (0, 0, 4, 4)}):
        result = with_keyframes(loaded, drafts)
        # 7 between 6 and 8: 20; 9 between 8 and frame 10's box (50): 45; 10 untouched
        assert result.boxes[:, 0].tolist() == [0, 20, 40, 45, 50, 20, 22]
        assert _flags(result) == [False, True, False, True, True, False, False]


def test_removing_an_interior_keyframe_interpolates_between_its_neighbours() -> None:
    action = interpolate_action(
        7, 3, {0: (0, 0, 2, 2), 2: (9, 9, 2, 2), 4: (4, 8, 2, 2), 5: (1, 1, 1, 1)}
    )
    action = with_keyframe(action, 1, (5, 5, 2, 2))  # frames 0, 1, 2, 4, 5 are keyframes
    removed = without_keyframe(action, 2)
    assert removed is not None
    # between frame 1 (5, 5) and frame 4 (4, 8): 5 − s/3 → 5, 4;  5 + 3·s/3 → 6, 7
    assert removed.boxes[2:4].tolist() == [[5, 6, 2, 2], [4, 7, 2, 2]]
    assert _flags(removed) == [False, False, True, True, False, False]
    assert removed.boxes[[0, 1, 4, 5]].tolist() == action.boxes[[0, 1, 4, 5]].tolist()


def test_removing_the_first_or_last_keyframe_shrinks_the_span() -> None:
    action = interpolate_action(1, 2, {3: (0, 0, 4, 4), 6: (3, 3, 4, 4), 9: (0, 0, 4, 4)})
    first = without_keyframe(action, 3)
    last = without_keyframe(action, 9)
    assert first is not None and last is not None
    assert first.frames.tolist() == [6, 7, 8, 9]
    assert first.boxes.tolist() == action.boxes[3:].tolist()
    assert last.frames.tolist() == [3, 4, 5, 6]
    assert last.boxes.tolist() == action.boxes[:4].tolist()
    assert _flags(last) == [False, True, True, False]


def test_removing_the_only_keyframe_leaves_nothing() -> None:
    assert without_keyframe(_action({5: (1, 1, 1, 1)}), 5) is None
    lone = Track(3, [4, 5, 6], np.ones((3, 4)), [True, False, True])
    assert without_keyframe(lone, 5) is None


@pytest.mark.parametrize("frame", [2, 5, 11])
def test_only_keyframes_can_be_removed(frame: int) -> None:
    action = interpolate_action(4, 1, {3: (0, 0, 4, 4), 10: (7, 7, 4, 4)})
    with pytest.raises(InvalidOptionError, match=rf"frame {frame} is not a keyframe of action 4"):
        without_keyframe(action, frame)


def test_ending_keeps_the_box_as_a_keyframe() -> None:
    action = interpolate_action(1, 2, {0: (0, 0, 4, 4), 4: (8, 4, 4, 4)})
    ended = ended_at(action, 2)
    assert ended.frames.tolist() == [0, 1, 2]
    assert ended.boxes.tolist() == [[0, 0, 4, 4], [2, 1, 4, 4], [4, 2, 4, 4]]
    assert _flags(ended) == [False, True, False]
    with pytest.raises(
        InvalidOptionError, match=r"cannot end action 1 at frame 5; it spans frames 0–4"
    ):
        ended_at(action, 5)


def test_splitting_makes_the_boundary_boxes_keyframes() -> None:
    track = Track(
        8, [1, 2, 3, 4, 5], [[k, 0, 2, 2] for k in range(5)], [False, True, True, True, False],
        conf=[0.1, 0.2, 0.3, 0.4, 0.5],
    )  # fmt: skip
    before, after = split_at(track, 3, 21)
    assert (before.track_id, after.track_id) == (8, 21)
    assert before.frames.tolist() == [1, 2] and after.frames.tolist() == [3, 4, 5]
    assert before.boxes[:, 0].tolist() == [0, 1] and after.boxes[:, 0].tolist() == [2, 3, 4]
    assert _flags(before) == [False, False] and _flags(after) == [False, True, False]
    assert after.conf.tolist() == [0.3, 0.4, 0.5]
    action_before, action_after = split_at(_action({4: (1, 1, 1, 1), 5: (2, 2, 2, 2)}), 5, 9)
    assert (action_before.number, action_after.number) == (7, 9)
    assert action_after.action_class == action_before.action_class == 3


@pytest.mark.parametrize("frame", [1, 0, 6])
def test_splitting_at_the_first_frame_or_outside_is_refused(frame: int) -> None:
    track = Track(8, [1, 2, 3, 4, 5], np.ones((5, 4)))
    with pytest.raises(InvalidOptionError, match=r"cannot split track 8 at frame"):
        split_at(track, frame, 9)


def test_merging_interpolates_the_gap_and_keeps_both_keyframes() -> None:
    early = interpolate_action(2, 5, {1: (0, 0, 4, 4), 3: (2, 2, 4, 4)})
    late = Action.from_boxes(
        6, 1, {7: (10, 2, 8, 4), 8: (0, 0, 1, 1), 9: (5, 5, 5, 5)}, interpolated=[7, 9]
    )
    for first, second in ((early, late), (late, early)):
        joined = merged(first, second)
        assert (joined.number, joined.action_class) == (first.number, first.action_class)
        assert joined.frames.tolist() == list(range(1, 10))
        # gap 4..6 from (2, 2, 4, 4) at 3 to (10, 2, 8, 4) at 7: x 4, 6, 8; w 5, 6, 7
        assert joined.boxes[3:6].tolist() == [[4, 2, 5, 4], [6, 2, 6, 4], [8, 2, 7, 4]]
        assert joined.boxes[6:].tolist() == late.boxes.tolist()
        # the boundary box at 7 becomes a keyframe; 9 stays interpolated
        assert _flags(joined) == [False, True, False, True, True, True, False, False, True]


def test_merging_tracks_gives_the_gap_the_confidence_of_the_nearer_side() -> None:
    a = Track(1, [1, 2], [[0, 0, 1, 1], [1, 0, 1, 1]], conf=[0.5, 0.5])
    b = Track(2, [5], [[2.5, 0, 1, 1]], conf=[0.25])
    joined = merged(a, b)
    assert joined.track_id == 1
    # 1 + 1.5·s/3 = 1.5, 2 → 2, 2; frame 5 (read as 2.5) keeps its value
    assert joined.boxes[:, 0].tolist() == [0, 1, 2, 2, 2.5]
    assert joined.conf.tolist() == [0.5, 0.5, 0.5, 0.25, 0.25]
    c = Track(3, [6], [[4, 0, 1, 1]], conf=[0])
    # gap 3, 4, 5: frame 4 is as near frame 2 as frame 6, and takes the earlier side
    assert merged(c, a).conf.tolist() == [0.5, 0.5, 0.5, 0.5, 0, 0]


def test_overlapping_or_mixed_items_are_not_merged() -> None:
    a = interpolate_action(1, 1, {0: (0, 0, 1, 1), 5: (0, 0, 1, 1)})
    b = interpolate_action(2, 1, {5: (0, 0, 1, 1), 9: (0, 0, 1, 1)})
    with pytest.raises(InvalidOptionError, match=r"action 1 \(frames 0–5\) and action 2 .* share"):
        merged(a, b)
    with pytest.raises(InvalidOptionError, match=r"two actions or two tracks"):
        merged(a, Track(1, [7], [[0, 0, 1, 1]]))


@pytest.mark.parametrize(
    ("frame", "box", "expected"),
    [
        (3, (1, 2, 3), r"a box is \(x, y, w, h\), got 3 values"),
        (3, (1, 2, -3, 4), r"cannot be negative"),
        (-1, (1, 2, 3, 4), r"frame -1 is outside 0\.\.10,000,000"),
        (10_000_001, (1, 2, 3, 4), r"frame 10000001 is outside"),
        (3, (float("nan"), 2, 3, 4), r"finite"),
    ],
)
def test_bad_keyframes_are_refused(frame: int, box: tuple[float, ...], expected: str) -> None:
    with pytest.raises(InvalidOptionError, match=expected):
        with_keyframe(_action({5: (1, 1, 1, 1)}), frame, box)


def test_action_keyframes_are_rounded_to_whole_pixels() -> None:
    action = with_keyframe(_action({5: (1, 1, 1, 1)}), 5, (1.5, 2.49, 3, 0.5))
    assert action.boxes.tolist() == [[2, 2, 3, 1]]


def test_a_track_keyframe_cannot_go_before_frame_one() -> None:
    with pytest.raises(InvalidOptionError, match=r"frame 0 is outside 1\.\."):
        with_keyframe(Track(1, [3], [[0, 0, 1, 1]]), 0, (0, 0, 1, 1))


def test_keyframes_of_lists_keyframes_in_frame_order() -> None:
    action = interpolate_action(1, 1, {6: (6, 0, 1, 1), 2: (2, 0, 1, 1)})
    assert keyframes_of(action) == {2: (2, 0, 1, 1), 6: (6, 0, 1, 1)}
    assert list(keyframes_of(action)) == [2, 6]
