"""The frame-by-frame matching of CLEAR MOT (docs/measures.md §5), and the events it
shows: which boxes are matched, which ground-truth objects switch identity or resume
after a gap (a fragmentation).

On each frame, ground-truth objects are matched one-to-one to tracker boxes with IoU
at or above a threshold; a pair matched on the previous frame with boxes on both
sides is kept whenever it still reaches the threshold, and the remaining freedom
maximizes the total IoU (TrackEval 1.3.0's ``CLEAR`` metric). :mod:`clear_mot` counts
from this; the window draws it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from referee.core.measures.tracked import TrackedSequence

#: A pair that was matched on the previous frame scores this much more than any IoU,
#: so keeping it always wins over a better IoU elsewhere.
_CONTINUATION_BONUS = 1000.0
_EPS = float(np.finfo(np.float64).eps)
_NONE = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class FrameMatches:
    """One frame's matches and events, as indices into that frame's boxes.

    Attributes
    ----------
    gt, tracker
        The matched pairs: ground-truth box ``gt[k]`` with tracker box ``tracker[k]``.
    switched
        Matched ground-truth boxes whose object was last matched to another tracker
        identity (an identity switch).
    resumed
        Matched ground-truth boxes whose object is matched again after frames
        unmatched, having been matched before (a fragmentation).
    """

    gt: np.ndarray
    tracker: np.ndarray
    switched: np.ndarray
    resumed: np.ndarray


_UNMATCHED = FrameMatches(_NONE, _NONE, _NONE, _NONE)


@dataclass(frozen=True, eq=False)
class ClearMatching:
    """The matching of a whole sequence: one :class:`FrameMatches` per frame, and per
    ground-truth identity the frames it is present on, matched on, and its runs of
    consecutively matched frames."""

    frames: tuple[FrameMatches, ...]
    seen: np.ndarray
    matched: np.ndarray
    runs: np.ndarray


def _match_frame(
    iou: np.ndarray, continuing: np.ndarray, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of one frame's matches.

    ``continuing[i, j]`` says the pair was matched on the previous frame. Pairs
    below ``threshold`` (less one float epsilon) are excluded; among the rest the
    assignment maximizes the number of continuing pairs kept, then the total IoU.
    """
    from scipy.optimize import linear_sum_assignment  # here: slow to import

    score = _CONTINUATION_BONUS * continuing + iou
    score[iou < threshold - _EPS] = 0.0
    rows, cols = linear_sum_assignment(-score)
    kept = score[rows, cols] > _EPS
    return rows[kept], cols[kept]


def clear_matching(sequence: TrackedSequence, threshold: float = 0.5) -> ClearMatching:
    """Match ``sequence`` frame by frame at an IoU ``threshold``.

    A frame without ground-truth or without tracker boxes matches nothing and leaves
    the previous frame's pairs as they were, as TrackEval does.
    """
    identities = sequence.num_gt_ids
    seen = np.zeros(identities, dtype=np.int64)
    matched = np.zeros(identities, dtype=np.int64)
    runs = np.zeros(identities, dtype=np.int64)
    # Tracker identity each gt identity was last matched to (−1: never), for the
    # switches, and the one it was matched to on the previous frame that had boxes on
    # both sides (−1: none), for keeping pairs and counting runs.
    last_partner = np.full(identities, -1, dtype=np.int64)
    previous_partner = np.full(identities, -1, dtype=np.int64)
    frames: list[FrameMatches] = []
    for gt_ids, tracker_ids, iou in zip(sequence.gt_ids, sequence.tracker_ids, sequence.similarity):
        seen[gt_ids] += 1
        if len(gt_ids) == 0 or len(tracker_ids) == 0:
            frames.append(_UNMATCHED)
            continue
        continuing = previous_partner[gt_ids][:, np.newaxis] == tracker_ids[np.newaxis, :]
        rows, cols = _match_frame(iou, continuing, threshold)
        pair_gt, pair_tracker = gt_ids[rows], tracker_ids[cols]

        before = last_partner[pair_gt]
        switched = rows[(before >= 0) & (before != pair_tracker)]
        last_partner[pair_gt] = pair_tracker
        resumed = rows[(previous_partner[pair_gt] < 0) & (runs[pair_gt] > 0)]

        matched[pair_gt] += 1
        was_matched = previous_partner >= 0
        previous_partner[:] = -1
        previous_partner[pair_gt] = pair_tracker
        runs += ~was_matched & (previous_partner >= 0)
        frames.append(FrameMatches(rows, cols, switched, resumed))
    return ClearMatching(tuple(frames), seen, matched, runs)
