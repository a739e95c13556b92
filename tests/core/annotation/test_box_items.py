"""The boxed items of a video under edit: numbers, new items, boxes on a frame, deleting a box."""

from __future__ import annotations

import numpy as np
import pytest

from referee.core.annotation.box_items import (
    boxes_on,
    keyframe_count,
    nearest_box,
    new_action,
    new_track,
    next_number,
    whole_box,
    without_box,
)
from referee.core.errors import InvalidOptionError
from referee.core.model.annotations import Action
from referee.core.model.tracks import Track


def _action(number: int, first: int, n: int, interpolated: tuple[int, ...] = ()) -> Action:
    """Boxes (k, 10 + k, 5, 6) on frames first + k."""
    boxes = {first + k: (k, 10 + k, 5, 6) for k in range(n)}
    return Action.from_boxes(number, 4, boxes, [first + k for k in interpolated])


def test_numbers_and_new_items() -> None:
    assert next_number([]) == 1
    assert next_number([_action(3, 0, 2), _action(7, 5, 1)]) == 8
    assert next_number([Track(4, np.array([1]), np.array([[0.0, 0, 1, 1]]))]) == 5
    action = new_action(2, 8, 12, (3.5, 4.49, 10.5, 20.0))
    assert (action.number, action.action_class, action.first, action.last) == (2, 8, 12, 12)
    assert action.box_at(12) == (4, 4, 11, 20)  # halves up
    assert whole_box((-0.5, 0.5, 1.4999, 2.5)) == (0, 1, 1, 3)
    track = new_track(9, 3, (1.25, 2.5, 3.75, -0.5))
    assert track.track_id == 9 and track.boxes.tolist() == [[1, 3, 4, 0]]
    assert track.conf.tolist() == [1]


def test_boxes_on_a_frame_say_which_are_keyframes() -> None:
    items = [_action(1, 10, 5, interpolated=(1, 2, 3)), _action(2, 12, 2)]
    found = boxes_on(items, 12)
    assert [(b.index, b.number, b.box, b.keyframe) for b in found] == [
        (0, 1, (2.0, 12.0, 5.0, 6.0), False),
        (1, 2, (0.0, 10.0, 5.0, 6.0), True),
    ]
    assert boxes_on(items, 9) == []
    assert keyframe_count(items[0]) == 2
    assert nearest_box(items[0], 3) == (0.0, 10.0, 5.0, 6.0)
    assert nearest_box(items[0], 99) == (4.0, 14.0, 5.0, 6.0)


def test_deleting_a_box_shortens_or_cuts_the_item() -> None:
    action = _action(1, 10, 5, interpolated=(1, 2, 3))  # frames 10–14, keyframes 10 and 14
    (first,) = without_box(action, 10, 9)
    assert (first.number, first.first, first.last) == (1, 11, 14)
    assert not first.interpolated[0]  # the new first box is a keyframe, with its value
    assert first.box_at(11) == (1, 11, 5, 6)
    (last,) = without_box(action, 14, 9)
    assert (last.first, last.last, bool(last.interpolated[-1])) == (10, 13, False)
    before, after = without_box(action, 12, 9)
    assert (before.number, before.first, before.last) == (1, 10, 11)
    assert (after.number, after.first, after.last) == (9, 13, 14)
    assert before.box_at(11) == (1, 11, 5, 6) and after.box_at(13) == (3, 13, 5, 6)
    assert without_box(_action(1, 5, 1), 5, 9) == ()
    track = Track(4, np.arange(1, 4), np.arange(12.0).reshape(3, 4))
    parts = without_box(track, 2, 99)
    assert [(t.track_id, t.first, t.last) for t in parts] == [
        (4, 1, 1),
        (4, 3, 3),
    ]  # the id is kept over the gap
    with pytest.raises(InvalidOptionError, match="no box on frame 20"):
        without_box(action, 20, 9)
