"""Streaming evaluation of masks and score maps against CDnet ground truth (docs/measures.md §1, §3)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Literal, NamedTuple, overload

import numpy as np

from referee.core.errors import InvalidOptionError, SizeMismatchError
from referee.core.evaluation.ground_truth import StrayLevels, check_temporal_roi
from referee.core.formats.cdnet import read_gt, read_roi
from referee.core.frames.results import result_sources
from referee.core.frames.sources import (
    FrameSource,
)
from referee.core.measures.curves import Curves, roc_pr_curves, summarized_curves
from referee.core.measures.indicators import f1_scores
from referee.core.measures.pixel import (
    COUNT_COLUMNS,
    N_LEVELS,
    FrameCounter,
    check_threshold,
    threshold_confusions,
)
from referee.core.measures.summarize import resolve_scheme, video_weights
from referee.core.model.confusion import ConfusionMatrix, VideoConfusion
from referee.core.model.videos import GROUNDTRUTH_DIR, VideoSpec
from referee.core.parallel import check_workers, chunk_size, frame_chunks, map_chunks
from referee.core.progress import CancelToken, ProgressCallback, check, report, shifted

PER_FRAME_COLUMNS: tuple[str, ...] = ("frame", *COUNT_COLUMNS)
"""Columns of :attr:`VideoEvaluation.per_frame`."""

FrameNumbers = range | Sequence[int]

_Kind = Literal["counts", "histograms"]
"""What the chunks of a job compute: per-frame counts, or score histograms."""


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
_FIRST_ROWS = 1024


def _frames_with_truth(
    video: VideoSpec,
    source: FrameSource,
    numbers: FrameNumbers,
    roi_shape: tuple[int, ...],
    cancel: CancelToken | None,
    stray: StrayLevels,
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """``(i, gt, result)`` for each frame, sizes checked against the ROI, levels in ``stray``."""
    gt_prefix = os.path.join(os.fspath(video.folder), GROUNDTRUTH_DIR, "gt")
    for i, result in source.iter_frames(numbers):
        check(cancel)
        gt_name = f"{gt_prefix}{i:06d}.png"
        gt = read_gt(gt_name, i)
        if gt.shape != roi_shape:
            raise SizeMismatchError(gt_name, gt.shape, video.roi_path, roi_shape)
        if result.shape != roi_shape:
            raise SizeMismatchError(source.path_of(i), result.shape, gt_name, gt.shape)
        stray.check(gt_name, gt)
        yield i, gt, result


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
    evaluation, stray = _count_video(video, source, threshold, frames, progress, cancel)
    stray.warn(video)
    return evaluation


def _count_video(
    video: VideoSpec,
    source: FrameSource,
    threshold: int | None,
    frames: Iterable[int] | None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> tuple[VideoEvaluation, StrayLevels]:
    """:func:`evaluate_video`, with the stray levels found instead of a warning."""
    counter = FrameCounter(read_roi(video.roi_path), threshold)
    numbers = _frame_numbers(video, frames)
    total = len(numbers)
    rows = np.zeros((min(total, _FIRST_ROWS), len(PER_FRAME_COLUMNS)), dtype=np.int64)
    stray = StrayLevels()
    check(cancel)
    k = 0
    for i, gt, result in _frames_with_truth(video, source, numbers, counter.shape, cancel, stray):
        if k == rows.shape[0]:
            rows = np.concatenate([rows, np.zeros_like(rows)])
        rows[k, 0] = i
        rows[k, 1:] = counter.counts(gt, result)
        k += 1
        report(progress, k, total)
    evaluation = VideoEvaluation.from_per_frame(
        video.category, video.name, rows[:k], counter.threshold
    )
    return evaluation, stray


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
    histograms, stray = _histograms_video(video, source, frames, progress, cancel)
    stray.warn(video)
    return histograms


def _histograms_video(
    video: VideoSpec,
    source: FrameSource,
    frames: Iterable[int] | None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> tuple[VideoHistograms, StrayLevels]:
    """:func:`score_histograms_video`, with the stray levels found instead of a warning."""
    counter = FrameCounter(read_roi(video.roi_path))
    numbers = _frame_numbers(video, frames)
    total = len(numbers)
    summed = np.zeros((3, N_LEVELS), dtype=np.int64)
    stray = StrayLevels()
    check(cancel)
    k = 0
    for _, gt, scores in _frames_with_truth(video, source, numbers, counter.shape, cancel, stray):
        summed += counter.score_histograms(gt, scores)
        k += 1
        report(progress, k, total)
    return VideoHistograms(video.category, video.name, summed, k), stray


# ---------------------------------------------------------------------------
# Many videos, optionally in worker processes


class _Chunk(NamedTuple):
    """A run of one video's frames, evaluated in a worker process."""

    kind: _Kind
    position: int  # position of the video in the job list
    video: VideoSpec
    source: FrameSource
    threshold: int | None
    frames: Sequence[int]


