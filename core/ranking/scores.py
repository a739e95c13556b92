"""Per-frame disagreement of every video, from masks, boxes or actions (docs/measures.md §8)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple, Protocol, TypeVar

import numpy as np

from referee.core import cluster
from referee.core.errors import InvalidOptionError, RefereeError
from referee.core.formats.cdnet import read_roi
from referee.core.frames.sources import FrameSource, masks_by_frame
from referee.core.measures.boxes import VideoBoxes
from referee.core.measures.choices import MAPPINGS
from referee.core.model.annotations import ACTION_CLASSES, VideoAnnotation
from referee.core.model.videos import VideoSpec
from referee.core.parallel import chunk_size, map_chunks, resolve_workers, video_chunks
from referee.core.progress import CancelToken, ProgressCallback, check, report, shifted
from referee.core.ranking.choices import (
    CLASSES,
    MASK_CRITERIA,
    PAIRWISE_DICE,
    PAIRWISE_FDA,
    VOTE_ENTROPY,
)
from referee.core.ranking.criteria import (
    FrameScores,
    _check_criterion,
    _check_pair,
    fda_disagreement,
    score_mask_frames,
)


def mask_frame_scores(
    video: VideoSpec,
    sources: Mapping[str, FrameSource],
    criterion: str = VOTE_ENTROPY,
    pair: tuple[str, str] | None = None,
    threshold: int | None = None,
    frames: Iterable[int] | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> FrameScores:
    """Per-frame disagreement of the detectors' masks on one video, streaming (docs/measures.md §8).

    Parameters
    ----------
    video
        The video: pixels inside its ``ROI.bmp`` are evaluated (every pixel when
        it has none); ground truth is not read.
    sources
        Each detector's masks, by name. ``pairwise-dice`` reads only the two
        compared detectors; the other criteria read all of them.
    criterion, pair, threshold
        See :func:`score_mask_frames`.
    frames
        Increasing frame numbers; default the video's temporal ROI.
    progress, cancel
        ``(frames done, frames total)`` after every frame / polled between frames.

    Raises
    ------
    MissingFrameError, InputFileError, SizeMismatchError
        Missing or unreadable masks, sizes differing from the ROI (or from the
        first mask), naming the files.
    CancelledError
        If ``cancel`` is set.
    """
    methods = tuple(sources)
    _check_criterion(criterion, MASK_CRITERIA)
    a, b = _check_pair(methods, None if criterion == VOTE_ENTROPY else pair)
    if criterion == PAIRWISE_DICE:
        methods, pair = (methods[a], methods[b]), None
    numbers = video.frames if frames is None else [int(i) for i in frames]
    check(cancel)
    roi = read_roi(video.roi_path) if video.roi_path.exists() else None
    if roi is not None and not roi.any():
        raise RefereeError(
            f"{video.roi_path}: the region of interest holds no pixel; "
            "every pixel outside it is ignored, so nothing would be scored"
        )
    stream = masks_by_frame(
        [sources[m] for m in methods],
        numbers,
        None if roi is None else roi.shape,
        str(video.roi_path),
    )
    return score_mask_frames(
        stream,
        methods,
        criterion,
        pair,
        roi,
        video.label,
        threshold,
        len(numbers),
        progress,
        cancel,
    )


class _MaskChunk(NamedTuple):
    """A range of one video's frames, scored in a worker."""

    position: int
    video: VideoSpec
    sources: dict[str, FrameSource]
    criterion: str
    pair: tuple[str, str] | None
    threshold: int | None
    frames: Sequence[int]


def _score_chunk(chunk: _MaskChunk) -> FrameScores:
    """Score one chunk (module level so that workers can run it)."""
    return mask_frame_scores(
        chunk.video, chunk.sources, chunk.criterion, chunk.pair, chunk.threshold, chunk.frames
    )


