"""The threshold sweep and the verdict of the discriminative evaluation (docs/measures.md §9)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.measures.indicators import IndicatorValue
from referee.core.model.case_scores import CaseScores
from referee.core.significance.choices import (
    AUTO_TEST,
    DEFAULT_ALPHA,
    DEFAULT_TAU,
    DEFAULT_THRESHOLDS,
    PAIR_TESTS,
    SEVERAL_TESTS,
    TESTS,
)
from referee.core.significance.hypothesis_tests import RELATIVE_TOLERANCE, TEST_NAMES, _run_test


class VerdictKind(Enum):
    """Why the methods differ or not (docs/measures.md §9)."""

    #: p < α from ``t_0`` on, and ``t_0``'s normalized value is at most τ.
    DIFFER = "differ"
    #: p is undefined at every threshold.
    P_UNDEFINED = "p undefined"
    #: p is never below α.
    NEVER_BELOW_ALPHA = "never below alpha"
    #: p falls below α but is back above it at the largest threshold where it is defined.
    RISES_ABOVE_ALPHA = "rises above alpha"
    #: p < α from ``t_0`` on, but ``t_0``'s normalized value exceeds τ.
    ABOVE_TAU = "above tau"


@dataclass(frozen=True)
class Verdict:
    """The verdict and the rows of the sweep that explain it (indices into the sweep).

    Attributes
    ----------
    kind
        What was found.
    t0_index
        ``t_0``: set for :attr:`VerdictKind.DIFFER` and :attr:`VerdictKind.ABOVE_TAU`.
    smallest_p_index
        :attr:`VerdictKind.NEVER_BELOW_ALPHA`: the row with the smallest p.
    first_below_index, rise_index, last_above_index
        :attr:`VerdictKind.RISES_ABOVE_ALPHA`: the first row with p < α, the first
        later row back at or above α, and the last row at or above α.
    """

    kind: VerdictKind
    t0_index: int | None = None
    smallest_p_index: int | None = None
    first_below_index: int | None = None
    rise_index: int | None = None
    last_above_index: int | None = None

    @property
    def differ(self) -> bool:
        return self.kind is VerdictKind.DIFFER


# --- thresholds ------------------------------------------------------------------------------


def threshold_grid(max_difference: float, count: int = DEFAULT_THRESHOLDS) -> np.ndarray:
    """The default thresholds: ``count`` evenly spaced values from 0 (included) to
    ``max_difference`` (excluded), ``t_k = k · max d / count`` (docs/measures.md §9).

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


def normalized_thresholds(thresholds: Sequence[float] | np.ndarray) -> np.ndarray:
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


# --- the sweep and the verdict -----------------------------------------------------------------


@dataclass(frozen=True)
class ThresholdRow:
    """One threshold of the sweep (docs/measures.md §9).

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
    """The threshold sweep, the verdict and where the methods stand (docs/measures.md §9).

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
    verdict
        Whether the methods differ, and why (worded by
        :mod:`referee.core.significance.wording`).
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
    verdict: Verdict
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
    def differ(self) -> bool:
        """The verdict: the methods differ."""
        return self.verdict.differ

    @property
    def t0_index(self) -> int | None:
        """Row of ``t_0``, the smallest threshold from which p stays below α where defined;
        ``None`` if there is none. Set even when ``t_0`` fails τ."""
        return self.verdict.t0_index


def _check_options(alpha: float, tau: float) -> None:
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise InvalidOptionError(f"α must be between 0 and 1, not {alpha!r}")
    if not (isinstance(tau, (int, float)) and 0 <= tau <= 1):
        raise InvalidOptionError(f"τ must be between 0 and 1, not {tau!r}")


