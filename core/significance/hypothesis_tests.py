"""The statistical tests of the discriminative evaluation (docs/measures.md §9)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

import numpy as np
from scipy import stats

from referee.core.errors import InvalidOptionError
from referee.core.measures.indicators import IndicatorValue, undefined

#: Readable names of the tests.
TEST_NAMES: dict[str, str] = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "welch": "Welch's t-test",
    "anova": "repeated-measures ANOVA",
    "friedman": "Friedman test",
}
#: Wilcoxon p-values use the exact distribution up to this many cases (without ties or
#: zero differences), the normal approximation beyond (:func:`wilcoxon_method`).
WILCOXON_EXACT_MAX_CASES = 50
#: p is undefined when fewer cases than this remain.
MIN_CASES = 3

#: Relative tolerance of "the same value" (zero variance, a normalized threshold at τ).
RELATIVE_TOLERANCE = 1e-9

FEWER_THAN_3 = "undefined: fewer than 3 cases remain"

_P = ParamSpec("_P")
_R = TypeVar("_R")


# --- the tests -------------------------------------------------------------------------------


def _constant(values: np.ndarray) -> bool:
    """Whether ``values`` are all equal, up to rounding."""
    spread = float(np.ptp(values)) if len(values) else 0.0
    return spread <= RELATIVE_TOLERANCE * max(
        1.0, float(np.max(np.abs(values))) if len(values) else 0.0
    )


def _quiet(function: Callable[_P, _R], *args: _P.args, **kwargs: _P.kwargs) -> _R:
    """``function(*args, **kwargs)`` without its warnings and floating-point errors."""
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
    method = wilcoxon_method(a - b)
    result = _quiet(stats.wilcoxon, a, b, zero_method="wilcox", correction=False, method=method)
    return float(result.statistic), _p(result.pvalue)


def wilcoxon_method(differences: np.ndarray) -> str:
    """How the Wilcoxon p-value is computed (docs/measures.md §9), fixed here so that it does
    not depend on the SciPy version, whose ``"auto"`` rules differ on tied data.

    ``"exact"`` (the exact null distribution) for at most :data:`WILCOXON_EXACT_MAX_CASES`
    cases whose differences are all non-zero and distinct; ``"asymptotic"`` (the normal
    approximation, corrected for ties, no continuity correction) otherwise.
    """
    d = np.abs(np.asarray(differences, dtype=np.float64))
    distinct = np.unique(d).size == d.size
    if d.size <= WILCOXON_EXACT_MAX_CASES and distinct and np.all(d > 0):
        return "exact"
    return "asymptotic"


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
    """Repeated-measures ANOVA of a ``(n cases, k methods)`` table (docs/measures.md §9).

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
    if ss_error <= RELATIVE_TOLERANCE * ss_total or ss_total == 0:
        reason = (
            "undefined: all methods score the same on every remaining case"
            if ss_methods <= RELATIVE_TOLERANCE * max(ss_total, 1e-300)
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
