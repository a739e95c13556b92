"""Every frame's disagreement, read from a cache where the detectors' masks are unchanged
(docs/measures.md §8; DESIGN "Long work").

A frame's score under a mask criterion depends on that frame's masks of the
detectors compared, the video's ROI, the criterion, the pair and the threshold.
The cache keeps the scores per video, each row with the stamps of the masks it
was computed from (:mod:`referee.core.cache.stamps`); a run scores only the
frames whose masks changed and gives exactly the scores of a run without cache.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.cache.stamps import STAMP_WIDTH, file_stamps
from referee.core.cache.store import FrameCache, FrameTable
from referee.core.evaluation.cached_rows import mask_paths, source_identity
from referee.core.frames.sources import FrameSource
from referee.core.model.videos import VideoSpec
from referee.core.progress import CancelToken, ProgressCallback, shifted
from referee.core.ranking.criteria import FrameScores
from referee.core.ranking.scores import mask_frame_scores, mask_scores

#: What the score tables hold; a new meaning of the scores gets a new name.
SCORES_KIND = "mask-scores-1"


def mask_scores_cached(
    videos: Sequence[VideoSpec],
    sources: Mapping[str, Sequence[FrameSource]],
    criterion: str,
    pair: tuple[str, str] | None,
    threshold: int | None,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
    workers: int | None,
    cache: FrameCache | None,
) -> list[FrameScores]:
    """:func:`~referee.core.ranking.scores.mask_scores` with the scores of frames whose
    masks are unchanged taken from ``cache`` (none: every frame scored); the new scores
    are cached and the cache saved. Progress counts the frames scored."""
    if cache is None:
        return mask_scores(videos, sources, criterion, pair, threshold, progress, cancel, workers)
    names = list(sources)
    plans = [
        _plan(cache, v, video, sources, names, criterion, pair, threshold)
        for v, video in enumerate(videos)
    ]
    cold = [v for v, plan in enumerate(plans) if plan is None or not plan.hit.any()]
    total = sum(videos[v].n_frames for v in cold) + sum(
        int((~plan.hit).sum()) for plan in plans if plan is not None and plan.hit.any()
    )
    out: dict[int, FrameScores] = {}
    offset = 0
    if cold:
        chosen = {name: [sources[name][v] for v in cold] for name in names}
        whole = mask_scores(
            [videos[v] for v in cold],
            chosen,
            criterion,
            pair,
            threshold,
            shifted(progress, 0, total),
            cancel,
            workers,
        )
        out.update(zip(cold, whole))
        offset = sum(videos[v].n_frames for v in cold)
    for v, video in enumerate(videos):
        plan = plans[v]
        own = {name: sources[name][v] for name in names}
        if v in out:
            scores = out[v]
        else:
            assert plan is not None
            hit = plan.hit
            needed = np.fromiter(video.frames, dtype=np.int64)[~hit]
            step = shifted(progress, offset, total)
            found = mask_frame_scores(
                video, own, criterion, pair, threshold, needed.tolist(), step, cancel
            )
            offset += needed.size
            merged = plan.values.view(np.float64)[:, 0].copy()
            merged[~hit] = found.scores
            scores = FrameScores(
                found.video,
                found.criterion,
                found.methods,
                np.fromiter(video.frames, dtype=np.int64),
                merged,
                found.committee,
            )
            out[v] = scores
        if plan is not None:
            plan.keep(scores)
        if plan is None or not plan.hit.all():
            cache.note_computed("scores", video.label, _computed(video, plan))
    cache.save()
    return [out[v] for v in range(len(videos))]


@dataclass
class _Plan:
    """One video's table, which frames it has, their scores (as ``int64`` bits), each
    frame's stamps and whether they are usable."""

    table: FrameTable
    hit: np.ndarray
    values: np.ndarray
    stamps: np.ndarray
    usable: np.ndarray

    def keep(self, scores: FrameScores) -> None:
        """Cache the scores computed for frames whose masks have usable stamps."""
        new = self.usable & ~self.hit
        if new.any():
            bits = np.ascontiguousarray(scores.scores[new], dtype=np.float64).view(np.int64)
            self.table.update(scores.frames[new], self.stamps[new], bits.reshape(-1, 1))


def _plan(
    cache: FrameCache,
    v: int,
    video: VideoSpec,
    sources: Mapping[str, Sequence[FrameSource]],
    names: Sequence[str],
    criterion: str,
    pair: tuple[str, str] | None,
    threshold: int | None,
) -> _Plan | None:
    """What the cache has of one video (``None``: the video is not cached)."""
    identities = [source_identity(sources[name][v]) for name in names]
    roi, roi_usable = file_stamps([video.roi_path])
    roi_key = roi[0].tolist() if roi_usable[0] else None
    if any(i is None for i in identities) or (roi_key is None and video.roi_path.exists()):
        return None
    frames = np.fromiter(video.frames, dtype=np.int64)
    found = [file_stamps(mask_paths(sources[name][v], frames)) for name in names]
    stamps = np.hstack([s for s, _ in found]) if found else np.zeros((frames.size, 0), np.int64)
    usable = np.all([u for _, u in found], axis=0) if found else np.ones(frames.size, bool)
    key = {
        "kind": SCORES_KIND,
        "video": str(video.folder.resolve()),
        "roi": roi_key,
        "detectors": [[name, identity] for name, identity in zip(names, identities)],
        "criterion": criterion,
        "pair": list(pair) if pair else None,
        "threshold": threshold,
    }
    table = cache.table(key, STAMP_WIDTH * len(names), 1)
    hit, values = table.lookup(frames, stamps)
    return _Plan(table, hit & usable, values, stamps, usable)


def _computed(video: VideoSpec, plan: _Plan | None) -> np.ndarray:
    frames = np.fromiter(video.frames, dtype=np.int64)
    return frames if plan is None else frames[~plan.hit]
