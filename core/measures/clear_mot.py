"""CLEAR MOT tracking measures (docs/measures.md §5; Bernardin & Stiefelhagen 2008).

Frame by frame, ground-truth objects are matched one-to-one to tracker boxes
(:mod:`~referee.core.measures.clear_matching`). From the matches come true positives, misses, false positives,
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

from referee.core.measures.clear_matching import ClearMatching, clear_matching
from referee.core.measures.tracked import TrackedSequence

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


def clear_mot(
    sequence: TrackedSequence, threshold: float = 0.5, matching: ClearMatching | None = None
) -> ClearMot:
    """CLEAR MOT of one sequence at an IoU ``threshold`` (docs/measures.md §5), from its
    frame-by-frame matching (:func:`~referee.core.measures.clear_matching.clear_matching`).

    A sequence without any tracker box counts every ground-truth box as a miss
    and every ground-truth identity as mostly lost; one without any ground-truth
    box counts every tracker box as a false positive. In both cases, as in
    TrackEval, the ratios are not computed (0) except ``mlr`` = 1, and
    ``frames`` is 0. ``matching``, when given, is the sequence's matching at
    ``threshold``, computed already.
    """
    if sequence.num_tracker_dets == 0:
        return _one_side_empty(fn=sequence.num_gt_dets, fp=0, ml=sequence.num_gt_ids)
    if sequence.num_gt_dets == 0:
        return _one_side_empty(fn=0, fp=sequence.num_tracker_dets, ml=0)

    matching = matching or clear_matching(sequence, threshold)
    tp = idsw = 0
    motp_sum = 0.0
    for found, iou in zip(matching.frames, sequence.similarity):
        tp += len(found.gt)
        idsw += len(found.switched)
        if len(found.gt):
            motp_sum += float(np.sum(iou[found.gt, found.tracker]))
    present = matching.seen > 0
    share = matching.matched[present] / matching.seen[present]
    mt = int(np.count_nonzero(share > _MOSTLY))
    pt = int(np.count_nonzero(share >= _PARTLY)) - mt
    runs = matching.runs
    return _from_counts(
        tp=tp,
        fn=sequence.num_gt_dets - tp,
        fp=sequence.num_tracker_dets - tp,
        idsw=idsw,
        mt=mt,
        pt=pt,
        ml=sequence.num_gt_ids - mt - pt,
        frag=int(np.sum(runs[runs > 0] - 1)),
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
