"""Paired test cases: one score per case and method (docs/measures.md §9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.errors import InvalidOptionError

# --- test cases ----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CaseScores:
    """Per-case scores of several methods, paired by case (docs/measures.md §9).

    Attributes
    ----------
    measure
        What a score is, e.g. ``"per-frame F1"``.
    methods
        Method names, one per column of ``scores``.
    labels
        One label per case (e.g. ``"baseline/street:37"``), one per row.
    scores
        ``float64`` ``(n_cases, n_methods)``, every value finite.
    dropped
        Cases left out because a score was undefined in at least one method.
    dropped_reason
        Why those cases were left out (empty when none was).
    """

    measure: str
    methods: tuple[str, ...]
    labels: tuple[str, ...]
    scores: np.ndarray
    dropped: int = 0
    dropped_reason: str = ""

    def __post_init__(self) -> None:
        scores = np.array(self.scores, dtype=np.float64)
        if scores.ndim != 2:
            raise InvalidOptionError(
                f"scores must be a table cases × methods, got shape {scores.shape}"
            )
        methods = tuple(str(m) for m in self.methods)
        labels = tuple(str(label) for label in self.labels)
        if len(methods) != scores.shape[1] or len(labels) != scores.shape[0]:
            raise InvalidOptionError(
                f"{scores.shape[0]} cases × {scores.shape[1]} methods of "
                f"scores, but {len(labels)} case labels and "
                f"{len(methods)} method names"
            )
        if len(set(methods)) != len(methods):
            raise InvalidOptionError(f"method names must differ, got {', '.join(methods)}")
        bad = np.argwhere(~np.isfinite(scores))
        if len(bad):
            i, m = bad[0]
            raise InvalidOptionError(
                f"the score of {methods[m]} on case {labels[i]!r} is not "
                "a finite number; leave such cases out (the builders "
                "drop them)"
            )
        scores.setflags(write=False)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "methods", methods)
        object.__setattr__(self, "labels", labels)

    def __len__(self) -> int:
        return int(self.scores.shape[0])

    def column(self, method: str) -> np.ndarray:
        """The scores of ``method``."""
        return self.scores[:, self._index(method)]

    def select(self, methods: Sequence[str]) -> CaseScores:
        """The same cases with only ``methods``, in that order."""
        columns = [self._index(m) for m in methods]
        return CaseScores(
            self.measure,
            tuple(methods),
            self.labels,
            self.scores[:, columns],
            self.dropped,
            self.dropped_reason,
        )

    def _index(self, method: str) -> int:
        if method not in self.methods:
            raise InvalidOptionError(
                f"no method named {method!r}; the methods are {', '.join(self.methods)}"
            )
        return self.methods.index(method)


def scores_table(
    measure: str,
    labels: Sequence[str],
    columns: Mapping[str, Sequence[float] | np.ndarray],
    undefined_reason: str = "a score is undefined",
) -> CaseScores:
    """:class:`CaseScores` from one column per method, dropping cases with a NaN score.

    Parameters
    ----------
    measure
        What a score is.
    labels
        One label per case.
    columns
        Method name → one score per case (NaN where undefined).
    undefined_reason
        Said of the dropped cases, e.g. ``"F1 is undefined (no positive and no
        detected pixel)"``.
    """
    names = list(columns)
    table = (
        np.column_stack([np.asarray(columns[m], dtype=np.float64).reshape(-1) for m in names])
        if names
        else np.zeros((len(labels), 0))
    )
    if table.shape[0] != len(labels):
        raise InvalidOptionError(f"{len(labels)} case labels but {table.shape[0]} scores")
    keep = np.all(np.isfinite(table), axis=1)
    dropped = int((~keep).sum())
    return CaseScores(
        measure,
        tuple(names),
        tuple(label for label, k in zip(labels, keep) if k),
        table[keep],
        dropped,
        undefined_reason if dropped else "",
    )
