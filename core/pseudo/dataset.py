"""Pseudo evaluation of a dataset, summarized over videos (docs/measures.md §2, §7)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    NamedTuple,
)

import numpy as np

from referee.core import cluster
from referee.core.errors import InvalidOptionError, RefereeError
from referee.core.evaluation.ground_truth import check_temporal_roi
from referee.core.evaluation.masks import VideoEvaluation
from referee.core.formats.datasets import read_video_roi
from referee.core.frames.results import result_sources
from referee.core.frames.sources import masks_by_frame
from referee.core.measures.indicators import (
    IndicatorValue,
)
from referee.core.model.videos import VideoKey, VideoSpec, video_label
from referee.core.parallel import (
    check_workers,
    chunk_size,
    map_chunks,
    resolve_workers,
    video_chunks,
)
from referee.core.progress import CancelToken, ProgressCallback, check, shifted
from referee.core.pseudo.committee import _Rules
from referee.core.pseudo.committee_options import CommitteeOptions
from referee.core.pseudo.consensus import ncc_from_sums, psnr_from_sums
from referee.core.pseudo.engine import _Partial, _stream, needs_entropy_pass
from referee.core.pseudo.true_counts import TrueCounter, video_evaluations
from referee.core.pseudo.video import (
    PseudoVideoResult,
    _finish,
    _Job,
    _job,
    _roi_of,
    entropy_lut,
    with_entropy,
)

if TYPE_CHECKING:
    from referee.core.measures.summarize import Summary


# ---------------------------------------------------------------------------
# Many videos, optionally in worker processes


class _Chunk(NamedTuple):
    """Consecutive frames of one video, evaluated in a worker process."""

    video_index: int  # position of the video in the job list
    position: int  # position of the first frame in the video's frame list
    job: _Job
    methods: tuple[str, ...]
    committee: CommitteeOptions
    entropy: bool
    lut: np.ndarray | None  # H(P) per vote code: a second pass for the entropy map only
    truth: bool = False  # also count every mask against the ground truth


def _run_chunk(chunk: _Chunk) -> _Partial:
    """Evaluate one chunk (module level so worker processes can run it)."""
    job = chunk.job
    roi = _roi_of(job.video)
    return _stream(
        masks_by_frame(job.sources, job.frames, job.shape, job.reference),
        _Rules(chunk.committee, chunk.methods),
        roi,
        job.shape,
        chunk.entropy,
        len(job.frames),
        None,
        None,
        chunk.lut,
        _true_counter(job, roi, chunk.committee, len(chunk.methods)) if chunk.truth else None,
    )


def _true_counter(
    job: _Job, roi: np.ndarray | None, committee: CommitteeOptions, k: int
) -> TrueCounter:
    """The counter of a job's masks against its ground truth, under the committee's
    detection rule (the ROI is read again where the video has no file of it: a CDnet
    video's is then an error naming it, a LASIESTA sequence's the whole frame)."""
    video = job.video
    return TrueCounter(
        video,
        read_video_roi(video) if roi is None else roi,
        committee.threshold,
        k,
        len(job.frames),
    )


def _plan(
    jobs: Sequence[_Job],
    methods: tuple[str, ...],
    committee: CommitteeOptions,
    entropy: bool,
    workers: int,
    luts: Sequence[np.ndarray | None],
    truth: bool,
) -> list[_Chunk]:
    size = chunk_size(sum(len(job.frames) for job in jobs), workers)
    chunks = []
    for index, (job, lut) in enumerate(zip(jobs, luts)):
        for first, last in video_chunks(len(job.frames), job.sources, size):
            piece = job._replace(frames=job.frames[first : last + 1])
            chunks.append(_Chunk(index, first, piece, methods, committee, entropy, lut, truth))
    return chunks


def _passes(
    jobs: Sequence[_Job],
    rois: Sequence[np.ndarray | None],
    methods: tuple[str, ...],
    committee: CommitteeOptions,
    entropy: bool,
    luts: Sequence[np.ndarray | None],
    workers: int | None,
    progress: ProgressCallback,
    cancel: CancelToken | None,
    truth: bool = False,
) -> list[list[_Partial]]:
    """One pass over every job's frames: each video's pieces, in frame order; with
    ``truth``, each piece also holds every mask's counts against the ground truth.

    With more than one worker (or on a cluster) the frames are split into
    chunks evaluated in worker processes, or, with ``truth``, on threads: decoding
    the ground truth besides the masks makes the pass mostly decoding, which
    releases the interpreter lock (as ``evaluate_methods`` does); otherwise each
    video is streamed whole.
    """
    on_cluster = cluster.current_client() is not None
    spread = resolve_workers(workers)
    chunks = (
        _plan(jobs, methods, committee, entropy, spread, luts, truth)
        if spread > 1 or on_cluster
        else []
    )
    per_video: list[list[_Partial]] = [[] for _ in jobs]
    if len(chunks) > 1 or (on_cluster and chunks):
        sizes = [len(c.job.frames) for c in chunks]
        pieces = map_chunks(_run_chunk, chunks, sizes, workers, progress, cancel, threads=truth)
        for chunk, piece in zip(chunks, pieces):
            per_video[chunk.video_index].append(piece)
        return per_video
    rules = _Rules(committee, methods)
    offset = 0
    for job, roi, lut, pieces_of_video in zip(jobs, rois, luts, per_video):
        pieces_of_video.append(
            _stream(
                masks_by_frame(job.sources, job.frames, job.shape, job.reference),
                rules,
                roi,
                job.shape,
                entropy,
                len(job.frames),
                shifted(progress, offset, 0),
                cancel,
                lut,
                _true_counter(job, roi, committee, len(methods)) if truth else None,
            )
        )
        offset += len(job.frames)
    return per_video


@dataclass(frozen=True)
class PseudoSummary:
    """One detector's pseudo results summarized over videos (docs/measures.md §2 applied to §7).

    ``summary`` blends the videos' normalized pseudo matrices with the weights
    of its scheme; ``ncc`` and ``psnr`` come from the same blend applied to
    the normalized sums ``(Σs, Σp, Σp², Σsp) / n``, i.e. they are the NCC and
    PSNR of the weighted mixture of the videos' pixels.
    """

    method: str
    summary: Summary
    ncc: IndicatorValue
    psnr: IndicatorValue

    @property
    def values(self) -> dict[str, IndicatorValue]:
        """Every registry indicator of the blend, then ``ncc`` and ``psnr``."""
        return {**self.summary.values, "ncc": self.ncc, "psnr": self.psnr}


def summarize_pseudo(
    videos: Sequence[PseudoVideoResult],
    scheme: str = "auto",
    custom: Mapping[VideoKey, float] | None = None,
) -> dict[str, PseudoSummary]:
    """Summarize every detector's pseudo matrices over videos, like real ones (docs/measures.md §2, §7).

    ``scheme`` and ``custom`` are those of :func:`~referee.core.measures.summarize.summarize`.

    Raises
    ------
    RefereeError
        No video, videos evaluated with different detectors, or any error of
        :func:`~referee.core.measures.summarize.summarize`.
    """
    from referee.core.measures.summarize import summarize

    if not videos:
        raise RefereeError("nothing to summarize: no video")
    methods = videos[0].methods
    for v in videos:
        if v.methods != methods:
            raise RefereeError(
                f"video {video_label(v.category, v.video)} was evaluated with "
                f"detectors {', '.join(v.methods)}, not {', '.join(methods)}"
            )
    out = {}
    for method in methods:
        summary = summarize([v.confusion(method) for v in videos], scheme, custom)
        blended = np.zeros(4)
        for v in videos:
            cm, w = v.totals[method], summary.weights[v.key]
            blended += (
                w
                * np.array([cm.tp + cm.fp, cm.tp + cm.fn, v.sum_p_squared[method], cm.tp])
                / cm.total
            )
        s, p, p2, sp = blended
        out[method] = PseudoSummary(
            method, summary, ncc_from_sums(1.0, s, p, p2, sp), psnr_from_sums(1.0, s, p2, sp)
        )
    return out


@dataclass(frozen=True, eq=False)
class PseudoResult:
    """Pseudo evaluation of a committee of detectors on a dataset (docs/measures.md §7).

    ``videos`` in the order given; ``summaries`` per method, summarized with
    the weight scheme :attr:`scheme`.
    """

    methods: tuple[str, ...]
    options: CommitteeOptions
    videos: tuple[PseudoVideoResult, ...]
    summaries: dict[str, PseudoSummary]

    @property
    def scheme(self) -> str:
        """The weight scheme actually used (``auto`` resolved)."""
        return next(iter(self.summaries.values())).summary.scheme

    def video(self, key: VideoKey) -> PseudoVideoResult:
        """The result of one video by ``(category, name)``."""
        for v in self.videos:
            if v.key == key:
                return v
        raise InvalidOptionError(f"no video {key[0]}/{key[1]} in this result")


def pseudo_evaluate(
    videos: Sequence[VideoSpec],
    results_by_method: Mapping[str, str | Path],
    committee: CommitteeOptions | None = None,
    workers: int | None = 1,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    scheme: str = "auto",
    custom: Mapping[VideoKey, float] | None = None,
    entropy: bool = True,
) -> PseudoResult:
    """Pseudo-evaluate K detectors on every video without ground truth (docs/measures.md §7).

    Parameters
    ----------
    videos
        The videos (e.g. from ``discover_videos(root, require_groundtruth=False)``).
        Each video's frames are its temporal ROI, or, without
        ``temporalROI.txt``, the frames every detector has; its pixels are
        those inside ``ROI.bmp``, or the whole frame without one.
    results_by_method
        Each detector's results root (see
        :func:`~referee.core.frames.results.result_sources`), by method name; the
        order is the committee order (and that of ``committee.weights``).
    committee
        Committee options (trivial classifiers, leave-one-out, weights, threshold;
        default: :class:`CommitteeOptions`' defaults).
    workers
        Worker processes; with more than 1 each video's frames are split into
        contiguous chunks whose sums are added (identical result). Sources must
        then be picklable and a calling script must guard its top level with
        ``if __name__ == "__main__":``.
    progress, cancel
        Progress in frames over all videos; cancellation token.
    scheme, custom
        Weights of the summary over videos (docs/measures.md §2), as for
        :func:`~referee.core.measures.summarize.summarize`.
    entropy
        Also accumulate each video's per-pixel mean of ``H(P)``.

    Raises
    ------
    InvalidOptionError
        Bad committee options, or a bad number of workers.
    InputFileError, MissingFrameError, SizeMismatchError
        Missing, unreadable or mis-sized masks or ROI, naming the files.
    CancelledError
        If ``cancel`` is set.
    """
    result, _ = _evaluate(
        videos, results_by_method, committee, workers, progress, cancel, scheme, custom, entropy
    )
    return result


def pseudo_evaluate_with_truth(
    videos: Sequence[VideoSpec],
    results_by_method: Mapping[str, str | Path],
    committee: CommitteeOptions | None = None,
    *,
    workers: int | None = 1,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    scheme: str = "auto",
    custom: Mapping[VideoKey, float] | None = None,
    entropy: bool = True,
) -> tuple[PseudoResult, dict[str, list[VideoEvaluation]]]:
    """:func:`pseudo_evaluate`, and every detector's true counts of every video from the
    same pass over the frames (docs/measures.md §1, §7): each mask and each ground-truth
    frame is decoded once for both.

    Every video needs ``groundtruth/``, ``ROI.bmp`` and ``temporalROI.txt``, and
    ground truth on every frame of its temporal ROI. The true counts of a detector
    are :class:`VideoEvaluation` s under the committee's detection rule
    (``committee.threshold``), identical to those of
    :func:`~referee.core.evaluation.batch.evaluate_methods` over the same frames;
    stray ground-truth levels give one warning per video.

    Raises
    ------
    MissingFrameError, InputFileError, SizeMismatchError
        Besides :func:`pseudo_evaluate`'s: a missing or unreadable ground-truth frame,
        ``ROI.bmp`` or ``temporalROI.txt``, or a size that differs, naming the files.
    """
    for video in videos:
        check_temporal_roi(video)
    result, pieces = _evaluate(
        videos,
        results_by_method,
        committee,
        workers,
        progress,
        cancel,
        scheme,
        custom,
        entropy,
        truth=True,
    )
    true_pieces = [[piece.truth for piece in parts if piece.truth is not None] for parts in pieces]
    truth = video_evaluations(videos, result.methods, true_pieces, result.options.threshold)
    return result, truth


def _evaluate(
    videos: Sequence[VideoSpec],
    results_by_method: Mapping[str, str | Path],
    committee: CommitteeOptions | None,
    workers: int | None,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
    scheme: str,
    custom: Mapping[VideoKey, float] | None,
    entropy: bool,
    truth: bool = False,
) -> tuple[PseudoResult, list[list[_Partial]]]:
    """The pseudo result and the first pass's pieces of each video (with ``truth``, they
    hold the true counts)."""
    committee = CommitteeOptions() if committee is None else committee
    workers = check_workers(workers)
    methods = tuple(results_by_method)
    rules = _Rules(committee, methods)
    if not videos:
        raise RefereeError("no video to evaluate")
    check(cancel)
    per_method = [result_sources(videos, root) for root in results_by_method.values()]
    jobs, rois = [], []
    for v, video in enumerate(videos):
        job, roi = _job(video, [sources[v] for sources in per_method], None)
        jobs.append(job)
        rois.append(roi)
    again = [i for i, job in enumerate(jobs) if needs_entropy_pass(rules, job.shape, entropy)]
    first = sum(len(job.frames) for job in jobs)
    total = first + sum(len(jobs[i].frames) for i in again)
    first_pass = pieces = _passes(
        jobs,
        rois,
        methods,
        committee,
        entropy,
        [None] * len(jobs),
        workers,
        shifted(progress, 0, total),
        cancel,
        truth,
    )
    results = [
        _finish(job.video.category, job.video.name, methods, committee, parts, roi)
        for job, roi, parts in zip(jobs, rois, pieces)
    ]
    if again:  # the model-based entropy map of large frames: H(W) per pixel, once W is known
        models = [results[i].model for i in again]
        luts = [entropy_lut(model) for model in models if model is not None]
        pieces = _passes(
            [jobs[i] for i in again],
            [rois[i] for i in again],
            methods,
            committee,
            entropy,
            luts,
            workers,
            shifted(progress, first, total),
            cancel,
        )
        for i, parts in zip(again, pieces):
            results[i] = with_entropy(results[i], parts)
    result = PseudoResult(
        methods, committee, tuple(results), summarize_pseudo(results, scheme, custom)
    )
    return result, first_pass
