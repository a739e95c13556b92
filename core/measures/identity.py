"""Identity tracking measures IDF1, IDR, IDP (docs/measures.md §5; Ristani et al. 2016).

Each ground-truth identity is paired with at most one tracker identity, and
each tracker identity with at most one ground-truth identity, for the whole
sequence at once. A pair's true positives are the frames on which its two boxes
overlap with IoU at or above a threshold; the pairing maximizes their total.
Every other ground-truth box is an identity miss (IDFN), every other tracker box
an identity false positive (IDFP).

The numbers are those of TrackEval 1.3.0's ``Identity`` metric, its
conventions included: a ratio whose denominator is below 1 divides by 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.measures.tracked import TrackedSequence, frame_pairs

#: Cost of pairing an identity with another identity's "unmatched" stand-in: never chosen.
_FORBIDDEN = 1e10


def _ratio(numerator: float, denominator: float) -> float:
    return float(numerator / max(1.0, denominator))


@dataclass(frozen=True)
class IdentityScores:
    """Identity counts of one sequence, or of several combined (§5).

    Attributes
    ----------
    idtp
        Boxes on frames where a ground-truth identity and the tracker identity
        paired with it overlap with IoU at or above the threshold.
    idfn, idfp
        The other ground-truth boxes, the other tracker boxes.
    """

    idtp: int
    idfn: int
    idfp: int

    @property
    def idr(self) -> float:
        """Identity recall ``idtp / (idtp + idfn)`` (0 without ground truth)."""
        return _ratio(self.idtp, self.idtp + self.idfn)

    @property
    def idp(self) -> float:
        """Identity precision ``idtp / (idtp + idfp)`` (0 without tracker boxes)."""
        return _ratio(self.idtp, self.idtp + self.idfp)

    @property
    def idf1(self) -> float:
        """``idtp / (idtp + (idfn + idfp) / 2)`` (0 when there is no box at all)."""
        return _ratio(self.idtp, self.idtp + 0.5 * self.idfp + 0.5 * self.idfn)


def _pairing_costs(
    overlaps: np.ndarray, gt_lengths: np.ndarray, tracker_lengths: np.ndarray
) -> np.ndarray:
    """The square cost matrix of the identity pairing.

    Rows: the ``G`` ground-truth identities, then one stand-in per tracker identity
    ("this tracker identity is unpaired"). Columns: the ``T`` tracker identities,
    then one stand-in per ground-truth identity. A real pair costs the boxes of
    both identities it leaves unmatched; an identity facing its own stand-in costs
    all its boxes; stand-in facing stand-in costs nothing.
    """
    g, t = overlaps.shape
    costs = np.zeros((g + t, g + t))
    costs[:g, :t] = gt_lengths[:, np.newaxis] + tracker_lengths[np.newaxis, :] - 2 * overlaps
    costs[:g, t:] = _FORBIDDEN
    costs[np.arange(g), t + np.arange(g)] = gt_lengths
    costs[g:, :t] = _FORBIDDEN
    costs[g + np.arange(t), np.arange(t)] = tracker_lengths
    return costs


def identity_scores(sequence: TrackedSequence, threshold: float = 0.5) -> IdentityScores:
    """IDTP, IDFN and IDFP of one sequence at an IoU ``threshold`` (docs/measures.md §5).

    A pair's frame counts when its IoU is at or above ``threshold`` (no tolerance).
    """
    if sequence.num_tracker_dets == 0:
        return IdentityScores(idtp=0, idfn=sequence.num_gt_dets, idfp=0)
    if sequence.num_gt_dets == 0:
        return IdentityScores(idtp=0, idfn=0, idfp=sequence.num_tracker_dets)

    from scipy.optimize import linear_sum_assignment  # here: slow to import

    g, t = sequence.num_gt_ids, sequence.num_tracker_ids
    counted = np.zeros(g * t)
    gt_lengths = np.zeros(g)
    tracker_lengths = np.zeros(t)
    for pairs in frame_pairs(sequence):
        hits = pairs.iou >= threshold
        codes = pairs.pair_gt_ids[hits] * t + pairs.pair_tracker_ids[hits]
        counted += np.bincount(codes, minlength=g * t)
        gt_lengths += np.bincount(pairs.gt_ids, minlength=g)
        tracker_lengths += np.bincount(pairs.tracker_ids, minlength=t)
    overlaps = counted.reshape(g, t)

    rows, cols = linear_sum_assignment(_pairing_costs(overlaps, gt_lengths, tracker_lengths))
    real = (rows < sequence.num_gt_ids) & (cols < sequence.num_tracker_ids)
    idtp = int(overlaps[rows[real], cols[real]].sum())
    return IdentityScores(
        idtp=idtp,
        idfn=sequence.num_gt_dets - idtp,
        idfp=sequence.num_tracker_dets - idtp,
    )


def combine_identity(results: Sequence[IdentityScores]) -> IdentityScores:
    """Several sequences together: IDTP, IDFN and IDFP summed, ratios from the sums."""
    return IdentityScores(
        idtp=sum(r.idtp for r in results),
        idfn=sum(r.idfn for r in results),
        idfp=sum(r.idfp for r in results),
    )