def mask_scores(
    videos: Sequence[VideoSpec],
    sources: Mapping[str, Sequence[FrameSource]],
    criterion: str = VOTE_ENTROPY,
    pair: tuple[str, str] | None = None,
    threshold: int | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    workers: int | None = 1,
) -> list[FrameScores]:
    """:func:`mask_frame_scores` of every video over its temporal ROI (docs/measures.md §8).

    ``sources[method][v]`` is that method's masks of ``videos[v]`` (e.g. from
    :func:`~referee.core.frames.results.result_sources`). Progress counts frames over
    all videos. With more than one worker (``None``: every available core) or
    on a cluster, frame ranges are scored by workers; the scores are the same.
    """
    for method, per_video in sources.items():
        if len(per_video) != len(videos):
            raise InvalidOptionError(
                f"{method}: {len(per_video)} result sources for {len(videos)} videos"
            )
    total = sum(v.n_frames for v in videos)
    spread = resolve_workers(workers)
    if spread > 1 or cluster.current_client() is not None:
        return _mask_scores_in_chunks(
            videos, sources, criterion, pair, threshold, spread, progress, cancel
        )
    out = []
    offset = 0
    for index, video in enumerate(videos):
        step = shifted(progress, offset, total)
        out.append(
            mask_frame_scores(
                video,
                {m: s[index] for m, s in sources.items()},
                criterion,
                pair,
                threshold,
                None,
                step,
                cancel,
            )
        )
        offset += video.n_frames
    return out


def _mask_scores_in_chunks(
    videos: Sequence[VideoSpec],
    sources: Mapping[str, Sequence[FrameSource]],
    criterion: str,
    pair: tuple[str, str] | None,
    threshold: int | None,
    workers: int,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
) -> list[FrameScores]:
    """:func:`mask_scores` with every video split into frame ranges scored by workers."""
    size = chunk_size(sum(v.n_frames for v in videos), workers)
    chunks = []
    for position, video in enumerate(videos):
        by_method = {m: s[position] for m, s in sources.items()}
        frames = video.frames
        for first, last in video_chunks(len(frames), by_method.values(), size):
            piece = frames[first : last + 1]
            chunks.append(_MaskChunk(position, video, by_method, criterion, pair, threshold, piece))
    sizes = [len(c.frames) for c in chunks]
    pieces = map_chunks(_score_chunk, chunks, sizes, workers, progress, cancel, threads=True)
    out = []
    for position in range(len(videos)):
        parts = [piece for c, piece in zip(chunks, pieces) if c.position == position]
        head = parts[0]
        out.append(
            FrameScores(
                head.video,
                head.criterion,
                head.methods,
                np.concatenate([piece.frames for piece in parts]),
                np.concatenate([piece.scores for piece in parts]),
                head.committee,
            )
        )
    return out


# --- boxes ---------------------------------------------------------------------------------