def _verdict(rows: Sequence[ThresholdRow], alpha: float, tau: float) -> Verdict:
    """The verdict by the rule of docs/measures.md §9."""
    defined = [k for k, row in enumerate(rows) if row.p.defined]
    if not defined:
        return Verdict(VerdictKind.P_UNDEFINED)
    at_or_above = [k for k in defined if rows[k].p.value >= alpha]
    last_bad = at_or_above[-1] if at_or_above else -1
    candidates = [k for k in defined if k > last_bad]
    if not candidates:
        below = [k for k in defined if rows[k].p.value < alpha]
        if not below:
            best = min(defined, key=lambda k: rows[k].p.value)
            return Verdict(VerdictKind.NEVER_BELOW_ALPHA, smallest_p_index=best)
        rise = next(k for k in at_or_above if k > below[0])
        return Verdict(
            VerdictKind.RISES_ABOVE_ALPHA,
            first_below_index=below[0],
            rise_index=rise,
            last_above_index=last_bad,
        )
    k0 = candidates[0]
    if rows[k0].normalized <= tau * (1 + RELATIVE_TOLERANCE) + RELATIVE_TOLERANCE:
        return Verdict(VerdictKind.DIFFER, t0_index=k0)
    return Verdict(VerdictKind.ABOVE_TAU, t0_index=k0)


def resolve_test(test: str | None, methods: int) -> str:
    """The test to run on ``methods`` methods: ``test``, or for :data:`AUTO_TEST` (or
    ``None``) the paired t-test for two and the repeated-measures ANOVA for more.

    Raises
    ------
    InvalidOptionError
        An unknown test, a test of two methods with more, or Friedman with two.
    """
    if test is None or test == AUTO_TEST:
        return PAIR_TESTS[0] if methods == 2 else SEVERAL_TESTS[0]
    if test not in TESTS:
        raise InvalidOptionError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}")
    if test == "friedman" and methods < 3:
        raise InvalidOptionError(
            "the Friedman test needs at least three methods; with two "
            f"use one of {', '.join(PAIR_TESTS)}"
        )
    if test in PAIR_TESTS and methods > 2:
        raise InvalidOptionError(
            f"the {TEST_NAMES[test]} compares two methods, not {methods}; "
            f"choose two, or use one of {', '.join(SEVERAL_TESTS)}"
        )
    return test


def compare_cases(
    cases: CaseScores,
    test: str | None = AUTO_TEST,
    alpha: float = DEFAULT_ALPHA,
    tau: float = DEFAULT_TAU,
    thresholds: int | Sequence[float] = DEFAULT_THRESHOLDS,
    higher_is_better: bool = True,
) -> DiscriminativeResult:
    """Discriminative evaluation of two or more methods on paired cases (docs/measures.md §9).

    Parameters
    ----------
    cases
        Scores, one column per method (at least two).
    test
        ``"auto"`` (default, or ``None``): the paired t-test for two methods, the
        repeated-measures ANOVA for more. Two methods: ``"t"``, ``"wilcoxon"``,
        ``"welch"``; more: ``"anova"`` or ``"friedman"`` (at least three methods).
        ``"anova"`` also accepts two methods.
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
    test = resolve_test(test, m)
    _check_options(alpha, tau)
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
    verdict = _verdict(rows, alpha, tau)
    k0 = verdict.t0_index
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
        verdict,
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
    """Discriminative evaluation of methods A and B on paired scores ``a_i, b_i`` (docs/measures.md §9).

    ``d_i = |a_i − b_i|``; see :func:`compare_cases` for the options. ``labels``
    name the cases (default their 0-based index).
    """
    scores_a = np.asarray(a, dtype=np.float64).reshape(-1)
    scores_b = np.asarray(b, dtype=np.float64).reshape(-1)
    if len(scores_a) != len(scores_b):
        raise InvalidOptionError(
            f"paired scores need the same number of cases: "
            f"A has {len(scores_a)}, B has {len(scores_b)}"
        )
    labels = [str(i) for i in range(len(scores_a))] if labels is None else list(labels)
    cases = CaseScores(measure, tuple(names), tuple(labels), np.column_stack([scores_a, scores_b]))
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
