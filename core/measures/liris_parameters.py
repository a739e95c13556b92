"""The thresholds and the matching's reading of the LIRIS metric (docs/measures.md §4),
importable without numpy so that options holding them are quick to build."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from referee.core.errors import InvalidOptionError

if TYPE_CHECKING:
    import numpy as np

#: Keys of the four quality thresholds, in the order used by every array of the matching.
THRESHOLD_KEYS: tuple[str, ...] = ("sr", "sp", "tr", "tp")

DEFAULT_EPSILON = 0.1
DEFAULT_GRID: tuple[float, ...] = tuple(i / 10 for i in range(11))

#: The greedy one-to-one matching of the CVIU 2014 paper (the default).
ONE_TO_ONE = "one-to-one"
#: The 2012 metric page's reading: each action with its own best partner, no one-to-one rule.
BEST_PARTNER = "best-partner"
#: The readings of the matching (docs/measures.md §4); the first is the default.
MATCHINGS: tuple[str, ...] = (ONE_TO_ONE, BEST_PARTNER)


def check_matching(reading: str) -> None:
    """Refuse a reading of the matching that is not one of :data:`MATCHINGS`."""
    if reading not in MATCHINGS:
        raise InvalidOptionError(
            f"LIRIS matching {reading!r} is not one of {', '.join(MATCHINGS)} (docs/measures.md §4)"
        )


@dataclass(frozen=True)
class LirisParameters:
    """Thresholds and matching of the LIRIS metric (docs/measures.md §4).

    Attributes
    ----------
    epsilon
        The fixed operating point: all four thresholds equal ε (default 0.1);
        also the value of the three thresholds that are not varied.
    grid
        Values of the varied threshold for the integrated measures and the
        curves (default ``i/10`` for ``i = 0..10``).
    matching
        :data:`ONE_TO_ONE` (default) or :data:`BEST_PARTNER`, one of :data:`MATCHINGS`.
    """

    epsilon: float = DEFAULT_EPSILON
    grid: tuple[float, ...] = DEFAULT_GRID
    matching: str = ONE_TO_ONE

    def __post_init__(self) -> None:
        grid = tuple(float(t) for t in self.grid)
        if not grid:
            raise InvalidOptionError("the threshold grid is empty; give at least one value")
        for name, value in (("epsilon", self.epsilon), *(("grid value", t) for t in grid)):
            if not (isinstance(value, (int, float)) and 0.0 <= float(value) <= 1.0):
                raise InvalidOptionError(f"{name} {value!r} is not a threshold between 0 and 1")
        check_matching(self.matching)
        object.__setattr__(self, "epsilon", float(self.epsilon))
        object.__setattr__(self, "grid", grid)

    def point_thresholds(self) -> np.ndarray:
        """``(1 + 4·G, 4)`` thresholds: row 0 is ε; then, per varied threshold
        (``THRESHOLD_KEYS`` order), one row per grid value, the others at ε."""
        import numpy as np

        g = len(self.grid)
        rows = np.full((1 + 4 * g, 4), self.epsilon)
        for k in range(4):
            rows[1 + k * g : 1 + (k + 1) * g, k] = self.grid
        return rows
