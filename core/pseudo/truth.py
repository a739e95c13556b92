"""Pseudo values against true values, when ground truth exists (docs/measures.md §7)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
)

import numpy as np

from referee.core.errors import InvalidOptionError, RefereeError
from referee.core.measures.indicators import (
    INDICATORS,
    IndicatorValue,
    undefined,
)
from referee.core.model.confusion import VideoConfusion
from referee.core.model.videos import VideoKey, video_label
from referee.core.pseudo.consensus import MAP_MEASURES, true_values
from referee.core.pseudo.dataset import PseudoResult

if TYPE_CHECKING:
    pass


CORRELATED: tuple[str, ...] = tuple(INDICATORS) + MAP_MEASURES
"""Every key :func:`compare_with_truth` correlates: the registry, then NCC and PSNR."""

#: The indicator whose pseudo values :func:`truth_agreement` checks against the true ones.
AGREEMENT_KEY = "f1"
#: The consensus disagrees with the truth below this Pearson correlation across detectors
#: (docs/measures.md §7).
MIN_TRUTH_CORRELATION = 0.5
#: The consensus disagrees with the truth above this mean absolute difference of pseudo and
#: true values over the detectors (docs/measures.md §7).
MAX_TRUTH_ERROR = 0.1


# ---------------------------------------------------------------------------
# Against ground truth, when it exists


@dataclass(frozen=True)
class Correlation:
    """Pearson and Spearman correlation across detectors of a pseudo and a true value.

    ``n_detectors`` counts the detectors where both values are defined (the
    others are left out).
    """

    pearson: IndicatorValue
    spearman: IndicatorValue
    n_detectors: int


def correlation(pseudo_values: Sequence[float], true_values: Sequence[float]) -> Correlation:
    """Pearson and Spearman correlation of two series of per-detector values (docs/measures.md §7).

    Pairs where either value is NaN are left out. Undefined, with the reason,
    when fewer than 3 pairs remain or either series is constant.
    """
    from scipy import stats

    x = np.asarray(pseudo_values, dtype=float)
    y = np.asarray(true_values, dtype=float)
    if x.shape != y.shape:
        raise InvalidOptionError(f"{x.size} pseudo values but {y.size} true values")
    keep = np.isfinite(x) & np.isfinite(y)
    x, y, n = x[keep], y[keep], int(keep.sum())
    reason = None
    if n < 3:
        reason = f"undefined: fewer than 3 detectors with both values defined ({n})"
    elif np.ptp(x) <= 1e-12 * max(1.0, float(np.abs(x).max())):
        reason = "undefined: the pseudo values are the same for every detector"
    elif np.ptp(y) <= 1e-12 * max(1.0, float(np.abs(y).max())):
        reason = "undefined: the true values are the same for every detector"
    if reason is not None:
        return Correlation(undefined(reason), undefined(reason), n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pearson = float(stats.pearsonr(x, y).statistic)
        spearman = float(stats.spearmanr(x, y).statistic)
    return Correlation(IndicatorValue(pearson), IndicatorValue(spearman), n)


@dataclass(frozen=True, eq=False)
class TruthComparison:
    """Pseudo values against true values, per video and summarized (docs/measures.md §7).

    ``true_per_video[video key][method]`` and ``true_summary[method]`` hold
    :func:`true_values` (the summary from the true matrices blended with the
    same weight scheme as the pseudo ones); ``per_video[video key][key]`` and
    ``summary[key]`` the :class:`Correlation` across detectors, for every key
    of :data:`CORRELATED`.
    """

    scheme: str
    methods: tuple[str, ...]
    true_per_video: dict[VideoKey, dict[str, dict[str, IndicatorValue]]]
    true_summary: dict[str, dict[str, IndicatorValue]]
    per_video: dict[VideoKey, dict[str, Correlation]]
    summary: dict[str, Correlation]


@dataclass(frozen=True)
class TruthAgreement:
    """How closely one indicator's pseudo values follow its true ones over the detectors'
    summaries (docs/measures.md §7).

    ``correlation`` is the Pearson correlation across detectors (undefined with
    fewer than 3 of them); ``mean_absolute_error`` is the mean of
    ``|pseudo − true|`` over the ``n_detectors`` detectors where both are defined
    (undefined when there is none).
    """

    key: str
    correlation: IndicatorValue
    mean_absolute_error: IndicatorValue
    n_detectors: int

    @property
    def low_correlation(self) -> bool:
        """Whether the correlation is below :data:`MIN_TRUTH_CORRELATION` (an undefined
        one, NaN, is not)."""
        return self.correlation.value < MIN_TRUTH_CORRELATION

    @property
    def large_error(self) -> bool:
        """Whether the mean absolute error is above :data:`MAX_TRUTH_ERROR` (an undefined
        one, NaN, is not)."""
        return self.mean_absolute_error.value > MAX_TRUTH_ERROR

    @property
    def disagrees(self) -> bool:
        """Whether the consensus disagrees with the ground truth on this indicator."""
        return self.low_correlation or self.large_error


def truth_agreement(
    pseudo: PseudoResult, truth: TruthComparison, key: str = AGREEMENT_KEY
) -> TruthAgreement:
    """How closely the summarized pseudo values of ``key`` follow the true ones
    (docs/measures.md §7): the correlation of ``truth`` and the mean absolute error."""
    pairs = [
        (pseudo.summaries[m].values[key].value, truth.true_summary[m][key].value)
        for m in truth.methods
    ]
    errors = [abs(p - t) for p, t in pairs if math.isfinite(p) and math.isfinite(t)]
    error = (
        IndicatorValue(sum(errors) / len(errors))
        if errors
        else undefined("undefined: no detector has both a pseudo and a true value")
    )
    return TruthAgreement(key, truth.summary[key].pearson, error, len(errors))


def _correlations(
    pseudo: Mapping[str, Mapping[str, IndicatorValue]],
    truth: Mapping[str, Mapping[str, IndicatorValue]],
    methods: Sequence[str],
) -> dict[str, Correlation]:
    return {
        key: correlation(
            [pseudo[m][key].value for m in methods], [truth[m][key].value for m in methods]
        )
        for key in CORRELATED
    }


def compare_with_truth(
    pseudo: PseudoResult,
    truth: Mapping[str, Sequence[Any]],
    custom: Mapping[VideoKey, float] | None = None,
) -> TruthComparison:
    """Correlate every pseudo indicator with its true value across detectors (docs/measures.md §7).

    Parameters
    ----------
    pseudo
        A :func:`pseudo_evaluate` result.
    truth
        Per method, its real per-video results: :class:`VideoConfusion` or
        :class:`~referee.core.evaluation.masks.VideoEvaluation` objects (e.g. from
        :func:`~referee.core.evaluation.batch.evaluate_method`), covering the same
        videos.
    custom
        Custom weights, when ``pseudo`` was summarized with them.

    Raises
    ------
    RefereeError
        If ``truth`` misses a method or a video of ``pseudo``.
    """
    from referee.core.measures.summarize import resolve_scheme, summarize

    methods = pseudo.methods
    missing = [m for m in methods if m not in truth]
    if missing:
        raise RefereeError(
            f"no true results for {', '.join(missing)}; evaluate every "
            "detector of the committee against the ground truth"
        )
    confusions: dict[str, dict[VideoKey, VideoConfusion]] = {}
    for method in methods:
        items = [getattr(item, "confusion", item) for item in truth[method]]
        confusions[method] = {item.key: item for item in items}
        for v in pseudo.videos:
            if v.key not in confusions[method]:
                raise RefereeError(
                    f"no true result of {method} on video {video_label(v.category, v.video)}"
                )
    true_per_video, per_video = {}, {}
    for v in pseudo.videos:
        true_per_video[v.key] = {m: true_values(confusions[m][v.key].cm) for m in methods}
        per_video[v.key] = _correlations(
            {m: v.values(m) for m in methods}, true_per_video[v.key], methods
        )
    scheme = resolve_scheme([v.confusion(methods[0]) for v in pseudo.videos], pseudo.scheme)
    true_summary = {}
    for method in methods:
        ordered = [confusions[method][v.key] for v in pseudo.videos]
        true_summary[method] = true_values(summarize(ordered, scheme, custom).cm)
    summary = _correlations({m: pseudo.summaries[m].values for m in methods}, true_summary, methods)
    return TruthComparison(scheme, methods, true_per_video, true_summary, per_video, summary)
