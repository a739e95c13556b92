"""Ratios and their intervals from a few labelled frames (docs/measures.md §12).

Each labelled draw ``k``, of frame ``i`` drawn with probability ``q_k`` within its
stratum ``h``, gives per detector the weighted true counts ``Y_k = s_i / q_k`` and
the weighted consensus counts ``P_k = ŝ_i / q_k`` (``tp, fp, fn``). With ``Ŝ_h`` the
consensus's total over the stratum's frames, a coefficient ``λ`` gives the terms

    ``z_k = λ Ŝ_h + Y_k − λ P_k``  and the totals  ``T̂ = Σ_h mean_{k∈h} z_k``,

unbiased for every fixed ``λ`` (``E[Y_k] = T_h``, ``E[P_k] = Ŝ_h``):

* ``plain``: ``λ = 0``, the labelled frames alone;
* ``surrogate``: ``λ = 1``, the consensus corrected by its error on the labelled
  frames (the difference estimator, prediction-powered inference [PPI]);
* ``tuned``: ``λ`` chosen per detector and measure to minimize the variance
  (power tuning [PPI++]): each draw's ``λ_k`` is the variance-minimizing
  coefficient of the *other* draws, clipped to ``[0, 1]`` and averaged with
  :data:`TUNING_PRIOR` as if :data:`TUNING_WEIGHT` more draws had given it, so
  that ``λ_k`` is independent of draw ``k`` (the totals stay unbiased) and a
  handful of draws cannot swing it to 0 or 1.

Precision, recall and F1 are ratios ``R = (α·T)/(β·T)`` of the totals. Their
standard error is the larger of the delta method's, ``√(Σ_h f_h s_h²(e) / n_h)``
over the linearized terms ``e_k = (α − R̂ β)·z_k / (β·T̂)``, and the
delete-one jackknife's, ``√(Σ_h f_h (n_h − 1)/n_h Σ_{k∈h} (R̂_(k) − R̄_h)²)``,
which also sees how much ``λ`` moves; ``f_h`` is the stratum's finite-population
factor (1 for draws with replacement, 0 for a stratum labelled whole). The 95%
interval uses Student's t with ``Σ_h (n_h − 1)`` degrees of freedom.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from referee.core.errors import InvalidOptionError
from referee.core.estimation.choices import ESTIMATORS, PLAIN, TUNED
from referee.core.estimation.design import SampleDesign
from referee.core.measures.indicators import f1_scores

#: The measures estimated, in the order they are shown.
MEASURES: tuple[str, ...] = ("f1", "precision", "recall")
#: Each measure as a ratio of the totals ``(tp, fp, fn)``: numerator, denominator.
RATIOS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "f1": ((2, 0, 0), (2, 1, 1)),
    "precision": ((1, 0, 0), (1, 1, 0)),
    "recall": ((1, 0, 0), (1, 0, 1)),
}
#: Level of the intervals.
CONFIDENCE = 0.95


@dataclass(frozen=True, eq=False)
class Sample:
    """The labelled draws and the consensus, as the estimators read them.

    Attributes
    ----------
    observed
        ``(K, D, 3)``: each draw's true ``tp, fp, fn`` divided by its probability.
    predicted
        ``(K, D, 3)``: each draw's consensus counts divided by its probability.
    strata
        ``(K,)``: the stratum of each draw.
    consensus
        ``(H, D, 3)``: the consensus's totals over each stratum's frames.
    factors
        ``(H,)``: each stratum's finite-population factor (1: drawn with
        replacement; 0: every frame labelled).
    """

    observed: np.ndarray
    predicted: np.ndarray
    strata: np.ndarray
    consensus: np.ndarray
    factors: np.ndarray

    @property
    def draws(self) -> int:
        return int(self.strata.size)

    def subset(self, chosen: np.ndarray | slice) -> Sample:
        """The sample of the ``chosen`` draws (a mask, indices or a slice)."""
        return Sample(
            self.observed[chosen],
            self.predicted[chosen],
            self.strata[chosen],
            self.consensus,
            self.factors,
        )


def labelled_sample(surrogate: np.ndarray, design: SampleDesign, truth: np.ndarray) -> Sample:
    """The sample of a design's ``K`` labelled draws.

    Parameters
    ----------
    surrogate
        ``(N, D, 3)``: the consensus's expected counts of every frame.
    design
        The draws (indices into ``surrogate``), their probabilities within their
        stratum, the strata and their finite-population factors.
    truth
        ``(K, D, 3)``: the true counts of the frame of each draw.

    Raises
    ------
    InvalidOptionError
        A draw whose probability is not positive.
    """
    s_hat = np.asarray(surrogate, dtype=np.float64)
    index = design.drawn
    s = np.asarray(truth, dtype=np.float64).reshape(index.size, *s_hat.shape[1:])
    weights = design.q.reshape(-1, 1, 1)
    if weights.shape[0] != index.size or np.any(weights <= 0):
        raise InvalidOptionError("every draw needs a probability greater than 0")
    f = np.asarray(design.factors, dtype=np.float64)
    where = (
        np.zeros(s_hat.shape[0], np.int64) if design.frame_strata is None else design.frame_strata
    )
    consensus = np.zeros((f.size, *s_hat.shape[1:]))
    np.add.at(consensus, where, s_hat)
    return Sample(s / weights, s_hat[index] / weights, design.draw_strata, consensus, f)


@dataclass(frozen=True, eq=False)
class Ratio:
    """One measure of every detector: values and what their standard errors need.

    ``values`` ``(D,)`` are NaN where the denominator is not positive; ``linear``
    ``(K, D)`` are the delta method's ``e_k``; ``replicates`` ``(K, D)`` the
    jackknife's values without each draw (NaN for a draw of a stratum labelled
    whole); ``coefficients`` ``(D,)`` the mean ``λ`` of the draws (0 for
    ``plain``, 1 for ``surrogate``); ``strata`` and ``factors`` those of the sample.
    """

    values: np.ndarray
    linear: np.ndarray
    replicates: np.ndarray
    coefficients: np.ndarray
    strata: np.ndarray
    factors: np.ndarray

    def standard_error(self, j: int) -> float:
        """Detector ``j``'s standard error (NaN without an interval)."""
        return self.combined_error(np.eye(self.values.size)[j])

    def combined_error(self, weights: np.ndarray) -> float:
        """The standard error of ``Σ_j weights_j R̂_j`` (e.g. ``(1, −1)`` for a difference):
        the larger of the delta method's and the jackknife's; NaN without 2 draws in
        every sampled stratum or a defined value."""
        if self.linear.size == 0 or not np.all(np.isfinite(self.values[weights != 0])):
            return math.nan
        delta = jackknife = 0.0
        linear, replicates = self.linear @ weights, self.replicates @ weights
        for h in np.flatnonzero(self.factors > 0):
            mine = self.strata == h
            n = int(mine.sum())
            if n < 2:
                return math.nan
            delta += float(self.factors[h]) * float(np.var(linear[mine], ddof=1)) / n
            spread = replicates[mine] - np.mean(replicates[mine])
            jackknife += float(self.factors[h]) * (n - 1) / n * float(np.sum(spread**2))
        return math.sqrt(max(delta, jackknife)) if math.isfinite(jackknife) else math.sqrt(delta)

    @property
    def degrees_of_freedom(self) -> int:
        """``Σ_h (n_h − 1)`` over the strata that are sampled (``f_h > 0``), at least 1."""
        sizes = np.bincount(self.strata, minlength=self.factors.size)
        sampled = (self.factors > 0) & (sizes > 0)
        return max(int(np.sum(sizes[sampled] - 1)), 1)

    @property
    def quantile(self) -> float:
        """Student's t quantile of the 95% interval."""
        return float(stats.t.ppf(0.5 + CONFIDENCE / 2, self.degrees_of_freedom))


