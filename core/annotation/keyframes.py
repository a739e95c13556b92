"""Editing keyframed boxes: LIRIS actions and MOTChallenge tracks (docs/measures.md §4, §5).

An item is an :class:`~referee.core.model.annotations.Action` or a
:class:`~referee.core.annotation.tracks.Track`: one box ``(x, y, w, h)`` in
pixels per consecutive frame, each flagged as a keyframe or as interpolated.
Every function returns new items and never changes its arguments.

Every box an edit sets or fills in is in whole pixels, each of ``x, y, w, h``
rounded by :func:`whole_pixels` (halves up, docs/measures.md §10), so that the
items equal what is written and read back. An edit re-interpolates only the
frames between the keyframes it touches: every other box keeps its value, so
boxes read from a file (decimals included) stay as they were. Interpolation is
that of :func:`~referee.core.model.annotations.interpolate_action`
(docs/measures.md §4), for actions and tracks alike.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar, cast

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.limits import MAX_FRAME_NUMBER
from referee.core.model.annotations import Action, whole_pixels
from referee.core.model.tracks import Track

#: An editable item: an action or a track.
Item = TypeVar("Item", bound=Action | Track)
#: A box ``(x, y, w, h)`` in pixels.
Box = tuple[float, float, float, float]


@dataclass
class _Draft:
    """An item's boxes being edited: writable copies, row k for frame ``first + k``."""

    first: int
    boxes: np.ndarray
    interpolated: np.ndarray
    conf: np.ndarray  # all 1.0 for actions, which have none

    def rows(self, start: int, stop: int) -> _Draft:
        """Rows ``start`` to ``stop − 1``."""
        return _Draft(
            self.first + start,
            self.boxes[start:stop],
            self.interpolated[start:stop],
            self.conf[start:stop],
        )


def keyframes_of(item: Action | Track) -> dict[int, Box]:
    """Frame → box of the item's keyframes, in frame order (pixels)."""
    values = item.boxes.tolist()
    return {
        int(frame): (box[0], box[1], box[2], box[3])
        for frame, box, interpolated in zip(item.frames.tolist(), values, item.interpolated)
        if not interpolated
    }


def with_keyframe(item: Item, frame: int, box: Sequence[float]) -> Item:
    """``item`` with the keyframe ``box`` ``(x, y, w, h)`` at ``frame`` (docs/measures.md §4, §5).

    ``box`` is rounded to whole pixels (:func:`whole_pixels`), unless it is the
    box the item already has on ``frame``, which is kept as it is. Inside the
    span the box is replaced and the frames between the previous and the next
    keyframe are interpolated again. Before or after the span the span grows
    to ``frame`` and the frames between the old end and ``frame`` are
    interpolated from the old end's box; a track's new rows take the
    confidence of that end.

    Raises
    ------
    InvalidOptionError
        A box that is not four finite numbers, a frame outside the allowed
        range, or a box the item refuses.
    """
    return with_keyframes(item, {frame: box})


def with_keyframes(item: Item, boxes: Mapping[int, Sequence[float]]) -> Item:
    """``item`` with several keyframes, ``{frame: (x, y, w, h)}``, as :func:`with_keyframe`.

    The result does not depend on the order of ``boxes``: frames inside the
    span are set first, then the span grows frame by frame away from it.
    """
    draft = _draft(item)
    for frame in _edit_order(boxes, item.first, item.last):
        _check_frame(item, frame)
        draft = _set_keyframe(draft, frame, _box_values(item, frame, boxes[frame]))
    return _built(item, draft)


def without_keyframe(item: Item, frame: int) -> Item | None:
    """``item`` without its keyframe at ``frame``; ``None`` when no keyframe would be left.

    An interior keyframe's frames are interpolated again between its
    neighbouring keyframes; removing the first or last keyframe shrinks the
    span to the remaining keyframes.

    Raises
    ------
    InvalidOptionError
        ``frame`` is not a keyframe of the item.
    """
    if not (item.first <= frame <= item.last and not item.interpolated[frame - item.first]):
        raise InvalidOptionError(
            f"frame {frame} is not a keyframe of {item_name(item)}; only keyframes can be removed"
        )
    draft = _draft(item)
    index = frame - item.first
    keys = np.flatnonzero(~draft.interpolated)
    position = int(np.searchsorted(keys, index))
    if len(keys) == 1:
        return None
    if position == 0:
        draft = draft.rows(int(keys[1]), len(draft.interpolated))
    elif position == len(keys) - 1:
        draft = draft.rows(0, int(keys[-2]) + 1)
    else:
        _interpolate(draft, int(keys[position - 1]), int(keys[position + 1]))
    return _built(item, draft)


