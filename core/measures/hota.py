"""Tracking: the HOTA family of measures (docs/measures.md §5, "Tracking: HOTA").

Higher Order Tracking Accuracy, Luiten et al. [Luiten], computed as TrackEval 1.3.0
computes it, TrackEval being the reference for every detail:

1. Global alignment. On every frame the IoU ``S`` of each (ground truth, tracker)
   pair is turned into a share ``S / (row sum + column sum − S)`` (0 where that
   denominator is not above machine epsilon), and the shares are summed per pair of
   identities over the sequence into ``P``. The alignment of ground-truth identity
   ``g`` and tracker identity ``k`` is ``P / (n_g + n_k − P)``, where ``n_g`` and
   ``n_k`` count the frames each identity is on.
2. Per frame, the boxes are assigned one-to-one so as to maximize the total of
   ``alignment × IoU`` (Hungarian assignment; ties as SciPy's solver breaks them).
   For each localisation threshold α of :data:`ALPHAS`, an assigned pair is a true
   positive when its IoU is at least ``α − ε`` (ε: machine epsilon); every other box
   is a miss or a false positive.
3. Per α: with ``c`` the number of true positives of a pair of identities,
   ``AssA = Σ c · c / max(1, n_g + n_k − c) / max(1, TP)``, ``AssRe`` and ``AssPr``
   likewise with ``max(1, n_g)`` and ``max(1, n_k)``;
   ``LocA = max(1e-10, Σ IoU of the true positives) / max(1e-10, TP)`` (1 without
   any); ``DetA = TP / max(1, TP + FN + FP)``, ``DetRe``, ``DetPr``;
   ``HOTA = √(DetA · AssA)`` and ``OWTA = √(DetRe · AssA)``.

Several sequences combine (:func:`combine_hota`) by summing TP, FN and FP per α,
averaging AssA, AssRe, AssPr and LocA weighted by each sequence's TP, then deriving
the other fields from those, as TrackEval's combined sequence does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
from scipy.optimize import linear_sum_assignment

from referee.core.measures.tracked import FramePairs, TrackedSequence, frame_pairs

#: The localisation thresholds α: 0.05, 0.10, …, 0.95 (19 values, built as TrackEval
#: builds them, so that each threshold is the same float).
ALPHAS: Final[np.ndarray] = np.arange(0.05, 0.99, 0.05)
ALPHAS.setflags(write=False)

_EPSILON: Final[float] = float(np.finfo(np.float64).eps)
#: The floor of LocA's numerator and denominator: LocA is 1 when there is no true positive.
_LOCA_FLOOR: Final[float] = 1e-10


def _share(part: np.ndarray, whole: np.ndarray) -> np.ndarray:
    """``part / max(1, whole)``, element by element."""
    return np.asarray(part / np.maximum(1, whole), dtype=np.float64)


def _frozen(values: np.ndarray, dtype: type[np.generic]) -> np.ndarray:
    array = np.array(values, dtype=dtype).reshape(len(ALPHAS))
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class HotaScores:
    """HOTA and its sub-measures of one sequence, or of several combined
    (docs/measures.md §5, "Tracking: HOTA").

    Every array has one value per α of :data:`ALPHAS`; the ``mean_…`` properties
    average a field over α, which is the value TrackEval reports for it.

    Attributes
    ----------
    true_positives, false_negatives, false_positives
        ``int64``: TrackEval's ``HOTA_TP``, ``HOTA_FN`` and ``HOTA_FP``.
    ass_a, ass_re, ass_pr
        ``float64``: association accuracy, recall and precision (0 without any true
        positive).
    loc_a
        ``float64``: the mean IoU of the true positives (1 without any).
    """

    true_positives: np.ndarray
    false_negatives: np.ndarray
    false_positives: np.ndarray
    ass_a: np.ndarray
    ass_re: np.ndarray
    ass_pr: np.ndarray
    loc_a: np.ndarray

    def __post_init__(self) -> None:
        for name in ("true_positives", "false_negatives", "false_positives"):
            object.__setattr__(self, name, _frozen(getattr(self, name), np.int64))
        for name in ("ass_a", "ass_re", "ass_pr", "loc_a"):
            object.__setattr__(self, name, _frozen(getattr(self, name), np.float64))

    # --- per α ----------------------------------------------------------------------

    @property
    def det_re(self) -> np.ndarray:
        """Detection recall ``TP / max(1, TP + FN)`` per α."""
        return _share(self.true_positives, self.true_positives + self.false_negatives)

    @property
    def det_pr(self) -> np.ndarray:
        """Detection precision ``TP / max(1, TP + FP)`` per α."""
        return _share(self.true_positives, self.true_positives + self.false_positives)

    @property
    def det_a(self) -> np.ndarray:
        """Detection accuracy ``TP / max(1, TP + FN + FP)`` per α."""
        total = self.true_positives + self.false_negatives + self.false_positives
        return _share(self.true_positives, total)

    @property
    def hota(self) -> np.ndarray:
        """``√(DetA · AssA)`` per α."""
        return np.asarray(np.sqrt(self.det_a * self.ass_a), dtype=np.float64)

    @property
    def owta(self) -> np.ndarray:
        """Open-world tracking accuracy ``√(DetRe · AssA)`` per α."""
        return np.asarray(np.sqrt(self.det_re * self.ass_a), dtype=np.float64)

    # --- at the first α (TrackEval's HOTA(0), LocA(0), HOTALocA(0)) ------------------

    @property
    def hota_0(self) -> float:
        """HOTA at the lowest α (0.05)."""
        return float(self.hota[0])

    @property
    def loc_a_0(self) -> float:
        """LocA at the lowest α (0.05)."""
        return float(self.loc_a[0])

    @property
    def hota_loc_a_0(self) -> float:
        """``HOTA(0) · LocA(0)``."""
        return self.hota_0 * self.loc_a_0

    # --- averaged over α ------------------------------------------------------------

    @property
    def mean_hota(self) -> float:
        """HOTA averaged over α: the headline value."""
        return float(np.mean(self.hota))

    @property
    def mean_det_a(self) -> float:
        return float(np.mean(self.det_a))

    @property
    def mean_det_re(self) -> float:
        return float(np.mean(self.det_re))

    @property
    def mean_det_pr(self) -> float:
        return float(np.mean(self.det_pr))

    @property
    def mean_ass_a(self) -> float:
        return float(np.mean(self.ass_a))

    @property
    def mean_ass_re(self) -> float:
        return float(np.mean(self.ass_re))

    @property
    def mean_ass_pr(self) -> float:
        return float(np.mean(self.ass_pr))

    @property
    def mean_loc_a(self) -> float:
        return float(np.mean(self.loc_a))

    @property
    def mean_owta(self) -> float:
        return float(np.mean(self.owta))


# --- one sequence ------------------------------------------------------------------------


def _segment_sums(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The sum of ``values[s : s + n]`` for each start ``s`` and length ``n`` (at least 1),
    each summed as NumPy sums a contiguous row of ``n`` values (pairwise), so that it is
    the sum of that row of a frame's matrix to the bit."""
    sums = np.zeros(len(starts))
    for n in np.unique(lengths).tolist():
        which = np.flatnonzero(lengths == n)
        sums[which] = values[starts[which, np.newaxis] + np.arange(n)].sum(axis=1)
    return sums