#: The value the ``tuned`` coefficients are drawn towards, and how many draws it counts as.
TUNING_PRIOR, TUNING_WEIGHT = 0.5, 3.0


def ratio(sample: Sample, measure: str, estimator: str = TUNED) -> Ratio:
    """``measure`` (:data:`MEASURES`) of every detector estimated by ``estimator``, with the
    jackknife's replicates."""
    if estimator not in ESTIMATORS:
        raise InvalidOptionError(
            f"unknown estimator {estimator!r} (choose from {', '.join(ESTIMATORS)})"
        )
    numerator, denominator = _coefficients(measure)
    values, linear, coefficients, _ = _estimate(sample, measure, estimator, numerator, denominator)
    replicates = np.full(linear.shape, math.nan)
    for k in range(sample.draws):
        if sample.factors[sample.strata[k]] > 0 and sample.draws > 1:
            keep = np.arange(sample.draws) != k
            replicates[k] = _estimate(
                sample.subset(keep), measure, estimator, numerator, denominator
            )[0]
    return Ratio(values, linear, replicates, coefficients, sample.strata, sample.factors)


def totals(sample: Sample, measure: str, estimator: str = TUNED) -> np.ndarray:
    """``(D, 3)``: the estimated totals of ``tp, fp, fn`` behind ``measure`` (with
    ``tuned``, each measure has its own coefficients); unbiased for every estimator."""
    numerator, denominator = _coefficients(measure)
    return _estimate(sample, measure, estimator, numerator, denominator)[3]


