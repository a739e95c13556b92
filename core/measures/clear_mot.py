"""CLEAR MOT tracking measures (docs/measures.md §5; Bernardin & Stiefelhagen 2008).

Frame by frame, ground-truth objects are matched one-to-one to tracker boxes
with IoU at or above a threshold; a pair matched on the previous frame is kept
whenever it still reaches the threshold, and the remaining freedom maximizes
the total IoU. From the matches come true positives, misses, false positives,
identity switches, fragmentations and the mostly tracked / lost counts, then
MOTA, MOTP, MODA and the other ratios.

The numbers are those of TrackEval 1.3.0's ``CLEAR`` metric, its conventions
included: a ratio whose denominator is below 1 divides by 1, and a sequence
with no box on one side gets the fixed values described in :func:`clear_mot`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.measures.tracked import TrackedSequence

#: A pair that was matched on the previous frame scores this much more than any IoU,
#: so keeping it always wins over a better IoU elsewhere.
_CONTINUATION_BONUS = 1000.0
_EPS = float(np.finfo(np.float64).eps)
#: Share of its frames on which a ground-truth object is matched: above ``_MOSTLY`` it is
#: mostly tracked, below ``_PARTLY`` mostly lost, in between partly tracked.
_MOSTLY = 0.8
_PARTLY = 0.2


@dataclass(frozen=True)
class ClearMot:
    """CLEAR MOT counts and measures of one sequence, or of several combined (§5).

    Ratios divide by ``max(1, denominator)``, so a zero denominator gives 0.

    Attributes
    ----------
    tp, fn, fp
        Matched pairs, unmatched ground-truth boxes, unmatched tracker boxes
        (TrackEval's ``CLR_TP``, ``CLR_FN``, ``CLR_FP``).
    idsw
        Identity switches: a ground-truth object matched to another tracker
        identity than the one it was last matched to, any number of frames before.
    mt, pt, ml
        Ground-truth identities matched on more than 80 %, on 20 to 80 %, and on
        less than 20 % of their frames.
    frag
        Fragmentations: for each ground-truth identity, its runs of consecutively
        matched frames less one (summed over identities with at least one run).
    frames
        Frames of the sequence (``CLR_Frames``; 0 for a sequence with no box on one side).
    motp_sum
        Sum of the IoU of the matched pairs.
    mota
        ``(tp − fp − idsw) / (tp + fn)``.
    motp
        ``motp_sum / tp``: mean IoU of the matches.
    moda
        ``(tp − fp) / (tp + fn)``.
    recall, precision, f1
        ``tp / (tp + fn)``, ``tp / (tp + fp)``, ``tp / (tp + (fn + fp) / 2)``
        (``CLR_Re``, ``CLR_Pr``, ``CLR_F1``).
    mtr, ptr, mlr
        ``mt``, ``pt``, ``ml`` over ``mt + pt + ml``.
    smota
        ``(motp_sum − fp − idsw) / (tp + fn)``: MOTA with each match weighed by its IoU.
    fp_per_frame
        ``fp / frames``.
    motal
        MOTA with ``log10(idsw)`` in place of ``idsw`` (``idsw`` itself when 0).
    """

    tp: int
    fn: int
    fp: int
    idsw: int
    mt: int
    pt: int
    ml: int
    frag: int
    frames: int
    motp_sum: float
    mota: float
    motp: float
    moda: float
    recall: float
    precision: float
    f1: float
    mtr: float
    ptr: float
    mlr: float
    smota: float
    fp_per_frame: float
    motal: float


def _ratio(numerator: float, denominator: float) -> float:
    return float(numerator / max(1.0, denominator))


def _from_counts(
    tp: int,
    fn: int,
    fp: int,
    idsw: int,
    mt: int,
    pt: int,
    ml: int,
    frag: int,
    frames: int,
    motp_sum: float,
) -> ClearMot:
    """The measures that follow from the counts (one sequence, or summed over several)."""
    gt_dets = tp + fn
    identities = mt + pt + ml
    log_idsw = math.log10(idsw) if idsw > 0 else float(idsw)
    return ClearMot(
        tp=tp,
        fn=fn,
        fp=fp,
        idsw=idsw,
        mt=mt,
        pt=pt,
        ml=ml,
        frag=frag,
        frames=frames,
        motp_sum=motp_sum,
        mota=_ratio(tp - fp - idsw, gt_dets),
        motp=_ratio(motp_sum, tp),
        moda=_ratio(tp - fp, gt_dets),
        recall=_ratio(tp, gt_dets),
        precision=_ratio(tp, tp + fp),
        f1=_ratio(tp, tp + 0.5 * fn + 0.5 * fp),
        mtr=_ratio(mt, identities),
        ptr=_ratio(pt, identities),
        mlr=_ratio(ml, identities),
        smota=_ratio(motp_sum - fp - idsw, gt_dets),
        fp_per_frame=_ratio(fp, frames),
        motal=_ratio(tp - fp - log_idsw, gt_dets),
    )


def _one_side_empty(fn: int, fp: int, ml: int) -> ClearMot:
    """TrackEval's fixed answer for a sequence without ground-truth or tracker boxes:
    only the counts of the other side, ``ml`` and ``mlr = 1`` are set; everything
    else, the ratios and the frame count included, is 0."""
    zero = 0.0
    return ClearMot(
        tp=0,
        fn=fn,
        fp=fp,
        idsw=0,
        mt=0,
        pt=0,
        ml=ml,
        frag=0,
        frames=0,
        motp_sum=zero,
        mota=zero,
        motp=zero,
        moda=zero,
        recall=zero,
        precision=zero,
        f1=zero,
        mtr=zero,
        ptr=zero,
        mlr=1.0,
        smota=zero,
        fp_per_frame=zero,
        motal=zero,
    )


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


def clear_mot(sequence: TrackedSequence, threshold: float = 0.5) -> ClearMot:
    """CLEAR MOT of one sequence at an IoU ``threshold`` (docs/measures.md §5).

    A sequence without any tracker box counts every ground-truth box as a miss
    and every ground-truth identity as mostly lost; one without any ground-truth
    box counts every tracker box as a false positive. In both cases, as in
    TrackEval, the ratios are not computed (0) except ``mlr`` = 1, and
    ``frames`` is 0.
    """
    if sequence.num_tracker_dets == 0:
        return _one_side_empty(fn=sequence.num_gt_dets, fp=0, ml=sequence.num_gt_ids)
    if sequence.num_gt_dets == 0:
        return _one_side_empty(fn=0, fp=sequence.num_tracker_dets, ml=0)

    identities = sequence.num_gt_ids
    seen = np.zeros(identities, dtype=np.int64)  # frames on which each gt identity is present
    matched = np.zeros(identities, dtype=np.int64)  # ... and matched
    runs = np.zeros(identities, dtype=np.int64)  # runs of consecutive matched frames
    # Tracker identity each gt identity was last matched to (−1: never), for the
    # switches, and the one it was matched to on the previous frame that had boxes on
    # both sides (−1: none), for keeping pairs and counting runs.
    last_partner = np.full(identities, -1, dtype=np.int64)
    previous_partner = np.full(identities, -1, dtype=np.int64)
    tp = fn = fp = idsw = 0
    motp_sum = 0.0

    for gt_ids, tracker_ids, iou in zip(sequence.gt_ids, sequence.tracker_ids, sequence.similarity):
        if len(gt_ids) == 0:
            fp += len(tracker_ids)
            continue
        seen[gt_ids] += 1
        if len(tracker_ids) == 0:
            fn += len(gt_ids)
            continue  # the previous frame's pairs stay as they were

        continuing = previous_partner[gt_ids][:, np.newaxis] == tracker_ids[np.newaxis, :]
        rows, cols = _match_frame(iou, continuing, threshold)
        pair_gt, pair_tracker = gt_ids[rows], tracker_ids[cols]

        before = last_partner[pair_gt]
        idsw += int(np.count_nonzero((before >= 0) & (before != pair_tracker)))
        last_partner[pair_gt] = pair_tracker

        matched[pair_gt] += 1
        was_matched = previous_partner >= 0
        previous_partner[:] = -1
        previous_partner[pair_gt] = pair_tracker
        runs += ~was_matched & (previous_partner >= 0)

        tp += len(rows)
        fn += len(gt_ids) - len(rows)
        fp += len(tracker_ids) - len(rows)
        if len(rows):
            motp_sum += float(np.sum(iou[rows, cols]))

    present = seen > 0
    share = matched[present] / seen[present]
    mt = int(np.count_nonzero(share > _MOSTLY))
    pt = int(np.count_nonzero(share >= _PARTLY)) - mt
    frag = int(np.sum(runs[runs > 0] - 1))
    return _from_counts(
        tp=tp,
        fn=fn,
        fp=fp,
        idsw=idsw,
        mt=mt,
        pt=pt,
        ml=identities - mt - pt,
        frag=frag,
        frames=sequence.num_frames,
        motp_sum=motp_sum,
    )


def combine_clear_mot(results: Sequence[ClearMot]) -> ClearMot:
    """CLEAR MOT of several sequences together: the counts, ``frames`` and
    ``motp_sum`` are summed and every ratio is recomputed from the sums (so MOTP
    weighs each sequence by its matches). An empty ``results`` gives all zeros.
    """
    motp_sum = 0.0
    for result in results:
        motp_sum += result.motp_sum
    return _from_counts(
        tp=sum(r.tp for r in results),
        fn=sum(r.fn for r in results),
        fp=sum(r.fp for r in results),
        idsw=sum(r.idsw for r in results),
        mt=sum(r.mt for r in results),
        pt=sum(r.pt for r in results),
        ml=sum(r.ml for r in results),
        frag=sum(r.frag for r in results),
        frames=sum(r.frames for r in results),
        motp_sum=motp_sum,
    )
