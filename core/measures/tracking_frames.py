"""One tracker's CLEAR MOT matching on one sequence, frame by frame, as the window shows
it (docs/measures.md §5): every box's outcome on a frame, and the frames with identity
switches, fragmentations, false positives and misses.

The outcomes are read from the matching that gave the sequence's CLEAR MOT numbers
(:mod:`~referee.core.measures.clear_matching`), so the events drawn are the events
counted: as many switch marks as IDSW, as many resumed objects as Frag.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import numpy as np

from referee.core.measures.boxes import VideoBoxes
from referee.core.measures.clear_matching import ClearMatching, FrameMatches
from referee.core.measures.packed_frames import (
    PackedArrays,
    PackedBoxes,
    pack_matches,
    pack_video_boxes,
    unpack_matches,
    unpack_video_boxes,
)

#: The ground truth's and the tracker's boxes and the matches, packed for pickling.
_Packed = tuple[PackedBoxes, PackedBoxes, list[PackedArrays]]


class TrackOutcome(Enum):
    """What a box is on its frame under CLEAR MOT's matching."""

    MATCHED = "matched"
    MISS = "miss"
    FALSE_POSITIVE = "false positive"


@dataclass(frozen=True)
class BoxOutcome:
    """One box of a frame and its outcome.

    ``groundtruth`` says which side the box is from; ``identity`` is its own identity
    as in its file, ``partner`` the matched box's identity on the other side. A matched
    ground-truth object may have ``switched`` identity (its tracker identity differs from
    the one it was last matched to, ``previous``: an identity switch) and may be
    ``resumed`` (matched again after unmatched frames: a fragmentation), or both.
    """

    groundtruth: bool
    box: tuple[float, float, float, float]
    identity: int
    outcome: TrackOutcome
    partner: int | None = None
    switched: bool = False
    resumed: bool = False
    previous: int | None = None