def _coefficients(measure: str) -> tuple[np.ndarray, np.ndarray]:
    """``measure``'s numerator and denominator coefficients over ``(tp, fp, fn)``."""
    numerator, denominator = RATIOS[measure]
    return np.asarray(numerator, dtype=np.float64), np.asarray(denominator, dtype=np.float64)


def _estimate(
    sample: Sample, measure: str, estimator: str, numerator: np.ndarray, denominator: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Values ``(D,)``, linearized terms ``(K, D)``, mean coefficients ``(D,)`` and the
    totals ``(D, 3)``."""
    k, d = sample.draws, sample.consensus.shape[1]
    if estimator == TUNED and k > 1:
        coefficients = _tuned(sample, numerator, denominator)
    else:
        fixed = 0.0 if estimator == PLAIN and k else 1.0
        coefficients = np.full((k, d), fixed)
    terms = sample.observed + coefficients[:, :, None] * (
        sample.consensus[sample.strata] - sample.predicted
    )
    estimated = _stratum_means(terms, sample)
    values = measure_values(measure, estimated)
    below = estimated @ denominator
    safe = np.where(below > 0, below, 1.0)
    gradient = (numerator[None, :] - np.nan_to_num(values)[:, None] * denominator) / safe[:, None]
    linear = np.einsum("kdc,dc->kd", terms, gradient)
    return values, linear, coefficients.mean(axis=0) if k else np.ones(d), estimated


def measure_values(measure: str, counts: np.ndarray) -> np.ndarray:
    """``measure`` (:data:`MEASURES`) of totals ``(D, 3)``; NaN where the denominator is
    not positive."""
    counts = np.asarray(counts, dtype=np.float64)
    if measure == "f1":  # the one definition of F1
        values: np.ndarray = f1_scores(counts[:, 0], counts[:, 1], counts[:, 2])
        return values
    numerator, denominator = _coefficients(measure)
    below = counts @ denominator
    ratios: np.ndarray = np.divide(
        counts @ numerator, below, out=np.full(below.shape, math.nan), where=below > 0
    )
    return ratios


def _stratum_means(terms: np.ndarray, sample: Sample) -> np.ndarray:
    """``Σ_h mean_{k∈h} terms_k``, a stratum without draws counting its consensus total."""
    sizes = np.bincount(sample.strata, minlength=sample.factors.size)
    totals = sample.consensus[sizes == 0].sum(axis=0)
    weights = 1.0 / sizes[sample.strata] if sample.draws else np.zeros(0)
    result: np.ndarray = totals + np.einsum("k,kdc->dc", weights, terms)
    return result


def _tuned(sample: Sample, numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``(K, D)``: each draw's ``λ_k`` from the other draws.

    ``Σ_h f_h cov_h(A, B) / n_h`` over ``Σ_h f_h var_h(B) / n_h`` with
    ``A = (α − Rβ)·Y``, ``B = (α − Rβ)·P`` and ``R`` the ``surrogate`` estimate of
    the other draws (the variance-minimizing coefficient), clipped to ``[0, 1]``
    (1 where the other draws tell nothing) and drawn towards :data:`TUNING_PRIOR`.
    """
    y, p, strata, k = sample.observed, sample.predicted, sample.strata, sample.draws
    onehot = np.zeros((k, sample.factors.size))
    onehot[np.arange(k), strata] = 1.0
    sizes = onehot.sum(axis=0)  # n_h
    # The surrogate estimate of the other draws: R without draw k.
    z = y - p + sample.consensus[strata]
    sums = np.einsum("kh,kdc->hdc", onehot, z)
    means = np.divide(
        sums, sizes[:, None, None], out=np.zeros_like(sums), where=sizes[:, None, None] > 0
    )
    others = sizes[strata] - 1
    own = (sums[strata] - z) / np.maximum(others, 1)[:, None, None]
    own[others == 0] = sample.consensus[strata][others == 0]
    totals = sample.consensus[sizes == 0].sum(axis=0) + means.sum(axis=0) - means[strata] + own
    below = totals @ denominator
    r = np.divide(totals @ numerator, below, out=np.zeros_like(below), where=below > 0)
    # Stratum sums of the draws' scalars and products, each without draw k: (K, H, D).
    a, b, c, d = y @ numerator, y @ denominator, p @ numerator, p @ denominator
    products = {"a": a, "b": b, "c": c, "d": d, "ac": a * c, "ad": a * d, "bc": b * c}
    products |= {"bd": b * d, "cc": c * c, "cd": c * d, "dd": d * d}
    loo = {
        name: np.einsum("kh,kd->hd", onehot, x)[None] - onehot[:, :, None] * x[:, None, :]
        for name, x in products.items()
    }
    n = (sizes[None, :] - onehot)[:, :, None]
    rr = r[:, None, :]
    sum_a = loo["a"] - rr * loo["b"]
    sum_b = loo["c"] - rr * loo["d"]
    sum_ab = loo["ac"] - rr * (loo["ad"] + loo["bc"]) + rr**2 * loo["bd"]
    sum_bb = loo["cc"] - 2 * rr * loo["cd"] + rr**2 * loo["dd"]
    usable = n >= 2
    safe = np.where(usable, n, 2.0)
    cov = (sum_ab - sum_a * sum_b / safe) / (safe - 1)
    var = (sum_bb - sum_b**2 / safe) / (safe - 1)
    weight = np.where(
        usable, sample.factors[None, :, None] / np.maximum(sizes, 1)[None, :, None], 0
    )
    num, den = (weight * cov).sum(axis=1), (weight * var).sum(axis=1)
    lam = np.divide(num, den, out=np.ones_like(num), where=den > 0)
    others_count = float(k - 1)
    tuned: np.ndarray = (others_count * np.clip(lam, 0.0, 1.0) + TUNING_WEIGHT * TUNING_PRIOR) / (
        others_count + TUNING_WEIGHT
    )
    return tuned


def interval(r: Ratio, j: int) -> tuple[float, float, float]:
    """Detector ``j``'s estimate and 95% interval, clipped to [0, 1]; NaN bounds without one."""
    value = float(r.values[j])
    if math.isnan(value):
        return math.nan, math.nan, math.nan
    se = r.standard_error(j)
    low, high = value - r.quantile * se, value + r.quantile * se
    return _clip(value), _clip(low), _clip(high)


def difference(r: Ratio, a: int, b: int) -> tuple[float, float, float]:
    """``R̂_a − R̂_b`` and its 95% interval from the paired terms of the same draws (NaN
    bounds without an interval)."""
    d = float(r.values[a] - r.values[b])
    se = r.combined_error(_pair(r, a, b))
    return d, d - r.quantile * se, d + r.quantile * se


def beats(r: Ratio, a: int, b: int) -> float:
    """P(detector ``a`` beats ``b``): ``F(d / se(d))`` with ``d = R̂_a − R̂_b``, ``se`` the
    standard error of the paired difference and ``F`` Student's t distribution of the
    interval; NaN without an interval."""
    d = float(r.values[a] - r.values[b])
    se = r.combined_error(_pair(r, a, b))
    if math.isnan(d) or math.isnan(se):
        return math.nan
    if se == 0:
        return 1.0 if d > 0 else 0.0 if d < 0 else 0.5
    return float(stats.t.cdf(d / se, r.degrees_of_freedom))


def _pair(r: Ratio, a: int, b: int) -> np.ndarray:
    weights = np.zeros(r.values.size)
    weights[a], weights[b] = 1.0, -1.0
    return weights


def _clip(value: float) -> float:
    return math.nan if math.isnan(value) else min(max(value, 0.0), 1.0)
