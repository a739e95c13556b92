"""Every detector's estimates, the pairs compared, from counts already gathered
(docs/measures.md §12).

:func:`estimate_detectors` is the whole estimation on arrays: the consensus's
expected counts of every frame, the labelled draws and their true counts. It
reads no file; :mod:`referee.core.workflow.estimate` gathers the counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.estimation.estimators import (
    CONFIDENCE,
    MEASURES,
    Totals,
    beats,
    estimate_totals,
    interval,
    ratio,
)
from referee.core.measures.indicators import f1_scores
from referee.core.model.case_scores import scores_table
from referee.core.significance.cases import F1_UNDEFINED
from referee.core.significance.sweep import DiscriminativeResult, compare_cases


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
    """Detectors ``a`` and ``b``: P(``a`` beats ``b`` on F1) and the discriminative test
    of docs/measures.md §9 on the labelled frames' per-frame F1 (``None`` with ``reason``
    when it could not run)."""

    a: str
    b: str
    p_beats: float
    test: DiscriminativeResult | None
    reason: str = ""


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
    """

    video: str
    frames: int
    labels: int
    estimates: dict[str, dict[str, Estimate]]
    next_frame: int | None = None
    trace: tuple[dict[str, Estimate], ...] = ()


@dataclass(frozen=True, eq=False)
class EstimateResult:
    """Estimates with intervals of every detector (docs/measures.md §12).

    Attributes
    ----------
    methods
        The detectors, in order.
    design
        How the labelled frames were chosen: ``active`` or ``random`` (drawn by
        the sampler), ``annotated`` (the frames that had ground truth), or
        ``none`` (no labelled frame: the consensus alone).
    estimator
        ``surrogate`` or ``plain``.
    labels
        Number of draws (with ``annotated``: of annotated frames).
    population
        Number of frames estimated over (every evaluated frame of every video).
    frames
        The distinct labelled frames, in the order first drawn.
    estimates
        Per detector, per measure of :data:`MEASURES`.
    beats
        ``beats[a][b]``: P(``a`` beats ``b`` on F1); NaN without an interval.
    pairs
        Each unordered pair of detectors.
    seed, uniform_share, simulated
        The sampler's seed and uniform share; whether an annotator was simulated.
    videos
        Each video estimated from a sample of its frames (the others are counted
        whole, or are part of a simulation's one sample).
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
    seed: int
    uniform_share: float
    simulated: bool
    videos: tuple[VideoEstimate, ...] = ()

    @property
    def confidence(self) -> float:
        return CONFIDENCE


def estimate_detectors(
    methods: Sequence[str],
    keys: Sequence[tuple[str, int]],
    surrogate: np.ndarray,
    drawn: np.ndarray,
    truth: np.ndarray,
    q: np.ndarray,
    estimator: str,
    strata: np.ndarray | None = None,
    factors: Sequence[float] = (1.0,),
    true_totals: np.ndarray | None = None,
) -> tuple[dict[str, dict[str, Estimate]], dict[str, dict[str, float]], list[PairComparison]]:
    """Estimates, P(beats) and the pairwise tests from counts (docs/measures.md §12).

    Parameters
    ----------
    methods
        ``D`` detector names.
    keys
        ``N`` frames as ``(video label, frame number)``.
    surrogate
        ``(N, D, 3)``: the consensus's ``tp̂, fp̂, fn̂`` of every frame.
    drawn, truth, q
        The ``K`` draws: frame indices, true counts ``(K, D, 3)``, probabilities.
    estimator, strata, factors
        See :func:`~referee.core.estimation.estimators.estimate_totals`.
    true_totals
        ``(D, 3)`` true totals over every frame, when known (a simulation).
    """
    s_hat = np.asarray(surrogate, dtype=np.float64)
    if s_hat.shape != (len(keys), len(methods), 3):
        raise InvalidOptionError(
            f"surrogate counts of shape {s_hat.shape} for {len(keys)} frames and "
            f"{len(methods)} detectors"
        )
    totals = estimate_totals(s_hat, drawn, truth, q, estimator, strata, factors)
    estimates = _estimates(methods, totals, MEASURES, true_totals)
    f1 = ratio(totals, "f1")
    table = {
        a: {b: beats(f1, i, j) for j, b in enumerate(methods) if j != i}
        for i, a in enumerate(methods)
    }
    pairs = _pair_tests(methods, keys, np.asarray(drawn, dtype=np.int64), truth, table)
    return estimates, table, pairs


def estimate_video(
    methods: Sequence[str],
    surrogate: np.ndarray,
    drawn: np.ndarray,
    truth: np.ndarray,
    q: np.ndarray,
    estimator: str,
    factor: float,
    trace: bool,
) -> tuple[dict[str, dict[str, Estimate]], tuple[dict[str, Estimate], ...]]:
    """One video's estimates from its frames' consensus counts and its labelled frames
    (indices into the video's frames), and with ``trace`` the F1 after each draw."""
    s_hat = np.asarray(surrogate, dtype=np.float64)
    index = np.asarray(drawn, dtype=np.int64)
    counts = np.asarray(truth, dtype=np.float64).reshape(index.size, *s_hat.shape[1:])
    weights = np.asarray(q, dtype=np.float64)

    def totals(k: int) -> Totals:
        return estimate_totals(
            s_hat, index[:k], counts[:k], weights[:k], estimator, None, (factor,)
        )

    estimates = _estimates(methods, totals(index.size), MEASURES)
    steps = range(index.size + 1) if trace else range(0)
    return estimates, tuple(
        {m: e["f1"] for m, e in _estimates(methods, totals(k), ("f1",)).items()} for k in steps
    )


def _estimates(
    methods: Sequence[str],
    totals: Totals,
    measures: Sequence[str],
    true_totals: np.ndarray | None = None,
) -> dict[str, dict[str, Estimate]]:
    """Each detector's ``measures`` with intervals, and their true values when known."""
    true = None
    if true_totals is not None:
        known = np.asarray(true_totals, dtype=np.float64)
        true = Totals(known, np.zeros((0, *known.shape)), np.zeros(0, np.int64), np.ones(1))
    estimates: dict[str, dict[str, Estimate]] = {m: {} for m in methods}
    for measure in measures:
        r = ratio(totals, measure)
        exact = None if true is None else ratio(true, measure).values
        for j, method in enumerate(methods):
            value, low, high = interval(r, j)
            estimates[method][measure] = Estimate(
                value, low, high, None if exact is None else float(exact[j])
            )
    return estimates


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
) -> list[PairComparison]:
    """Each pair's P(beats) and the §9 test on the distinct labelled frames' F1."""
    first = np.sort(np.unique(drawn, return_index=True)[1])  # each frame once, as first drawn
    counts = np.asarray(truth, dtype=np.float64).reshape(len(drawn), len(methods), 3)[first]
    labels = [f"{keys[i][0]}:{keys[i][1]}" for i in drawn[first].tolist()]
    out = []
    for i, a in enumerate(methods):
        for j in range(i + 1, len(methods)):
            b = methods[j]
            columns = {m: f1_scores(*counts[:, k, :].T) for k, m in ((i, a), (j, b))}
            cases = scores_table("per-frame F1", labels, columns, F1_UNDEFINED)
            if len(cases) == 0:
                reason = (
                    "no labelled frame"
                    if not labels
                    else f"on every labelled frame, {F1_UNDEFINED}"
                )
                out.append(PairComparison(a, b, table[a][b], None, reason))
                continue
            out.append(PairComparison(a, b, table[a][b], compare_cases(cases)))
    return out
