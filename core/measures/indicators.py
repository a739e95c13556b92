"""The indicator registry: every measure of one confusion matrix (SPEC §2).

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
    """One indicator: what it is, how to read it, and how to compute it (SPEC §2).

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
    """F_β = (1+β²)·tp / ((1+β²)·tp + β²·fn + fp), β > 0 (SPEC §2).

    Raises
    ------
    InvalidOptionError
        If ``beta`` is not a positive finite number.
    """
    if not (math.isfinite(beta) and beta > 0):
        raise InvalidOptionError(f"F-beta needs a positive beta, got {beta!r}")
    b2 = beta * beta
    return _ratio((1 + b2) * cm.tp, (1 + b2) * cm.tp + b2 * cm.fn + cm.fp, NO_POSITIVE_NOR_DETECTED)


def f1(cm: ConfusionMatrix) -> IndicatorValue:
    return _ratio(2 * cm.tp, 2 * cm.tp + cm.fp + cm.fn, NO_POSITIVE_NOR_DETECTED)


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


def _indicators(*items: Indicator) -> dict[str, Indicator]:
    return {item.key: item for item in items}


INDICATORS: dict[str, Indicator] = _indicators(
    Indicator(
        "prevalence", "prevalence", "π+", "(tp + fn) / n", (0.0, 1.0), False, True, prevalence
    ),
    Indicator(
        "recall",
        "recall (true positive rate)",
        "TPR",
        "tp / (tp + fn)",
        (0.0, 1.0),
        True,
        True,
        recall,
    ),
    Indicator(
        "specificity",
        "specificity (true negative rate)",
        "TNR",
        "tn / (tn + fp)",
        (0.0, 1.0),
        True,
        True,
        specificity,
    ),
    Indicator(
        "fpr",
        "false positive rate",
        "FPR",
        "fp / (fp + tn)",
        (0.0, 1.0),
        False,
        True,
        false_positive_rate,
    ),
    Indicator(
        "fnr",
        "false negative rate",
        "FNR",
        "fn / (tp + fn)",
        (0.0, 1.0),
        False,
        True,
        false_negative_rate,
    ),
    Indicator(
        "precision",
        "precision (positive predictive value)",
        "PPV",
        "tp / (tp + fp)",
        (0.0, 1.0),
        True,
        True,
        precision,
    ),
    Indicator(
        "npv",
        "negative predictive value",
        "NPV",
        "tn / (tn + fn)",
        (0.0, 1.0),
        True,
        True,
        negative_predictive_value,
    ),
    Indicator("accuracy", "accuracy", "ACC", "(tp + tn) / n", (0.0, 1.0), True, True, accuracy),
    Indicator(
        "error_rate", "error rate", "ER", "(fp + fn) / n", (0.0, 1.0), False, True, error_rate
    ),
    Indicator(
        "pwc",
        "percentage of wrong classifications",
        "PWC",
        "100 · (fp + fn) / n",
        (0.0, 100.0),
        False,
        True,
        percentage_wrong,
    ),
    Indicator(
        "predicted_positive_rate",
        "predicted-positive rate",
        "PPR",
        "(tp + fp) / n",
        (0.0, 1.0),
        False,
        True,
        predicted_positive_rate,
    ),
    Indicator("f1", "F1 score", "F1", "2·tp / (2·tp + fp + fn)", (0.0, 1.0), True, False, f1),
    Indicator(
        "f2",
        "F2 score",
        "F2",
        "5·tp / (5·tp + 4·fn + fp)",
        (0.0, 1.0),
        True,
        False,
        lambda cm: f_beta(cm, 2.0),
    ),
    Indicator(
        "f0.5",
        "F0.5 score",
        "F0.5",
        "1.25·tp / (1.25·tp + 0.25·fn + fp)",
        (0.0, 1.0),
        True,
        False,
        lambda cm: f_beta(cm, 0.5),
    ),
    Indicator(
        "jaccard",
        "Jaccard index (IoU)",
        "IoU",
        "tp / (tp + fp + fn)",
        (0.0, 1.0),
        True,
        False,
        jaccard,
    ),
    Indicator(
        "mcc",
        "Matthews correlation coefficient",
        "MCC",
        "(tp·tn − fp·fn) / √((tp+fp)(tp+fn)(tn+fp)(tn+fn))",
        (-1.0, 1.0),
        True,
        False,
        matthews,
    ),
    Indicator(
        "balanced_accuracy",
        "balanced accuracy",
        "BA",
        "(TPR + TNR) / 2",
        (0.0, 1.0),
        True,
        False,
        balanced_accuracy,
    ),
    Indicator(
        "nrm",
        "negative rate metric",
        "NRM",
        "(FNR + FPR) / 2",
        (0.0, 1.0),
        False,
        False,
        negative_rate_metric,
    ),
    Indicator(
        "kappa",
        "Cohen's kappa",
        "κ",
        "2(tp·tn − fp·fn) / ((tp+fp)(fp+tn) + (tp+fn)(fn+tn))",
        (-1.0, 1.0),
        True,
        False,
        cohen_kappa,
    ),
)
"""Every indicator of SPEC §2, in display order, by key."""


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
    """Value of indicator ``key`` on ``cm`` (counts or normalized; SPEC §2)."""
    return get_indicator(key).compute(cm)


def evaluate_all(
    cm: ConfusionMatrix, keys: Iterable[str] | None = None
) -> dict[str, IndicatorValue]:
    """Values of the indicators ``keys`` (default: the whole registry, in order) on ``cm``."""
    selected = list(INDICATORS) if keys is None else list(keys)
    return {key: evaluate(key, cm) for key in selected}
