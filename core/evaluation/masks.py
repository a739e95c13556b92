"""Streaming evaluation of masks and score maps against CDnet ground truth (docs/measures.md §1, §3)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import NamedTuple

import numpy as np

from referee.core.errors import InvalidOptionError, RefereeError, SizeMismatchError
from referee.core.evaluation.ground_truth import StrayLevels
from referee.core.formats.datasets import read_truth, read_video_roi, roi_file
from referee.core.frames.sources import FrameSource
from referee.core.measures.choices import check_threshold
from referee.core.measures.curves import Curves, roc_pr_curves, summarized_curves
from referee.core.measures.indicators import f1_scores
from referee.core.measures.pixel import COUNT_COLUMNS, N_LEVELS, FrameCounter, threshold_confusions
from referee.core.measures.summarize import resolve_scheme, video_weights
from referee.core.model.confusion import ConfusionMatrix, VideoConfusion
from referee.core.model.videos import VideoSpec
from referee.core.progress import CancelToken, ProgressCallback, check, report

PER_FRAME_COLUMNS: tuple[str, ...] = ("frame", *COUNT_COLUMNS)
"""Columns of :attr:`VideoEvaluation.per_frame`."""

FrameNumbers = range | Sequence[int]


@dataclass(frozen=True, eq=False)
class VideoEvaluation:
    """A method's counts on one video (docs/measures.md §1).

    Attributes
    ----------
    category, video
        The video's key.
    total
        Confusion matrix summed over the evaluated frames, in pixels.
    shadow_errors
        Detected pixels on hard-shadow ground truth (also counted in ``total.fp``).
    per_frame
        ``int64`` array ``(n_frames, 6)``, columns :data:`PER_FRAME_COLUMNS`.
    threshold
        The detection threshold option used (``None``: value == 255).
    """

    category: str
    video: str
    total: ConfusionMatrix
    shadow_errors: int
    per_frame: np.ndarray
    threshold: int | None = None

    @classmethod
    def from_per_frame(
        cls, category: str, video: str, per_frame: np.ndarray, threshold: int | None = None
    ) -> VideoEvaluation:
        """Build from per-frame counts, summing them."""
        rows = np.asarray(per_frame, dtype=np.int64).reshape(-1, len(PER_FRAME_COLUMNS))
        tp, fp, fn, tn, se = (int(v) for v in rows[:, 1:].sum(axis=0))
        return cls(
            category, video, ConfusionMatrix(tp=tp, fp=fp, fn=fn, tn=tn), se, rows, threshold
        )

    @property
    def key(self) -> tuple[str, str]:
        return (self.category, self.video)

    @property
    def confusion(self) -> VideoConfusion:
        """The total as a :class:`VideoConfusion` (what summaries take)."""
        return VideoConfusion(self.category, self.video, self.total, self.shadow_errors)

    @property
    def frames(self) -> np.ndarray:
        """The evaluated frame numbers."""
        return self.per_frame[:, 0]

    def frame_f1(self) -> tuple[np.ndarray, np.ndarray]:
        """The evaluated frame numbers and each frame's F1, NaN where undefined
        (docs/measures.md §2)."""
        rows = self.per_frame
        return rows[:, 0].copy(), f1_scores(rows[:, 1], rows[:, 2], rows[:, 3])

    def heavy_frames(self, column: str = "fp", fraction: float = 0.1) -> list[int]:
        """Frames whose ``column`` count (``tp fp fn tn se``) is in the top ``fraction``.

        Only frames with a non-zero count qualify, so a clean video has none.
        """
        values = self.per_frame[:, 1 + COUNT_COLUMNS.index(column)]
        if values.size == 0 or not values.any():
            return []
        cut = max(np.quantile(values, 1.0 - fraction), 1)
        return [int(f) for f in self.frames[values >= cut]]

    def frame_confusion(self, i: int) -> ConfusionMatrix:
        """Confusion matrix of frame ``i`` alone.

        Raises
        ------
        InvalidOptionError
            If frame ``i`` was not evaluated.
        """
        where = np.flatnonzero(self.per_frame[:, 0] == i)
        if where.size == 0:
            raise InvalidOptionError(f"frame {i} of {self.confusion.label} was not evaluated")
        _, tp, fp, fn, tn, _ = (int(v) for v in self.per_frame[where[0]])
        return ConfusionMatrix(tp=tp, fp=fp, fn=fn, tn=tn)


@dataclass(frozen=True, eq=False)
class VideoHistograms:
    """Score histograms of a soft result on one video, summed over frames (docs/measures.md §3).

    ``histograms`` is ``int64`` ``(3, 256)``: rows static (GT 0), shadow
    (GT 50), motion (GT 255); column ``s`` counts evaluated pixels of score ``s``.
    """

    category: str
    video: str
    histograms: np.ndarray
    n_frames: int

    @property
    def key(self) -> tuple[str, str]:
        return (self.category, self.video)

    def confusions(self) -> np.ndarray:
        """``(256, 5)`` counts ``tp, fp, fn, tn, se``, row ``T``: detected iff score >= T."""
        return threshold_confusions(self.histograms)

    def curves(self) -> Curves:
        """ROC and PR curves of this video."""
        return roc_pr_curves(self.histograms)


# ---------------------------------------------------------------------------
# One video, streaming


def _frame_numbers(video: VideoSpec, frames: Iterable[int] | None) -> FrameNumbers:
    if frames is None:
        return video.truth_frames
    numbers: FrameNumbers = frames if isinstance(frames, range) else [int(i) for i in frames]
    if len(numbers) and (numbers[0] < 1 or any(b <= a for a, b in pairwise(numbers))):
        raise InvalidOptionError("frames to evaluate must be increasing frame numbers from 1")
    return numbers


#: Rows of per-frame counts allocated at first; they double as frames come (never sized
#: by a temporal ROI that may name far more frames than exist).
FIRST_ROWS = 1024


def _frames_with_truth(
    video: VideoSpec,
    sources: Sequence[FrameSource],
    numbers: FrameNumbers,
    roi_shape: tuple[int, ...],
    cancel: CancelToken | None,
    stray: StrayLevels,
    failures: list[str | None] | None = None,
) -> Iterator[tuple[int, np.ndarray, list[np.ndarray | None]]]:
    """``(i, gt, each source's frame i)`` for each frame, the ground truth decoded once.

    Sizes are checked against the ROI and stray levels gathered in ``stray``.
    With ``failures`` (one slot per source), a source that cannot be read is
    noted there with the reason and gives ``None`` from then on, while the other
    sources go on; without, the error is raised. An unreadable ground-truth
    frame fails every source.
    """
    streams = [source.iter_frames(numbers) for source in sources]
    for i in numbers:
        check(cancel)
        results: list[np.ndarray | None] = []
        for k, (source, stream) in enumerate(zip(sources, streams)):
            if failures is not None and failures[k] is not None:
                results.append(None)
                continue
            try:
                j, result = next(stream)
                if result.shape != roi_shape:
                    gt_name = video.gt_name(i)
                    raise SizeMismatchError(source.path_of(j), result.shape, gt_name, roi_shape)
            except RefereeError as error:
                if failures is None:
                    raise
                failures[k] = str(error)
                result = None
            results.append(result)
        gt_name = video.gt_name(i)
        try:
            gt = read_truth(video, i)
            if gt.shape != roi_shape:
                raise SizeMismatchError(gt_name, gt.shape, roi_file(video), roi_shape)
        except RefereeError as error:
            if failures is None:
                raise
            failures[:] = [reason or str(error) for reason in failures]
            return
        stray.check(gt_name, gt)
        yield i, gt, results


def evaluate_video(
    video: VideoSpec,
    source: FrameSource,
    threshold: int | None = None,
    frames: Iterable[int] | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> VideoEvaluation:
    """Count one method's masks on one video, frame by frame (docs/measures.md §1).

    Parameters
    ----------
    video
        The video (ground truth, ROI, temporal ROI).
    source
        The method's masks for this video.
    threshold
        ``None``: a mask value of 255 is a detection; ``T``: values ``>= T`` are.
    frames
        Increasing frame numbers to evaluate; default :attr:`VideoSpec.truth_frames`
        (the temporal ROI, or its annotated frames when the project records them).
    progress, cancel
        Called with ``(frames done, frames total)`` / polled after every frame.

    Ground truth with grey levels other than CDnet's five gives a
    :class:`RefereeWarning` naming the first such file.

    Raises
    ------
    MissingFrameError, InputFileError, SizeMismatchError
        For missing or unreadable files and mismatched sizes, naming the files.
    CancelledError
        If ``cancel`` is set.
    """
    counted = count_video(video, [source], threshold, frames, progress, cancel)
    counted.stray.warn(video)
    return VideoEvaluation.from_per_frame(
        video.category, video.name, counted.values[0], check_threshold(threshold)
    )


class VideoPieces(NamedTuple):
    """What one pass over a video's frames gives for each of several sources.

    ``values[k]`` is source ``k``'s per-frame counts or summed histograms;
    ``failures[k]`` why source ``k`` could not be read (``None``: it could; only
    when the pass keeps going); ``stray`` the ground truth's unexpected levels.
    """

    values: list[np.ndarray]
    failures: list[str | None]
    stray: StrayLevels


def count_video(
    video: VideoSpec,
    sources: Sequence[FrameSource],
    threshold: int | None,
    frames: Iterable[int] | None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    keep_going: bool = False,
) -> VideoPieces:
    """Per-frame counts of every source on one video, each ground-truth frame decoded once.

    ``keep_going`` notes a source that cannot be read in the result instead of
    raising (:func:`_frames_with_truth`); stray levels are returned, not warned about.
    """
    counter = FrameCounter(read_video_roi(video), threshold)
    numbers = _frame_numbers(video, frames)
    total = len(numbers)
    width = len(PER_FRAME_COLUMNS)
    rows = [np.zeros((min(total, FIRST_ROWS), width), dtype=np.int64) for _ in sources]
    stray = StrayLevels()
    failures: list[str | None] = [None] * len(sources)
    check(cancel)
    k = 0
    stream = _frames_with_truth(
        video, sources, numbers, counter.shape, cancel, stray, failures if keep_going else None
    )
    for i, gt, results in stream:
        if k == rows[0].shape[0]:
            rows = [np.concatenate([r, np.zeros_like(r)]) for r in rows]
        for source_rows, result in zip(rows, results):
            if result is not None:
                source_rows[k, 0] = i
                source_rows[k, 1:] = counter.counts(gt, result)
        k += 1
        report(progress, k, total)
    return VideoPieces([r[:k] for r in rows], failures, stray)


def score_histograms_video(
    video: VideoSpec,
    source: FrameSource,
    frames: Iterable[int] | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> VideoHistograms:
    """Score histograms of a soft result (score maps 0..255) on one video (docs/measures.md §3).

    Parameters are those of :func:`evaluate_video`; there is no threshold,
    since the histograms hold every threshold at once.
    """
    summed = histograms_video(video, [source], frames, progress, cancel)
    summed.stray.warn(video)
    n_frames = len(_frame_numbers(video, frames))
    return VideoHistograms(video.category, video.name, summed.values[0], n_frames)


def histograms_video(
    video: VideoSpec,
    sources: Sequence[FrameSource],
    frames: Iterable[int] | None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    keep_going: bool = False,
    per_frame: bool = False,
) -> VideoPieces:
    """Score histograms of every source on one video, each ground-truth frame decoded once
    (as :func:`count_video`): summed, ``(3, 256)``, or with ``per_frame`` one row per
    frame, ``(n, 1 + 3·256)``: the frame number, then its histograms row by row."""
    counter = FrameCounter(read_video_roi(video))
    numbers = _frame_numbers(video, frames)
    total = len(numbers)
    shape = (total, 1 + 3 * N_LEVELS) if per_frame else (3, N_LEVELS)
    values = [np.zeros(shape, dtype=np.int64) for _ in sources]
    stray = StrayLevels()
    failures: list[str | None] = [None] * len(sources)
    check(cancel)
    stream = _frames_with_truth(
        video, sources, numbers, counter.shape, cancel, stray, failures if keep_going else None
    )
    k = 0
    for k, (i, gt, results) in enumerate(stream, start=1):
        for found, scores in zip(values, results):
            if scores is None:
                continue
            histograms = counter.score_histograms(gt, scores)
            if per_frame:
                found[k - 1, 0] = i
                found[k - 1, 1:] = histograms.ravel()
            else:
                found += histograms
        report(progress, k, total)
    return VideoPieces([v[:k] for v in values] if per_frame else values, failures, stray)


def summarized_histogram_curves(
    histograms: Sequence[VideoHistograms], scheme: str = "auto"
) -> tuple[str, Curves]:
    """One method's ROC and PR curves summarized over its videos, and the scheme used (docs/measures.md §2, §3).

    Each video weighs as its confusion matrix at threshold 0 says (the
    evaluated pixels are the same at every threshold).
    """
    confusions = [
        VideoConfusion(h.category, h.video, ConfusionMatrix(*h.confusions()[0, :4]))
        for h in histograms
    ]
    curves = summarized_curves(
        [h.histograms for h in histograms], video_weights(confusions, scheme)
    )
    return resolve_scheme(confusions, scheme), curves
