"""Percentile bootstrap intervals of trackers' combined HOTA, MOTA and IDF1
(docs/measures.md §5, "Tracking: intervals and tests").

The units (sequences, or frame blocks: :mod:`referee.core.significance.tracking_units`)
are drawn with replacement, as many as there are, and the drawn units' measures are
combined as the benchmark combines sequences (counts summed, HOTA's accuracies weighted
by true positives), so nothing is evaluated again. The interval is the 2.5th and 97.5th
percentiles of the resampled values. Blocks combined are not the whole sequences (a
track cut at a border is associated piece by piece, a switch across a border is not
counted), so with blocks the percentiles are moved by the whole sequences' value less
the blocks' combined value: the interval keeps the blocks' spread around the value the
benchmark reports. Every tracker is resampled with the same draws.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.measures.tracking import TrackingScores
from referee.core.significance.choices import INTERVAL_LEVEL, TRACKING_MEASURES
from referee.core.significance.tracking_units import (
    BLOCKS,
    TrackingUnits,
    combined_values,
    measure_value,
)


@dataclass(frozen=True)
class Interval:
    """The percentile interval ``[low, high]`` of a measure."""

    low: float
    high: float


@dataclass(frozen=True, eq=False)
class TrackerIntervals:
    """One tracker's combined measures and their intervals, by key of
    :data:`~referee.core.significance.choices.TRACKING_MEASURES`.

    Attributes
    ----------
    values
        The measures combined over the whole sequences (the benchmark's numbers).
    unit_values
        The measures combined over the units: ``values`` for sequences; for blocks, how
        far cutting the tracks moved them.
    intervals
        The percentile intervals; ``None`` with fewer than two units.
    """

    values: dict[str, float]
    unit_values: dict[str, float]
    intervals: dict[str, Interval | None]


@dataclass(frozen=True, eq=False)
class TrackingIntervals:
    """Trackers' combined HOTA, MOTA and IDF1 with their bootstrap intervals.

    Attributes
    ----------
    unit
        What was resampled: :data:`~referee.core.significance.tracking_units.SEQUENCES`
        or :data:`~referee.core.significance.tracking_units.BLOCKS`.
    units, sequences
        How many units there are, and how many sequences they come from.
    block_length
        Frames per block (``None`` for sequences).
    resamples, seed
        The bootstrap's resamples and the seed of its draws.
    trackers
        Each tracker's measures and intervals.
    """

    unit: str
    units: int
    sequences: int
    block_length: int | None
    resamples: int
    seed: int
    trackers: dict[str, TrackerIntervals]


def resample_indices(units: int, resamples: int, seed: int) -> np.ndarray:
    """``(resamples, units)`` unit indices drawn uniformly with replacement: NumPy's
    ``default_rng(seed).integers(0, units, (resamples, units))``.

    Raises
    ------
    InvalidOptionError
        No unit, or fewer than one resample.
    """
    if units < 1 or resamples < 1:
        raise InvalidOptionError(
            f"the bootstrap needs a unit and a resample, not {units} units, {resamples} resamples"
        )
    return np.random.default_rng(seed).integers(0, units, size=(resamples, units))


def resampled_values(units: Sequence[TrackingScores], indices: np.ndarray) -> dict[str, np.ndarray]:
    """Each measure of the units combined (:func:`combined_values`), once per row of
    ``indices``."""
    values = {m: np.empty(len(indices)) for m in TRACKING_MEASURES}
    for row, drawn in enumerate(indices):
        for measure, value in combined_values([units[i] for i in drawn]).items():
            values[measure][row] = value
    return values


def percentile_interval(values: np.ndarray) -> Interval:
    """The central :data:`INTERVAL_LEVEL` percentile interval of ``values`` (NumPy's
    default, linear interpolation between order statistics)."""
    tail = 100 * (1 - INTERVAL_LEVEL) / 2
    low, high = np.percentile(values, [tail, 100 - tail])
    return Interval(float(low), float(high))


def bootstrap_intervals(
    units: TrackingUnits,
    combined: Mapping[str, TrackingScores],
    resamples: int,
    seed: int,
    block_length: int | None = None,
) -> TrackingIntervals:
    """Each tracker's measures combined over the whole sequences (``combined``) with their
    percentile intervals from ``resamples`` resamples of its units, the same draws
    (``seed``) for every tracker; with blocks (of ``block_length`` frames), moved as the
    module says."""
    indices = resample_indices(units.count, resamples, seed) if units.count > 1 else None
    found = {}
    for name, scores in units.scores.items():
        drawn_from = list(scores.values())
        values = {m: measure_value(combined[name], m) for m in TRACKING_MEASURES}
        over_units = combined_values(drawn_from) if units.kind == BLOCKS else values
        intervals: dict[str, Interval | None] = dict.fromkeys(TRACKING_MEASURES)
        if indices is not None:
            drawn = resampled_values(drawn_from, indices)
            intervals = {
                m: percentile_interval(drawn[m] + (values[m] - over_units[m])) for m in drawn
            }
        found[name] = TrackerIntervals(values, over_units, intervals)
    return TrackingIntervals(
        units.kind,
        units.count,
        units.sequences,
        block_length if units.kind == BLOCKS else None,
        resamples,
        seed,
        found,
    )