def ended_at(item: Item, frame: int) -> Item:
    """``item`` ending at ``frame``, whose box becomes a keyframe; later frames are dropped.

    Raises
    ------
    InvalidOptionError
        ``frame`` is outside the item's span.
    """
    _check_inside(item, frame, "end")
    draft = _draft(item).rows(0, frame - item.first + 1)
    draft.interpolated[-1] = False
    return _built(item, draft)


def split_at(item: Item, frame: int, new_number: int) -> tuple[Item, Item]:
    """``item`` cut into frames before ``frame`` and frames from ``frame`` on.

    Both parts keep the class; the second gets ``new_number`` as its action
    number or track id. The boxes on either side of the cut become keyframes
    with their values.

    Raises
    ------
    InvalidOptionError
        ``frame`` is outside the span or is its first frame.
    """
    _check_inside(item, frame, "split")
    if frame == item.first:
        raise InvalidOptionError(
            f"cannot split {item_name(item)} at frame {frame}, its first frame; split at a frame "
            f"from {item.first + 1} to {item.last}"
        )
    draft = _draft(item)
    cut = frame - item.first
    before, after = draft.rows(0, cut), draft.rows(cut, len(draft.interpolated))
    before.interpolated[-1] = after.interpolated[0] = False
    return _built(item, before), _built(item, after, new_number)


def merged(first: Item, second: Item) -> Item:
    """One item over both spans, with the number (or id) and class of ``first``.

    The items may come in either time order. The boxes on either side of the
    gap become keyframes with their values and the gap between them is
    interpolated, each of its rows taking the confidence of the nearer side
    (the earlier on a tie); every other box keeps its value and flag.

    Raises
    ------
    InvalidOptionError
        The items are of different kinds or share a frame.
    """
    if type(first) is not type(second):
        raise InvalidOptionError("only two actions or two tracks can be merged")
    early, late = (first, second) if first.first <= second.first else (second, first)
    if early.last >= late.first:
        raise InvalidOptionError(
            f"{item_name(first)} (frames {first.first}–{first.last}) and {item_name(second)} (frames "
            f"{second.first}–{second.last}) share frames; only items with separate spans can "
            "be merged"
        )
    head, tail = _draft(early), _draft(late)
    gap = late.first - early.last - 1
    nearer_head = (gap + 1) // 2  # gap row k (from 1) is nearer the head when 2k <= gap + 1
    head.interpolated[-1] = tail.interpolated[0] = False
    draft = _Draft(
        early.first,
        np.concatenate([head.boxes, np.zeros((gap, 4), head.boxes.dtype), tail.boxes]),
        np.concatenate([head.interpolated, np.ones(gap, dtype=bool), tail.interpolated]),
        np.concatenate(
            [
                head.conf,
                np.full(nearer_head, head.conf[-1]),
                np.full(gap - nearer_head, tail.conf[0]),
                tail.conf,
            ]
        ),
    )
    _interpolate(draft, len(early) - 1, len(early) + gap)
    return _built(first, draft)


def _edit_order(frames: Iterable[int], first: int, last: int) -> list[int]:
    """``frames`` inside ``first..last``, then those after it rising, then those before it
    falling: the order in which setting keyframes grows a span one step at a time."""
    frames = sorted(frames)
    return [
        *(f for f in frames if first <= f <= last),
        *(f for f in frames if f > last),
        *(f for f in reversed(frames) if f < first),
    ]


def _set_keyframe(draft: _Draft, frame: int, box: np.ndarray) -> _Draft:
    """``draft`` with the keyframe ``box`` at ``frame`` (see :func:`with_keyframe`)."""
    n = len(draft.interpolated)
    last = draft.first + n - 1
    if frame < draft.first:
        added = draft.first - frame
        draft = _grown(draft, added, at_start=True)
        draft.boxes[0], draft.interpolated[0] = box, False
        _interpolate(draft, 0, added)
    elif frame > last:
        draft = _grown(draft, frame - last, at_start=False)
        draft.boxes[-1], draft.interpolated[-1] = box, False
        _interpolate(draft, n - 1, len(draft.interpolated) - 1)
    else:
        index = frame - draft.first
        draft.boxes[index], draft.interpolated[index] = box, False
        keys = np.flatnonzero(~draft.interpolated)
        position = int(np.searchsorted(keys, index))
        if position > 0:
            _interpolate(draft, int(keys[position - 1]), index)
        if position + 1 < len(keys):
            _interpolate(draft, index, int(keys[position + 1]))
    return draft


