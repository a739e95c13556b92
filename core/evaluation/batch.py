"""Many videos and methods at once, in chunks of frames (docs/measures.md §1, §3).

Every chunk is a range of one video's frames compared with every method at
once, so each ground-truth frame is decoded once whatever the number of
methods. Chunks run on threads (decoding releases the interpreter lock) or on
a Dask cluster (:mod:`referee.core.cluster`); the counts add up to exactly what
one process computes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Literal, NamedTuple, TypeVar

import numpy as np

from referee.core import cluster
from referee.core.evaluation.ground_truth import StrayLevels, check_temporal_roi
from referee.core.evaluation.masks import (
    PER_FRAME_COLUMNS,
    VideoEvaluation,
    VideoHistograms,
    VideoPieces,
    count_video,
    histograms_video,
)
from referee.core.formats.images import decoded_in_python
from referee.core.frames.results import result_sources
from referee.core.frames.sources import FrameSource
from referee.core.measures.choices import check_threshold
from referee.core.measures.pixel import N_LEVELS
from referee.core.model.videos import VideoSpec
from referee.core.parallel import chunk_size, map_chunks, resolve_workers, video_chunks
from referee.core.progress import CancelToken, ProgressCallback, shifted

_Kind = Literal["counts", "histograms", "frame-histograms"]
"""What the chunks of a job compute: per-frame counts, or score histograms summed or per
frame."""

_Result = TypeVar("_Result", VideoEvaluation, VideoHistograms)


@dataclass(frozen=True)
class MissingResult:
    """A method's result on one video that could not be evaluated on a cluster, and why."""

    method: str
    video: str
    reason: str


@dataclass(frozen=True)
class MethodResults(Generic[_Result]):
    """Each method's per-video results, in the order of the videos, and what is missing.

    ``missing`` is empty unless the run was on a cluster: locally, a result that
    cannot be read stops the run with its error. ``stray`` holds the keys of the
    videos whose ground truth has grey levels other than CDnet's five (warned about).
    """

    results: dict[str, list[_Result]]
    missing: tuple[MissingResult, ...] = ()
    stray: frozenset[tuple[str, str]] = frozenset()


class _Chunk(NamedTuple):
    """A run of one video's frames, compared with every method's results."""

    kind: _Kind
    position: int  # position of the video in the job list
    video: VideoSpec
    sources: tuple[FrameSource, ...]
    threshold: int | None
    frames: Sequence[int]
    keep_going: bool


def _run_chunk(chunk: _Chunk) -> VideoPieces:
    """Evaluate one chunk (module level so that workers can run it)."""
    if chunk.kind == "counts":
        return count_video(
            chunk.video, chunk.sources, chunk.threshold, chunk.frames, keep_going=chunk.keep_going
        )
    return histograms_video(
        chunk.video,
        chunk.sources,
        chunk.frames,
        keep_going=chunk.keep_going,
        per_frame=chunk.kind == "frame-histograms",
    )


def _failed_chunk(chunk: _Chunk, error: BaseException) -> VideoPieces:
    """A chunk that kept failing on the cluster: every method misses its video."""
    first, last = chunk.frames[0], chunk.frames[-1]
    reason = f"frames {first}-{last} kept failing on the cluster ({type(error).__name__}: {error})"
    return VideoPieces(
        [np.zeros(0)] * len(chunk.sources), [reason] * len(chunk.sources), StrayLevels()
    )


def _plan(
    kind: _Kind,
    videos: Sequence[VideoSpec],
    sources: Sequence[tuple[FrameSource, ...]],
    threshold: int | None,
    workers: int,
    keep_going: bool,
) -> list[_Chunk]:
    size = chunk_size(sum(len(video.truth_frames) for video in videos), workers)
    chunks = []
    for position, (video, video_sources) in enumerate(zip(videos, sources)):
        frames = video.truth_frames
        for first, last in video_chunks(len(frames), video_sources, size):
            piece = frames[first : last + 1]
            chunks.append(
                _Chunk(kind, position, video, video_sources, threshold, piece, keep_going)
            )
    return chunks


