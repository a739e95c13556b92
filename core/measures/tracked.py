"""A sequence of tracked boxes as the tracking measures read it (docs/measures.md §5).

Per frame: the identities of the ground-truth boxes and of the tracker's boxes,
numbered densely from 0 over the whole sequence, and the IoU of every
(ground truth, tracker) pair of the frame. CLEAR MOT, the identity measures and
HOTA all start from this; :func:`frame_pairs` gives the same pairs flattened over
runs of frames, for the measures that treat a whole sequence at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.measures.boxes import FrameBoxes, VideoBoxes

#: About how many (ground truth, tracker) pairs are flattened at a time (a frame is never
#: split): bounds the memory the whole-sequence computations add to the IoU matrices.
PAIRS_PER_RUN = 1 << 18
_NO_IDS = np.zeros(0, dtype=np.int64)
_NO_IOU = np.zeros(0)
_NO_BOXES = np.zeros((0, 4))


@dataclass(frozen=True, eq=False)
class TrackedSequence:
    """One sequence, frame by frame.

    Attributes
    ----------
    name
        The sequence's name.
    gt_ids, tracker_ids
        Per frame, ``int64`` identities in ``0 .. num_gt_ids − 1`` (resp.
        ``num_tracker_ids − 1``), distinct within a frame.
    similarity
        Per frame, ``float64`` ``(len(gt_ids[t]), len(tracker_ids[t]))`` IoU in [0, 1].
    num_gt_ids, num_tracker_ids
        How many identities each side has over the sequence.
    """

    name: str
    gt_ids: tuple[np.ndarray, ...]
    tracker_ids: tuple[np.ndarray, ...]
    similarity: tuple[np.ndarray, ...]
    num_gt_ids: int
    num_tracker_ids: int

    def __post_init__(self) -> None:
        if not len(self.gt_ids) == len(self.tracker_ids) == len(self.similarity):
            raise InvalidOptionError("every frame needs ground-truth ids, tracker ids and IoU")
        shapes = zip(self.similarity, self.gt_counts.tolist(), self.tracker_counts.tolist())
        wrong = np.fromiter((np.shape(s) != (g, k) for s, g, k in shapes), bool, self.num_frames)
        wrong |= _wrong_ids(self.gt_ids, self.num_gt_ids)
        wrong |= _wrong_ids(self.tracker_ids, self.num_tracker_ids)
        if wrong.any():
            self._refuse_frame(int(np.argmax(wrong)))

    def _refuse_frame(self, t: int) -> None:
        """Raise what is wrong with frame ``t``, which the checks found wrong."""
        g, k, s = self.gt_ids[t], self.tracker_ids[t], self.similarity[t]
        if np.shape(s) != (len(g), len(k)):
            raise InvalidOptionError(f"frame {t}: IoU of shape {np.shape(s)} for {len(g)}×{len(k)}")
        for ids, count, side in (
            (g, self.num_gt_ids, "ground-truth"),
            (k, self.num_tracker_ids, "tracker"),
        ):
            if len(ids) and (
                ids.min() < 0 or ids.max() >= count or len(set(ids.tolist())) < len(ids)
            ):
                raise InvalidOptionError(
                    f"frame {t}: {side} ids must be distinct, 0 to {count - 1}"
                )

    @property
    def num_frames(self) -> int:
        return len(self.gt_ids)

    @cached_property
    def gt_counts(self) -> np.ndarray:
        """``int64``: how many ground-truth boxes each frame has."""
        return _counts(self.gt_ids)

    @cached_property
    def tracker_counts(self) -> np.ndarray:
        """``int64``: how many tracker boxes each frame has."""
        return _counts(self.tracker_ids)

    @property
    def num_gt_dets(self) -> int:
        return int(self.gt_counts.sum())

    @property
    def num_tracker_dets(self) -> int:
        return int(self.tracker_counts.sum())


@dataclass(frozen=True, eq=False)
class FramePairs:
    """Consecutive frames of a :class:`TrackedSequence`, flattened.

    Attributes
    ----------
    gt_counts, tracker_counts
        ``int64``: how many boxes each frame has.
    gt_ids, tracker_ids
        ``int64``: the identities of the boxes, frame after frame.
    starts
        ``int64`` ``(frames + 1,)``: where each frame's pairs begin in the arrays below,
        and where the last frame's end.
    row_starts
        ``int64``: for each ground-truth box, where its pairs begin (as many as its frame
        has tracker boxes).
    gt_box, tracker_box
        ``int64``: each pair's boxes, as indices into ``gt_ids`` and ``tracker_ids``; a
        frame's pairs are its IoU matrix read row by row.
    iou
        ``float64``: each pair's IoU.
    """

    gt_counts: np.ndarray
    tracker_counts: np.ndarray
    gt_ids: np.ndarray
    tracker_ids: np.ndarray
    starts: np.ndarray
    row_starts: np.ndarray
    gt_box: np.ndarray
    tracker_box: np.ndarray
    iou: np.ndarray

    @cached_property
    def pair_gt_ids(self) -> np.ndarray:
        """The ground-truth identity of each pair."""
        return np.asarray(self.gt_ids[self.gt_box])

    @cached_property
    def pair_tracker_ids(self) -> np.ndarray:
        """The tracker identity of each pair."""
        return np.asarray(self.tracker_ids[self.tracker_box])


def frame_pairs(sequence: TrackedSequence, size: int = PAIRS_PER_RUN) -> Iterator[FramePairs]:
    """The sequence's frames in order, flattened in runs of about ``size`` pairs."""
    gt_counts, tracker_counts = sequence.gt_counts, sequence.tracker_counts
    for a, b in _runs(gt_counts * tracker_counts, size):
        yield FramePairs(
            gt_counts[a:b],
            tracker_counts[a:b],
            np.concatenate([*sequence.gt_ids[a:b], _NO_IDS]).astype(np.int64, copy=False),
            np.concatenate([*sequence.tracker_ids[a:b], _NO_IDS]).astype(np.int64, copy=False),
            *_pair_layout(gt_counts[a:b], tracker_counts[a:b]),
            np.concatenate([*sequence.similarity[a:b], _NO_IOU], axis=None),
        )


