"""Every method's per-frame counts and score histograms, read from a cache where their
files are unchanged (docs/measures.md §1, §3; DESIGN "Long work").

A frame's counts (or score histograms) for one method depend on its
ground-truth file, the method's mask (or score map) of that frame, the video's
ROI and the threshold. The cache keeps them per video and method, each row with
the stamps of the two files (:mod:`referee.core.cache.stamps`); a run computes
only the frames whose files changed (for the methods whose files changed) and
gives exactly what a run without cache gives.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from referee.core.cache.stamps import STAMP_WIDTH, file_stamps
from referee.core.cache.store import FrameCache, FrameTable
from referee.core.evaluation.batch import (
    MethodResults,
    MissingResult,
    evaluate_methods,
    frame_histograms_methods,
    histograms_methods,
)
from referee.core.evaluation.ground_truth import check_temporal_roi
from referee.core.evaluation.masks import PER_FRAME_COLUMNS, VideoEvaluation, VideoHistograms
from referee.core.formats.datasets import roi_file
from referee.core.frames.sources import (
    CdnetResultSource,
    FrameSource,
    MaskVideoSource,
    PatternFolderSource,
)
from referee.core.measures.choices import check_threshold
from referee.core.measures.pixel import N_LEVELS
from referee.core.model.frame_set import FrameSet
from referee.core.model.videos import VideoKey, VideoSpec
from referee.core.progress import CancelToken, ProgressCallback, shifted

#: What the tables hold; a new meaning of their values gets a new name.
COUNTS_KIND = "pixel-counts-1"
HISTOGRAMS_KIND = "score-histograms-1"
_COUNTS = len(PER_FRAME_COLUMNS) - 1
_HISTOGRAMS = 3 * N_LEVELS


@dataclass(frozen=True)
class _Rows:
    """Per-frame rows (frame number first) by method and video key, what is missing and
    the videos with stray ground-truth levels."""

    rows: dict[tuple[str, VideoKey], np.ndarray]
    missing: tuple[MissingResult, ...]
    stray: frozenset[VideoKey]


#: ``compute(videos, sources, progress) -> their rows``, over each video's truth frames.
_Compute = Callable[[list[VideoSpec], dict[str, list[FrameSource]], ProgressCallback], _Rows]


def source_identity(source: FrameSource) -> str | None:
    """What names a source's files, for a cache key (``None``: a source not cached)."""
    if isinstance(source, CdnetResultSource):
        return f"cdnet:{source.folder.resolve()}:{source.extension}"
    if isinstance(source, PatternFolderSource):
        return f"pattern:{source.folder.resolve()}:{source.pattern}:{source.offset}"
    if isinstance(source, MaskVideoSource):
        return f"video:{source.path.resolve()}"
    return None


@dataclass
class _Slot:
    """One method on one video: its table (``None``: not cached), each frame's stamps,
    whether they are usable, and which frames the table had."""

    table: FrameTable | None
    stamps: np.ndarray
    usable: np.ndarray
    hit: np.ndarray
    values: np.ndarray


def evaluate_methods_cached(
    videos: Sequence[VideoSpec],
    sources: Mapping[str, Sequence[FrameSource]],
    threshold: int | None,
    workers: int | None,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
    cache: FrameCache | None,
) -> MethodResults[VideoEvaluation]:
    """:func:`~referee.core.evaluation.batch.evaluate_methods` with the counts of unchanged
    frames taken from ``cache`` (none: every frame computed); the computed rows are
    cached and the cache saved. Progress counts the frames computed."""
    if cache is None:
        return evaluate_methods(videos, sources, threshold, workers, progress, cancel)
    threshold = check_threshold(threshold)

    def compute(
        subset: list[VideoSpec], chosen: dict[str, list[FrameSource]], step: ProgressCallback
    ) -> _Rows:
        found = evaluate_methods(subset, chosen, threshold, workers, step, cancel)
        rows = {(m, e.key): e.per_frame for m, found_m in found.results.items() for e in found_m}
        return _Rows(rows, found.missing, found.stray)

    key = {"kind": COUNTS_KIND, "threshold": threshold}
    found = _cached_rows("counts", videos, sources, key, _COUNTS, compute, progress, cache)
    results = {
        name: [
            VideoEvaluation.from_per_frame(v.category, v.name, found.rows[(name, v.key)], threshold)
            for v in videos
            if (name, v.key) in found.rows
        ]
        for name in sources
    }
    return MethodResults(results, found.missing, found.stray)


def histograms_methods_cached(
    videos: Sequence[VideoSpec],
    sources: Mapping[str, Sequence[FrameSource]],
    workers: int | None,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
    cache: FrameCache | None,
) -> MethodResults[VideoHistograms]:
    """:func:`~referee.core.evaluation.batch.histograms_methods` with the histograms of
    unchanged frames taken from ``cache`` (as :func:`evaluate_methods_cached`)."""
    if cache is None:
        return histograms_methods(videos, sources, workers, progress, cancel)

    def compute(
        subset: list[VideoSpec], chosen: dict[str, list[FrameSource]], step: ProgressCallback
    ) -> _Rows:
        found = frame_histograms_methods(subset, chosen, workers, step, cancel)
        return _Rows(found.rows, found.missing, found.stray)

    key = {"kind": HISTOGRAMS_KIND}
    found = _cached_rows("histograms", videos, sources, key, _HISTOGRAMS, compute, progress, cache)
    results = {
        name: [
            VideoHistograms(
                v.category,
                v.name,
                found.rows[(name, v.key)][:, 1:].sum(axis=0).reshape(3, N_LEVELS),
                len(v.truth_frames),
            )
            for v in videos
            if (name, v.key) in found.rows
        ]
        for name in sources
    }
    return MethodResults(results, found.missing, found.stray)