def _run_chunk(chunk: _Chunk) -> tuple[np.ndarray, StrayLevels]:
    """Evaluate one chunk (module level so worker processes can run it).

    Returns the per-frame counts or the histograms, and the stray ground-truth
    levels found (warned about by the parent). A :class:`RefereeError` raised
    here reaches the parent unchanged (the error classes pickle).
    """
    if chunk.kind == "counts":
        evaluation, stray = _count_video(chunk.video, chunk.source, chunk.threshold, chunk.frames)
        return evaluation.per_frame, stray
    histograms, stray = _histograms_video(chunk.video, chunk.source, chunk.frames)
    return histograms.histograms, stray


def _plan(
    kind: _Kind, jobs: Sequence[tuple[VideoSpec, FrameSource]], threshold: int | None, workers: int
) -> list[_Chunk]:
    size = chunk_size(sum(len(video.truth_frames) for video, _ in jobs), workers)
    chunks = []
    for position, (video, source) in enumerate(jobs):
        frames = video.truth_frames
        # Sequential decoders (video files) would re-decode from the start per chunk.
        video_size = size if getattr(source, "random_access", True) else max(1, len(frames))
        for first, last in frame_chunks(0, len(frames) - 1, video_size):
            chunks.append(
                _Chunk(kind, position, video, source, threshold, frames[first : last + 1])
            )
    return chunks


def _assembled_counts(
    video: VideoSpec, pieces: list[np.ndarray], threshold: int | None
) -> VideoEvaluation:
    """Add up one video's chunk counts, in frame order (counts add up, docs/measures.md §2)."""
    return VideoEvaluation.from_per_frame(
        video.category, video.name, np.concatenate(pieces), threshold
    )


def _assembled_histograms(video: VideoSpec, pieces: list[np.ndarray]) -> VideoHistograms:
    """Add up one video's chunk histograms (counts add up, docs/measures.md §2)."""
    summed = np.asarray(np.sum(pieces, axis=0, dtype=np.int64))
    return VideoHistograms(video.category, video.name, summed, len(video.truth_frames))


@overload
def _run_jobs(
    kind: Literal["counts"],
    jobs: Sequence[tuple[VideoSpec, FrameSource]],
    threshold: int | None,
    workers: int,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
) -> list[VideoEvaluation]: ...


@overload
def _run_jobs(
    kind: Literal["histograms"],
    jobs: Sequence[tuple[VideoSpec, FrameSource]],
    threshold: int | None,
    workers: int,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
) -> list[VideoHistograms]: ...