def _decoded_by_python(
    videos: Sequence[VideoSpec], sources: Sequence[tuple[FrameSource, ...]]
) -> bool:
    """Whether the first video's first frame, its ground truth and every source's, are
    PNG files that :func:`~referee.core.formats.png_decode.decode_grey_png` decodes
    (:func:`~referee.core.formats.images.decoded_in_python`).

    Such frames cost mostly Python, run between short calls that release the
    interpreter's lock: threads then take turns at the lock and together take longer
    than one thread (1.2 to 1.9 times on two cores, ``benchmarks/evaluate_highway.py``),
    so their chunks run in this thread. Frames that OpenCV or PyAV decode (JPEG, colour
    images, mask videos), which release the lock for long, keep their threads.
    """
    if not videos or videos[0].layout is not None or not len(videos[0].truth_frames):
        return False
    first = videos[0].truth_frames[0]
    files = [videos[0].gt_path(first), *(source.path_of(first) for source in sources[0])]
    return all(decoded_in_python(file) for file in files)


def _run_jobs(
    kind: _Kind,
    videos: Sequence[VideoSpec],
    sources: Mapping[str, Sequence[FrameSource]],
    threshold: int | None,
    workers: int | None,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
) -> tuple[list[str], list[list[VideoPieces]]]:
    """Every video's pieces (one per chunk, in frame order) for every method of ``sources``."""
    names = list(sources)
    by_video = [tuple(sources[name][v] for name in names) for v in range(len(videos))]
    for video in videos:
        check_temporal_roi(video)
    on_cluster = cluster.current_client() is not None
    spread = resolve_workers(workers)
    chunks = _plan(kind, videos, by_video, threshold, spread, on_cluster)
    per_video: list[list[VideoPieces]] = [[] for _ in videos]
    threads = spread > 1 and len(chunks) > 1 and not _decoded_by_python(videos, by_video)
    if on_cluster or threads:
        sizes = [len(c.frames) for c in chunks]
        pieces = map_chunks(
            _run_chunk,
            chunks,
            sizes,
            workers,
            progress,
            cancel,
            threads=True,
            on_failure=_failed_chunk,
        )
        for chunk, piece in zip(chunks, pieces):
            per_video[chunk.position].append(piece)
        return names, per_video
    total = sum(len(video.truth_frames) for video in videos)
    offset = 0
    for video, video_sources, pieces_of_video in zip(videos, by_video, per_video):
        step = shifted(progress, offset, total)
        if kind == "counts":
            piece = count_video(video, video_sources, threshold, None, step, cancel)
        else:
            piece = histograms_video(
                video, video_sources, None, step, cancel, per_frame=kind == "frame-histograms"
            )
        pieces_of_video.append(piece)
        offset += len(video.truth_frames)
    return names, per_video


def _per_method(
    videos: Sequence[VideoSpec], names: Sequence[str], per_video: Sequence[Sequence[VideoPieces]]
) -> tuple[
    dict[str, list[tuple[VideoSpec, list[np.ndarray]]]],
    tuple[MissingResult, ...],
    frozenset[tuple[str, str]],
]:
    """Each method's chunk values video by video, the videos it misses and the videos with
    stray ground-truth levels (one warning per video)."""
    found: dict[str, list[tuple[VideoSpec, list[np.ndarray]]]] = {name: [] for name in names}
    missing = []
    strays = set()
    for video, pieces in zip(videos, per_video):
        stray = StrayLevels()
        for piece in pieces:
            stray.merge(piece.stray)
        stray.warn(video)
        if stray.frames:
            strays.add(video.key)
        for k, name in enumerate(names):
            reason = next((p.failures[k] for p in pieces if p.failures[k] is not None), None)
            if reason is None:
                found[name].append((video, [p.values[k] for p in pieces]))
            else:
                missing.append(MissingResult(name, video.label, reason))
    return found, tuple(missing), frozenset(strays)


