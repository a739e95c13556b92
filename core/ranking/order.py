"""Frames to annotate next, most disagreement first, spread in time (docs/measures.md §8)."""

from __future__ import annotations

import bisect
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.ranking.choices import DEFAULT_GAP
from referee.core.ranking.criteria import FrameScores


@dataclass(frozen=True)
class RankedFrame:
    """One frame to annotate: its place in the list, where it is, and why (docs/measures.md §8).

    ``rank`` counts from 1; ``criterion`` is the :attr:`FrameScores.label`.
    """

    rank: int
    video: str
    frame: int
    score: float
    criterion: str


# --- ranking -------------------------------------------------------------------------------


def rank_frames(
    scores: FrameScores | Sequence[FrameScores],
    gap: int = DEFAULT_GAP,
    exclude: Collection[int] | Mapping[str, Collection[int]] = frozenset(),
    top: int | None = None,
) -> list[RankedFrame]:
    """Frames to annotate next, most disagreement first, spread out in time (docs/measures.md §8).

    Parameters
    ----------
    scores
        One video's scores, or several videos' (ranked together; suppression
        acts within a video only).
    gap
        After choosing a frame, suppress every frame of its video with
        ``|Δ frame| <= gap`` (a frame exactly ``gap`` away is suppressed,
        ``gap + 1`` away is not); 0 suppresses nothing else.
    exclude
        Frames to skip (those that already have ground truth): a collection of
        frame numbers, applied to every video, or a mapping from a video's
        label to its frames. Excluded frames are never chosen and suppress nothing.
    top
        Keep at most this many entries (default: all that survive).

    Returns
    -------
    Entries ranked 1, 2, …: score descending, ties by frame number ascending,
    then by the order of ``scores``.
    """
    videos = [scores] if isinstance(scores, FrameScores) else list(scores)
    if isinstance(gap, bool) or not isinstance(gap, (int, np.integer)) or gap < 0:
        raise InvalidOptionError(f"the gap must be a whole number of frames >= 0, not {gap!r}")
    if top is not None and (
        isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1
    ):
        raise InvalidOptionError(f"top must be a whole number >= 1, not {top!r}")
    labels = [v.video for v in videos]
    if len(set(labels)) != len(labels):
        raise InvalidOptionError("two score lists carry the same video label; rank each video once")
    if isinstance(exclude, Mapping):
        skipped = [frozenset(int(f) for f in exclude.get(v.video, ())) for v in videos]
    else:
        shared = frozenset(int(f) for f in exclude)
        skipped = [shared] * len(videos)
    # Candidates: (−score, frame, video index), sorted; excluded frames are dropped.
    candidates = []
    for index, (video, skip) in enumerate(zip(videos, skipped)):
        keep = ~np.isin(video.frames, np.fromiter(skip, dtype=np.int64, count=len(skip)))
        frames, values = video.frames[keep], video.scores[keep]
        candidates.append(
            np.column_stack(
                [-values, frames.astype(np.float64), np.full(len(frames), float(index))]
            )
        )
    table = np.concatenate(candidates) if candidates else np.zeros((0, 3))
    order = np.lexsort((table[:, 2], table[:, 1], table[:, 0]))
    chosen: list[list[int]] = [[] for _ in videos]
    out: list[RankedFrame] = []
    for row in order:
        if top is not None and len(out) >= top:
            break
        index, frame = int(table[row, 2]), int(table[row, 1])
        taken = chosen[index]  # sorted
        at = bisect.bisect_left(taken, frame)
        if (at < len(taken) and taken[at] - frame <= gap) or (at and frame - taken[at - 1] <= gap):
            continue
        taken.insert(at, frame)
        video = videos[index]
        out.append(
            RankedFrame(len(out) + 1, video.video, frame, float(-table[row, 0]), video.label)
        )
    return out
