"""Summarization of one method's results over a set of videos (docs/measures.md §2).

Two procedures are kept side by side and never mixed:

* :func:`summarize` — normalize each video's confusion matrix, blend them with
  weights ``P(V=v)``, compute every indicator from the blend. Summarized F1 is
  then the harmonic mean of summarized precision and recall, and the ROC and
  PR points of the summary come from the same matrix.
* :func:`cdnet_procedure` — CDnet's way: per-video indicators, arithmetic mean
  per category, arithmetic mean of the category means.

A video whose category is ``""`` has no category: it is a category of its own,
named after the video (docs/measures.md §10).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.errors import InvalidOptionError, RefereeError
from referee.core.measures.choices import WEIGHT_SCHEMES
from referee.core.measures.indicators import (
    INDICATORS,
    IndicatorValue,
    evaluate_all,
    false_negative_rate,
    false_positive_rate,
    get_indicator,
    percentage_wrong,
    precision,
    recall,
    specificity,
    undefined,
)
from referee.core.model.confusion import ConfusionMatrix, VideoConfusion, blend
from referee.core.model.videos import VideoKey

CDNET_STATISTICS: tuple[str, ...] = (
    "recall",
    "specificity",
    "fpr",
    "fnr",
    "pwc",
    "precision",
    "fmeasure",
)
"""The seven statistics of CDnet, in the column order of its ``stats.txt``."""


def category_of(video: VideoConfusion) -> str:
    """The category a video counts in: its own, or its name when it has none (docs/measures.md §10)."""
    return video.category if video.category else video.video


def _check_videos(videos: Sequence[VideoConfusion]) -> None:
    if not videos:
        raise RefereeError("nothing to summarize: no video")
    seen: set[VideoKey] = set()
    for v in videos:
        if v.key in seen:
            raise RefereeError(
                f"video {v.label} appears twice; each video must appear once per method"
            )
        seen.add(v.key)
        if not v.cm.total > 0:
            raise RefereeError(
                f"video {v.label} has no evaluated pixel; check its "
                "ROI, temporal ROI and ground truth, or leave it out"
            )


def resolve_scheme(videos: Sequence[VideoConfusion], scheme: str) -> str:
    """The weight scheme actually used: ``auto`` becomes ``category`` or ``video`` (docs/measures.md §2).

    Raises
    ------
    InvalidOptionError
        If ``scheme`` is not one of :data:`WEIGHT_SCHEMES`.
    """
    if scheme not in WEIGHT_SCHEMES:
        raise InvalidOptionError(
            f"unknown weight scheme {scheme!r}; choose one of {', '.join(WEIGHT_SCHEMES)}"
        )
    if scheme != "auto":
        return scheme
    return "category" if any(v.category for v in videos) else "video"


def video_weights(
    videos: Sequence[VideoConfusion], scheme: str, custom: Mapping[VideoKey, float] | None = None
) -> np.ndarray:
    """Weights ``P(V=v)`` of the videos, in their order, summing to 1 (docs/measures.md §2).

    Parameters
    ----------
    videos
        One method's per-video confusion matrices.
    scheme
        ``video`` (1/|V|), ``category`` (1/C per category, split evenly over its
        videos), ``pixels`` (proportional to evaluated pixels), ``custom``
        (``custom[(category, video)]``, renormalized) or ``auto``.
    custom
        Weights for ``custom``, keyed by :attr:`VideoConfusion.key`; keys of
        other videos are ignored.

    Raises
    ------
    RefereeError
        No video, a video twice, a video without evaluated pixels, a custom
        weight missing, negative or not finite (naming the video), or custom
        weights summing to 0.
    """
    _check_videos(videos)
    resolved = resolve_scheme(videos, scheme)
    if custom is not None and resolved != "custom":
        raise InvalidOptionError(
            f"custom weights were given but the weight scheme is "
            f"{resolved!r}; choose the 'custom' scheme to use them"
        )
    if resolved == "video":
        raw = np.ones(len(videos))
    elif resolved == "category":
        sizes: dict[str, int] = {}
        for v in videos:
            sizes[category_of(v)] = sizes.get(category_of(v), 0) + 1
        raw = np.array([1.0 / (len(sizes) * sizes[category_of(v)]) for v in videos])
    elif resolved == "pixels":
        raw = np.array([v.cm.total for v in videos], dtype=float)
    else:
        raw = _custom_weights(videos, custom)
    weights: np.ndarray = raw / raw.sum()
    return weights


def _custom_weights(
    videos: Sequence[VideoConfusion], custom: Mapping[VideoKey, float] | None
) -> np.ndarray:
    if custom is None:
        raise InvalidOptionError("the 'custom' weight scheme needs a table of weights")
    raw = []
    for v in videos:
        if v.key not in custom:
            raise RefereeError(
                f"custom weights give no weight for video {v.label}; add a row for it"
            )
        w = float(custom[v.key])
        if not math.isfinite(w) or w < 0:
            raise RefereeError(
                f"custom weight of video {v.label} is {w:g}; weights must be non-negative numbers"
            )
        raw.append(w)
    weights = np.array(raw, dtype=float)
    if weights.sum() <= 0:
        raise RefereeError("custom weights are all 0; give at least one video a positive weight")
    return weights


@dataclass(frozen=True)
class Summary:
    """One method summarized over videos by blending (docs/measures.md §2).

    ``cm`` is the blended *normalized* matrix ``Σ_v P(V=v) · p_v`` and
    ``values`` every registry indicator computed from it.
    """

    scheme: str
    weights: dict[VideoKey, float]
    cm: ConfusionMatrix
    values: dict[str, IndicatorValue]


def summarize(
    videos: Sequence[VideoConfusion],
    scheme: str = "auto",
    custom: Mapping[VideoKey, float] | None = None,
) -> Summary:
    """Blend the videos' normalized matrices and evaluate every indicator on the blend (docs/measures.md §2).

    See :func:`video_weights` for ``scheme``, ``custom`` and the errors.
    """
    weights = video_weights(videos, scheme, custom)
    cm = blend([v.cm for v in videos], list(weights))
    return Summary(
        scheme=resolve_scheme(videos, scheme),
        weights={v.key: float(w) for v, w in zip(videos, weights)},
        cm=cm,
        values=evaluate_all(cm),
    )


# --- the CDnet procedure -------------------------------------------------------------


def cdnet_fmeasure(p: IndicatorValue, r: IndicatorValue) -> IndicatorValue:
    """CDnet's F-measure ``2PR / (P+R)`` from a precision and a recall."""
    for part in (p, r):
        if not part.defined:
            return part
    if p.value + r.value == 0:
        return undefined("undefined: precision and recall are both 0")
    return IndicatorValue(2.0 * (r.value * p.value) / (r.value + p.value))


