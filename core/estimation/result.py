"""Every detector's estimates, the pairs compared and the consensus checked, from counts
already gathered (docs/measures.md §12).

:func:`estimate_detectors` is the whole estimation on arrays: a
:class:`~referee.core.estimation.estimators.Sample` of labelled draws and the
consensus's totals. It reads no file; :mod:`referee.core.workflow.estimate`
gathers the counts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from referee.core.estimation.estimators import (
    CONFIDENCE,
    MEASURES,
    Ratio,
    Sample,
    beats,
    difference,
    interval,
    measure_values,
    ratio,
)
from referee.core.measures.indicators import f1_scores
from referee.core.model.case_scores import scores_table
from referee.core.significance.cases import F1_UNDEFINED
from referee.core.significance.sweep import DiscriminativeResult, compare_cases

#: Fewer labelled draws than this, and the intervals are approximate: in Referee's
#: measurements (docs/measures.md §12) they covered the truth less often than 90% below it.
TRUSTED_DRAWS = 20
#: A consensus bias at least this large (in F1), with an interval that excludes 0, is said.
LARGE_CONSENSUS_BIAS = 0.02


@dataclass(frozen=True)
class LabelledFrame:
    """A frame whose true counts entered the estimate, and how many draws picked it."""

    video: str
    frame: int
    draws: int = 1


@dataclass(frozen=True)
class Estimate:
    """One measure of one detector: the estimate, its 95% interval and, when known, the
    true value (NaN: undefined, or no interval; ``true`` is ``None`` when not known)."""

    estimate: float
    low: float
    high: float
    true: float | None = None


@dataclass(frozen=True, eq=False)
class PairComparison:
    """Detectors ``a`` and ``b``: P(``a`` beats ``b`` on F1), the difference of their F1
    (``a − b``) with its interval, and the discriminative test of docs/measures.md §9 on
    the labelled frames' per-frame F1 (``None`` with ``reason`` when it could not run)."""

    a: str
    b: str
    p_beats: float
    difference: Estimate
    test: DiscriminativeResult | None
    reason: str = ""


@dataclass(frozen=True)
class ConsensusBias:
    """How far the consensus's F1 of a detector is from the estimate over every frame.

    ``consensus`` is the F1 of the consensus's totals; ``bias`` is
    ``consensus − estimate`` with its 95% interval (NaN without labelled frames):
    positive when the consensus over-reads the detector's F1.
    """

    consensus: float
    bias: Estimate

    @property
    def large(self) -> bool:
        """Whether the bias is at least :data:`LARGE_CONSENSUS_BIAS` and its interval
        excludes 0."""
        b = self.bias
        return (
            not math.isnan(b.low)
            and abs(b.estimate) >= LARGE_CONSENSUS_BIAS
            and (b.low > 0 or b.high < 0)
        )


@dataclass(frozen=True)
class Accuracy:
    """How a detector's F1 estimates of repeated simulated samples met the true F1: root
    mean square error, mean error (bias), and the share of intervals that covered it
    (``coverage``, among ``intervals`` samples that had one)."""

    rmse: float
    bias: float
    coverage: float
    intervals: int


@dataclass(frozen=True, eq=False)
class VideoEstimate:
    """One video's estimates, for a video whose ground truth covers only some frames.

    Attributes
    ----------
    video
        The video's label.
    frames
        Its evaluated frames, the population estimated over.
    labels
        Draws (design ``drawn``) or annotated frames (``annotated``) used.
    estimates
        Per detector, per measure of :data:`MEASURES`.
    next_frame
        The frame the sampler asks to label next (design ``drawn``), else ``None``.
    trace
        F1 per detector after 0, 1, …, ``labels`` draws (design ``drawn``; else empty).
    left_out
        Frames with ground truth that the estimate does not use (design ``drawn``:
        annotated frames the sampler has not drawn).
    """

    video: str
    frames: int
    labels: int
    estimates: dict[str, dict[str, Estimate]]
    next_frame: int | None = None
    trace: tuple[dict[str, Estimate], ...] = ()
    left_out: int = 0


@dataclass(frozen=True, eq=False)
class Estimates:
    """What :func:`estimate_detectors` gives: per detector and measure the estimates,
    ``beats[a][b]`` (P(``a`` beats ``b`` on F1)), each unordered pair, and the
    consensus's bias per detector."""

    estimates: dict[str, dict[str, Estimate]]
    beats: dict[str, dict[str, float]]
    pairs: tuple[PairComparison, ...]
    consensus: dict[str, ConsensusBias]


