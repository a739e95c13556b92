"""The indicator registry: every measure of one confusion matrix (docs/measures.md §2).

Each :class:`Indicator` is a function of one :class:`ConfusionMatrix`, counts
or normalized alike: every formula is a ratio of sums of entries, so scaling
the matrix does not change the value. A zero denominator gives NaN with a
reason naming what is missing ("undefined: no positive pixels"), never a
crash and never 0.

Vocabulary of the reasons: *positive* / *negative* pixels are ground-truth
classes (``tp + fn`` / ``fp + tn``); *detected* pixels are those the method
calls positive (``tp + fp``); *pixels detected as negative* are ``fn + tn``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from referee.core.errors import InvalidOptionError
from referee.core.model.confusion import ConfusionMatrix

NO_PIXELS = "undefined: no evaluated pixels"
NO_POSITIVE = "undefined: no positive pixels"
NO_NEGATIVE = "undefined: no negative pixels"
NO_DETECTED = "undefined: no detected pixels"
NO_DETECTED_NEGATIVE = "undefined: no pixels detected as negative"
NO_POSITIVE_NOR_DETECTED = "undefined: no positive and no detected pixels"
BOTH_CONSTANT = (
    "undefined: ground truth and detection are both all one class (chance agreement is 1)"
)


@dataclass(frozen=True, slots=True)
class IndicatorValue:
    """A value, or NaN with the reason it is undefined."""

    value: float
    reason: str | None = None

    @property
    def defined(self) -> bool:
        return not math.isnan(self.value)


def undefined(reason: str) -> IndicatorValue:
    """NaN carrying ``reason`` (which should start with ``"undefined: "``)."""
    return IndicatorValue(math.nan, reason)


@dataclass(frozen=True, slots=True)
class Indicator:
    """One indicator: what it is, how to read it, and how to compute it (docs/measures.md §2).

    ``probabilistic`` marks the indicators of the form ``P(Δ ∈ A | Δ ∈ B)``.
    ``compute`` maps a :class:`ConfusionMatrix` to an :class:`IndicatorValue`.
    """

    key: str
    name: str
    symbol: str
    formula: str
    range: tuple[float, float]
    higher_is_better: bool
    probabilistic: bool
    compute: Callable[[ConfusionMatrix], IndicatorValue] = field(compare=False, repr=False)

    def __call__(self, cm: ConfusionMatrix) -> IndicatorValue:
        return self.compute(cm)


def _ratio(numerator: float, denominator: float, reason: str) -> IndicatorValue:
    if denominator == 0:
        return undefined(reason)
    return IndicatorValue(numerator / denominator)


def _mean_of_two(a: IndicatorValue, b: IndicatorValue) -> IndicatorValue:
    if not a.defined:
        return a
    if not b.defined:
        return b
    return IndicatorValue((a.value + b.value) / 2)


def prevalence(cm: ConfusionMatrix) -> IndicatorValue:
    return _ratio(cm.tp + cm.fn, cm.total, NO_PIXELS)


def recall(cm: ConfusionMatrix) -> IndicatorValue:
    return _ratio(cm.tp, cm.tp + cm.fn, NO_POSITIVE)


def specificity(cm: ConfusionMatrix) -> IndicatorValue:
    return _ratio(cm.tn, cm.tn + cm.fp, NO_NEGATIVE)


def false_positive_rate(cm: ConfusionMatrix) -> IndicatorValue:
    return _ratio(cm.fp, cm.fp + cm.tn, NO_NEGATIVE)


def false_negative_rate(cm: ConfusionMatrix) -> IndicatorValue:
    return _ratio(cm.fn, cm.tp + cm.fn, NO_POSITIVE)


def precision(cm: ConfusionMatrix) -> IndicatorValue:
    return _ratio(cm.tp, cm.tp + cm.fp, NO_DETECTED)


def negative_predictive_value(cm: ConfusionMatrix) -> IndicatorValue:
    return _ratio(cm.tn, cm.tn + cm.fn, NO_DETECTED_NEGATIVE)


def accuracy(cm: ConfusionMatrix) -> IndicatorValue:
    return _ratio(cm.tp + cm.tn, cm.total, NO_PIXELS)


def error_rate(cm: ConfusionMatrix) -> IndicatorValue:
    return _ratio(cm.fp + cm.fn, cm.total, NO_PIXELS)


def percentage_wrong(cm: ConfusionMatrix) -> IndicatorValue:
    """PWC = 100 · ER, in percent (CDnet's "PBC")."""
    return _ratio(100.0 * (cm.fn + cm.fp), cm.total, NO_PIXELS)


def predicted_positive_rate(cm: ConfusionMatrix) -> IndicatorValue:
    return _ratio(cm.tp + cm.fp, cm.total, NO_PIXELS)


def f_beta(cm: ConfusionMatrix, beta: float) -> IndicatorValue:
    """F_β = (1+β²)·tp / ((1+β²)·tp + β²·fn + fp), β > 0 (docs/measures.md §2).

    Raises
    ------
    InvalidOptionError
        If ``beta`` is not a positive finite number.
    """
    if not (math.isfinite(beta) and beta > 0):
        raise InvalidOptionError(f"F-beta needs a positive beta, got {beta!r}")
    b2 = beta * beta
    return _ratio((1 + b2) * cm.tp, (1 + b2) * cm.tp + b2 * cm.fn + cm.fp, NO_POSITIVE_NOR_DETECTED)


def f1_scores(tp: ArrayLike, fp: ArrayLike, fn: ArrayLike) -> npt.NDArray[np.float64]:
    """F1 = 2·tp / (2·tp + fp + fn) element-wise over counts; NaN where no pixel is
    positive or detected (docs/measures.md §2). The one definition of F1: :func:`f1`,
    per-frame scores and score curves all use it."""
    tp, fp, fn = (np.asarray(v, dtype=np.float64) for v in (tp, fp, fn))
    denominator = 2 * tp + fp + fn
    scores: npt.NDArray[np.float64] = np.divide(
        2 * tp, denominator, out=np.full(denominator.shape, math.nan), where=denominator > 0
    )
    return scores


def f1(cm: ConfusionMatrix) -> IndicatorValue:
    value = float(f1_scores(cm.tp, cm.fp, cm.fn))
    return undefined(NO_POSITIVE_NOR_DETECTED) if math.isnan(value) else IndicatorValue(value)


def jaccard(cm: ConfusionMatrix) -> IndicatorValue:
    return _ratio(cm.tp, cm.tp + cm.fp + cm.fn, NO_POSITIVE_NOR_DETECTED)


def matthews(cm: ConfusionMatrix) -> IndicatorValue:
    marginals = (
        (cm.tp + cm.fn, NO_POSITIVE),
        (cm.fp + cm.tn, NO_NEGATIVE),
        (cm.tp + cm.fp, NO_DETECTED),
        (cm.fn + cm.tn, NO_DETECTED_NEGATIVE),
    )
    for size, reason in marginals:
        if size == 0:
            return undefined(reason)
    product = 1.0
    for size, _ in marginals:
        product *= size
    return IndicatorValue((cm.tp * cm.tn - cm.fp * cm.fn) / math.sqrt(product))


def balanced_accuracy(cm: ConfusionMatrix) -> IndicatorValue:
    return _mean_of_two(recall(cm), specificity(cm))


def negative_rate_metric(cm: ConfusionMatrix) -> IndicatorValue:
    """NRM = (FNR + FPR) / 2."""
    return _mean_of_two(false_negative_rate(cm), false_positive_rate(cm))


def cohen_kappa(cm: ConfusionMatrix) -> IndicatorValue:
    """Cohen's κ = (p_o − p_e) / (1 − p_e).

    Computed as 2(tp·tn − fp·fn) / ((tp+fp)(fp+tn) + (tp+fn)(fn+tn)), which is
    the same value and is exactly 0-denominator only when p_e = 1.
    """
    denominator = (cm.tp + cm.fp) * (cm.fp + cm.tn) + (cm.tp + cm.fn) * (cm.fn + cm.tn)
    return _ratio(
        2 * (cm.tp * cm.tn - cm.fp * cm.fn),
        denominator,
        NO_PIXELS if cm.total == 0 else BOTH_CONSTANT,
    )


#: Every indicator, in display order, by key (docs/measures.md §2); :func:`register_indicator`
#: adds to it.
INDICATORS: dict[str, Indicator] = {}


def register_indicator(
    *,
    key: str,
    name: str,
    symbol: str,
    formula: str,
    compute: Callable[[ConfusionMatrix], IndicatorValue],
    range: tuple[float, float] = (0.0, 1.0),
    higher_is_better: bool = True,
    probabilistic: bool = False,
    replace: bool = False,
) -> Indicator:
    """Add an indicator of one confusion matrix to the registry and return it.

    Every table, export and report that lists "every indicator" then shows it
    too, per video and summarized (the summary blends normalized matrices, so a
    registered indicator is summarized like the built-in ones).

    Parameters
    ----------
    key
        Short identifier (``--rank-by KEY``, JSON and CSV columns).
    name, symbol, formula
        How reports and tooltips name and define it.
    compute
        ``ConfusionMatrix -> IndicatorValue``; return :func:`undefined` with a
        reason instead of dividing by zero. Must not change when the matrix is
        scaled (every count multiplied by one factor).
    range
        The values it can take.
    higher_is_better
        Its direction, for rankings.
    probabilistic
        Whether it is a probability ``P(Δ ∈ A | Δ ∈ B)``.
    replace
        Allow replacing an indicator of the same key.

    Raises
    ------
    InvalidOptionError
        If ``key`` is taken (without ``replace``) or empty.

    Examples
    --------
    >>> from referee.core.measures.indicators import register_indicator, undefined
    >>> def youden(cm):
    ...     pos, neg = cm.tp + cm.fn, cm.fp + cm.tn
    ...     if not pos or not neg:
    ...         return undefined("undefined: no positive or no negative pixels")
    ...     return IndicatorValue(cm.tp / pos + cm.tn / neg - 1)
    >>> _ = register_indicator(key="youden", name="Youden's J", symbol="J",
    ...                        formula="TPR + TNR − 1", compute=youden, range=(-1.0, 1.0))
    """
    if not key:
        raise InvalidOptionError("an indicator needs a non-empty key")
    if key in INDICATORS and not replace:
        raise InvalidOptionError(f"an indicator {key!r} is already registered; pass replace=True")
    indicator = Indicator(
        key, name, symbol, formula, range, higher_is_better, probabilistic, compute
    )
    INDICATORS[key] = indicator
    return indicator


register_indicator(
    key="prevalence",
    name="prevalence",
    symbol="π+",
    formula="(tp + fn) / n",
    compute=prevalence,
    range=(0.0, 1.0),
    higher_is_better=False,
    probabilistic=True,
)

register_indicator(
    key="recall",
    name="recall (true positive rate)",
    symbol="TPR",
    formula="tp / (tp + fn)",
    compute=recall,
    range=(0.0, 1.0),
    higher_is_better=True,
    probabilistic=True,
)

register_indicator(
    key="specificity",
    name="specificity (true negative rate)",
    symbol="TNR",
    formula="tn / (tn + fp)",
    compute=specificity,
    range=(0.0, 1.0),
    higher_is_better=True,
    probabilistic=True,
)

register_indicator(
    key="fpr",
    name="false positive rate",
    symbol="FPR",
    formula="fp / (fp + tn)",
    compute=false_positive_rate,
    range=(0.0, 1.0),
    higher_is_better=False,
    probabilistic=True,
)

register_indicator(
    key="fnr",
    name="false negative rate",
    symbol="FNR",
    formula="fn / (tp + fn)",
    compute=false_negative_rate,
    range=(0.0, 1.0),
    higher_is_better=False,
    probabilistic=True,
)

register_indicator(
    key="precision",
    name="precision (positive predictive value)",
    symbol="PPV",
    formula="tp / (tp + fp)",
    compute=precision,
    range=(0.0, 1.0),
    higher_is_better=True,
    probabilistic=True,
)

register_indicator(
    key="npv",
    name="negative predictive value",
    symbol="NPV",
    formula="tn / (tn + fn)",
    compute=negative_predictive_value,
    range=(0.0, 1.0),
    higher_is_better=True,
    probabilistic=True,
)

register_indicator(
    key="accuracy",
    name="accuracy",
    symbol="ACC",
    formula="(tp + tn) / n",
    compute=accuracy,
    range=(0.0, 1.0),
    higher_is_better=True,
    probabilistic=True,
)

register_indicator(
    key="error_rate",
    name="error rate",
    symbol="ER",
    formula="(fp + fn) / n",
    compute=error_rate,
    range=(0.0, 1.0),
    higher_is_better=False,
    probabilistic=True,
)

register_indicator(
    key="pwc",
    name="percentage of wrong classifications",
    symbol="PWC",
    formula="100 · (fp + fn) / n",
    compute=percentage_wrong,
    range=(0.0, 100.0),
    higher_is_better=False,
    probabilistic=True,
)

register_indicator(
    key="predicted_positive_rate",
    name="predicted-positive rate",
    symbol="PPR",
    formula="(tp + fp) / n",
    compute=predicted_positive_rate,
    range=(0.0, 1.0),
    higher_is_better=False,
    probabilistic=True,
)

register_indicator(
    key="f1",
    name="F1 score",
    symbol="F1",
    formula="2·tp / (2·tp + fp + fn)",
    compute=f1,
    range=(0.0, 1.0),
    higher_is_better=True,
    probabilistic=False,
)

register_indicator(
    key="f2",
    name="F2 score",
    symbol="F2",
    formula="5·tp / (5·tp + 4·fn + fp)",
    compute=lambda cm: f_beta(cm, 2.0),
    range=(0.0, 1.0),
    higher_is_better=True,
    probabilistic=False,
)

register_indicator(
    key="f0.5",
    name="F0.5 score",
    symbol="F0.5",
    formula="1.25·tp / (1.25·tp + 0.25·fn + fp)",
    compute=lambda cm: f_beta(cm, 0.5),
    range=(0.0, 1.0),
    higher_is_better=True,
    probabilistic=False,
)

register_indicator(
    key="jaccard",
    name="Jaccard index (IoU)",
    symbol="IoU",
    formula="tp / (tp + fp + fn)",
    compute=jaccard,
    range=(0.0, 1.0),
    higher_is_better=True,
    probabilistic=False,
)

register_indicator(
    key="mcc",
    name="Matthews correlation coefficient",
    symbol="MCC",
    formula="(tp·tn − fp·fn) / √((tp+fp)(tp+fn)(tn+fp)(tn+fn))",
    compute=matthews,
    range=(-1.0, 1.0),
    higher_is_better=True,
    probabilistic=False,
)

register_indicator(
    key="balanced_accuracy",
    name="balanced accuracy",
    symbol="BA",
    formula="(TPR + TNR) / 2",
    compute=balanced_accuracy,
    range=(0.0, 1.0),
    higher_is_better=True,
    probabilistic=False,
)

register_indicator(
    key="nrm",
    name="negative rate metric",
    symbol="NRM",
    formula="(FNR + FPR) / 2",
    compute=negative_rate_metric,
    range=(0.0, 1.0),
    higher_is_better=False,
    probabilistic=False,
)

register_indicator(
    key="kappa",
    name="Cohen's kappa",
    symbol="κ",
    formula="2(tp·tn − fp·fn) / ((tp+fp)(fp+tn) + (tp+fn)(fn+tn))",
    compute=cohen_kappa,
    range=(-1.0, 1.0),
    higher_is_better=True,
    probabilistic=False,
)


def get_indicator(key: str) -> Indicator:
    """The registry entry for ``key``.

    Raises
    ------
    InvalidOptionError
        If no indicator has that key; the message lists the known keys.
    """
    try:
        return INDICATORS[key]
    except KeyError:
        raise InvalidOptionError(
            f"unknown indicator {key!r}; known indicators: {', '.join(INDICATORS)}"
        ) from None


def evaluate(key: str, cm: ConfusionMatrix) -> IndicatorValue:
    """Value of indicator ``key`` on ``cm`` (counts or normalized; docs/measures.md §2)."""
    return get_indicator(key).compute(cm)


def evaluate_all(
    cm: ConfusionMatrix, keys: Iterable[str] | None = None
) -> dict[str, IndicatorValue]:
    """Values of the indicators ``keys`` (default: the whole registry, in order) on ``cm``."""
    selected = list(INDICATORS) if keys is None else list(keys)
    return {key: evaluate(key, cm) for key in selected}
