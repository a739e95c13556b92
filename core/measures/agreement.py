"""Agreement between annotators' label maps (docs/measures.md §13).

Pure numpy over arrays already in memory; no file is read here.

``K`` annotators each give a CDnet label map of the same frame. A pixel is
*counted* iff it is inside the ROI and every annotator gave it 0, 50 or 255 (85 and
170 are not evaluated, as in §1); it is *motion* for an annotator iff that
annotator gave it 255. A counted pixel's *vote code* has bit ``j`` set iff annotator
``j`` marked it motion, so every pairwise count is a sum over the histogram of codes,
which the STAPLE model of §7 is fitted to as well.

Two annotators ``a`` and ``b`` give the confusion matrix of ``b`` against ``a``:
``tp`` both marked motion, ``fn`` only ``a``, ``fp`` only ``b``, ``tn`` neither.
Cohen's κ and Dice (``2·tp / (2·tp + fp + fn)``, which is F1) are the registry's
(:mod:`referee.core.measures.indicators`) and do not depend on the order of the two.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from referee.core.measures.indicators import IndicatorValue, cohen_kappa, f1, undefined
from referee.core.measures.pixel import GT_MOTION, GT_OUTSIDE, GT_SHADOW, GT_STATIC, GT_UNKNOWN
from referee.core.model.confusion import ConfusionMatrix

#: The levels a counted pixel may have in every annotator's map (docs/measures.md §1).
COUNTED_LEVELS: tuple[int, ...] = (GT_STATIC, GT_SHADOW, GT_MOTION)

NO_COUNTED_PIXEL = "undefined: no pixel that both annotators labelled 0, 50 or 255"
NO_MOTION = "undefined: neither annotator marked motion"
ONE_CLASS = "undefined: both annotators gave every pixel one and the same class"

_COUNTED = np.zeros(256, dtype=bool)
_COUNTED[list(COUNTED_LEVELS)] = True


def annotator_pairs(k: int) -> tuple[tuple[int, int], ...]:
    """The pairs ``(a, b)``, ``a < b``, of ``k`` annotators, in the order every table uses."""
    return tuple((a, b) for a in range(k) for b in range(a + 1, k))


def vote_codes(
    labels: Sequence[np.ndarray], roi: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Each pixel's vote code and whether it is counted, for ``K`` label maps of one frame.

    Parameters
    ----------
    labels
        One ``uint8`` label map per annotator, all of one shape.
    roi
        ``True`` inside the region of interest; ``None``: the whole frame.

    Returns
    -------
    ``int64`` codes (bit ``j`` set iff annotator ``j`` gave 255) and a boolean map of the
    counted pixels.
    """
    counted = np.ones(labels[0].shape, dtype=bool) if roi is None else roi.astype(bool)
    codes = np.zeros(labels[0].shape, dtype=np.int64)
    for j, label in enumerate(labels):
        counted &= _COUNTED[label]
        codes |= (label == GT_MOTION).astype(np.int64) << j
    return codes, counted


def frame_patterns(codes: np.ndarray, counted: np.ndarray, k: int) -> np.ndarray:
    """How many counted pixels have each vote code: ``2**k`` counts."""
    return np.bincount(codes[counted], minlength=1 << k)


def pair_counts(rows: np.ndarray, frames: int, k: int) -> np.ndarray:
    """Per frame and pair of annotators, ``tp, fp, fn, tn`` (second against first).

    ``rows`` are ``(m, 3)``: frame row, vote code, count of counted pixels (any order).
    Returns ``(frames, pairs, 4)`` in the order of :func:`annotator_pairs`.
    """
    frame = rows[:, 0].astype(np.int64)
    code = rows[:, 1].astype(np.int64)
    pairs = annotator_pairs(k)
    out = np.zeros((frames, len(pairs), 4))
    # Column of each (first, second) vote: tp (1, 1), fp (0, 1), fn (1, 0), tn (0, 0).
    column = np.array([[3, 1], [2, 0]])
    for p, (a, b) in enumerate(pairs):
        cell = column[(code >> a) & 1, (code >> b) & 1]
        out[:, p, :] = np.bincount(
            frame * 4 + cell, weights=rows[:, 2], minlength=frames * 4
        ).reshape(frames, 4)
    return out


def pair_values(cm: ConfusionMatrix) -> tuple[IndicatorValue, IndicatorValue]:
    """Cohen's κ and Dice of two annotators' matrix, undefined cases said of annotators."""
    kappa, dice = cohen_kappa(cm), f1(cm)
    if cm.total == 0:
        return undefined(NO_COUNTED_PIXEL), undefined(NO_COUNTED_PIXEL)
    if not kappa.defined:
        kappa = undefined(ONE_CLASS)
    if not dice.defined:
        dice = undefined(NO_MOTION)
    return kappa, dice


def disagreement_map(labels: Sequence[np.ndarray], roi: np.ndarray | None) -> np.ndarray:
    """Per pixel, the share of pairs of annotators that disagree on motion, in [0, 1];
    NaN where the pixel is not counted. With ``m`` of ``K`` annotators marking motion it is
    ``m(K − m) / (K(K − 1)/2)``: 1 for two annotators who differ."""
    k = len(labels)
    codes, counted = vote_codes(labels, roi)
    motion = sum(((codes >> j) & 1) for j in range(k))
    share = motion * (k - motion) / (k * (k - 1) / 2)
    return np.where(counted, share, np.nan)


def consensus_levels(
    labels: Sequence[np.ndarray], roi: np.ndarray | None, motion: np.ndarray
) -> np.ndarray:
    """The consensus of one frame as a CDnet label map (docs/measures.md §13).

    A counted pixel is 255 where ``motion`` (the consensus ``W >= 0.5``), else 50 when
    more than half of the annotators gave 50, else 0. A pixel not counted is 85 outside the ROI or where
    an annotator gave 85, else 170 (an annotator left it unknown, or gave a value that is
    not a level).
    """
    codes, counted = vote_codes(labels, roi)
    shadow = sum((label == GT_SHADOW).astype(np.int64) for label in labels)
    levels = np.where(2 * shadow > len(labels), GT_SHADOW, GT_STATIC)
    levels = np.where(motion, GT_MOTION, levels)
    outside = np.zeros(codes.shape, dtype=bool) if roi is None else ~roi.astype(bool)
    for label in labels:
        outside |= label == GT_OUTSIDE
    excluded = np.where(outside, GT_OUTSIDE, GT_UNKNOWN)
    return np.where(counted, levels, excluded).astype(np.uint8)
