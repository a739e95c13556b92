"""The consensus of a committee and the measures of a mask against it (docs/measures.md §7)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import (
    TYPE_CHECKING,
)

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.measures.indicators import (
    NO_PIXELS,
    IndicatorValue,
    evaluate_all,
    undefined,
)
from referee.core.model.confusion import ConfusionMatrix

if TYPE_CHECKING:
    pass


# Worker processes import this module: SciPy (through .summarize) is imported
# only where correlations and summaries are computed, which workers never do.


def consensus(
    masks: Sequence[np.ndarray],
    weights: Sequence[float] | np.ndarray | None = None,
    include_trivial: bool = True,
) -> np.ndarray:
    """Consensus ``P`` of binary masks, in [0, 1] (docs/measures.md §7).

    Parameters
    ----------
    masks
        The committee's masks, all of one shape; a value counts as 1 iff it is
        non-zero (pass boolean masks, or 0/255 images).
    weights
        One non-negative weight per mask (default: all 1). The trivial
        classifiers, when included, weigh 1 each.
    include_trivial
        Add the all-ones and all-zeros classifiers to the committee (default,
        as in the seed's worked table).

    Returns
    -------
    ``float64`` array of the masks' shape.
    """
    if len(masks) == 0:
        raise InvalidOptionError("the committee is empty: give at least one detector")
    w = np.ones(len(masks)) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (len(masks),) or np.any(w < 0):
        raise InvalidOptionError(
            f"give one non-negative weight per detector ({len(masks)} detectors, weights {list(w)})"
        )
    shape = np.shape(masks[0])
    total = np.zeros(shape, dtype=np.float64)
    for mask, weight in zip(masks, w):
        if np.shape(mask) != shape:
            raise InvalidOptionError(
                f"committee masks differ in size: {shape} and {np.shape(mask)}"
            )
        if weight:
            total += weight * (np.asarray(mask) != 0)
    denominator = float(w.sum())
    if include_trivial:
        total += 1.0  # the all-ones classifier; the all-zeros one adds nothing
        denominator += 2.0
    if denominator <= 0:
        raise InvalidOptionError("the committee's weights sum to 0")
    return total / denominator


def pseudo_confusion(
    mask: np.ndarray, p: np.ndarray, evaluated: np.ndarray | None = None
) -> ConfusionMatrix:
    """Pseudo confusion matrix of ``mask`` under the consensus ``p`` (docs/measures.md §7).

    Parameters
    ----------
    mask
        The classifier's output; non-zero means positive.
    p
        Consensus probabilities, same shape.
    evaluated
        Optional boolean mask of the pixels that count (e.g. the ROI).

    Returns
    -------
    Expected counts ``tp = Σ S·P``, ``fp = Σ S·(1−P)``, ``fn = Σ (1−S)·P``,
    ``tn = Σ (1−S)·(1−P)`` (floats).
    """
    s = np.asarray(mask) != 0
    p = np.asarray(p, dtype=np.float64)
    if s.shape != p.shape:
        raise InvalidOptionError(f"mask shape {s.shape} differs from consensus shape {p.shape}")
    if evaluated is not None:
        s, p = s[evaluated], p[evaluated]
    n = float(s.size)
    sum_s = float(np.count_nonzero(s))
    sum_p = float(p.sum())
    tp = float(p[s].sum())
    fp = sum_s - tp
    fn = sum_p - tp
    return ConfusionMatrix(tp=tp, fp=fp, fn=fn, tn=n - sum_s - fn)


MAP_MEASURES: tuple[str, ...] = ("ncc", "psnr")
"""Measures of the maps ``S`` and ``P`` themselves, beside the registry indicators."""

S_EQUALS_P = "undefined: S equals P everywhere"
CONSTANT_MASK = "undefined: the mask is the same on every pixel (no variance)"
CONSTANT_REFERENCE = "undefined: the consensus is the same on every pixel (no variance)"


def binary_entropy(p: np.ndarray | float) -> np.ndarray:
    """``H(P) = −P log2 P − (1−P) log2(1−P)`` in bits, 0 at ``P ∈ {0, 1}`` (docs/measures.md §7)."""
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(p * np.log2(p) + (1.0 - p) * np.log2(1.0 - p))
    return np.where((p <= 0.0) | (p >= 1.0), 0.0, h)


# ---------------------------------------------------------------------------
# Results


def ncc_from_sums(
    n: float, sum_s: float, sum_p: float, sum_p2: float, sum_sp: float
) -> IndicatorValue:
    """Pearson correlation of a binary map ``S`` and a map ``P`` from their sums (docs/measures.md §7).

    ``Σ S² = Σ S`` since ``S ∈ {0, 1}``. Normalized sums (``n = 1``) work alike.
    Undefined when there is no pixel or either map is constant.
    """
    if n <= 0:
        return undefined(NO_PIXELS)
    ms, mp = sum_s / n, sum_p / n
    var_s = ms * (1.0 - ms)
    var_p = sum_p2 / n - mp * mp
    if var_s <= 0:
        return undefined(CONSTANT_MASK)
    if var_p <= 1e-12 * max(sum_p2 / n, 1e-300):
        return undefined(CONSTANT_REFERENCE)
    r = (sum_sp / n - ms * mp) / math.sqrt(var_s * var_p)
    return IndicatorValue(min(1.0, max(-1.0, r)))


def psnr_from_sums(n: float, sum_s: float, sum_p2: float, sum_sp: float) -> IndicatorValue:
    """``−10 log10(mean (S−P)²)`` in dB, peak 1, from the sums (docs/measures.md §7).

    Undefined (not infinite) when ``S`` equals ``P`` on every pixel.
    """
    if n <= 0:
        return undefined(NO_PIXELS)
    mse = (sum_s - 2.0 * sum_sp + sum_p2) / n
    if mse <= 1e-15:
        return undefined(S_EQUALS_P)
    return IndicatorValue(-10.0 * math.log10(mse))


def _map_measures(cm: ConfusionMatrix, sum_p2: float) -> dict[str, IndicatorValue]:
    """NCC and PSNR of a (pseudo or true) matrix with ``Σ P²`` (``= tp + fn`` for a binary P)."""
    s, p = cm.tp + cm.fp, cm.tp + cm.fn
    return {
        "ncc": ncc_from_sums(cm.total, s, p, sum_p2, cm.tp),
        "psnr": psnr_from_sums(cm.total, s, sum_p2, cm.tp),
    }


def true_values(cm: ConfusionMatrix) -> dict[str, IndicatorValue]:
    """The true counterpart of every :data:`CORRELATED` key from a real confusion matrix.

    Registry indicators as usual; ``ncc`` is the Pearson correlation of the
    detection and the binary ground truth (it equals MCC); ``psnr`` is
    ``−10 log10`` of the error rate.
    """
    return {**evaluate_all(cm), **_map_measures(cm, cm.tp + cm.fn)}
