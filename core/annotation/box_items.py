"""The boxed items of one video under edit: actions or tracks (docs/measures.md §4, §5).

What the box editor asks of a set of items, beyond editing one of them
(:mod:`referee.core.annotation.keyframes`): their numbers, a new item from
one drawn box, what lies on a frame, and removing one frame's box. Every
function returns new items and never changes its arguments; a drawn box is
rounded to whole pixels (:func:`whole_box`, halves up, docs/measures.md §10).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.annotation.keyframes import (
    Box,
    Item,
    ended_at,
    item_name,
    split_at,
)
from referee.core.errors import InvalidOptionError
from referee.core.model.annotations import Action, whole_pixels
from referee.core.model.tracks import Track


@dataclass(frozen=True)
class BoxOnFrame:
    """One item's box on one frame.

    ``index`` is the item's position in the sequence given to :func:`boxes_on`;
    ``keyframe`` says whether the box was set by hand (else interpolated).
    """

    index: int
    number: int
    box: Box
    keyframe: bool


def number_of(item: Action | Track) -> int:
    """An action's number or a track's id."""
    return item.number if isinstance(item, Action) else item.track_id


def next_number(items: Iterable[Action | Track]) -> int:
    """The number for a new item: one more than the largest in use, 1 for none."""
    return max((number_of(item) for item in items), default=0) + 1


def new_action(number: int, action_class: int, frame: int, box: Sequence[float]) -> Action:
    """An action of one keyframe, ``box`` rounded to whole pixels (halves up)."""
    return Action.from_boxes(number, action_class, {frame: whole_box(box)})


def new_track(track_id: int, frame: int, box: Sequence[float]) -> Track:
    """A track of one keyframe, ``box`` rounded to whole pixels (halves up), confidence 1."""
    return Track(track_id, np.array([frame]), np.array([whole_box(box)], dtype=np.float64))


def whole_box(box: Sequence[float]) -> tuple[int, int, int, int]:
    """``(x, y, w, h)`` rounded to whole pixels, halves up
    (:func:`~referee.core.model.annotations.whole_pixels`)."""
    x, y, w, h = (int(v) for v in whole_pixels([float(v) for v in box]))
    return (x, y, w, h)


def boxes_on(items: Sequence[Action | Track], frame: int) -> list[BoxOnFrame]:
    """The box of every item present on ``frame``, in item order."""
    found = []
    for index, item in enumerate(items):
        if item.first <= frame <= item.last:
            row = frame - item.first
            x, y, w, h = (float(v) for v in item.boxes[row])
            keyframe = not bool(item.interpolated[row])
            found.append(BoxOnFrame(index, number_of(item), (x, y, w, h), keyframe))
    return found


def nearest_box(item: Action | Track, frame: int) -> Box:
    """The item's box on ``frame``, or on its first or last frame when ``frame`` is outside."""
    row = min(max(frame, item.first), item.last) - item.first
    x, y, w, h = (float(v) for v in item.boxes[row])
    return (x, y, w, h)


def keyframe_count(item: Action | Track) -> int:
    """How many of the item's boxes were set by hand."""
    return int(len(item.interpolated) - item.interpolated.sum())


def without_box(item: Item, frame: int, new_number: int) -> tuple[Item, ...]:
    """``item`` without its box on ``frame``: nothing, one shorter item, or two.

    Removing the first or last box shortens the span (the new end box becomes
    a keyframe); removing a box inside it cuts the item in two. The second
    part of an action is numbered ``new_number`` (numbers are unique in a
    video); a track keeps its id across the gap, as MOTChallenge files allow.

    Raises
    ------
    InvalidOptionError
        ``frame`` is outside the item's span.
    """
    if not item.first <= frame <= item.last:
        raise InvalidOptionError(
            f"{item_name(item)} has no box on frame {frame}; it spans frames {item.first}–{item.last}"
        )
    if item.first == item.last:
        return ()
    if frame == item.last:
        return (ended_at(item, frame - 1),)
    if frame == item.first:
        return (split_at(item, frame + 1, number_of(item))[1],)
    number = new_number if isinstance(item, Action) else number_of(item)
    before, rest = split_at(item, frame, number)
    return before, split_at(rest, frame + 1, number)[1]
