"""Trackers' bootstrap intervals in words, as text and as JSON: the one wording of the
command line and the report (docs/measures.md §5, "Tracking: intervals and tests")."""

from __future__ import annotations

import textwrap
from typing import Any

from referee.core.exports.summary import json_number
from referee.core.exports.text_table import grid
from referee.core.significance.choices import INTERVAL_LEVEL, MIN_SEQUENCES, TRACKING_MEASURES
from referee.core.significance.tracker_bootstrap import Interval, TrackingIntervals
from referee.core.significance.tracking_units import BLOCKS

#: "95%".
LEVEL_TEXT = f"{INTERVAL_LEVEL:.0%}"


def interval_heading(measure: str) -> str:
    """The heading of a measure's interval column, e.g. ``HOTA 95% interval``."""
    return f"{TRACKING_MEASURES[measure]} {LEVEL_TEXT} interval"


def interval_text(interval: Interval | None) -> str:
    """``[low, high]`` to 4 decimals, or why there is none."""
    if interval is None:
        return "none (one unit)"
    return f"[{interval.low:.4f}, {interval.high:.4f}]"


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def intervals_note(result: TrackingIntervals) -> str:
    """What the intervals are: the units resampled, how many, the resamples, the seed, and
    with blocks the approximation they make."""
    sequences = "the sequence" if result.sequences == 1 else f"the {result.sequences:,} sequences"
    if result.unit == BLOCKS:
        drawn = (
            f"{_plural(result.units, 'block')} of {result.block_length} frames cut from "
            f"{sequences} (fewer than {MIN_SEQUENCES} sequences)"
        )
    else:
        drawn = sequences
    text = (
        f"{LEVEL_TEXT} percentile bootstrap intervals (docs/measures.md §5): "
        f"{result.resamples:,} resamples with replacement of {drawn}, each "
        f"combined as sequences are; seed {result.seed}, the same draws for every "
        "tracker."
    )
    if result.unit == BLOCKS:
        text += (
            " Tracks are cut at block borders, so these intervals are approximations: an "
            "identity switch across a border is not counted and each piece of a cut track "
            "is associated on its own; the blocks' percentiles are moved by the whole "
            "sequences' value less the blocks' combined value."
        )
    if result.units < 2:
        text += " With a single unit there is nothing to resample: no interval."
    return text


def format_intervals_table(result: TrackingIntervals) -> str:
    """The note, then a row per tracker: each measure combined over the whole sequences
    and its interval; with blocks, also the measures combined over the blocks."""
    header = ["tracker"]
    for measure, name in TRACKING_MEASURES.items():
        header += [name, interval_heading(measure)]
    rows = [
        [
            tracker,
            *(
                cell
                for m in TRACKING_MEASURES
                for cell in (f"{found.values[m]:.4f}", interval_text(found.intervals[m]))
            ),
        ]
        for tracker, found in result.trackers.items()
    ]
    note = textwrap.fill(f"Tracking intervals: {intervals_note(result)}", width=88)
    lines = [note, grid(header, rows)]
    if result.unit == BLOCKS:
        lines += [
            "",
            "Combined over the blocks (tracks cut at their borders):",
            grid(
                ["tracker", *TRACKING_MEASURES.values()],
                [
                    [t, *(f"{found.unit_values[m]:.4f}" for m in TRACKING_MEASURES)]
                    for t, found in result.trackers.items()
                ],
            ),
        ]
    return "\n".join(lines)


def intervals_dict(result: TrackingIntervals) -> dict[str, Any]:
    """The intervals for JSON: what was resampled, and per tracker and measure its value
    over the whole sequences, over the units, and its interval (``null`` without one)."""

    def measure(value: float, units_value: float, interval: Interval | None) -> dict[str, Any]:
        return {
            "value": json_number(value),
            "units_value": json_number(units_value),
            "low": None if interval is None else json_number(interval.low),
            "high": None if interval is None else json_number(interval.high),
        }

    return {
        "level": INTERVAL_LEVEL,
        "unit": result.unit,
        "units": result.units,
        "sequences": result.sequences,
        "block_length": result.block_length,
        "resamples": result.resamples,
        "seed": result.seed,
        "note": intervals_note(result),
        "trackers": {
            tracker: {
                m: measure(found.values[m], found.unit_values[m], found.intervals[m])
                for m in TRACKING_MEASURES
            }
            for tracker, found in result.trackers.items()
        },
    }