def _shares(pairs: FramePairs) -> np.ndarray:
    """Each pair's IoU over the IoU its two boxes have with anything on the frame, 0 where
    that is not above machine epsilon.

    The row and column sums of each frame's IoU matrix are those NumPy gives for that
    matrix alone: a row pairwise, a column row after row in order (pairwise too when the
    frame has a single tracker box).
    """
    lengths = np.repeat(pairs.tracker_counts, pairs.gt_counts)
    rows = np.flatnonzero(lengths)
    row_sums = np.zeros(len(pairs.gt_ids))
    row_sums[rows] = _segment_sums(pairs.iou, pairs.row_starts[rows], lengths[rows])
    # bincount adds each column's values in the order given: row after row.
    column_sums = np.bincount(pairs.tracker_box, pairs.iou, minlength=len(pairs.tracker_ids))
    single = np.flatnonzero((pairs.tracker_counts == 1) & (pairs.gt_counts > 0))
    column_sums[pairs.tracker_box[pairs.starts[single]]] = _segment_sums(
        pairs.iou, pairs.starts[single], pairs.gt_counts[single]
    )
    overlap = row_sums[pairs.gt_box] + column_sums[pairs.tracker_box] - pairs.iou
    share = np.zeros_like(pairs.iou)
    usable = overlap > _EPSILON
    share[usable] = pairs.iou[usable] / overlap[usable]
    return share