@dataclass(frozen=True, eq=False)
class EstimateResult:
    """Estimates with intervals of every detector (docs/measures.md §12).

    Attributes
    ----------
    methods
        The detectors, in order.
    design
        How the labelled frames were chosen: the sampler (``balanced``,
        ``active``, ``random``), ``annotated`` (the frames that had ground truth),
        or ``none`` (no labelled frame: the consensus alone).
    estimator
        ``tuned``, ``surrogate`` or ``plain``.
    labels
        Number of draws (with ``annotated``: of annotated frames).
    population
        Number of frames estimated over (every evaluated frame of every video).
    frames
        The distinct labelled frames, in the order first drawn.
    estimates, beats, pairs, consensus
        See :class:`Estimates`.
    seed, uniform_share, simulated
        The sampler's seed and uniform share; whether an annotator was simulated.
    videos
        Each video estimated from a sample of its frames (the others are counted
        whole, or are part of a simulation's one sample).
    repeats
        With a repeated simulation: every sample's result, seeds ``seed`` onwards
        (this result is the first); ``accuracy`` then gives each detector's
        :class:`Accuracy` of F1 over them.
    """

    methods: tuple[str, ...]
    design: str
    estimator: str
    labels: int
    population: int
    frames: tuple[LabelledFrame, ...]
    estimates: dict[str, dict[str, Estimate]]
    beats: dict[str, dict[str, float]]
    pairs: tuple[PairComparison, ...]
    consensus: dict[str, ConsensusBias]
    seed: int
    uniform_share: float
    simulated: bool
    videos: tuple[VideoEstimate, ...] = ()
    repeats: tuple[EstimateResult, ...] = ()
    accuracy: dict[str, Accuracy] = field(default_factory=dict)

    @property
    def confidence(self) -> float:
        return CONFIDENCE

    @property
    def trusted(self) -> bool:
        """Whether the intervals rest on at least :data:`TRUSTED_DRAWS` labelled draws (or
        every frame is labelled, or there is no interval)."""
        sampled = self.design not in ("annotated", "none")
        return not sampled or self.labels == 0 or self.labels >= TRUSTED_DRAWS


def estimate_detectors(
    methods: Sequence[str],
    keys: Sequence[tuple[str, int]],
    sample: Sample,
    *,
    drawn: np.ndarray,
    truth: np.ndarray,
    estimator: str,
    true_totals: np.ndarray | None = None,
) -> Estimates:
    """Estimates, P(beats), F1 differences, the pairwise tests and the consensus's bias
    (docs/measures.md §12).

    Parameters
    ----------
    methods
        ``D`` detector names.
    keys
        ``N`` frames as ``(video label, frame number)``.
    sample
        The labelled draws and the consensus's totals.
    drawn, truth
        The ``K`` draws' frame indices (into ``keys``) and true counts ``(K, D, 3)``,
        for the tests on the labelled frames.
    estimator
        ``tuned``, ``surrogate`` or ``plain``.
    true_totals
        ``(D, 3)`` true totals over every frame, when known (a simulation).
    """
    ratios = {measure: ratio(sample, measure, estimator) for measure in MEASURES}
    estimates = _estimates(methods, ratios, true_totals)
    f1 = ratios["f1"]
    table = {
        a: {b: beats(f1, i, j) for j, b in enumerate(methods) if j != i}
        for i, a in enumerate(methods)
    }
    pairs = _pair_tests(methods, keys, np.asarray(drawn, dtype=np.int64), truth, table, f1)
    return Estimates(estimates, table, tuple(pairs), _consensus(methods, sample, estimates))


def estimate_video(
    methods: Sequence[str], sample: Sample, estimator: str, *, trace: bool = False
) -> tuple[dict[str, dict[str, Estimate]], tuple[dict[str, Estimate], ...]]:
    """One video's estimates from its sample, and with ``trace`` the F1 after each draw."""
    ratios = {measure: ratio(sample, measure, estimator) for measure in MEASURES}
    estimates = _estimates(methods, ratios)
    steps = range(sample.draws + 1) if trace else range(0)
    return estimates, tuple(
        {
            m: e["f1"]
            for m, e in _estimates(
                methods, {"f1": ratio(sample.subset(slice(0, k)), "f1", estimator)}
            ).items()
        }
        for k in steps
    )