def cdnet_statistics(cm: ConfusionMatrix) -> dict[str, IndicatorValue]:
    """The seven CDnet statistics of one video, keyed by :data:`CDNET_STATISTICS`."""
    p, r = precision(cm), recall(cm)
    return {
        "recall": r,
        "specificity": specificity(cm),
        "fpr": false_positive_rate(cm),
        "fnr": false_negative_rate(cm),
        "pwc": percentage_wrong(cm),
        "precision": p,
        "fmeasure": cdnet_fmeasure(p, r),
    }


def _mean(values: Sequence[IndicatorValue], labels: Sequence[str], noun: str) -> IndicatorValue:
    """Arithmetic mean; NaN if any value is NaN, with a reason naming where."""
    missing = [label for value, label in zip(values, labels) if not value.defined]
    if missing:
        first = next(v for v in values if not v.defined)
        detail = (first.reason or "undefined").removeprefix("undefined: ")
        return undefined(
            f"undefined: undefined on {len(missing)} of {len(values)} {noun} "
            f"({missing[0]}: {detail})"
        )
    return IndicatorValue(sum(v.value for v in values) / len(values))


def _means(
    rows: Sequence[Mapping[str, IndicatorValue]],
    labels: Sequence[str],
    noun: str,
    keys: Sequence[str],
) -> dict[str, IndicatorValue]:
    return {k: _mean([row[k] for row in rows], labels, noun) for k in keys}


