"""ROC and PR curves of soft outputs, per video and summarized (docs/measures.md §3).

A soft result is a score map 0..255; at threshold ``T`` a pixel is detected iff
its score is ``>= T``. The 256 confusion matrices of a video come from its
score histograms (:func:`referee.core.measures.pixel.threshold_confusions`). A
summarized curve blends, threshold by threshold, the videos' normalized
matrices with the summarization weights (docs/measures.md §2), so every point of it is the
curve point of one blended matrix.

Arrays of confusion matrices have one row per threshold and columns
``tp, fp, fn, tn`` (a fifth column, shadow errors, is accepted and ignored).
Beyond the sweep, threshold :data:`NOTHING_DETECTED` (256) is the end point
where no pixel is detected: ROC point ``(0, 0)``, recall 0. The areas under the
curves are in :mod:`referee.core.measures.curve_areas`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.errors import RefereeError
from referee.core.measures.indicators import f1_scores
from referee.core.measures.pixel import N_LEVELS, threshold_confusions
from referee.core.model.confusion import check_weights

THRESHOLDS = np.arange(N_LEVELS)
"""The 256 thresholds ``T = 0..255``; row ``T`` of every curve array."""

NOTHING_DETECTED = N_LEVELS
"""Threshold 256, above every score: the curves' end point where nothing is detected."""

ISO_F_LEVELS: tuple[float, ...] = tuple(i / 10 for i in range(2, 10))
"""F1 values of the iso-F1 lines drawn in PR space (:func:`iso_f1_curve`)."""


