"""The significance verdict in words, for the command line, the report and the desktop
application (docs/measures.md §9).

The core computes a :class:`~referee.core.significance.sweep.Verdict` (data); this module
is the one place that turns it into sentences, so every surface says the same thing.
"""

from __future__ import annotations

import math

from referee.core.significance.hypothesis_tests import TEST_NAMES
from referee.core.significance.sweep import DiscriminativeResult, VerdictKind


def number_text(value: float | None) -> str:
    """A threshold or p-value as shown in verdicts: 4 significant digits, ``undef.`` for NaN."""
    return "undef." if value is None or math.isnan(value) else f"{value:.4g}"


def subject_text(result: DiscriminativeResult) -> str:
    """``A and B`` for two methods, ``the methods`` for more."""
    methods = result.methods
    return " and ".join(methods) if len(methods) == 2 else "the methods"


def verdict_text(result: DiscriminativeResult) -> str:
    """The verdict and its reason in one sentence, starting with what was found."""
    v, rows, alpha, tau = result.verdict, result.rows, result.alpha, result.tau
    num = number_text
    if v.kind is VerdictKind.P_UNDEFINED:
        reason = (rows[0].p.reason or "").removeprefix("undefined: ")
        return (
            "no significant difference: p is undefined at every threshold "
            f"({reason} at t = {num(rows[0].threshold)})"
        )
    if v.kind is VerdictKind.NEVER_BELOW_ALPHA:
        best = rows[_index(v.smallest_p_index)]
        return (
            f"no significant difference: p never below α = {alpha:g} "
            f"(smallest p = {num(best.p.value)} at t = {num(best.threshold)})"
        )
    if v.kind is VerdictKind.RISES_ABOVE_ALPHA:
        below, rise = rows[_index(v.first_below_index)], rows[_index(v.rise_index)]
        last = _index(v.last_above_index)
        end = (
            "" if v.rise_index == last else f" and is still ≥ α at t = {num(rows[last].threshold)}"
        )
        return (
            f"no significant difference: p < α = {alpha:g} first at t = "
            f"{num(below.threshold)} but rises above α again at t = "
            f"{num(rise.threshold)} (p = {num(rise.p.value)})"
            f"{end}, the largest threshold where p is defined"
        )
    row = rows[_index(v.t0_index)]
    removed = f"{row.fraction_removed:.0%} of the cases removed"
    if v.kind is VerdictKind.DIFFER:
        return (
            f"{subject_text(result)} differ: p < α = {alpha:g} from t = {num(row.threshold)} on "
            f"(p = {num(row.p.value)}; normalized threshold {row.normalized:.3g} ≤ "
            f"τ = {tau:g}; {removed})"
        )
    return (
        f"no significant difference: p < α = {alpha:g} from t = "
        f"{num(row.threshold)} on, but its normalized threshold "
        f"{row.normalized:.3g} > τ = {tau:g} ({removed})"
    )


def direction_text(result: DiscriminativeResult) -> str:
    """Which method is better on the cases that remain, with every method's mean."""
    if not result.remaining:
        return "no case remains"
    sense = "higher" if result.higher_is_better else "lower"
    means = ", ".join(f"{m} {v:.4f}" for m, v in zip(result.methods, result.means))
    where = (
        f"the {len(result.remaining)} cases left at t_0 = {number_text(result.t0)}"
        if result.t0 is not None
        else f"all {len(result.cases)} cases"
    )
    best = (
        f"{result.better} is better ({sense} is better)"
        if result.better is not None
        else f"the best means tie ({sense} is better)"
    )
    return f"mean {result.cases.measure} on {where}: {means}; {best}"


def test_name(result: DiscriminativeResult) -> str:
    """The test that was run, by name."""
    return TEST_NAMES[result.test]


def sentence(text: str) -> str:
    """``text`` as a sentence: capital first letter, final full stop."""
    return f"{text[:1].upper()}{text[1:]}."


def _index(index: int | None) -> int:
    if index is None:  # a verdict of this kind always names its rows
        raise ValueError("the verdict does not name the row it needs")
    return index