@dataclass(frozen=True)
class CdnetSummary:
    """One method summarized the CDnet way: mean per category, then mean of categories.

    ``statistics_*`` hold the seven :data:`CDNET_STATISTICS` (F from each
    video's P and R); ``indicators_*`` every registry indicator averaged the
    same way. ``categories`` maps each category, in order of first
    appearance, to the keys of its videos. A NaN on one video makes its
    category mean and the overall mean NaN, with the reason.
    """

    videos: tuple[VideoConfusion, ...]
    categories: dict[str, tuple[VideoKey, ...]]
    statistics_per_video: dict[VideoKey, dict[str, IndicatorValue]]
    statistics_per_category: dict[str, dict[str, IndicatorValue]]
    statistics_overall: dict[str, IndicatorValue]
    indicators_per_video: dict[VideoKey, dict[str, IndicatorValue]]
    indicators_per_category: dict[str, dict[str, IndicatorValue]]
    indicators_overall: dict[str, IndicatorValue]

    def overall_value(self, key: str) -> IndicatorValue:
        """Overall value of a CDnet statistic (e.g. ``fmeasure``) or a registry indicator."""
        if key in self.statistics_overall:
            return self.statistics_overall[key]
        if key in self.indicators_overall:
            return self.indicators_overall[key]
        raise InvalidOptionError(f"unknown indicator {key!r}")


def cdnet_procedure(videos: Sequence[VideoConfusion]) -> CdnetSummary:
    """Per-video values, arithmetic mean per category, mean of the category means (docs/measures.md §2).

    Equals CDnet's official ``Stats.py`` for the seven statistics. NaN on any
    video propagates to its category and to the overall mean (the official
    script would stop with a division by zero instead).

    Raises
    ------
    RefereeError
        No video, a video twice, or a video without evaluated pixels.
    """
    _check_videos(videos)
    categories: dict[str, list[VideoConfusion]] = {}
    for v in videos:
        categories.setdefault(category_of(v), []).append(v)
    stats_video = {v.key: cdnet_statistics(v.cm) for v in videos}
    ind_video = {v.key: evaluate_all(v.cm) for v in videos}

    def per_category(
        per_video: Mapping[VideoKey, Mapping[str, IndicatorValue]], keys: Sequence[str]
    ) -> dict[str, dict[str, IndicatorValue]]:
        return {
            c: _means(
                [per_video[v.key] for v in members],
                [v.label for v in members],
                "videos",
                keys,
            )
            for c, members in categories.items()
        }

    stats_cat = per_category(stats_video, CDNET_STATISTICS)
    ind_cat = per_category(ind_video, list(INDICATORS))
    cat_labels = list(categories)
    return CdnetSummary(
        videos=tuple(videos),
        categories={c: tuple(v.key for v in members) for c, members in categories.items()},
        statistics_per_video=stats_video,
        statistics_per_category=stats_cat,
        statistics_overall=_means(
            list(stats_cat.values()), cat_labels, "categories", CDNET_STATISTICS
        ),
        indicators_per_video=ind_video,
        indicators_per_category=ind_cat,
        indicators_overall=_means(
            list(ind_cat.values()), cat_labels, "categories", list(INDICATORS)
        ),
    )


# --- rankings of methods -------------------------------------------------------------


def higher_is_better(key: str) -> bool:
    """Direction of a registry indicator or of a CDnet statistic."""
    return True if key == "fmeasure" else get_indicator(key).higher_is_better


def rank_methods(values: Mapping[str, float], higher_is_better: bool) -> list[str]:
    """Methods best first; NaN values last; ties in method-name order."""

    def sort_key(method: str) -> tuple[int, float, str]:
        value = values[method]
        if math.isnan(value):
            return (1, 0.0, method)
        return (0, -value if higher_is_better else value, method)

    return sorted(values, key=sort_key)


#: Values of one indicator closer than this rank as tied (floating-point noise, not a decision).
TIE_TOLERANCE = 1e-9


def tied_ranks(values: Mapping[str, float], higher_is_better: bool) -> dict[str, int]:
    """Each name's rank by its value: 1 + how many values are better by more than
    :data:`TIE_TOLERANCE` (values that close share a rank); undefined (NaN) values rank
    after every defined one."""
    sign = -1.0 if higher_is_better else 1.0
    defined = sorted(sign * v for v in values.values() if not math.isnan(v))
    return {
        name: len(defined) + 1
        if math.isnan(v)
        else bisect_left(defined, sign * v - TIE_TOLERANCE) + 1
        for name, v in values.items()
    }


