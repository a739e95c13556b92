"""Confusion matrices: the one data type every measure is computed from (docs/measures.md §2).

A matrix holds ``tp, fp, fn, tn``. Counts are whole numbers; a *normalized*
matrix divides by the total so its four entries sum to 1. Matrices of
different videos combine by :func:`blend` (a weighted sum of normalized
matrices), never by averaging indicators.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.errors import RefereeError
from referee.core.model.videos import VideoKey, video_label


@dataclass(frozen=True, slots=True)
class ConfusionMatrix:
    """Binary confusion matrix. Entries are counts or, once normalized, probabilities."""

    tp: float
    fp: float
    fn: float
    tn: float

    @property
    def total(self) -> float:
        return self.tp + self.fp + self.fn + self.tn

    def as_array(self) -> np.ndarray:
        """The entries as ``[tn, fp, fn, tp]`` (the order of docs/measures.md)."""
        return np.array([self.tn, self.fp, self.fn, self.tp], dtype=float)

    @classmethod
    def from_array(cls, values: Sequence[float] | np.ndarray) -> ConfusionMatrix:
        """Build from ``[tn, fp, fn, tp]``."""
        tn, fp, fn, tp = (float(v) for v in values)
        return cls(tp=tp, fp=fp, fn=fn, tn=tn)

    def normalized(self) -> ConfusionMatrix:
        """Divide by the total so the entries sum to 1.

        Raises
        ------
        RefereeError
            If the matrix is empty (no evaluated pixel), which cannot be normalized.
        """
        total = self.total
        if total <= 0:
            raise RefereeError("cannot normalize an empty confusion matrix (no evaluated pixel)")
        return ConfusionMatrix(self.tp / total, self.fp / total, self.fn / total, self.tn / total)

    def __add__(self, other: ConfusionMatrix) -> ConfusionMatrix:
        return ConfusionMatrix(
            self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.tn + other.tn
        )

    def scaled(self, factor: float) -> ConfusionMatrix:
        return ConfusionMatrix(
            self.tp * factor, self.fp * factor, self.fn * factor, self.tn * factor
        )


@dataclass(frozen=True, slots=True)
class VideoConfusion:
    """The confusion matrix of one method on one video.

    ``shadow_errors`` counts detected pixels on hard-shadow ground truth
    (they are also false positives); ``None`` when the source did not say.
    """

    category: str
    video: str
    cm: ConfusionMatrix
    shadow_errors: int | None = None

    @property
    def key(self) -> VideoKey:
        return (self.category, self.video)

    @property
    def label(self) -> str:
        """The video's name for users (:func:`~referee.core.model.videos.video_label`)."""
        return video_label(self.category, self.video)


def check_weights(n_videos: int, weights: Sequence[float] | np.ndarray) -> np.ndarray:
    """``weights`` as an array, checked: one per video, non-negative, summing to 1.

    Raises
    ------
    RefereeError
        If there is no video, the counts differ, or the weights are invalid.
    """
    if n_videos != len(weights):
        raise RefereeError(f"{n_videos} videos but {len(weights)} weights")
    if n_videos == 0:
        raise RefereeError("nothing to summarize: no video")
    w = np.asarray(weights, dtype=float)
    if np.any(w < 0) or not np.isclose(w.sum(), 1.0):
        raise RefereeError(f"weights must be non-negative and sum to 1 (they sum to {w.sum():g})")
    return w


def blend(
    matrices: Sequence[ConfusionMatrix], weights: Sequence[float] | np.ndarray
) -> ConfusionMatrix:
    """Weighted sum of normalized matrices, ``Σ_v w_v · p_v`` (docs/measures.md §2, step 2).

    ``weights`` must be non-negative and sum to 1.
    """
    w = check_weights(len(matrices), weights)
    stacked = np.stack([m.normalized().as_array() for m in matrices])
    return ConfusionMatrix.from_array(w @ stacked)


def pooled(matrices: Iterable[ConfusionMatrix]) -> ConfusionMatrix:
    """Sum of raw counts (what ``pixels`` weights amount to)."""
    total = ConfusionMatrix(0, 0, 0, 0)
    for m in matrices:
        total = total + m
    return total
