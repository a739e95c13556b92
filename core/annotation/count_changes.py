"""Marking count changes: +1 or −1 from a frame on (docs/measures.md §6).

A count series holds the number of objects counted up to each frame; marking a
change of ``delta`` at frame ``n`` adds ``delta`` to the count of ``n`` and of
every later frame, so that the series' change ``Δ_{n−1} = y_n − y_{n−1}``
grows by ``delta`` and no other change moves.
"""

from __future__ import annotations

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.formats.counts_csv import CountSeries


def empty_counts(first_frame: int, last_frame: int) -> CountSeries:
    """A series of zero counts over ``first_frame..last_frame`` (a video nobody counted yet)."""
    if last_frame < first_frame:
        raise InvalidOptionError(f"no frame from {first_frame} to {last_frame} to count")
    return CountSeries(first_frame, np.zeros(last_frame - first_frame + 1, dtype=np.int64))


def with_count_change(series: CountSeries, frame: int, delta: int) -> CountSeries:
    """``series`` with ``delta`` added to the count of ``frame`` and every later frame.

    Raises
    ------
    InvalidOptionError
        If ``frame`` is outside the series, or a count would become negative.
    """
    if not series.first_frame <= frame <= series.last_frame:
        raise InvalidOptionError(
            f"frame {frame} is outside the counted frames {series.first_frame}–{series.last_frame}"
        )
    counts = np.array(series.counts, dtype=np.int64)
    counts[frame - series.first_frame :] += delta
    if counts.size and np.min(counts) < 0:
        below = series.first_frame + int(np.argmax(counts < 0))
        raise InvalidOptionError(
            f"a change of {delta:+d} at frame {frame} would make the count of frame {below} "
            "negative"
        )
    return CountSeries(series.first_frame, counts, series.path)


def count_changes(series: CountSeries) -> dict[int, int]:
    """The frames where the count changes, with the change: ``{n: y_n − y_{n−1}}``."""
    steps = np.diff(series.counts)
    return {series.first_frame + int(k) + 1: int(steps[k]) for k in np.flatnonzero(steps)}
