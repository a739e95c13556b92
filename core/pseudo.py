"""Pseudo ground truth from a committee of detectors (SPEC §7, seed 004).

K binary classifiers give ``S_k(i) ∈ {0, 1}`` per pixel or item ``i``. Their
(weighted) mean is the consensus ``P(i)``; by default the committee also holds
the trivial all-ones and all-zeros classifiers (``K' = K + 2``). A classifier
``S`` then has the *pseudo confusion matrix* of expected counts under ``P``:
``tp = Σ S·P``, ``fp = Σ S·(1−P)``, ``fn = Σ (1−S)·P``, ``tn = Σ (1−S)·(1−P)``,
from which every indicator of the registry has a pseudo version.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from .confusion import ConfusionMatrix
from .errors import InvalidOptionError


def consensus(masks: Sequence[np.ndarray], weights: Optional[Sequence[float]] = None,
              include_trivial: bool = True) -> np.ndarray:
    """Consensus ``P`` of binary masks, in [0, 1] (SPEC §7).

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
        raise InvalidOptionError(f"give one non-negative weight per detector "
                                 f"({len(masks)} detectors, weights {list(w)})")
    shape = np.shape(masks[0])
    total = np.zeros(shape, dtype=np.float64)
    for mask, weight in zip(masks, w):
        if np.shape(mask) != shape:
            raise InvalidOptionError(f"committee masks differ in size: {shape} and "
                                     f"{np.shape(mask)}")
        if weight:
            total += weight * (np.asarray(mask) != 0)
    denominator = w.sum()
    if include_trivial:
        total += 1.0  # the all-ones classifier; the all-zeros one adds nothing
        denominator += 2.0
    if denominator <= 0:
        raise InvalidOptionError("the committee's weights sum to 0")
    return total / denominator


def pseudo_confusion(mask: np.ndarray, p: np.ndarray,
                     evaluated: Optional[np.ndarray] = None) -> ConfusionMatrix:
    """Pseudo confusion matrix of ``mask`` under the consensus ``p`` (SPEC §7).

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
