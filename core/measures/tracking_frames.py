"""One tracker's CLEAR MOT matching on one sequence, frame by frame, as the window shows
it (docs/measures.md §5): every box's outcome on a frame, and the frames with identity
switches, fragmentations, false positives and misses.

The outcomes are read from the matching that gave the sequence's CLEAR MOT numbers
(:mod:`~referee.core.measures.clear_matching`), so the events drawn are the events
counted: as many switch marks as IDSW, as many resumed objects as Frag.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from enum import Enum

import numpy as np

from referee.core.measures.boxes import VideoBoxes
from referee.core.measures.clear_matching import ClearMatching, FrameMatches


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


@dataclass(frozen=True, eq=False)
class TrackedFrames:
    """A tracker's matching on one sequence: ``numbers[t]`` is the frame of ``matches[t]``."""

    groundtruth: VideoBoxes
    tracker: VideoBoxes
    numbers: tuple[int, ...]
    matches: tuple[FrameMatches, ...]
    #: (frame, ground-truth box index) of each switch → the tracker identity before it.
    switched_from: dict[tuple[int, int], int]

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