def _estimates(
    methods: Sequence[str], ratios: Mapping[str, Ratio], true_totals: np.ndarray | None = None
) -> dict[str, dict[str, Estimate]]:
    """Each detector's measures with intervals, and their true values when known."""
    estimates: dict[str, dict[str, Estimate]] = {m: {} for m in methods}
    for measure, r in ratios.items():
        exact = None if true_totals is None else measure_values(measure, true_totals)
        for j, method in enumerate(methods):
            value, low, high = interval(r, j)
            estimates[method][measure] = Estimate(
                value, low, high, None if exact is None else float(exact[j])
            )
    return estimates


def _consensus(
    methods: Sequence[str], sample: Sample, estimates: Mapping[str, Mapping[str, Estimate]]
) -> dict[str, ConsensusBias]:
    """The consensus's F1 of each detector over every frame, and its bias: the consensus's
    F1 minus the estimate, with the estimate's interval turned around."""
    consensus = measure_values("f1", sample.consensus.sum(axis=0))
    out = {}
    for j, method in enumerate(methods):
        e, c = estimates[method]["f1"], float(consensus[j])
        out[method] = ConsensusBias(c, Estimate(c - e.estimate, c - e.high, c - e.low))
    return out


def accuracy(methods: Sequence[str], results: Sequence[EstimateResult]) -> dict[str, Accuracy]:
    """Each detector's :class:`Accuracy` of F1 over simulated ``results`` (they know the
    true values)."""
    out = {}
    for method in methods:
        runs = [r.estimates[method]["f1"] for r in results]
        true = runs[0].true if runs else None
        values = np.array([e.estimate for e in runs])
        if true is None or not runs or np.all(np.isnan(values)):
            out[method] = Accuracy(math.nan, math.nan, math.nan, 0)
            continue
        error = values - true
        with_interval = [e for e in runs if not math.isnan(e.low)]
        covered = sum(e.low <= true <= e.high for e in with_interval)
        out[method] = Accuracy(
            float(np.sqrt(np.nanmean(error**2))),
            float(np.nanmean(error)),
            covered / len(with_interval) if with_interval else math.nan,
            len(with_interval),
        )
    return out


def labelled_frames(keys: Sequence[tuple[str, int]], drawn: np.ndarray) -> list[LabelledFrame]:
    """The distinct frames of ``drawn``, in the order first drawn, with their draw counts."""
    counts: dict[int, int] = {}
    for i in np.asarray(drawn, dtype=np.int64).tolist():
        counts[i] = counts.get(i, 0) + 1
    return [LabelledFrame(keys[i][0], keys[i][1], n) for i, n in counts.items()]


def _pair_tests(
    methods: Sequence[str],
    keys: Sequence[tuple[str, int]],
    drawn: np.ndarray,
    truth: np.ndarray,
    table: dict[str, dict[str, float]],
    f1: Ratio,
) -> list[PairComparison]:
    """Each pair's P(beats), F1 difference and the §9 test on the distinct labelled frames'
    F1."""
    first = np.sort(np.unique(drawn, return_index=True)[1])  # each frame once, as first drawn
    counts = np.asarray(truth, dtype=np.float64).reshape(len(drawn), len(methods), 3)[first]
    labels = [f"{keys[i][0]}:{keys[i][1]}" for i in drawn[first].tolist()]
    out = []
    for i, a in enumerate(methods):
        for j in range(i + 1, len(methods)):
            b = methods[j]
            d, low, high = difference(f1, i, j)
            gap = Estimate(d, low, high)
            columns = {m: f1_scores(*counts[:, k, :].T) for k, m in ((i, a), (j, b))}
            cases = scores_table("per-frame F1", labels, columns, F1_UNDEFINED)
            if len(cases) == 0:
                reason = (
                    "no labelled frame"
                    if not labels
                    else f"on every labelled frame, {F1_UNDEFINED}"
                )
                out.append(PairComparison(a, b, table[a][b], gap, None, reason))
                continue
            out.append(PairComparison(a, b, table[a][b], gap, compare_cases(cases)))
    return out
