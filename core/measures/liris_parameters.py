"""The thresholds of the LIRIS metric (docs/measures.md §4), importable without numpy so
that options holding them are quick to build."""

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


@dataclass(frozen=True)
class LirisParameters:
    """Thresholds of the LIRIS metric (docs/measures.md §4).

    Attributes
    ----------
    epsilon
        The fixed operating point: all four thresholds equal ε (default 0.1);
        also the value of the three thresholds that are not varied.
    grid
        Values of the varied threshold for the integrated measures and the
        curves (default ``i/10`` for ``i = 0..10``).
    """

    epsilon: float = DEFAULT_EPSILON
    grid: tuple[float, ...] = DEFAULT_GRID

    def __post_init__(self) -> None:
        grid = tuple(float(t) for t in self.grid)
        if not grid:
            raise InvalidOptionError("the threshold grid is empty; give at least one value")
        for name, value in (("epsilon", self.epsilon), *(("grid value", t) for t in grid)):
            if not (isinstance(value, (int, float)) and 0.0 <= float(value) <= 1.0):
                raise InvalidOptionError(f"{name} {value!r} is not a threshold between 0 and 1")
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
