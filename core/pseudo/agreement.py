"""Agreement between annotators (docs/measures.md §13): each pair's confusion, κ and
Dice, and each annotator against the STAPLE consensus of all of them.

The consensus is the model of §7 fitted by the same EM
(:func:`~referee.core.pseudo.staple.staple_sums`), annotators in place of detectors:
fitted per video to the histogram of vote patterns over the counted pixels of the
frames every annotator labelled. Nothing here reads a file: the workflow streams the
frames' vote patterns in (:func:`video_agreement`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.core.measures.agreement import annotator_pairs, pair_counts, pair_values
from referee.core.measures.indicators import IndicatorValue, evaluate
from referee.core.model.confusion import ConfusionMatrix
from referee.core.model.videos import VideoKey, video_label
from referee.core.pseudo.staple import StapleFit, staple_sums


@dataclass(frozen=True)
class PairAgreement:
    """Two annotators over the same counted pixels: ``cm`` is ``second`` against
    ``first`` (``tp`` both marked motion, ``fn`` only ``first``, ``fp`` only ``second``)."""

    first: str
    second: str
    cm: ConfusionMatrix

    @property
    def kappa(self) -> IndicatorValue:
        """Cohen's κ (docs/measures.md §2, §13)."""
        return pair_values(self.cm)[0]

    @property
    def dice(self) -> IndicatorValue:
        """Dice, ``2·tp / (2·tp + fp + fn)``."""
        return pair_values(self.cm)[1]


@dataclass(frozen=True)
class AnnotatorQuality:
    """One annotator against the consensus ``W``: expected counts ``tp = Σ S·W``,
    ``fp = Σ S·(1 − W)``, ``fn = Σ (1 − S)·W``, ``tn = Σ (1 − S)·(1 − W)``."""

    name: str
    cm: ConfusionMatrix

    @property
    def sensitivity(self) -> IndicatorValue:
        """``tp / (tp + fn)``: at convergence, the model's sensitivity of this annotator."""
        return evaluate("recall", self.cm)

    @property
    def specificity(self) -> IndicatorValue:
        """``tn / (tn + fp)``: at convergence, the model's specificity."""
        return evaluate("specificity", self.cm)


def _pairs(names: Sequence[str], counts: np.ndarray) -> tuple[PairAgreement, ...]:
    """``counts``: ``(pairs, 4)`` rows ``tp, fp, fn, tn``."""
    return tuple(
        PairAgreement(names[a], names[b], ConfusionMatrix(*map(float, row)))
        for (a, b), row in zip(annotator_pairs(len(names)), counts)
    )


def _pooled(counts: Sequence[np.ndarray]) -> np.ndarray:
    """The sum over videos of each video's ``counts`` added up over its frames."""
    pooled: np.ndarray = np.sum([c.sum(axis=0) for c in counts], axis=0)
    return pooled


def _qualities(names: Sequence[str], counts: np.ndarray) -> tuple[AnnotatorQuality, ...]:
    """``counts``: ``(annotators, 4)`` rows ``tp, fp, fn, tn``."""
    return tuple(
        AnnotatorQuality(name, ConfusionMatrix(*map(float, row)))
        for name, row in zip(names, counts)
    )