def _grown(draft: _Draft, added: int, at_start: bool) -> _Draft:
    """``draft`` with ``added`` interpolated rows (to be filled in) before or after it,
    with the confidence of the row they grow from."""

    def joined(new: np.ndarray, old: np.ndarray) -> np.ndarray:
        return np.concatenate([new, old] if at_start else [old, new])

    return _Draft(
        draft.first - added if at_start else draft.first,
        joined(np.zeros((added, 4), draft.boxes.dtype), draft.boxes),
        joined(np.ones(added, dtype=bool), draft.interpolated),
        joined(np.full(added, draft.conf[0 if at_start else -1]), draft.conf),
    )


def _interpolate(draft: _Draft, start: int, stop: int) -> None:
    """Interpolate rows ``start + 1 … stop − 1`` between rows ``start`` and ``stop``, in place.

    Each takes ``v0 + (v1 − v0)·s/steps`` rounded by :func:`whole_pixels`. For
    whole ``v0, v1`` within the limits of :mod:`referee.core.limits` this is the
    exact rounding of ``interpolate_action`` (docs/measures.md §4): ``(v1 − v0)·s``
    is exact, a quotient ending in .5 is exact, and any other lies at least
    ``1/(2·steps)`` ≥ 5e-8 from a half, far beyond the float error (< 1e-9).
    """
    steps = stop - start
    if steps < 2:
        return
    v0, v1 = draft.boxes[start], draft.boxes[stop]
    step = np.arange(1, steps, dtype=np.int64)[:, None]
    draft.boxes[start + 1 : stop] = whole_pixels(v0 + (v1 - v0) * step / steps)
    draft.interpolated[start + 1 : stop] = True


def _draft(item: Action | Track) -> _Draft:
    conf = item.conf if isinstance(item, Track) else np.ones(len(item))
    return _Draft(item.first, item.boxes.copy(), item.interpolated.copy(), conf.copy())


def _built(item: Item, draft: _Draft, number: int | None = None) -> Item:
    """An item like ``item`` holding ``draft``, numbered ``number`` (default: ``item``'s)."""
    frames = np.arange(draft.first, draft.first + len(draft.interpolated), dtype=np.int64)
    built: Action | Track
    if isinstance(item, Action):
        built = Action(
            item.number if number is None else number,
            item.action_class,
            frames,
            draft.boxes,
            draft.interpolated,
        )
    else:
        built = Track(
            item.track_id if number is None else number,
            frames,
            draft.boxes,
            draft.interpolated,
            draft.conf,
        )
    return cast(Item, built)  # of the same kind as ``item``


def _box_values(item: Action | Track, frame: int, box: Sequence[float]) -> np.ndarray:
    """``box`` as a row of ``item.boxes``: the item's own box on ``frame`` when equal to it,
    else four finite numbers rounded to whole pixels."""
    values = [float(v) for v in box]
    where = f"{item_name(item)}, frame {frame}"
    if len(values) != 4:
        raise InvalidOptionError(f"{where}: a box is (x, y, w, h), got {len(values)} values")
    if not all(math.isfinite(v) for v in values):
        raise InvalidOptionError(f"{where}: box values must be finite numbers, not {values}")
    if item.first <= frame <= item.last and values == item.boxes[frame - item.first].tolist():
        return np.array(item.boxes[frame - item.first])
    return whole_pixels(values).astype(item.boxes.dtype)


def _check_frame(item: Action | Track, frame: int) -> None:
    """Refuse a frame number the item cannot hold, before any row is added for it."""
    lowest = 0 if isinstance(item, Action) else 1
    if not lowest <= frame <= MAX_FRAME_NUMBER:
        raise InvalidOptionError(
            f"{item_name(item)}: frame {frame} is outside {lowest}..{MAX_FRAME_NUMBER:,}"
        )


def _check_inside(item: Action | Track, frame: int, verb: str) -> None:
    if not item.first <= frame <= item.last:
        raise InvalidOptionError(
            f"cannot {verb} {item_name(item)} at frame {frame}; it spans frames "
            f"{item.first}–{item.last}"
        )


def item_name(item: Action | Track) -> str:
    """``action N`` or ``track N``, as messages and undo texts name an item."""
    return f"action {item.number}" if isinstance(item, Action) else f"track {item.track_id}"