def procedure_rank_changes(
    methods: Mapping[str, MethodResult], keys: Sequence[str]
) -> dict[str, dict[str, tuple[int, int]]]:
    """Per method, the indicators of ``keys`` by which ranking every method (:func:`tied_ranks`)
    puts it at another rank from the blended summary than from the CDnet procedure: where
    the choice of procedure changes a decision. Each maps to (summarized rank, CDnet rank)."""
    changes: dict[str, dict[str, tuple[int, int]]] = {name: {} for name in methods}
    for key in keys:
        better = INDICATORS[key].higher_is_better
        summarized = tied_ranks(
            {m: r.summary.values[key].value for m, r in methods.items()}, better
        )
        cdnet = tied_ranks(
            {m: r.cdnet.indicators_overall[key].value for m, r in methods.items()}, better
        )
        for name, rank in summarized.items():
            if cdnet[name] != rank:
                changes[name][key] = (rank, cdnet[name])
    return changes


@dataclass(frozen=True)
class RankComparison:
    """Ranking of methods by one indicator under both procedures (ranks are 1-based)."""

    indicator: str
    summary_values: dict[str, float]
    cdnet_values: dict[str, float]
    summary_ranking: list[str]
    cdnet_ranking: list[str]
    summary_rank: dict[str, int]
    cdnet_rank: dict[str, int]
    kendall_tau: IndicatorValue


def compare_rankings(
    summaries_by_method: Mapping[str, Summary],
    cdnet_by_method: Mapping[str, CdnetSummary],
    indicator_key: str,
) -> RankComparison:
    """Rank methods by ``indicator_key`` from the blended summary and from the CDnet procedure.

    ``indicator_key`` is a registry key, or ``fmeasure`` for CDnet's F (then
    the summary side uses ``f1``, which is the same formula on the blend).
    Kendall τ is computed between the two rank vectors; it is NaN with a
    reason for fewer than 2 methods.

    Raises
    ------
    RefereeError
        If the two mappings do not hold the same methods, or the key is unknown.
    """
    if set(summaries_by_method) != set(cdnet_by_method):
        raise RefereeError(
            "the blended summaries and the CDnet procedure cover different "
            "methods; evaluate every method both ways"
        )
    summary_key = "f1" if indicator_key == "fmeasure" else indicator_key
    better = higher_is_better(indicator_key)
    methods = list(summaries_by_method)
    summary_values = {
        m: summaries_by_method[m].values[get_indicator(summary_key).key].value for m in methods
    }
    cdnet_values = {m: cdnet_by_method[m].overall_value(indicator_key).value for m in methods}
    summary_ranking = rank_methods(summary_values, better)
    cdnet_ranking = rank_methods(cdnet_values, better)
    summary_rank = {m: i + 1 for i, m in enumerate(summary_ranking)}
    cdnet_rank = {m: i + 1 for i, m in enumerate(cdnet_ranking)}
    if len(methods) < 2:
        tau = undefined("undefined: fewer than 2 methods to rank")
    else:
        tau = IndicatorValue(
            permutation_tau([summary_rank[m] for m in methods], [cdnet_rank[m] for m in methods])
        )
    return RankComparison(
        indicator_key,
        summary_values,
        cdnet_values,
        summary_ranking,
        cdnet_ranking,
        summary_rank,
        cdnet_rank,
        tau,
    )


def permutation_tau(a: Sequence[int], b: Sequence[int]) -> float:
    """Kendall's τ between two rankings without ties: (concordant − discordant pairs) / pairs.

    Computed directly (no SciPy at start-up); for untied ranks it is SciPy's τ-b.
    """
    n = len(a)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    signs = [(a[i] - a[j]) * (b[i] - b[j]) for i, j in pairs]
    return (sum(s > 0 for s in signs) - sum(s < 0 for s in signs)) / len(pairs)


@dataclass(frozen=True)
class MethodResult:
    """Everything computed for one method: its videos, the blended summary, the CDnet procedure."""

    method: str
    videos: tuple[VideoConfusion, ...]
    summary: Summary
    cdnet: CdnetSummary


def summarize_method(
    method: str,
    videos: Sequence[VideoConfusion],
    scheme: str = "auto",
    custom: Mapping[VideoKey, float] | None = None,
) -> MethodResult:
    """:func:`summarize` and :func:`cdnet_procedure` of one method, bundled for reports."""
    return MethodResult(
        method, tuple(videos), summarize(videos, scheme, custom), cdnet_procedure(videos)
    )