@dataclass(frozen=True, eq=False)
class Curves:
    """ROC and PR curves over the 256 thresholds (docs/measures.md §3).

    Attributes
    ----------
    thresholds
        ``0..255``; row ``T`` means "detected iff score >= T" (:meth:`with_end`
        adds :data:`NOTHING_DETECTED`).
    confusions
        One row per threshold, a float array ``tp, fp, fn, tn`` (counts for one video,
        probabilities for a summary).
    fpr, tpr, precision
        False-positive rate, true-positive rate (= recall) and precision per
        threshold; NaN where undefined (denominator 0).
    """

    thresholds: np.ndarray
    confusions: np.ndarray
    fpr: np.ndarray
    tpr: np.ndarray
    precision: np.ndarray

    @property
    def recall(self) -> np.ndarray:
        """Recall, the same as :attr:`tpr`."""
        return self.tpr

    @property
    def positives(self) -> float:
        """Positive (motion) pixels, ``tp + fn``: a count, or a probability for a summary."""
        return float(self.confusions[0, 0] + self.confusions[0, 2])

    @property
    def negatives(self) -> float:
        """Negative (static and shadow) pixels, ``fp + tn``, counted like :attr:`positives`."""
        return float(self.confusions[0, 1] + self.confusions[0, 3])

    def with_end(self) -> Curves:
        """These curves with one more row, the end point where nothing is detected.

        Row :data:`NOTHING_DETECTED` (256) has ``tp = fp = 0``, ``fn`` the
        positives and ``tn`` the negatives: ROC point ``(0, 0)``, recall 0,
        precision undefined.
        """
        end = [0.0, 0.0, self.positives, self.negatives]
        return _curves(
            np.append(self.thresholds, NOTHING_DETECTED), np.vstack([self.confusions, end])
        )

    def roc_points(self) -> np.ndarray:
        """``(thresholds, 2)`` array of ROC points ``(FPR, TPR)``."""
        return np.column_stack([self.fpr, self.tpr])

    def pr_points(self) -> np.ndarray:
        """``(thresholds, 2)`` array of PR points ``(recall, precision)``."""
        return np.column_stack([self.tpr, self.precision])


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.full(numerator.shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _as_confusions(confusions: np.ndarray) -> np.ndarray:
    c = np.asarray(confusions, dtype=float)
    if c.ndim != 2 or c.shape[0] != N_LEVELS or c.shape[1] < 4:
        raise ValueError(
            f"expected one confusion matrix (tp, fp, fn, tn) per threshold, "
            f"shape (256, 4), got {c.shape}"
        )
    return c[:, :4]


def _curves(thresholds: np.ndarray, confusions: np.ndarray) -> Curves:
    tp, fp, fn, tn = confusions.T
    return Curves(
        thresholds=thresholds,
        confusions=confusions,
        fpr=_ratio(fp, fp + tn),
        tpr=_ratio(tp, tp + fn),
        precision=_ratio(tp, tp + fp),
    )


def curves_from_confusions(confusions: np.ndarray) -> Curves:
    """ROC and PR curves of 256 confusion matrices ``(tp, fp, fn, tn)``, one per threshold."""
    return _curves(THRESHOLDS.copy(), _as_confusions(confusions).copy())


def roc_pr_curves(histograms: np.ndarray) -> Curves:
    """Curves of one video from its summed score histograms ``(3, 256)`` (docs/measures.md §3)."""
    return curves_from_confusions(threshold_confusions(histograms))


def blend_confusions(
    per_video: Sequence[np.ndarray], weights: Sequence[float] | np.ndarray
) -> np.ndarray:
    """Blend per threshold: ``Σ_v w_v · c_v(T) / n_v`` (docs/measures.md §2 applied to §3).

    Parameters
    ----------
    per_video
        One ``(256, 4+)`` count array per video (columns ``tp, fp, fn, tn``).
    weights
        Summarization weights ``P(V=v)``, non-negative, summing to 1.

    Returns
    -------
    ``(256, 4)`` float array of normalized matrices; each row sums to 1.

    Raises
    ------
    RefereeError
        If the weights are invalid or a video has no evaluated pixel.
    """
    w = check_weights(len(per_video), weights)
    blended = np.zeros((N_LEVELS, 4))
    for k, (confusions, weight) in enumerate(zip(per_video, w)):
        c = _as_confusions(confusions)
        evaluated = c[0].sum()  # the same for every threshold
        if weight == 0:
            continue
        if evaluated <= 0:
            raise RefereeError(
                f"video {k + 1} of the summary has no evaluated pixel, so its "
                f"matrices cannot be normalized; leave it out of the summary"
            )
        blended += weight * (c / evaluated)
    return blended


def summarized_curves(
    histograms: Sequence[np.ndarray], weights: Sequence[float] | np.ndarray
) -> Curves:
    """Summarized ROC and PR curves over videos with weights ``P(V=v)`` (docs/measures.md §2, §3).

    Parameters
    ----------
    histograms
        One summed ``(3, 256)`` score-histogram array per video.
    weights
        Summarization weights, non-negative, summing to 1.
    """
    return curves_from_confusions(
        blend_confusions([threshold_confusions(h) for h in histograms], weights)
    )


def iso_f1_curve(f1: float, n: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Points ``(recall, precision)`` of constant F1 in PR space (docs/measures.md §3 plots).

    From ``F1 = 2PR/(P+R)``: ``P = F1·R / (2R − F1)`` for ``R`` in ``[F1/2, 1]``
    (precision reaches 1 at ``R = F1/(2 − F1)``); returns ``n`` points with
    ``F1/(2 − F1) <= R <= 1``.
    """
    if not 0 < f1 < 1:
        raise ValueError(f"an iso-F1 line needs 0 < F1 < 1, got {f1}")
    recall = np.linspace(f1 / (2 - f1), 1.0, n)
    precision = f1 * recall / (2 * recall - f1)
    return recall, precision


def best_f1_threshold(curves: Curves) -> int:
    """The threshold where F1 is highest (the lowest such threshold on a tie; 0 if none is defined)."""
    tp, fp, fn = curves.confusions[:, 0], curves.confusions[:, 1], curves.confusions[:, 2]
    f1 = f1_scores(tp, fp, fn)
    if not np.isfinite(f1).any():
        return 0
    return int(curves.thresholds[np.nanargmax(f1)])
