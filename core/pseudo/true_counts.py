"""Each detector's true counts, read in the consensus's pass (docs/measures.md §1, §7, §12).

When the ground truth of every frame is there, the pass that sums the consensus can
also compare each detector's mask with the frame's ground truth: every mask and every
ground-truth frame is then decoded once for both. The counts are those of
:func:`~referee.core.evaluation.masks.count_video` (the same :class:`FrameCounter`
on the same arrays), so they are exactly what ``referee evaluate`` gives.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from referee.core.errors import SizeMismatchError
from referee.core.evaluation.ground_truth import StrayLevels
from referee.core.evaluation.masks import (
    FIRST_ROWS,
    PER_FRAME_COLUMNS,
    VideoEvaluation,
    VideoPieces,
)
from referee.core.formats.datasets import read_truth, roi_file
from referee.core.measures.pixel import FrameCounter
from referee.core.model.videos import VideoSpec


class TrueCounter:
    """The §1 counts ``tp fp fn tn se`` of every detector's mask on each frame, the frame's
    ground truth decoded once for all of them.

    Parameters
    ----------
    video
        The video: its ground truth is read, and its ROI file named in size errors.
    roi
        The video's ROI (``True`` inside), as
        :func:`~referee.core.formats.datasets.read_video_roi` gives it.
    threshold
        The detection threshold option (``None``: value == 255).
    k
        The number of detectors.
    expected
        The frames expected, to size the first rows.
    """

    def __init__(
        self,
        video: VideoSpec,
        roi: np.ndarray,
        threshold: int | None,
        k: int,
        expected: int = 0,
    ) -> None:
        self._counter = FrameCounter(roi, threshold)
        self._video = video
        self._roi_path = roi_file(video)
        rows = min(max(expected, 1), FIRST_ROWS)
        self._rows = [np.zeros((rows, len(PER_FRAME_COLUMNS)), dtype=np.int64) for _ in range(k)]
        self._count = 0
        self.stray = StrayLevels()

    def frame(self, i: int, masks: Sequence[np.ndarray]) -> None:
        """Count frame ``i``'s masks (one per detector) against its ground truth.

        Raises
        ------
        MissingFrameError, InputFileError, SizeMismatchError
            A missing or unreadable ground-truth frame, or one whose size is not the ROI's.
        """
        name = self._video.gt_name(i)
        gt = read_truth(self._video, i)
        if gt.shape != self._counter.shape:
            raise SizeMismatchError(name, gt.shape, self._roi_path, self._counter.shape)
        self.stray.check(name, gt)
        if self._count == self._rows[0].shape[0]:
            self._rows = [np.concatenate([r, np.zeros_like(r)]) for r in self._rows]
        for rows, mask in zip(self._rows, masks):
            rows[self._count, 0] = i
            rows[self._count, 1:] = self._counter.counts(gt, mask)
        self._count += 1

    def pieces(self) -> VideoPieces:
        """The per-frame counts so far, one array per detector (columns
        :data:`~referee.core.evaluation.masks.PER_FRAME_COLUMNS`), and the stray levels."""
        values = [rows[: self._count] for rows in self._rows]
        return VideoPieces(values, [None] * len(values), self.stray)


def video_evaluations(
    videos: Sequence[VideoSpec],
    methods: Sequence[str],
    pieces: Sequence[Sequence[VideoPieces]],
    threshold: int | None,
) -> dict[str, list[VideoEvaluation]]:
    """Every detector's :class:`VideoEvaluation` of each video, from the video's pieces
    (in frame order), as :func:`~referee.core.evaluation.batch.evaluate_methods` builds
    them; stray ground-truth levels give one warning per video."""
    empty = np.zeros((0, len(PER_FRAME_COLUMNS)), dtype=np.int64)
    found: dict[str, list[VideoEvaluation]] = {method: [] for method in methods}
    for video, parts in zip(videos, pieces):
        stray = StrayLevels()
        for part in parts:
            stray.merge(part.stray)
        stray.warn(video)
        for k, method in enumerate(methods):
            rows = np.concatenate([empty, *(part.values[k] for part in parts)])
            found[method].append(
                VideoEvaluation.from_per_frame(video.category, video.name, rows, threshold)
            )
    return found