@dataclass(frozen=True, eq=False)
class VideoAgreement:
    """One video's frames that every annotator labelled (docs/measures.md §13).

    ``frames`` are the frame numbers; ``pixels`` each frame's counted pixels;
    ``pair_counts`` ``(frames, pairs, 4)`` and ``quality_counts`` ``(frames,
    annotators, 4)`` hold ``tp, fp, fn, tn`` per frame (pairs in the order of
    :func:`~referee.core.measures.agreement.annotator_pairs`); ``model`` is the STAPLE
    fit of the video.
    """

    category: str
    name: str
    annotators: tuple[str, ...]
    frames: np.ndarray
    pixels: np.ndarray
    pair_counts: np.ndarray
    quality_counts: np.ndarray
    model: StapleFit

    @property
    def label(self) -> str:
        """The video's name for users."""
        return video_label(self.category, self.name)

    @property
    def key(self) -> VideoKey:
        return (self.category, self.name)

    def _row(self, frame: int) -> int:
        rows = np.flatnonzero(self.frames == frame)
        if rows.size == 0:
            raise KeyError(f"frame {frame} of {self.label} is not labelled by every annotator")
        return int(rows[0])

    def pairs(self, frame: int | None = None) -> tuple[PairAgreement, ...]:
        """Every pair over the video's frames (counts added up), or over one ``frame``."""
        counts = (
            self.pair_counts.sum(axis=0) if frame is None else self.pair_counts[self._row(frame)]
        )
        return _pairs(self.annotators, counts)

    def qualities(self, frame: int | None = None) -> tuple[AnnotatorQuality, ...]:
        """Every annotator against the video's consensus, over its frames or one ``frame``."""
        counts = (
            self.quality_counts.sum(axis=0)
            if frame is None
            else self.quality_counts[self._row(frame)]
        )
        return _qualities(self.annotators, counts)

    @property
    def disagreement(self) -> np.ndarray:
        """Per frame, the mean over pairs of the share of counted pixels they label
        differently (the mean of :func:`~referee.core.measures.agreement.disagreement_map`);
        NaN on a frame without a counted pixel."""
        differ = self.pair_counts[:, :, 1] + self.pair_counts[:, :, 2]
        with np.errstate(invalid="ignore", divide="ignore"):
            rates: np.ndarray = differ.mean(axis=1) / self.pixels
        return np.where(self.pixels > 0, rates, np.nan)


@dataclass(frozen=True, eq=False)
class AgreementResult:
    """Agreement between annotators over the frames every one of them labelled
    (docs/measures.md §13).

    ``left_out`` names, with the reason, the videos where no frame is labelled by
    every annotator; ``consensus_folder`` is where the consensus was written as ground
    truth, if it was.
    """

    annotators: tuple[str, ...]
    videos: tuple[VideoAgreement, ...]
    left_out: tuple[tuple[str, str], ...] = ()
    consensus_folder: Path | None = None

    @property
    def identifiable(self) -> bool:
        """Whether the vote patterns determine the STAPLE model: three annotators or more
        (with two, the sensitivities and specificities depend on EM's starting point)."""
        return len(self.annotators) >= 3

    @property
    def frames(self) -> int:
        """Frames compared, over every video."""
        return sum(int(v.frames.size) for v in self.videos)

    def pairs(self) -> tuple[PairAgreement, ...]:
        """Every pair, counts pooled over every frame of every video."""
        return _pairs(self.annotators, _pooled([v.pair_counts for v in self.videos]))

    def qualities(self) -> tuple[AnnotatorQuality, ...]:
        """Every annotator against its video's consensus, expected counts pooled over videos."""
        return _qualities(self.annotators, _pooled([v.quality_counts for v in self.videos]))

    def video(self, label: str) -> VideoAgreement:
        """The video called ``label``."""
        return next(v for v in self.videos if v.label == label)


def video_agreement(
    key: VideoKey,
    annotators: Sequence[str],
    frames: Sequence[int],
    patterns: np.ndarray,
    pixels: np.ndarray,
) -> VideoAgreement:
    """One video's agreement from its frames' vote patterns.

    ``patterns`` are ``(m, 3)`` rows ``frame row, vote code, count`` over the counted
    pixels (:func:`~referee.core.measures.agreement.vote_codes`); ``pixels`` the counted
    pixels of each frame.
    """
    k = len(annotators)
    per_frame, _, fit, _ = staple_sums(patterns, pixels, k, leave_one_out=False)
    return VideoAgreement(
        key[0],
        key[1],
        tuple(annotators),
        np.asarray(frames, dtype=np.int64),
        pixels,
        pair_counts(patterns, len(frames), k),
        per_frame[:, :, :4],
        fit,
    )