def _cached_rows(
    what: str,
    videos: Sequence[VideoSpec],
    sources: Mapping[str, Sequence[FrameSource]],
    options: Mapping[str, object],
    width: int,
    compute: _Compute,
    progress: ProgressCallback | None,
    cache: FrameCache,
) -> _Rows:
    """Every method's per-frame rows on every video: cached where the frame's files are
    unchanged, else computed (only the frames and methods that need it) and cached."""
    for video in videos:
        check_temporal_roi(video)
    names = list(sources)
    frames = [np.fromiter(video.truth_frames, dtype=np.int64) for video in videos]
    slots = []
    for v, (video, numbers) in enumerate(zip(videos, frames)):
        truth = _truth_stamps(video, numbers)
        slots.append(
            {
                name: _slot(cache, video, numbers, truth, sources[name][v], options, width)
                for name in names
            }
        )
    groups: dict[tuple[str, ...], list[int]] = {}
    needed: list[np.ndarray] = []
    for v, numbers in enumerate(frames):
        missing_rows = [~slots[v][name].hit for name in names]
        methods = tuple(n for n, m in zip(names, missing_rows) if m.any())
        needed.append(numbers[np.any(missing_rows, axis=0)] if methods else numbers[:0])
        if methods:
            groups.setdefault(methods, []).append(v)
    total = sum(len(n) for n in needed)
    computed: dict[tuple[str, VideoKey], np.ndarray] = {}
    missing: list[MissingResult] = []
    stray: set[VideoKey] = set()
    offset = 0
    for methods, positions in groups.items():
        subset = [replace(videos[v], annotated=FrameSet.of(needed[v].tolist())) for v in positions]
        chosen = {name: [sources[name][v] for v in positions] for name in methods}
        found = compute(subset, chosen, shifted(progress, offset, total))
        offset += sum(len(needed[v]) for v in positions)
        missing.extend(found.missing)
        stray |= found.stray
        computed.update(found.rows)
    rows: dict[tuple[str, VideoKey], np.ndarray] = {}
    lost = {(m.method, m.video) for m in missing}
    for v, video in enumerate(videos):
        if len(needed[v]):
            cache.note_computed(what, video.label, needed[v])
        for name in names:
            if (name, video.label) in lost:
                continue
            merged = _merged(frames[v], slots[v][name], computed.get((name, video.key)), width)
            if video.key not in stray:
                _keep(slots[v][name], frames[v], merged)
            rows[(name, video.key)] = merged
    cache.save()
    return _Rows(rows, tuple(missing), frozenset(stray))


def _truth_stamps(video: VideoSpec, frames: np.ndarray) -> tuple[np.ndarray, ...]:
    """The stamps of the video's ROI and of each frame's ground truth, and which are usable."""
    roi, roi_usable = file_stamps([roi_file(video)])
    gt, gt_usable = file_stamps([video.gt_name(i) for i in frames.tolist()])
    return roi, roi_usable, gt, gt_usable


def _slot(
    cache: FrameCache,
    video: VideoSpec,
    frames: np.ndarray,
    truth: tuple[np.ndarray, ...],
    source: FrameSource,
    options: Mapping[str, object],
    width: int,
) -> _Slot:
    identity = source_identity(source)
    roi, roi_usable, gt, gt_usable = truth
    stamp_width = 2 * STAMP_WIDTH
    if identity is None or not roi_usable[0]:
        nothing = np.zeros(frames.size, dtype=bool)
        stamps = np.zeros((frames.size, stamp_width), np.int64)
        return _Slot(None, stamps, nothing, nothing, np.zeros(0))
    masks, masks_usable = file_stamps(mask_paths(source, frames))
    key = {
        **options,
        "video": str(video.folder.resolve()),
        "roi": roi[0].tolist(),
        "source": identity,
    }
    table = cache.table(key, stamp_width, width)
    stamps = np.hstack([gt, masks])
    usable = gt_usable & masks_usable
    hit, values = table.lookup(frames, stamps)
    return _Slot(table, stamps, usable, hit & usable, values)


def mask_paths(source: FrameSource, frames: np.ndarray) -> list[str]:
    """Where each frame's mask is (CDnet folders by string formatting: thousands a run)."""
    if isinstance(source, CdnetResultSource):
        return [source.name_of(i) for i in frames.tolist()]
    return [os.fspath(source.path_of(i)) for i in frames.tolist()]


def _merged(frames: np.ndarray, slot: _Slot, computed: np.ndarray | None, width: int) -> np.ndarray:
    """The per-frame rows of one method on one video: cached where found, else computed."""
    rows = np.zeros((frames.size, 1 + width), dtype=np.int64)
    rows[:, 0] = frames
    if slot.hit.any():
        rows[slot.hit, 1:] = slot.values[slot.hit]
    if computed is not None and computed.size:
        where = np.searchsorted(frames, computed[:, 0])
        rows[where, 1:] = computed[:, 1:]
    return rows


def _keep(slot: _Slot, frames: np.ndarray, rows: np.ndarray) -> None:
    """Cache the computed rows whose files have usable stamps."""
    if slot.table is None:
        return
    new = slot.usable & ~slot.hit
    if new.any():
        slot.table.update(frames[new], slot.stamps[new], rows[new, 1:])
