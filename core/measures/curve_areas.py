"""Areas under the curves of soft outputs: ROC AUC and average precision (docs/measures.md §3).

Both are computed from a curve's 256 confusion matrices and its end point
where nothing is detected (:meth:`Curves.with_end`), in exact
rational arithmetic on those entries, rounded once to a float. On a video's
curve (whole counts) they are the numbers scikit-learn's ``roc_auc_score`` and
``average_precision_score`` give on the evaluated pixels (label 1 for motion,
0 for static and shadow; the score 0..255); on a summarized curve they are the
same formulas on the blended matrices.
"""

from __future__ import annotations

from fractions import Fraction

from referee.core.measures.curves import NOTHING_DETECTED, Curves
from referee.core.measures.indicators import (
    NO_NEGATIVE,
    NO_POSITIVE,
    IndicatorValue,
    undefined,
)


def _exact_sweep(curves: Curves) -> tuple[list[Fraction], list[Fraction], Fraction, Fraction]:
    """``tp`` and ``fp`` for ``T = 0..256``, the positives and the negatives, as exact rationals."""
    c = [[Fraction(float(v)) for v in column] for column in curves.with_end().confusions.T]
    tp, fp, fn, tn = c
    return tp, fp, tp[0] + fn[0], fp[0] + tn[0]


def roc_auc(curves: Curves) -> IndicatorValue:
    """Area under the ROC curve, trapezoids from ``(0, 0)`` to ``(1, 1)`` (docs/measures.md §3).

    ``AUC = Σ_T (fp(T) − fp(T+1)) · (tp(T) + tp(T+1)) / (2 · P · N)`` over
    ``T = 0..255``, with ``tp(256) = fp(256) = 0``, ``P`` the positives and
    ``N`` the negatives. Undefined without a positive or without a negative pixel.
    """
    tp, fp, positives, negatives = _exact_sweep(curves)
    if positives == 0:
        return undefined(NO_POSITIVE)
    if negatives == 0:
        return undefined(NO_NEGATIVE)
    twice_area = sum(
        ((fp[t] - fp[t + 1]) * (tp[t] + tp[t + 1]) for t in range(NOTHING_DETECTED)),
        Fraction(0),
    )
    return IndicatorValue(float(twice_area / (2 * positives * negatives)))


def average_precision(curves: Curves) -> IndicatorValue:
    """Average precision, the step sum ``Σ (R_n − R_{n−1}) · P_n`` (docs/measures.md §3).

    ``AP = Σ_T (tp(T) − tp(T+1)) / P · tp(T) / (tp(T) + fp(T))`` over the
    thresholds where recall grows (``tp(T) > tp(T+1)``, ``tp(256) = 0``), with no
    interpolation. Undefined without a positive pixel; 1 without a negative pixel.
    """
    tp, fp, positives, _ = _exact_sweep(curves)
    if positives == 0:
        return undefined(NO_POSITIVE)
    weighted_precision = sum(
        (
            (tp[t] - tp[t + 1]) * tp[t] / (tp[t] + fp[t])
            for t in range(NOTHING_DETECTED)
            if tp[t] > tp[t + 1]
        ),
        Fraction(0),
    )
    return IndicatorValue(float(weighted_precision / positives))


def curve_areas(curves: Curves) -> tuple[IndicatorValue, IndicatorValue]:
    """The ROC AUC and the average precision of ``curves`` (docs/measures.md §3)."""
    return roc_auc(curves), average_precision(curves)
