"""Discriminative evaluation: is one method really better than another? (SPEC §9, seed 002)

Each method has one score per *test case* (a frame, an action, …), paired
across methods. The cases on which the methods score alike say nothing about
which is better, so they are removed step by step and the rest is tested again:

* ``d_i`` is the spread of case ``i``'s scores, ``max_m s_m − min_m s_m``; for
  two methods A and B that is ``|a_i − b_i|``.
* Thresholds ``t_1 < … < t_K``: by default ``K = 20`` evenly spaced values from
  0 *included* to ``max d`` *excluded*, ``t_k = k · max d / K`` for
  ``k = 0 … K−1``. The first threshold removes nothing, so the first row is the
  plain test on every case. When every ``d_i`` is 0 the grid is the single value 0.
* At ``t_k`` the cases with ``d_i < t_k`` are removed and the remaining ones
  tested: two methods with the paired t-test (default), the Wilcoxon
  signed-rank test or Welch's t-test; more methods with a one-way
  repeated-measures ANOVA (default) or the Friedman test. p is undefined (NaN
  with a reason) when fewer than 3 cases remain or when the test itself is
  (e.g. the differences have zero variance).
* Each threshold is also given normalized, ``t_k / Σ_j t_j`` (the seed's), as a
  fraction of ``max d``, and as the fraction of cases removed.
* Verdict "differ" iff there is a ``t_0`` with ``p_0 < α`` such that p stays
  ``< α`` at every larger threshold where it is defined, and ``t_0``'s
  normalized value is ``≤ τ`` (defaults α = 0.05, τ = 0.1). ``t_0`` is the
  smallest such threshold (the normalized value grows with t, so if it fails
  τ every larger one does too).

Note: for the default grid the normalized value of ``t_k`` is ``k / (K(K−1)/2)``,
whatever the scores; its largest value is ``2/K``, i.e. exactly 0.1 for K = 20,
so with the defaults the τ condition never rejects. A coarser grid (smaller K)
or explicit thresholds make τ bite.

The removed cases and the mean scores are reported at ``t_0`` whenever such a
threshold exists (even when τ then rejects it, so the user sees what would have
to be dropped); when there is none, nothing is removed and the means are over
every case.

This module computes only; it reads no file. The builders at the end turn the
per-frame or per-action results of the other modules into :class:`CaseScores`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .actions import ActionEvaluation, ActionMatching
from .boxes import BoxEvaluation
from .errors import InvalidOptionError
from .evaluate import VideoEvaluation
from .indicators import IndicatorValue, undefined
from .pseudo import PseudoResult

#: Tests of two methods; the first is the default.
PAIR_TESTS: tuple[str, ...] = ("t", "wilcoxon", "welch")
#: Tests of more than two methods; the first is the default.
SEVERAL_TESTS: tuple[str, ...] = ("anova", "friedman")
#: Readable names of the tests.
TEST_NAMES: dict[str, str] = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "welch": "Welch's t-test",
    "anova": "repeated-measures ANOVA",
    "friedman": "Friedman test",
}
DEFAULT_ALPHA = 0.05
DEFAULT_TAU = 0.1
DEFAULT_THRESHOLDS = 20
#: p is undefined when fewer cases than this remain.
MIN_CASES = 3

FEWER_THAN_3 = "undefined: fewer than 3 cases remain"
# Relative tolerance of "the same value" (zero variance, normalized threshold at τ).
_RELATIVE = 1e-9


# --- test cases ----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CaseScores:
    """Per-case scores of several methods, paired by case (SPEC §9).

    Attributes
    ----------
    measure
        What a score is, e.g. ``"per-frame F1"``.
    methods
        Method names, one per column of ``scores``.
    labels
        One label per case (e.g. ``"baseline/street:37"``), one per row.
    scores
        ``float64`` ``(n_cases, n_methods)``, every value finite.
    dropped
        Cases left out because a score was undefined in at least one method.
    dropped_reason
        Why those cases were left out (empty when none was).
    """

    measure: str
    methods: tuple[str, ...]
    labels: tuple[str, ...]
    scores: np.ndarray
    dropped: int = 0
    dropped_reason: str = ""

    def __post_init__(self) -> None:
        scores = np.array(self.scores, dtype=np.float64)
        if scores.ndim != 2:
            raise InvalidOptionError(
                f"scores must be a table cases × methods, got shape {scores.shape}"
            )
        methods = tuple(str(m) for m in self.methods)
        labels = tuple(str(label) for label in self.labels)
        if len(methods) != scores.shape[1] or len(labels) != scores.shape[0]:
            raise InvalidOptionError(
                f"{scores.shape[0]} cases × {scores.shape[1]} methods of "
                f"scores, but {len(labels)} case labels and "
                f"{len(methods)} method names"
            )
        if len(set(methods)) != len(methods):
            raise InvalidOptionError(f"method names must differ, got {', '.join(methods)}")
        bad = np.argwhere(~np.isfinite(scores))
        if len(bad):
            i, m = bad[0]
            raise InvalidOptionError(
                f"the score of {methods[m]} on case {labels[i]!r} is not "
                "a finite number; leave such cases out (the builders "
                "drop them)"
            )
        scores.setflags(write=False)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "methods", methods)
        object.__setattr__(self, "labels", labels)

    def __len__(self) -> int:
        return self.scores.shape[0]

    def column(self, method: str) -> np.ndarray:
        """The scores of ``method``."""
        return self.scores[:, self._index(method)]

    def select(self, methods: Sequence[str]) -> CaseScores:
        """The same cases with only ``methods``, in that order."""
        columns = [self._index(m) for m in methods]
        return CaseScores(
            self.measure,
            tuple(methods),
            self.labels,
            self.scores[:, columns],
            self.dropped,
            self.dropped_reason,
        )

    def _index(self, method: str) -> int:
        if method not in self.methods:
            raise InvalidOptionError(
                f"no method named {method!r}; the methods are {', '.join(self.methods)}"
            )
        return self.methods.index(method)


def scores_table(
    measure: str,
    labels: Sequence[str],
    columns: Mapping[str, Sequence[float]],
    undefined_reason: str = "a score is undefined",
) -> CaseScores:
    """:class:`CaseScores` from one column per method, dropping cases with a NaN score.

    Parameters
    ----------
    measure
        What a score is.
    labels
        One label per case.
    columns
        Method name → one score per case (NaN where undefined).
    undefined_reason
        Said of the dropped cases, e.g. ``"F1 is undefined (no positive and no
        detected pixel)"``.
    """
    names = list(columns)
    table = (
        np.column_stack([np.asarray(columns[m], dtype=np.float64).reshape(-1) for m in names])
        if names
        else np.zeros((len(labels), 0))
    )
    if table.shape[0] != len(labels):
        raise InvalidOptionError(f"{len(labels)} case labels but {table.shape[0]} scores")
    keep = np.all(np.isfinite(table), axis=1)
    dropped = int((~keep).sum())
    return CaseScores(
        measure,
        tuple(names),
        tuple(l for l, k in zip(labels, keep) if k),
        table[keep],
        dropped,
        undefined_reason if dropped else "",
    )


# --- thresholds ------------------------------------------------------------------------------


def threshold_grid(max_difference: float, count: int = DEFAULT_THRESHOLDS) -> np.ndarray:
    """The default thresholds: ``count`` evenly spaced values from 0 (included) to
    ``max_difference`` (excluded), ``t_k = k · max d / count`` (SPEC §9).

    A zero ``max_difference`` gives the single threshold 0.
    """
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise InvalidOptionError(
            f"the number of thresholds must be a whole number >= 1, not {count!r}"
        )
    if not math.isfinite(max_difference) or max_difference < 0:
        raise InvalidOptionError(
            f"the largest difference must be finite and >= 0, not {max_difference}"
        )
    if max_difference == 0:
        return np.zeros(1)
    return np.arange(int(count)) * (float(max_difference) / int(count))


def normalized_thresholds(thresholds: Sequence[float]) -> np.ndarray:
    """``t_k / Σ_j t_j`` (the seed's normalization); all 0 when every threshold is 0."""
    t = np.asarray(thresholds, dtype=np.float64)
    total = t.sum()
    return t / total if total > 0 else np.zeros_like(t)


def _check_thresholds(thresholds: Sequence[float]) -> np.ndarray:
    t = np.asarray(thresholds, dtype=np.float64).reshape(-1)
    if len(t) == 0 or not np.all(np.isfinite(t)) or np.any(t < 0) or np.any(np.diff(t) <= 0):
        raise InvalidOptionError(
            f"thresholds must be increasing numbers >= 0, got {list(map(float, t))}"
        )
    return t


# --- the tests -------------------------------------------------------------------------------


def _constant(values: np.ndarray) -> bool:
    """Whether ``values`` are all equal, up to rounding."""
    spread = float(np.ptp(values)) if len(values) else 0.0
    return spread <= _RELATIVE * max(1.0, float(np.max(np.abs(values))) if len(values) else 0.0)


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _paired_t(a: np.ndarray, b: np.ndarray) -> tuple[float, IndicatorValue]:
    if _constant(a - b):
        return math.nan, undefined("undefined: the differences a − b have zero variance")
    result = _quiet(stats.ttest_rel, a, b)
    return float(result.statistic), _p(result.pvalue)


def _wilcoxon(a: np.ndarray, b: np.ndarray) -> tuple[float, IndicatorValue]:
    if np.all(a == b):
        return math.nan, undefined(
            "undefined: the two methods score the same on every remaining case"
        )
    result = _quiet(stats.wilcoxon, a, b)
    return float(result.statistic), _p(result.pvalue)


def _welch(a: np.ndarray, b: np.ndarray) -> tuple[float, IndicatorValue]:
    if _constant(a) and _constant(b):
        return math.nan, undefined(
            "undefined: both methods' scores are constant on the remaining cases"
        )
    result = _quiet(stats.ttest_ind, a, b, equal_var=False)
    return float(result.statistic), _p(result.pvalue)


@dataclass(frozen=True)
class AnovaResult:
    """One-way repeated-measures ANOVA (cases are the subjects, methods the factor).

    ``F = MS_methods / MS_error`` with ``df = (k − 1, (k − 1)(n − 1))``.
    """

    f: float
    df_methods: int
    df_error: int
    ss_methods: float
    ss_cases: float
    ss_error: float
    p: IndicatorValue


def repeated_measures_anova(scores: np.ndarray) -> AnovaResult:
    """Repeated-measures ANOVA of a ``(n cases, k methods)`` table (SPEC §9).

    Sums of squares around the grand mean ``m``: methods ``n Σ_j (m_j − m)²``,
    cases ``k Σ_i (m_i − m)²``, error = total − methods − cases. The p-value is
    the upper tail of the F distribution. Undefined when ``n < 2``, ``k < 2`` or
    the error sum of squares is 0 (every case differs between methods by the same
    amounts).
    """
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2:
        raise InvalidOptionError(f"expected a table cases × methods, got shape {x.shape}")
    n, k = x.shape
    df_methods, df_error = k - 1, (k - 1) * (n - 1)
    if n < 2 or k < 2:
        return AnovaResult(
            math.nan,
            df_methods,
            df_error,
            math.nan,
            math.nan,
            math.nan,
            undefined("undefined: needs at least 2 cases and 2 methods"),
        )
    grand = x.mean()
    ss_total = float(((x - grand) ** 2).sum())
    ss_methods = float(n * ((x.mean(axis=0) - grand) ** 2).sum())
    ss_cases = float(k * ((x.mean(axis=1) - grand) ** 2).sum())
    ss_error = max(ss_total - ss_methods - ss_cases, 0.0)
    if ss_error <= _RELATIVE * ss_total or ss_total == 0:
        reason = (
            "undefined: all methods score the same on every remaining case"
            if ss_methods <= _RELATIVE * max(ss_total, 1e-300)
            else "undefined: no error variance (the methods differ by the same amounts "
            "on every remaining case)"
        )
        return AnovaResult(
            math.nan, df_methods, df_error, ss_methods, ss_cases, ss_error, undefined(reason)
        )
    f = (ss_methods / df_methods) / (ss_error / df_error)
    return AnovaResult(
        f,
        df_methods,
        df_error,
        ss_methods,
        ss_cases,
        ss_error,
        _p(stats.f.sf(f, df_methods, df_error)),
    )


def _anova(x: np.ndarray) -> tuple[float, IndicatorValue]:
    result = repeated_measures_anova(x)
    return result.f, result.p


def _friedman(x: np.ndarray) -> tuple[float, IndicatorValue]:
    if np.all(x == x[:, :1]):
        return math.nan, undefined("undefined: all methods score the same on every remaining case")
    result = _quiet(stats.friedmanchisquare, *x.T)
    return float(result.statistic), _p(result.pvalue)


def _p(value: float) -> IndicatorValue:
    value = float(value)
    if math.isnan(value):
        return undefined("undefined: the test gives no p-value on these cases")
    return IndicatorValue(value)


def _run_test(test: str, x: np.ndarray) -> tuple[float, IndicatorValue]:
    if x.shape[0] < MIN_CASES:
        return math.nan, undefined(f"{FEWER_THAN_3} ({x.shape[0]})")
    if test == "t":
        return _paired_t(x[:, 0], x[:, 1])
    if test == "wilcoxon":
        return _wilcoxon(x[:, 0], x[:, 1])
    if test == "welch":
        return _welch(x[:, 0], x[:, 1])
    if test == "anova":
        return _anova(x)
    return _friedman(x)


# --- the sweep and the verdict -----------------------------------------------------------------


@dataclass(frozen=True)
class ThresholdRow:
    """One threshold of the sweep (SPEC §9).

    Attributes
    ----------
    threshold
        ``t_k``, in score units; cases with ``d_i < t_k`` are removed.
    normalized
        ``t_k / Σ_j t_j``.
    fraction_of_max
        ``t_k / max d`` (NaN when every ``d_i`` is 0).
    cases_left
        Cases tested.
    fraction_removed
        Removed cases over all cases.
    statistic
        The test statistic (t, W, F or χ²); NaN when p is undefined.
    p
        The p-value, or NaN with the reason.
    """

    threshold: float
    normalized: float
    fraction_of_max: float
    cases_left: int
    fraction_removed: float
    statistic: float
    p: IndicatorValue


@dataclass(frozen=True, eq=False)
class DiscriminativeResult:
    """The threshold sweep, the verdict and where the methods stand (SPEC §9).

    Attributes
    ----------
    cases
        The scores tested.
    test
        Key of the test (:data:`PAIR_TESTS` or :data:`SEVERAL_TESTS`).
    alpha, tau
        Significance level and largest normalized threshold allowed for ``t_0``.
    higher_is_better
        How ``better`` was chosen.
    differences
        ``d_i`` per case (``|a_i − b_i|``, or the spread over several methods).
    rows
        The sweep, by increasing threshold.
    differ
        The verdict: the methods differ.
    verdict
        The verdict and its reason, in words.
    t0_index
        Row of ``t_0``, the smallest threshold from which p stays below α where
        defined; ``None`` if there is none. Set even when ``t_0`` fails τ.
    removed
        Indices of the cases removed at ``t_0`` (none when there is no ``t_0``).
    means
        Each method's mean score on the cases that remain.
    better
        The method with the best mean on what remains (``None`` on a tie).
    """

    cases: CaseScores
    test: str
    alpha: float
    tau: float
    higher_is_better: bool
    differences: np.ndarray
    rows: tuple[ThresholdRow, ...]
    differ: bool
    verdict: str
    t0_index: int | None
    removed: tuple[int, ...]
    means: tuple[float, ...]
    better: str | None

    @property
    def methods(self) -> tuple[str, ...]:
        return self.cases.methods

    @property
    def t0(self) -> float | None:
        """``t_0`` in score units, or ``None``."""
        return None if self.t0_index is None else self.rows[self.t0_index].threshold

    @property
    def remaining(self) -> tuple[int, ...]:
        """Indices of the cases kept at ``t_0`` (every case when there is no ``t_0``)."""
        gone = set(self.removed)
        return tuple(i for i in range(len(self.cases)) if i not in gone)

    @property
    def direction(self) -> str:
        """Which method is better on what remains, in words."""
        sense = "higher" if self.higher_is_better else "lower"
        means = ", ".join(f"{m} {v:.4f}" for m, v in zip(self.methods, self.means))
        where = (
            f"the {len(self.remaining)} cases left at t_0 = {_num(self.t0)}"
            if self.t0 is not None
            else f"all {len(self.cases)} cases"
        )
        if not len(self.remaining):
            return "no case remains"
        best = (
            f"{self.better} is better ({sense} is better)"
            if self.better is not None
            else f"the best means tie ({sense} is better)"
        )
        return f"mean {self.cases.measure} on {where}: {means}; {best}"


def _num(value: float | None) -> str:
    return "undef." if value is None or math.isnan(value) else f"{value:.4g}"


def _check_options(test: str, tests: Sequence[str], alpha: float, tau: float) -> None:
    if test not in tests:
        raise InvalidOptionError(f"unknown test {test!r}; choose one of {', '.join(tests)}")
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise InvalidOptionError(f"α must be between 0 and 1, not {alpha!r}")
    if not (isinstance(tau, (int, float)) and 0 <= tau <= 1):
        raise InvalidOptionError(f"τ must be between 0 and 1, not {tau!r}")


def _verdict(
    rows: Sequence[ThresholdRow], alpha: float, tau: float, subject: str
) -> tuple[bool, str, int | None]:
    """``(differ, sentence, t0 index)`` by the rule of SPEC §9."""
    defined = [k for k, row in enumerate(rows) if row.p.defined]
    if not defined:
        return (
            False,
            (
                f"no significant difference: p is undefined at every threshold "
                f"({rows[0].p.reason.removeprefix('undefined: ')} at t = "
                f"{_num(rows[0].threshold)})"
            ),
            None,
        )
    at_or_above = [k for k in defined if rows[k].p.value >= alpha]
    last_bad = at_or_above[-1] if at_or_above else -1
    candidates = [k for k in defined if k > last_bad]
    if not candidates:
        below = [k for k in defined if rows[k].p.value < alpha]
        if not below:
            best = min(defined, key=lambda k: rows[k].p.value)
            return (
                False,
                (
                    f"no significant difference: p never below α = {alpha:g} "
                    f"(smallest p = {_num(rows[best].p.value)} at t = "
                    f"{_num(rows[best].threshold)})"
                ),
                None,
            )
        rise = next(k for k in at_or_above if k > below[0])
        end = (
            "" if rise == last_bad else f" and is still ≥ α at t = {_num(rows[last_bad].threshold)}"
        )
        return (
            False,
            (
                f"no significant difference: p < α = {alpha:g} first at t = "
                f"{_num(rows[below[0]].threshold)} but rises above α again at t = "
                f"{_num(rows[rise].threshold)} (p = {_num(rows[rise].p.value)})"
                f"{end}, the largest threshold where p is defined"
            ),
            None,
        )
    k0 = candidates[0]
    row = rows[k0]
    removed = f"{row.fraction_removed:.0%} of the cases removed"
    if row.normalized <= tau * (1 + _RELATIVE) + _RELATIVE:
        return (
            True,
            (
                f"{subject} differ: p < α = {alpha:g} from t = {_num(row.threshold)} on "
                f"(p = {_num(row.p.value)}; normalized threshold {row.normalized:.3g} ≤ "
                f"τ = {tau:g}; {removed})"
            ),
            k0,
        )
    return (
        False,
        (
            f"no significant difference: p < α = {alpha:g} from t = "
            f"{_num(row.threshold)} on, but its normalized threshold "
            f"{row.normalized:.3g} > τ = {tau:g} ({removed})"
        ),
        k0,
    )


def compare_cases(
    cases: CaseScores,
    test: str | None = None,
    alpha: float = DEFAULT_ALPHA,
    tau: float = DEFAULT_TAU,
    thresholds: int | Sequence[float] = DEFAULT_THRESHOLDS,
    higher_is_better: bool = True,
) -> DiscriminativeResult:
    """Discriminative evaluation of two or more methods on paired cases (SPEC §9).

    Parameters
    ----------
    cases
        Scores, one column per method (at least two).
    test
        Two methods: ``"t"`` (paired t-test, default), ``"wilcoxon"``, ``"welch"``;
        more: ``"anova"`` (repeated-measures ANOVA, default) or ``"friedman"``
        (at least three methods). ``"anova"`` also accepts two methods.
    alpha, tau
        Significance level (default 0.05) and largest normalized ``t_0`` (default 0.1).
    thresholds
        ``K``, for ``K`` evenly spaced values from 0 (included) to ``max d``
        (excluded), default 20; or explicit increasing thresholds ``>= 0``, in
        score units.
    higher_is_better
        Whether a higher score is better (decides :attr:`DiscriminativeResult.better`).

    Raises
    ------
    InvalidOptionError
        Fewer than two methods, no case, an unknown test or an option out of range.
    """
    m = len(cases.methods)
    if m < 2:
        raise InvalidOptionError(f"comparing needs at least two methods, got {m}")
    if len(cases) == 0:
        raise InvalidOptionError(
            "there is no test case to compare on"
            + (f" ({cases.dropped} dropped: {cases.dropped_reason})" if cases.dropped else "")
        )
    if test is None:
        test = PAIR_TESTS[0] if m == 2 else SEVERAL_TESTS[0]
    if test == "friedman" and m < 3:
        raise InvalidOptionError(
            "the Friedman test needs at least three methods; with two "
            f"use one of {', '.join(PAIR_TESTS)}"
        )
    if test in PAIR_TESTS and m > 2:
        raise InvalidOptionError(
            f"the {TEST_NAMES[test]} compares two methods, not {m}; "
            f"choose two, or use one of {', '.join(SEVERAL_TESTS)}"
        )
    _check_options(test, PAIR_TESTS + SEVERAL_TESTS, alpha, tau)
    x = cases.scores
    d = x.max(axis=1) - x.min(axis=1)
    max_d = float(d.max())
    t = (
        threshold_grid(max_d, thresholds)
        if isinstance(thresholds, (int, np.integer))
        else _check_thresholds(thresholds)
    )
    normalized = normalized_thresholds(t)
    n = len(cases)
    rows = []
    for threshold, norm in zip(t, normalized):
        keep = d >= threshold
        statistic, p = _run_test(test, x[keep])
        left = int(keep.sum())
        rows.append(
            ThresholdRow(
                float(threshold),
                float(norm),
                float(threshold / max_d) if max_d > 0 else math.nan,
                left,
                (n - left) / n,
                statistic,
                p,
            )
        )
    subject = " and ".join(cases.methods) if m == 2 else "the methods"
    differ, sentence, k0 = _verdict(rows, alpha, tau, subject)
    removed = tuple(int(i) for i in np.flatnonzero(d < t[k0])) if k0 is not None else ()
    gone = np.zeros(n, dtype=bool)
    gone[list(removed)] = True
    kept = x[~gone]
    means = tuple(float(v) for v in kept.mean(axis=0)) if len(kept) else (math.nan,) * m
    better = None
    if len(kept):
        target = max(means) if higher_is_better else min(means)
        winners = [name for name, v in zip(cases.methods, means) if v == target]
        better = winners[0] if len(winners) == 1 else None
    return DiscriminativeResult(
        cases,
        test,
        float(alpha),
        float(tau),
        bool(higher_is_better),
        d,
        tuple(rows),
        differ,
        sentence,
        k0,
        removed,
        means,
        better,
    )


def compare_pair(
    a: Sequence[float],
    b: Sequence[float],
    names: tuple[str, str] = ("A", "B"),
    test: str = "t",
    alpha: float = DEFAULT_ALPHA,
    tau: float = DEFAULT_TAU,
    thresholds: int | Sequence[float] = DEFAULT_THRESHOLDS,
    higher_is_better: bool = True,
    labels: Sequence[str] | None = None,
    measure: str = "score",
) -> DiscriminativeResult:
    """Discriminative evaluation of methods A and B on paired scores ``a_i, b_i`` (SPEC §9).

    ``d_i = |a_i − b_i|``; see :func:`compare_cases` for the options. ``labels``
    name the cases (default their 0-based index).
    """
    a = np.asarray(a, dtype=np.float64).reshape(-1)
    b = np.asarray(b, dtype=np.float64).reshape(-1)
    if len(a) != len(b):
        raise InvalidOptionError(
            f"paired scores need the same number of cases: A has {len(a)}, B has {len(b)}"
        )
    labels = [str(i) for i in range(len(a))] if labels is None else list(labels)
    cases = CaseScores(measure, tuple(names), tuple(labels), np.column_stack([a, b]))
    return compare_cases(cases, test, alpha, tau, thresholds, higher_is_better)


def compare_several(
    scores: np.ndarray,
    names: Sequence[str],
    test: str = "anova",
    alpha: float = DEFAULT_ALPHA,
    tau: float = DEFAULT_TAU,
    thresholds: int | Sequence[float] = DEFAULT_THRESHOLDS,
    higher_is_better: bool = True,
    labels: Sequence[str] | None = None,
    measure: str = "score",
) -> DiscriminativeResult:
    """Discriminative evaluation of several methods, ``scores`` ``(n cases, k methods)``.

    ``d_i = max_m s_im − min_m s_im``; the test is a repeated-measures ANOVA
    (default) or Friedman's; see :func:`compare_cases`.
    """
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2:
        raise InvalidOptionError(f"expected a table cases × methods, got shape {x.shape}")
    labels = [str(i) for i in range(x.shape[0])] if labels is None else list(labels)
    return compare_cases(
        CaseScores(measure, tuple(names), tuple(labels), x),
        test,
        alpha,
        tau,
        thresholds,
        higher_is_better,
    )


# --- test-case builders ----------------------------------------------------------------------


def f1_from_counts(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """``2tp / (2tp + fp + fn)`` element-wise; NaN where the denominator is 0."""
    tp, fp, fn = (np.asarray(v, dtype=np.float64) for v in (tp, fp, fn))
    denominator = 2 * tp + fp + fn
    return np.divide(
        2 * tp, denominator, out=np.full(denominator.shape, math.nan), where=denominator > 0
    )


F1_UNDEFINED = "F1 is undefined (no positive and no detected pixel) for at least one method"


def frame_f1_cases(evaluations: Mapping[str, Sequence[VideoEvaluation]]) -> CaseScores:
    """Per-frame F1 of each method's masks (SPEC §9 with §1 counts).

    Parameters
    ----------
    evaluations
        Method name → its :class:`VideoEvaluation` of every video. Videos are
        paired by ``(category, video)`` and frames by number; only frames
        evaluated for every method are cases.

    Returns
    -------
    CaseScores
        One case per frame, labelled ``category/video:frame``; a frame where F1
        is undefined for any method (no positive and no detected pixel) is
        dropped and counted in ``dropped``.
    """
    names = list(evaluations)
    per_method = [{e.key: e for e in evaluations[m]} for m in names]
    labels: list[str] = []
    columns: dict[str, list[np.ndarray]] = {m: [] for m in names}
    keys = [
        k for k in (per_method[0] if per_method else {}) if all(k in side for side in per_method)
    ]
    for key in keys:
        frames = None
        for side in per_method:
            f = side[key].frames
            frames = f if frames is None else np.intersect1d(frames, f)
        for name, side in zip(names, per_method):
            rows = side[key].per_frame
            where = np.searchsorted(rows[:, 0], frames)
            picked = rows[where]
            columns[name].append(f1_from_counts(picked[:, 1], picked[:, 2], picked[:, 3]))
        labels += [f"{key[0]}/{key[1]}:{int(i)}" for i in frames]
    return scores_table(
        "per-frame F1",
        labels,
        {m: np.concatenate(c) if c else np.zeros(0) for m, c in columns.items()},
        F1_UNDEFINED,
    )


def pseudo_f1_cases(pseudo: Mapping[str, np.ndarray], labels: Sequence[str]) -> CaseScores:
    """Per-frame pseudo-F1 of each method under a committee's consensus (SPEC §9, §7).

    Parameters
    ----------
    pseudo
        Method name → per-frame pseudo confusion counts ``(n_frames, 4)``, columns
        ``tp, fp, fn, tn`` (expected counts under the consensus), rows aligned
        across methods.
    labels
        One label per frame.

    Returns
    -------
    CaseScores
        Pseudo-F1 ``2 Σ S·P / (Σ S + Σ P)`` per frame; frames where it is
        undefined for any method (nothing detected and a zero consensus) are
        dropped and counted.
    """
    columns = {}
    for name, counts in pseudo.items():
        c = np.asarray(counts, dtype=np.float64)
        if c.ndim != 2 or c.shape[1] != 4:
            raise InvalidOptionError(
                f"pseudo counts of {name} must be (frames, 4) with columns "
                f"tp, fp, fn, tn; got shape {c.shape}"
            )
        columns[name] = f1_from_counts(c[:, 0], c[:, 1], c[:, 2])
    return scores_table(
        "per-frame pseudo-F1",
        labels,
        columns,
        "pseudo-F1 is undefined (nothing detected, zero consensus) for at least one method",
    )


def pseudo_result_cases(result: PseudoResult, methods: Sequence[str]) -> CaseScores:
    """:func:`pseudo_f1_cases` of ``methods`` from a :func:`~referee.core.pseudo.pseudo_evaluate`
    result: one case per evaluated frame, labelled ``category/video:frame``."""
    counts = {m: np.concatenate([v.per_frame[m][:, 1:5] for v in result.videos]) for m in methods}
    labels = [f"{v.category}/{v.video}:{int(i)}" for v in result.videos for i in v.frames]
    return pseudo_f1_cases(counts, labels)


def box_fda_cases(evaluations: Mapping[str, BoxEvaluation]) -> CaseScores:
    """Per-frame FDA of each method's boxes against the same ground truth (SPEC §9, §5).

    Frames are paired by video name and number; a case is a frame with a box in
    the ground truth or in any method's detections, labelled ``video:frame``. A
    frame with no box at all for some method's evaluation (FDA 0/0) is dropped
    and counted: it is the frame SFDA skips too.

    Raises
    ------
    InvalidOptionError
        If two evaluations disagree on a frame's number of ground-truth boxes
        (they were not made against the same ground truth).
    """
    names = list(evaluations)
    per_method: list[dict[tuple[str, int], tuple[int, float]]] = []
    order: dict[tuple[str, int], None] = {}
    for name in names:
        frames = {}
        for video in evaluations[name].videos:
            for r in video.frames:
                frames[(video.name, r.frame)] = (r.n_gt, r.fda)
                order.setdefault((video.name, r.frame), None)
        per_method.append(frames)
    columns: dict[str, list[float]] = {m: [] for m in names}
    for key in order:
        seen = {side[key][0] for side in per_method if key in side}
        if len(seen) > 1:
            raise InvalidOptionError(
                f"the box evaluations disagree on the number of "
                f"ground-truth boxes of video {key[0]!r}, frame {key[1]}; "
                "evaluate every method against the same ground truth"
            )
        for name, side in zip(names, per_method):
            columns[name].append(side[key][1] if key in side else math.nan)
    return scores_table(
        "per-frame FDA",
        [f"{v}:{f}" for v, f in order],
        columns,
        "no ground-truth box and no detection on the frame for at least one method (FDA 0/0)",
    )


def action_dice_cases(matchings: Mapping[str, ActionMatching]) -> CaseScores:
    """Per-action Dice of each method's detections (SPEC §9, §4).

    A case is a ground-truth action, labelled ``video:nr``; its score is the
    Dice overlap of the detection the LIRIS matching assigned to it (class-aware
    greedy matching of :func:`~referee.core.actions.match_actions`), 0 when none
    was. Every score is defined, so no case is dropped.

    Raises
    ------
    InvalidOptionError
        If the matchings were not made against the same ground truth.
    """
    names = list(matchings)
    reference: list[tuple[str, int]] | None = None
    columns: dict[str, np.ndarray] = {}
    for name in names:
        matching = matchings[name]
        actions = [(v.video, a.number) for v in matching.videos for a in v.gt]
        if reference is None:
            reference = actions
        elif actions != reference:
            raise InvalidOptionError(
                f"the action matchings of {names[0]} and {name} were made "
                "against different ground truths; match every method "
                "against the same ground-truth file"
            )
        offsets = np.concatenate([[0], np.cumsum(matching.n_gt)])
        dice = np.zeros(int(matching.n_gt.sum()))
        pairs = matching.pairs
        dice[offsets[pairs.video] + pairs.gt] = pairs.dice
        columns[name] = dice
    labels = [f"{video}:{number}" for video, number in (reference or [])]
    return scores_table("per-action Dice", labels, columns)


__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_TAU",
    "DEFAULT_THRESHOLDS",
    "MIN_CASES",
    "PAIR_TESTS",
    "SEVERAL_TESTS",
    "TEST_NAMES",
    "AnovaResult",
    "CaseScores",
    "DiscriminativeResult",
    "ThresholdRow",
    "action_dice_cases",
    "box_fda_cases",
    "compare_cases",
    "compare_pair",
    "compare_several",
    "f1_from_counts",
    "frame_f1_cases",
    "normalized_thresholds",
    "pseudo_f1_cases",
    "repeated_measures_anova",
    "scores_table",
    "threshold_grid",
]


#: Kinds of paired test cases built from a project's results, and what each compares.
CASE_KINDS: dict[str, str] = {
    "frames": "F1 of each evaluated frame (needs ground truth)",
    "pseudo": "pseudo-F1 of each frame against the consensus (no ground truth needed)",
    "actions": "Dice of each ground-truth action (LIRIS)",
}


def cases_of_kind(
    kind: str,
    evaluations: Mapping[str, Sequence[VideoEvaluation]],
    pseudo: PseudoResult | None,
    actions: Mapping[str, ActionEvaluation],
) -> CaseScores:
    """Paired test cases of every detector for ``kind`` (a key of :data:`CASE_KINDS`).

    Raises
    ------
    InvalidOptionError
        If the results ``kind`` needs are missing.
    """
    if kind == "frames" and evaluations:
        return frame_f1_cases(evaluations)
    if kind == "pseudo" and pseudo is not None:
        return pseudo_result_cases(pseudo, pseudo.methods)
    if kind == "actions" and actions:
        return action_dice_cases({m: e.matching for m, e in actions.items()})
    raise InvalidOptionError(f"no {kind} results yet: {CASE_KINDS.get(kind, 'unknown kind')}")