def tracked_sequence(
    gt: VideoBoxes, tracker: VideoBoxes, frames: Iterable[int] | None = None
) -> TrackedSequence:
    """The sequence of ``gt`` against ``tracker`` over ``frames`` (default: every frame
    either has), identities renumbered densely in order of appearance.

    Raises
    ------
    InvalidOptionError
        If a side's boxes carry no identities, or an identity twice on a frame.
    """
    numbers = sorted(set(gt.frames) | set(tracker.frames)) if frames is None else list(frames)
    gt_boxes = [gt.at(frame) for frame in numbers]
    tracker_boxes = [tracker.at(frame) for frame in numbers]
    wrong = min(_first_unidentified(gt_boxes), _first_unidentified(tracker_boxes))
    if wrong < len(numbers):
        for video, boxes in ((gt, gt_boxes), (tracker, tracker_boxes)):
            _refuse_identities(boxes[wrong], video.name, numbers[wrong])
    gt_ids, num_gt_ids = _dense([b.ids for b in gt_boxes])
    tracker_ids, num_tracker_ids = _dense([b.ids for b in tracker_boxes])
    return TrackedSequence(
        gt.name,
        gt_ids,
        tracker_ids,
        _similarity(gt_boxes, tracker_boxes),
        num_gt_ids,
        num_tracker_ids,
    )


def _counts(items: Sequence[np.ndarray] | Sequence[FrameBoxes]) -> np.ndarray:
    return np.fromiter(map(len, items), np.int64, len(items))


def _flat(ids: Sequence[np.ndarray | None]) -> tuple[np.ndarray, np.ndarray]:
    """The ids one frame after the other (``None``: no id), and how many each frame has."""
    present = [_NO_IDS if i is None else i for i in ids]
    return np.concatenate([*present, _NO_IDS]), _counts(present)


def _wrong_ids(ids: Sequence[np.ndarray | None], count: int | None = None) -> np.ndarray:
    """Per frame: whether an identity is on two of its boxes or, given ``count``, is outside
    0 … ``count`` − 1."""
    flat, counts = _flat(ids)
    frame = np.repeat(np.arange(len(ids)), counts)
    wrong = np.zeros(len(ids), dtype=bool)
    if count is not None:
        wrong[frame[(flat < 0) | (flat >= count)]] = True
    order = np.lexsort((flat, frame))
    flat, frame = flat[order], frame[order]
    wrong[frame[1:][(flat[1:] == flat[:-1]) & (frame[1:] == frame[:-1])]] = True
    return wrong


def _first_unidentified(boxes: Sequence[FrameBoxes]) -> int:
    """The position of the first frame with boxes but no identities, or an identity on two
    boxes; ``len(boxes)`` when there is none."""
    missing = np.fromiter((b.ids is None and len(b) > 0 for b in boxes), bool, len(boxes))
    wrong = missing | _wrong_ids([b.ids for b in boxes])
    return int(wrong.argmax()) if wrong.any() else len(boxes)


