"""Each video's result frames for one detector."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from referee.core.errors import InvalidOptionError
from referee.core.formats.cdnet import find_result_folder
from referee.core.formats.text_files import check_regular_file
from referee.core.frames.sources import (
    CdnetResultSource,
    FrameSource,
    MaskVideoSource,
    PatternFolderSource,
)
from referee.core.model.videos import VideoSpec


def result_sources(
    videos: Sequence[VideoSpec], results: str | Path, pattern: str | None = None, offset: int = 0
) -> list[FrameSource]:
    """Each video's result frames for one method (docs/measures.md §1, §10).

    Parameters
    ----------
    videos
        The dataset's videos.
    results
        A CDnet results root (``<category>/<video>/bin%06d.png``; a one-video
        dataset also accepts the video's own result folder), or, for a
        one-video dataset, a mask video file decoded frame by frame.
    pattern, offset
        Frame file names in each video's result folder, e.g. ``mask_%04d.png``,
        numbered ``frame + offset``; default CDnet's ``bin%06d`` with
        extension probing.

    Raises
    ------
    InputFileError
        If a video's result folder or file is missing or holds no frame.
    InvalidOptionError
        If a mask video is given for a dataset of several videos, or the
        pattern has no frame-number field.
    """
    single = len(videos) == 1
    if os.path.exists(results) and not os.path.isdir(results):
        check_regular_file(results)  # a named pipe or a device is refused, never read
        if not single:
            raise InvalidOptionError(
                f"{results}: a mask video holds one video's results, but the dataset has "
                f"{len(videos)} videos; give the dataset's single video folder instead"
            )
        return [MaskVideoSource(results)]
    if pattern is not None:
        return [
            PatternFolderSource(find_result_folder(results, v, single), pattern, offset)
            for v in videos
        ]
    return [CdnetResultSource.for_video(results, v, single_video=single) for v in videos]