class TrackedFrames:
    """A tracker's matching on one sequence: ``numbers[t]`` is the frame of ``matches[t]``;
    ``switched_from`` maps (frame, ground-truth box index) of each switch to the tracker
    identity before it.

    Pickled, it is a few flat arrays (:mod:`~referee.core.measures.packed_frames`), and an
    unpickled one rebuilds its per-frame boxes and matches when first read: a worker
    process's result arrives without the thousands of small arrays whose unpickling held
    the receiving process's interpreter lock (and the window's paints) for tens of ms.
    """

    def __init__(
        self,
        groundtruth: VideoBoxes,
        tracker: VideoBoxes,
        numbers: tuple[int, ...],
        matches: tuple[FrameMatches, ...],
        switched_from: dict[tuple[int, int], int],
    ) -> None:
        self.numbers = tuple(numbers)
        self.switched_from = switched_from
        self._unpacked: tuple[VideoBoxes, VideoBoxes, tuple[FrameMatches, ...]] | None = (
            groundtruth,
            tracker,
            tuple(matches),
        )
        self._packed: _Packed | None = None

    @property
    def groundtruth(self) -> VideoBoxes:
        return self._parts()[0]

    @property
    def tracker(self) -> VideoBoxes:
        return self._parts()[1]

    @property
    def matches(self) -> tuple[FrameMatches, ...]:
        return self._parts()[2]

    def _parts(self) -> tuple[VideoBoxes, VideoBoxes, tuple[FrameMatches, ...]]:
        if self._unpacked is None:
            assert self._packed is not None  # one of the two is always held
            groundtruth, tracker, matches = self._packed
            self._unpacked = (
                unpack_video_boxes(groundtruth),
                unpack_video_boxes(tracker),
                unpack_matches(matches),
            )
            self._packed = None
        return self._unpacked

    def __repr__(self) -> str:
        groundtruth, tracker, matches = self._parts()
        return (
            f"TrackedFrames(groundtruth={groundtruth!r}, tracker={tracker!r}, "
            f"numbers={self.numbers!r}, matches={matches!r}, "
            f"switched_from={self.switched_from!r})"
        )

    def __reduce__(self) -> tuple[Callable[..., TrackedFrames], tuple[object, ...]]:
        packed = self._packed
        if packed is None:
            groundtruth, tracker, matches = self._parts()
            packed = (
                pack_video_boxes(groundtruth),
                pack_video_boxes(tracker),
                pack_matches(matches),
            )
        return (_from_packed, (packed, self.numbers, self.switched_from))

    def _index(self, frame: int) -> int | None:
        t = bisect.bisect_left(self.numbers, frame)
        return t if t < len(self.numbers) and self.numbers[t] == frame else None

    def outcomes(self, frame: int) -> list[BoxOutcome]:
        """Every box of ``frame``, ground truth first, with its outcome (none outside the
        sequence)."""
        t = self._index(frame)
        if t is None:
            return []
        found = self.matches[t]
        gt, tracker = self.groundtruth.at(frame), self.tracker.at(frame)
        gt_ids, tracker_ids = _ids(gt.ids, len(gt)), _ids(tracker.ids, len(tracker))
        partner_of = dict(zip(found.gt.tolist(), found.tracker.tolist()))
        switched, resumed = set(found.switched.tolist()), set(found.resumed.tolist())
        result = []
        for i in range(len(gt)):
            j = partner_of.get(i)
            result.append(
                BoxOutcome(
                    True,
                    _box(gt.boxes[i]),
                    gt_ids[i],
                    TrackOutcome.MISS if j is None else TrackOutcome.MATCHED,
                    None if j is None else tracker_ids[j],
                    i in switched,
                    i in resumed,
                    self.switched_from.get((frame, i)),
                )
            )
        gt_of = {j: i for i, j in partner_of.items()}
        for j in range(len(tracker)):
            i_gt = gt_of.get(j)
            result.append(
                BoxOutcome(
                    False,
                    _box(tracker.boxes[j]),
                    tracker_ids[j],
                    TrackOutcome.FALSE_POSITIVE if i_gt is None else TrackOutcome.MATCHED,
                    None if i_gt is None else gt_ids[i_gt],
                )
            )
        return result

    def switch_frames(self) -> list[int]:
        """Frames with at least one identity switch, ascending."""
        return [n for n, m in zip(self.numbers, self.matches) if len(m.switched)]

    def fragment_frames(self) -> list[int]:
        """Frames on which at least one object is matched again after a gap, ascending."""
        return [n for n, m in zip(self.numbers, self.matches) if len(m.resumed)]

    def errors(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per frame of the sequence: its number, its false positives and its misses."""
        fp = [len(self.tracker.at(n)) - len(m.gt) for n, m in zip(self.numbers, self.matches)]
        fn = [len(self.groundtruth.at(n)) - len(m.gt) for n, m in zip(self.numbers, self.matches)]
        return (
            np.array(self.numbers, dtype=np.int64),
            np.array(fp, dtype=np.int64),
            np.array(fn, dtype=np.int64),
        )


def _from_packed(
    packed: _Packed,
    numbers: tuple[int, ...],
    switched_from: dict[tuple[int, int], int],
) -> TrackedFrames:
    """The :class:`TrackedFrames` its ``__reduce__`` packed, unpacked when first read."""
    tracked = TrackedFrames.__new__(TrackedFrames)
    tracked.numbers, tracked.switched_from = numbers, switched_from
    tracked._unpacked, tracked._packed = None, packed
    return tracked


def _ids(ids: np.ndarray | None, count: int) -> list[int]:
    return [-1] * count if ids is None else [int(i) for i in ids]


def _box(row: np.ndarray) -> tuple[float, float, float, float]:
    x, y, w, h = (float(v) for v in row)
    return x, y, w, h


def tracked_frames(
    groundtruth: VideoBoxes, tracker: VideoBoxes, numbers: list[int], matching: ClearMatching
) -> TrackedFrames:
    """The frames ``numbers`` of a sequence with their ``matching`` (one entry per number,
    as :func:`~referee.core.measures.clear_matching.clear_matching` gave it for the
    sequence built from ``groundtruth`` and ``tracker`` over ``numbers``)."""
    last: dict[int, int] = {}  # ground-truth identity → tracker identity last matched
    switched_from: dict[tuple[int, int], int] = {}
    for frame, found in zip(numbers, matching.frames):
        if not len(found.gt):
            continue
        gt_ids = groundtruth.at(frame).ids
        tracker_ids = tracker.at(frame).ids
        if gt_ids is None or tracker_ids is None:
            continue
        switched = set(found.switched.tolist())
        for i, j in zip(found.gt.tolist(), found.tracker.tolist()):
            object_id, partner = int(gt_ids[i]), int(tracker_ids[j])
            if i in switched and object_id in last:
                switched_from[(frame, i)] = last[object_id]
            last[object_id] = partner
    return TrackedFrames(groundtruth, tracker, tuple(numbers), matching.frames, switched_from)