def _run_jobs(
    kind: _Kind,
    jobs: Sequence[tuple[VideoSpec, FrameSource]],
    threshold: int | None,
    workers: int,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
) -> list[VideoEvaluation] | list[VideoHistograms]:
    workers = check_workers(workers)
    threshold = check_threshold(threshold)
    total = sum(len(video.truth_frames) for video, _ in jobs)
    if not jobs:
        return []
    for video, _ in jobs:
        check_temporal_roi(video)
    strays = [StrayLevels() for _ in jobs]
    chunks = _plan(kind, jobs, threshold, workers)
    if workers > 1 and len(chunks) > 1:
        sizes = [len(c.frames) for c in chunks]
        pieces = map_chunks(_run_chunk, chunks, sizes, workers, progress, cancel)
        per_video: list[list[np.ndarray]] = [[] for _ in jobs]
        for chunk, (piece, stray) in zip(chunks, pieces):
            per_video[chunk.position].append(piece)
            strays[chunk.position].merge(stray)
        _warn_stray_levels(jobs, strays)
        if kind == "counts":
            return [
                _assembled_counts(video, parts, threshold)
                for (video, _), parts in zip(jobs, per_video)
            ]
        return [_assembled_histograms(video, parts) for (video, _), parts in zip(jobs, per_video)]
    evaluations: list[VideoEvaluation] = []
    histograms: list[VideoHistograms] = []
    offset = 0
    for (video, source), stray in zip(jobs, strays):
        step = shifted(progress, offset, total)
        if kind == "counts":
            evaluation, found = _count_video(video, source, threshold, None, step, cancel)
            evaluations.append(evaluation)
        else:
            histogram, found = _histograms_video(video, source, None, step, cancel)
            histograms.append(histogram)
        stray.merge(found)
        offset += len(video.truth_frames)
    _warn_stray_levels(jobs, strays)
    return evaluations if kind == "counts" else histograms


def _warn_stray_levels(
    jobs: Sequence[tuple[VideoSpec, FrameSource]], strays: Sequence[StrayLevels]
) -> None:
    """One warning per video whose ground truth has levels other than CDnet's five."""
    for (video, _), stray in zip(jobs, strays):
        stray.warn(video)


def evaluate_videos(
    jobs: Sequence[tuple[VideoSpec, FrameSource]],
    threshold: int | None = None,
    workers: int = 1,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> list[VideoEvaluation]:
    """Evaluate ``(video, source)`` pairs over their temporal ROIs (docs/measures.md §1).

    With ``workers > 1`` every video's frames are split into contiguous
    chunks evaluated by that many worker processes, and the chunks' counts
    are summed; the result is identical to ``workers=1``. Sources must then be
    picklable, and a script calling this must guard its top level with
    ``if __name__ == "__main__":`` (workers import the main module). Progress
    counts frames over all videos; cancellation stops after the running chunks.
    """
    return _run_jobs("counts", jobs, threshold, workers, progress, cancel)


def evaluate_method(
    videos: Sequence[VideoSpec],
    results: str | Path,
    threshold: int | None = None,
    workers: int = 1,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    pattern: str | None = None,
    offset: int = 0,
) -> list[VideoEvaluation]:
    """Evaluate one method's results on every video (docs/measures.md §1, §10).

    Parameters
    ----------
    videos
        The dataset's videos (e.g. from :func:`~referee.core.formats.cdnet.discover_videos`).
    results, pattern, offset
        Where the method's masks are: see :func:`result_sources`.
    threshold
        Detection threshold option (``None``: value == 255).
    workers
        Worker processes; 1 evaluates in this process.
    progress, cancel
        Progress in frames over all videos; cancellation token.

    Returns
    -------
    One :class:`VideoEvaluation` per video, in the order of ``videos``.
    """
    check_threshold(threshold)
    jobs = list(zip(videos, result_sources(videos, results, pattern, offset)))
    return evaluate_videos(jobs, threshold, workers, progress, cancel)


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


def score_histograms_method(
    videos: Sequence[VideoSpec],
    results_root: str | Path,
    workers: int = 1,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> list[VideoHistograms]:
    """Score histograms of a soft result tree (score maps 0..255) on every video (docs/measures.md §3)."""
    jobs = list(zip(videos, result_sources(videos, results_root)))
    return _run_jobs("histograms", jobs, None, workers, progress, cancel)
