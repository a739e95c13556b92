"""Totals, ratios and their intervals from a few labelled frames (docs/measures.md §12).

Each labelled frame ``k`` gives a weighted term ``y_k`` per detector and per
count (``tp``, ``fp``, ``fn``), ``q_k`` being the probability with which it was
drawn within its stratum ``h``:

* ``surrogate`` (difference, or prediction-powered, estimator):
  ``y_k = (s_k − ŝ_k) / q_k`` and ``T̂ = Σ_i ŝ_i + Σ_h mean_{k∈h} y_k``, where
  ``ŝ`` are the consensus's expected counts of every frame and ``s_k`` the
  true counts of frame ``k``;
* ``plain``: ``y_k = s_k / q_k`` and ``T̂ = Σ_h mean_{k∈h} y_k``.

The sampler's draws (:mod:`referee.core.estimation.sampler`) are one stratum
drawn with replacement, for which ``E[T̂]`` is the true total. Precision,
recall and F1 are ratios ``(α·T̂) / (β·T̂)`` of the totals; their variance is
estimated by the delta method, ``var(R̂) ≈ Σ_h f_h · s_h²(e) / n_h`` with the
linearized terms ``e_k = (α − R̂ β)·y_k / (β·T̂)`` and ``f_h`` the stratum's
finite-population factor (1 for draws with replacement).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from referee.core.errors import InvalidOptionError
from referee.core.estimation.choices import ESTIMATORS as ESTIMATORS
from referee.core.estimation.choices import PLAIN as PLAIN
from referee.core.estimation.choices import SURROGATE
from referee.core.measures.indicators import f1_scores

#: The measures estimated, in the order they are shown.
MEASURES: tuple[str, ...] = ("f1", "precision", "recall")
#: Each measure as a ratio of the totals ``(tp, fp, fn)``: numerator, denominator.
RATIOS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "f1": ((2, 0, 0), (2, 1, 1)),
    "precision": ((1, 0, 0), (1, 1, 0)),
    "recall": ((1, 0, 0), (1, 0, 1)),
}
#: Level of the intervals, and the normal quantile behind them.
CONFIDENCE = 0.95
Z = float(stats.norm.ppf(0.5 + CONFIDENCE / 2))


@dataclass(frozen=True, eq=False)
class Totals:
    """Estimated totals of every detector and the labelled terms behind them.

    Attributes
    ----------
    totals
        ``(D, 3)``: ``T̂`` of ``tp, fp, fn`` per detector.
    terms
        ``(K, D, 3)``: the weighted labelled terms ``y_k`` (``z_k`` without the
        consensus's total); empty without labelled frames.
    strata
        ``(K,)``: the stratum of each term (all 0 for the sampler's draws).
    factors
        The finite-population factor ``f_h`` of each stratum (1: with replacement).
    """

    totals: np.ndarray
    terms: np.ndarray
    strata: np.ndarray
    factors: np.ndarray

    @property
    def draws(self) -> int:
        return int(self.terms.shape[0])


@dataclass(frozen=True, eq=False)
class Ratio:
    """One measure of every detector: values and linearized terms.

    ``values`` ``(D,)`` are NaN where the denominator is not positive;
    ``linear`` ``(K, D)`` are the delta method's ``e_k``; ``strata`` and
    ``factors`` those of the totals.
    """

    values: np.ndarray
    linear: np.ndarray
    strata: np.ndarray
    factors: np.ndarray

    def standard_error(self, j: int) -> float:
        """The delta method's standard error of detector ``j`` (NaN without an interval)."""
        return _standard_error(self, self.linear[:, j], float(self.values[j]))


def estimate_totals(
    surrogate: np.ndarray,
    drawn: np.ndarray,
    truth: np.ndarray,
    q: np.ndarray,
    estimator: str = SURROGATE,
    strata: np.ndarray | None = None,
    factors: Sequence[float] = (1.0,),
) -> Totals:
    """The totals of ``tp, fp, fn`` of every detector from the labelled frames.

    Parameters
    ----------
    surrogate
        ``(N, D, 3)``: the consensus's expected counts of every frame.
    drawn
        ``(K,)``: the frame of each draw (indices into ``surrogate``).
    truth
        ``(K, D, 3)``: the true counts of the frame of each draw.
    q
        ``(K,)``: the probability of each draw's frame within its stratum.
    estimator
        ``surrogate`` or ``plain``. Without draws both give the consensus's totals.
    strata, factors
        The stratum of each draw (default: one stratum) and each stratum's
        finite-population factor; ``T̂`` adds the strata's mean terms.
    """
    if estimator not in ESTIMATORS:
        raise InvalidOptionError(
            f"unknown estimator {estimator!r} (choose from {', '.join(ESTIMATORS)})"
        )
    s_hat = np.asarray(surrogate, dtype=np.float64)
    index = np.asarray(drawn, dtype=np.int64).reshape(-1)
    s = np.asarray(truth, dtype=np.float64).reshape(index.size, *s_hat.shape[1:])
    weights = np.asarray(q, dtype=np.float64).reshape(-1, 1, 1)
    if weights.shape[0] != index.size or np.any(weights <= 0):
        raise InvalidOptionError("every draw needs a probability greater than 0")
    stratum = np.zeros(index.size, np.int64) if strata is None else np.asarray(strata, np.int64)
    f = np.asarray(factors, dtype=np.float64).reshape(-1)
    consensus = s_hat.sum(axis=0)
    terms = ((s - s_hat[index]) if estimator == SURROGATE else s) / weights
    base = consensus if estimator == SURROGATE or index.size == 0 else 0.0
    means = [terms[stratum == h].mean(axis=0) for h in np.unique(stratum)]
    return Totals(base + np.sum(means, axis=0), terms, stratum, f)


def ratio(totals: Totals, measure: str) -> Ratio:
    """``measure`` (:data:`MEASURES`) of every detector from estimated totals."""
    numerator, denominator = (np.asarray(c, dtype=np.float64) for c in RATIOS[measure])
    t = totals.totals
    below = t @ denominator
    defined = below > 0
    if measure == "f1":  # the one definition of F1
        values = f1_scores(t[:, 0], t[:, 1], t[:, 2])
    else:
        values = np.divide(t @ numerator, below, out=np.full(below.shape, math.nan), where=defined)
    safe = np.where(defined, below, 1.0)
    gradient = (numerator[None, :] - values[:, None] * denominator[None, :]) / safe[:, None]
    linear = np.einsum("kdc,dc->kd", totals.terms, np.nan_to_num(gradient))
    return Ratio(values, linear, totals.strata, totals.factors)


def interval(r: Ratio, j: int) -> tuple[float, float, float]:
    """Detector ``j``'s estimate and 95% interval, clipped to [0, 1]; NaN bounds without one."""
    value = float(r.values[j])
    if math.isnan(value):
        return math.nan, math.nan, math.nan
    se = r.standard_error(j)
    low, high = value - Z * se, value + Z * se
    return _clip(value), _clip(low), _clip(high)


def beats(r: Ratio, a: int, b: int) -> float:
    """P(detector ``a`` beats ``b``): ``Φ(d / se(d))`` with ``d = R̂_a − R̂_b`` and the
    delta method's ``se`` of the paired difference; NaN without 2 draws or a defined ``d``."""
    d = float(r.values[a] - r.values[b])
    se = _standard_error(r, r.linear[:, a] - r.linear[:, b], d)
    if math.isnan(d) or math.isnan(se):
        return math.nan
    if se == 0:
        return 1.0 if d > 0 else 0.0 if d < 0 else 0.5
    return float(stats.norm.cdf(d / se))


def _standard_error(r: Ratio, linear: np.ndarray, value: float) -> float:
    """``√(Σ_h f_h s_h²(e) / n_h)``; NaN without terms, or with a stratum of fewer than
    two terms and ``f_h > 0`` (its error is unknown)."""
    if linear.size == 0 or math.isnan(value):
        return math.nan
    variance = 0.0
    for h in range(len(r.factors)):
        e = linear[r.strata == h]
        if r.factors[h] == 0:
            continue
        if e.size < 2:
            return math.nan
        variance += float(r.factors[h]) * float(np.var(e, ddof=1)) / e.size
    return math.sqrt(variance)


def _clip(value: float) -> float:
    return math.nan if math.isnan(value) else min(max(value, 0.0), 1.0)