def _refuse_identities(boxes: FrameBoxes, name: str, frame: int) -> None:
    """Raise if ``boxes`` lack identities or repeat one, naming the video and the frame."""
    if len(boxes) and boxes.ids is None:
        raise InvalidOptionError(f"{name}: tracking measures need an identity for every box")
    found: Sequence[int] = [] if boxes.ids is None else boxes.ids.tolist()
    if len(set(found)) < len(found):
        repeated = min(i for i in set(found) if found.count(i) > 1)  # only on the error
        raise InvalidOptionError(
            f"{name}: frame {frame} has identity {repeated} on more than one box; "
            "tracking measures need one box per identity and frame"
        )


def _dense(ids: Sequence[np.ndarray | None]) -> tuple[tuple[np.ndarray, ...], int]:
    """Each frame's ids numbered from 0 in order of appearance, and how many there are."""
    flat, counts = _flat(ids)
    found, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    number = np.empty(len(found), dtype=np.int64)
    number[np.argsort(first)] = np.arange(len(found))
    dense = number[inverse.reshape(-1)]
    ends = np.cumsum(counts).tolist()
    return tuple(dense[e - n : e] for e, n in zip(ends, counts.tolist())), len(found)


def _runs(pairs: np.ndarray, size: int) -> Iterator[tuple[int, int]]:
    """Ranges of consecutive frames holding about ``size`` of their ``pairs`` each."""
    if not len(pairs):
        return
    begins = np.cumsum(pairs) - pairs
    cuts = np.flatnonzero(np.diff(begins // size)) + 1
    yield from pairwise([0, *cuts.tolist(), len(pairs)])


def _pair_layout(
    gt_counts: np.ndarray, tracker_counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For frames with these numbers of boxes, their pairs one frame after the other, each
    frame's row by row: where each frame's pairs begin (and the last frame's end), where
    each ground-truth box's begin, and each pair's boxes as indices into the frames'
    boxes one after the other."""
    starts = np.concatenate([[0], np.cumsum(gt_counts * tracker_counts)])
    row_lengths = np.repeat(tracker_counts, gt_counts)
    row_starts = np.cumsum(row_lengths) - row_lengths
    gt_box = np.repeat(np.arange(len(row_lengths)), row_lengths)
    # A row's first pair is with its frame's first tracker box.
    first_tracker = np.repeat(np.cumsum(tracker_counts) - tracker_counts, gt_counts)
    tracker_box = np.arange(starts[-1]) - np.repeat(row_starts - first_tracker, row_lengths)
    return starts, row_starts, gt_box, tracker_box


def _corners(frames: Sequence[FrameBoxes]) -> np.ndarray:
    """The frames' boxes one after the other, as rows ``x0, y0, x1, y1, area`` of a
    ``(5, n)`` array, each value computed as :func:`_paired_iou` needs it."""
    boxes = np.concatenate([*(f.boxes for f in frames), _NO_BOXES])
    x, y, w, h = boxes.T
    return np.stack([x, y, x + w, y + h, w * h])


def _similarity(
    gt_boxes: Sequence[FrameBoxes], tracker_boxes: Sequence[FrameBoxes]
) -> tuple[np.ndarray, ...]:
    """Each frame's IoU matrix, computed for runs of frames at once."""
    gt_counts, tracker_counts = _counts(gt_boxes), _counts(tracker_boxes)
    found: list[np.ndarray] = []
    for a, b in _runs(gt_counts * tracker_counts, PAIRS_PER_RUN):
        starts, _, gt_box, tracker_box = _pair_layout(gt_counts[a:b], tracker_counts[a:b])
        iou = _paired_iou(
            np.take(_corners(gt_boxes[a:b]), gt_box, axis=1),
            np.take(_corners(tracker_boxes[a:b]), tracker_box, axis=1),
        )
        shapes = zip(starts.tolist(), gt_counts[a:b].tolist(), tracker_counts[a:b].tolist())
        found += [iou[s : s + g * k].reshape(g, k) for s, g, k in shapes]
    return tuple(found)


def _paired_iou(gt: np.ndarray, det: np.ndarray) -> np.ndarray:
    """The IoU of each pair of boxes ``(gt[:, i], det[:, i])``, given as :func:`_corners`,
    by the very operations of :func:`~referee.core.measures.boxes.iou_matrix`: the same
    values, to the bit."""
    width = np.clip(np.minimum(gt[2], det[2]) - np.maximum(gt[0], det[0]), 0, None)
    height = np.clip(np.minimum(gt[3], det[3]) - np.maximum(gt[1], det[1]), 0, None)
    intersection = width * height
    union = gt[4] + det[4] - intersection
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(union > 0, intersection / np.where(union > 0, union, 1), 0.0))