def box_frame_scores(
    a: VideoBoxes,
    b: VideoBoxes,
    methods: tuple[str, str] = ("A", "B"),
    frames: Iterable[int] | None = None,
    mapping: str = "hungarian",
    class_aware: bool = False,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> FrameScores:
    """``1 − FDA`` between two detectors' boxes on every frame of one video (docs/measures.md §8b, §5).

    Parameters
    ----------
    a, b
        The two detectors' boxes of the same video (``a`` plays the ground
        truth's role in the mapping); the result carries ``a``'s name.
    methods
        The two detectors' names.
    frames
        Frame numbers to score; default every frame where either detector has a
        box (a frame where neither has one would score 0; it is not listed, so
        the work follows the boxes, not the span of frame numbers).
    mapping, class_aware
        As in :func:`~referee.core.measures.boxes.evaluate_boxes`.
    progress, cancel
        In frames; polled every 64 frames.
    """
    if mapping not in MAPPINGS:
        raise InvalidOptionError(
            f"unknown mapping {mapping!r}; choose one of {', '.join(MAPPINGS)}"
        )
    if len(methods) != 2 or methods[0] == methods[1]:
        raise InvalidOptionError(f"give two different detector names, not {methods!r}")
    if frames is None:
        numbers = sorted({f for side in (a, b) for f, boxes in side.frames.items() if len(boxes)})
    else:
        numbers = sorted({int(f) for f in frames})
    scores = np.zeros(len(numbers))
    for k, frame in enumerate(numbers):
        if k % 64 == 0:
            check(cancel)
            report(progress, k, len(numbers))
        scores[k] = fda_disagreement(a.at(frame), b.at(frame), mapping, class_aware)
    report(progress, len(numbers), len(numbers))
    return FrameScores(
        a.name, PAIRWISE_FDA, tuple(methods), np.array(numbers, dtype=np.int64), scores
    )


class _Named(Protocol):
    """A video's results that know the video's name."""

    @property
    def name(self) -> str: ...


_Video = TypeVar("_Video", bound=_Named)


def _by_name(videos: Iterable[_Video], what: str) -> dict[str, _Video]:
    out: dict[str, _Video] = {}
    for video in videos:
        if video.name in out:
            raise InvalidOptionError(
                f"{what} holds two videos named {video.name!r}; video names must be unique"
            )
        out[video.name] = video
    return out


def box_scores(
    a: Iterable[VideoBoxes],
    b: Iterable[VideoBoxes],
    methods: tuple[str, str] = ("A", "B"),
    mapping: str = "hungarian",
    class_aware: bool = False,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> list[FrameScores]:
    """:func:`box_frame_scores` of every video, paired by name (docs/measures.md §8b).

    Videos follow ``a``'s order, then those only in ``b``; a video missing on
    one side has no box there (its frames with boxes score 1).
    """
    a_videos = _by_name(a, f"the boxes of {methods[0]}")
    b_videos = _by_name(b, f"the boxes of {methods[1]}")
    names = list(a_videos) + [n for n in b_videos if n not in a_videos]
    out = []
    for index, name in enumerate(names):
        check(cancel)
        out.append(
            box_frame_scores(
                a_videos.get(name, VideoBoxes(name)),
                b_videos.get(name, VideoBoxes(name)),
                methods,
                None,
                mapping,
                class_aware,
                None,
                cancel,
            )
        )
        report(progress, index + 1, len(names))
    return out


# --- action classes ------------------------------------------------------------------------


def class_frame_scores(
    videos: Sequence[VideoAnnotation | None],
    methods: Sequence[str],
    name: str = "",
    frames: Iterable[int] | None = None,
) -> FrameScores:
    """Per-frame class disagreement of K detectors' actions on one video (docs/measures.md §8).

    Parameters
    ----------
    videos
        Each detector's actions of the video (``None``: the detector has none).
    methods
        The detectors' names, same order.
    name
        The video's label; default the first given video's name.
    frames
        Frame numbers to score; default every frame covered by any detector's
        action (a frame covered by none would score 0; it is not listed).
    """
    if len(videos) != len(methods) or len(methods) < 2:
        raise InvalidOptionError(
            "class disagreement needs at least two detectors, one annotation per detector"
        )
    actions = [a for v in videos if v is not None for a in v.actions]
    if not name:
        name = next((v.name for v in videos if v is not None), "")
    if frames is None:
        numbers = np.unique(np.concatenate([a.frames for a in actions] or [np.zeros(0, np.int64)]))
    else:
        numbers = np.array(sorted({int(f) for f in frames}), dtype=np.int64)
    union = np.zeros(len(numbers), dtype=np.int64)
    common = np.full(len(numbers), -1, dtype=np.int64)
    for video in videos:
        present = np.zeros(len(numbers), dtype=np.int64)  # bit c set iff class c is present
        for action in () if video is None else video.actions:
            lo, hi = np.searchsorted(numbers, [action.first, action.last + 1])
            present[lo:hi] |= np.left_shift(np.int64(1), action.action_class)
        union |= present
        common &= present
    n_union = _popcount(union)
    scores = np.where(n_union > 0, 1.0 - _popcount(common) / np.maximum(n_union, 1), 0.0)
    return FrameScores(name, CLASSES, tuple(methods), numbers, scores)


def _popcount(values: np.ndarray) -> np.ndarray:
    """Number of class bits (1 … the largest LIRIS class) set in each value."""
    counts = np.zeros(len(values), dtype=np.int64)
    for bit in range(1, max(ACTION_CLASSES) + 1):
        counts += (values >> bit) & 1
    return counts


def class_scores(
    annotations: Mapping[str, Iterable[VideoAnnotation]], cancel: CancelToken | None = None
) -> list[FrameScores]:
    """:func:`class_frame_scores` of every video, detectors paired by video name (docs/measures.md §8).

    ``annotations`` maps each detector's name to its videos (an
    :class:`~referee.core.model.annotations.AnnotationSet` works). Videos follow the
    first detector's order, then those first seen in later ones; a detector
    without a video has no action in it.
    """
    methods = list(annotations)
    per_method = [_by_name(annotations[m], f"the actions of {m}") for m in methods]
    names = list(dict.fromkeys(n for videos in per_method for n in videos))
    out = []
    for name in names:
        check(cancel)
        out.append(class_frame_scores([videos.get(name) for videos in per_method], methods, name))
    return out
