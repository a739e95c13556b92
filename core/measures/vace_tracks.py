"""VACE's track measures STDA and ATA (docs/measures.md §5; Kasturi et al. 2009).

Every ground-truth identity and tracker identity of a sequence is compared as a whole:
their *temporal IoU* is the number of frames on which both are present with IoU at or
above a threshold, over the number of frames on which either is present. Identities are
paired one-to-one so that the total temporal IoU is largest; that total is STDA, and ATA
divides it by the mean number of identities of the two sides.

The numbers are those of TrackEval 1.3.0's ``VACE`` metric, its conventions included:
without any identity on either side ATA is undefined (NaN).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.measures.tracked import TrackedSequence


@dataclass(frozen=True)
class VaceTrackScores:
    """STDA and the identity counts of one sequence, or of several combined (§5).

    Attributes
    ----------
    stda
        Sum of the temporal IoUs of the paired identities (0 to the smaller number of
        identities).
    gt_ids, tracker_ids
        How many ground-truth and tracker identities the sequences hold.
    """

    stda: float
    gt_ids: int
    tracker_ids: int

    @property
    def ata(self) -> float:
        """``stda / ((gt_ids + tracker_ids) / 2)``, in [0, 1]; NaN without any identity."""
        identities = self.gt_ids + self.tracker_ids
        return self.stda / (identities / 2) if identities else math.nan


def temporal_ious(sequence: TrackedSequence, threshold: float = 0.5) -> np.ndarray:
    """``(num_gt_ids, num_tracker_ids)`` temporal IoU of every pair of identities: frames
    where both are present with IoU ``>= threshold`` (no tolerance), over the frames
    where either is present."""
    overlapping = np.zeros((sequence.num_gt_ids, sequence.num_tracker_ids))
    together = np.zeros_like(overlapping)
    gt_frames = np.zeros(sequence.num_gt_ids)
    tracker_frames = np.zeros(sequence.num_tracker_ids)
    for gt_ids, tracker_ids, iou in zip(sequence.gt_ids, sequence.tracker_ids, sequence.similarity):
        rows, cols = np.nonzero(iou >= threshold)
        overlapping[gt_ids[rows], tracker_ids[cols]] += 1  # ids are distinct within a frame
        together[np.ix_(gt_ids, tracker_ids)] += 1
        gt_frames[gt_ids] += 1
        tracker_frames[tracker_ids] += 1
    # Every identity is on at least one frame, so each pair's union is at least 1.
    either = gt_frames[:, np.newaxis] + tracker_frames[np.newaxis, :] - together
    return overlapping / np.maximum(either, 1.0)


def vace_tracks(sequence: TrackedSequence, threshold: float = 0.5) -> VaceTrackScores:
    """STDA and ATA of one sequence at an IoU ``threshold`` (docs/measures.md §5)."""
    from scipy.optimize import linear_sum_assignment  # here: slow to import

    tiou = temporal_ious(sequence, threshold)
    rows, cols = linear_sum_assignment(tiou, maximize=True)
    return VaceTrackScores(
        float(tiou[rows, cols].sum()), sequence.num_gt_ids, sequence.num_tracker_ids
    )


def combine_vace_tracks(results: Sequence[VaceTrackScores]) -> VaceTrackScores:
    """Several sequences together: STDA and the identity counts summed, ATA from the sums."""
    return VaceTrackScores(
        stda=math.fsum(r.stda for r in results),
        gt_ids=sum(r.gt_ids for r in results),
        tracker_ids=sum(r.tracker_ids for r in results),
    )