def _identity_alignment(
    sequence: TrackedSequence,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The alignment of every (ground-truth id, tracker id) pair over the sequence, and
    how many frames each ground-truth and each tracker identity is on."""
    g, t = sequence.num_gt_ids, sequence.num_tracker_ids
    summed = np.zeros(g * t)
    gt_frames = np.zeros(g)
    tracker_frames = np.zeros(t)
    for pairs in frame_pairs(sequence):
        gt_frames += np.bincount(pairs.gt_ids, minlength=g)
        tracker_frames += np.bincount(pairs.tracker_ids, minlength=t)
        # Summed frame after frame, in order, as frame-by-frame sums would be.
        np.add.at(summed, pairs.pair_gt_ids * t + pairs.pair_tracker_ids, _shares(pairs))
    shares = summed.reshape(g, t)
    together = gt_frames[:, np.newaxis] + tracker_frames[np.newaxis, :] - shares
    # Identities on no frame (allowed by the numbering) have no alignment.
    alignment = np.divide(shares, together, out=np.zeros_like(shares), where=together > 0)
    return alignment, gt_frames, tracker_frames


def _assigned_pairs(
    sequence: TrackedSequence, alignment: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair the per-frame assignments make: ground-truth id, tracker id, IoU."""
    gt_found: list[np.ndarray] = []
    tracker_found: list[np.ndarray] = []
    iou_found: list[np.ndarray] = []
    for pairs in frame_pairs(sequence):
        # Minimizing the negated score, exactly as the reference does, keeps its choice
        # among assignments of equal total.
        negated = -(alignment[pairs.pair_gt_ids, pairs.pair_tracker_ids] * pairs.iou)
        with_pairs = np.flatnonzero(np.diff(pairs.starts))
        starts, heights, widths = (
            a[with_pairs] for a in (pairs.starts, pairs.gt_counts, pairs.tracker_counts)
        )
        chosen_rows: list[np.ndarray] = []
        chosen_columns: list[np.ndarray] = []
        for start, g, k in zip(starts.tolist(), heights.tolist(), widths.tolist()):
            r, c = linear_sum_assignment(negated[start : start + g * k].reshape(g, k))
            chosen_rows.append(r)
            chosen_columns.append(c)
        if not chosen_rows:
            continue
        # The chosen pairs' places in the run: frame start + row × width + column.
        made = [len(r) for r in chosen_rows]
        picked = np.repeat(starts, made) + np.concatenate(chosen_rows) * np.repeat(widths, made)
        picked += np.concatenate(chosen_columns)
        gt_found.append(pairs.pair_gt_ids[picked])
        tracker_found.append(pairs.pair_tracker_ids[picked])
        iou_found.append(pairs.iou[picked])
    if not gt_found:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty, np.zeros(0)
    return np.concatenate(gt_found), np.concatenate(tracker_found), np.concatenate(iou_found)


def hota(sequence: TrackedSequence) -> HotaScores:
    """HOTA and its sub-measures of one sequence (docs/measures.md §5, "Tracking: HOTA").

    A sequence without any tracker box has every ground-truth box a miss, and one
    without any ground-truth box every tracker box a false positive; all their
    accuracies are then 0 and LocA is 1, as in TrackEval.
    """
    alignment, gt_frames, tracker_frames = _identity_alignment(sequence)
    gt_found, tracker_found, iou_found = _assigned_pairs(sequence, alignment)
    # passes[i, a]: the i-th assigned pair is a true positive at threshold ALPHAS[a].
    passes = iou_found[:, np.newaxis] >= ALPHAS[np.newaxis, :] - _EPSILON
    true_positives = passes.sum(axis=0)
    iou_total = np.where(passes, iou_found[:, np.newaxis], 0.0).sum(axis=0)

    ass_a, ass_re, ass_pr = (np.zeros(len(ALPHAS)) for _ in range(3))
    pair_code = gt_found * sequence.num_tracker_ids + tracker_found
    codes, which = np.unique(pair_code, return_inverse=True)
    for a in range(len(ALPHAS)):
        # The true positives of each pair of identities, those with any, by code.
        counts = np.bincount(which[passes[:, a]], minlength=len(codes))
        present = counts > 0
        if not present.any():
            continue
        counts = counts[present]
        n_gt = gt_frames[codes[present] // sequence.num_tracker_ids]
        n_tracker = tracker_frames[codes[present] % sequence.num_tracker_ids]
        # Each true positive weighs its pair's agreement: c/(n_g + n_k − c), c/n_g, c/n_k.
        found = max(1, int(true_positives[a]))
        ass_a[a] = np.sum(counts * (counts / np.maximum(1, n_gt + n_tracker - counts))) / found
        ass_re[a] = np.sum(counts * (counts / np.maximum(1, n_gt))) / found
        ass_pr[a] = np.sum(counts * (counts / np.maximum(1, n_tracker))) / found

    return HotaScores(
        true_positives=true_positives,
        false_negatives=sequence.num_gt_dets - true_positives,
        false_positives=sequence.num_tracker_dets - true_positives,
        ass_a=ass_a,
        ass_re=ass_re,
        ass_pr=ass_pr,
        loc_a=_mean_iou(iou_total, true_positives),
    )


def _mean_iou(iou_total: np.ndarray, true_positives: np.ndarray) -> np.ndarray:
    mean = np.maximum(_LOCA_FLOOR, iou_total) / np.maximum(_LOCA_FLOOR, true_positives)
    return np.asarray(mean, dtype=np.float64)


# --- several sequences ---------------------------------------------------------------


def combine_hota(results: Sequence[HotaScores]) -> HotaScores:
    """The scores of several sequences together (docs/measures.md §5, "Tracking: HOTA").

    TP, FN and FP are summed per α; AssA, AssRe, AssPr and LocA are the sequences'
    values weighted by their TP (AssA, AssRe and AssPr are 0, LocA 1, without any
    true positive); the other fields follow from these. No sequence gives all counts 0.
    """
    zeros = np.zeros(len(ALPHAS), dtype=np.int64)
    true_positives = sum((r.true_positives for r in results), zeros)

    def weighted_sum(field: str) -> np.ndarray:
        return sum((getattr(r, field) * r.true_positives for r in results), np.zeros(len(ALPHAS)))

    def weighted_mean(field: str) -> np.ndarray:
        return weighted_sum(field) / np.maximum(1.0, true_positives)

    return HotaScores(
        true_positives=true_positives,
        false_negatives=sum((r.false_negatives for r in results), zeros),
        false_positives=sum((r.false_positives for r in results), zeros),
        ass_a=weighted_mean("ass_a"),
        ass_re=weighted_mean("ass_re"),
        ass_pr=weighted_mean("ass_pr"),
        loc_a=_mean_iou(weighted_sum("loc_a"), true_positives),
    )