def evaluate_methods(
    videos: Sequence[VideoSpec],
    sources: Mapping[str, Sequence[FrameSource]],
    threshold: int | None = None,
    workers: int | None = 1,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> MethodResults[VideoEvaluation]:
    """Every method's masks on every video, each ground-truth frame decoded once
    (docs/measures.md §1).

    Parameters
    ----------
    videos
        The dataset's videos, each over :attr:`VideoSpec.truth_frames`.
    sources
        ``sources[method][v]`` is that method's masks of ``videos[v]``
        (:func:`~referee.core.frames.results.result_sources`).
    threshold
        Detection threshold option (``None``: value == 255).
    workers
        Threads comparing frame ranges (``None``: every available core); 1
        streams every video in this thread. Inside
        :func:`referee.core.cluster.connected` the chunks run on the cluster.
    progress, cancel
        Progress in frames over all videos; cancellation token.

    Ground truth with grey levels other than CDnet's five gives one
    :class:`RefereeWarning` per video. The result is identical whatever the
    workers.
    """
    threshold = check_threshold(threshold)
    names, per_video = _run_jobs("counts", videos, sources, threshold, workers, progress, cancel)
    found, missing, stray = _per_method(videos, names, per_video)
    empty = np.zeros((0, len(PER_FRAME_COLUMNS)), dtype=np.int64)
    results = {
        name: [
            VideoEvaluation.from_per_frame(
                video.category, video.name, np.concatenate([empty, *values]), threshold
            )
            for video, values in pieces
        ]
        for name, pieces in found.items()
    }
    return MethodResults(results, missing, stray)


def histograms_methods(
    videos: Sequence[VideoSpec],
    sources: Mapping[str, Sequence[FrameSource]],
    workers: int | None = 1,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> MethodResults[VideoHistograms]:
    """Score histograms of every method's soft results on every video, each ground-truth
    frame decoded once (docs/measures.md §3; parameters as :func:`evaluate_methods`)."""
    names, per_video = _run_jobs("histograms", videos, sources, None, workers, progress, cancel)
    found, missing, stray = _per_method(videos, names, per_video)
    empty = np.zeros((3, N_LEVELS), dtype=np.int64)
    results = {
        name: [
            VideoHistograms(
                video.category,
                video.name,
                np.asarray(np.sum([empty, *values], axis=0, dtype=np.int64)),
                len(video.truth_frames),
            )
            for video, values in pieces
        ]
        for name, pieces in found.items()
    }
    return MethodResults(results, missing, stray)


@dataclass(frozen=True)
class FrameHistograms:
    """Per method and video key, an ``int64`` array ``(n, 1 + 3·256)``: each row a frame
    number and that frame's score histograms; what is missing; the videos with stray
    ground-truth levels."""

    rows: dict[tuple[str, tuple[str, str]], np.ndarray]
    missing: tuple[MissingResult, ...] = ()
    stray: frozenset[tuple[str, str]] = frozenset()


def frame_histograms_methods(
    videos: Sequence[VideoSpec],
    sources: Mapping[str, Sequence[FrameSource]],
    workers: int | None = 1,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> FrameHistograms:
    """:func:`histograms_methods` frame by frame (parameters alike)."""
    names, per_video = _run_jobs(
        "frame-histograms", videos, sources, None, workers, progress, cancel
    )
    found, missing, stray = _per_method(videos, names, per_video)
    empty = np.zeros((0, 1 + 3 * N_LEVELS), dtype=np.int64)
    rows = {
        (name, video.key): np.concatenate([empty, *values])
        for name, pieces in found.items()
        for video, values in pieces
    }
    return FrameHistograms(rows, missing, stray)


def evaluate_method(
    videos: Sequence[VideoSpec],
    results: str | Path,
    threshold: int | None = None,
    workers: int | None = 1,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    pattern: str | None = None,
    offset: int = 0,
) -> list[VideoEvaluation]:
    """One method's results on every video (:func:`evaluate_methods`; docs/measures.md §1, §10).

    ``results``, ``pattern`` and ``offset`` say where the masks are: see
    :func:`~referee.core.frames.results.result_sources`.
    """
    check_threshold(threshold)
    sources = {"": result_sources(videos, results, pattern, offset)}
    return evaluate_methods(videos, sources, threshold, workers, progress, cancel).results[""]


def score_histograms_method(
    videos: Sequence[VideoSpec],
    results_root: str | Path,
    workers: int | None = 1,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> list[VideoHistograms]:
    """Score histograms of one soft result tree on every video (docs/measures.md §3)."""
    sources = {"": result_sources(videos, results_root)}
    return histograms_methods(videos, sources, workers, progress, cancel).results[""]
