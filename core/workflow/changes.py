"""What new ground truth changed: each detector's summary score and rank, before and after.

Used by the annotate-next loop (docs/measures.md §8): after a frame is saved and
the masks are evaluated again, the change of every detector's summarized
indicator (the one the ranking uses, F1 by default, docs/measures.md §2) and rank.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from referee.core.workflow.results import PixelResult


@dataclass(frozen=True)
class ScoreChange:
    """One detector's summarized score and rank now, and their change (NaN / 0 if new)."""

    detector: str
    indicator: str
    value: float
    change: float
    rank: int
    rank_change: int


def score_changes(before: PixelResult | None, after: PixelResult) -> list[ScoreChange]:
    """Every detector of ``after``, best first, with its change since ``before``.

    ``change`` is ``after − before`` of the summarized indicator (NaN when the
    detector was not in ``before``); ``rank_change`` is ``rank before − rank now``
    (positive: it moved up).
    """
    now = after.ranking
    then = before.ranking if before is not None else None
    rows = []
    for name in now.summary_ranking:
        value = now.summary_values[name]
        known = then is not None and name in then.summary_values
        rows.append(
            ScoreChange(
                name,
                now.indicator,
                value,
                value - then.summary_values[name] if known and then else math.nan,
                now.summary_rank[name],
                then.summary_rank[name] - now.summary_rank[name] if known and then else 0,
            )
        )
    return rows
