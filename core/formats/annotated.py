"""Which frames of a CDnet video already have ground truth (docs/measures.md §8).

A project may record the annotated frames of a video; otherwise a frame counts
as annotated when ``groundtruth/gt%06d.png`` exists for it,
whatever the file holds (even a frame that is all "outside ROI" or "unknown"
is annotated: someone looked at it). The files are listed, never decoded.

Reading only: no measure is computed here.
"""

from __future__ import annotations

import os
import re

from referee.core.errors import InputFileError
from referee.core.model.frame_set import FrameSet
from referee.core.model.videos import VideoSpec

_GT_NAME = re.compile(r"gt(\d{6})\.png")


def annotated_frames(video: VideoSpec) -> FrameSet:
    """Numbers of the frames of ``video`` that have a ground-truth file (docs/measures.md §8).

    Every ``groundtruth/gt%06d.png`` counts (a LASIESTA sequence's ``S-GT/S-GT_%d.bmp``),
    inside the temporal ROI or not; a video without a ground-truth folder has none.

    Raises
    ------
    InputFileError
        If the ground-truth folder exists but cannot be listed.
    """
    folder = video.truth_folder
    if not folder.is_dir():
        return FrameSet()
    try:
        with os.scandir(folder) as entries:
            names = [entry.name for entry in entries]
    except OSError as error:
        raise InputFileError(
            folder, f"cannot list the ground-truth folder ({error.strerror})"
        ) from None
    if video.layout is not None:
        return FrameSet.of(video.layout.truth.numbers(names))
    return FrameSet.of(int(match.group(1)) for match in map(_GT_NAME.fullmatch, names) if match)


def frames_with_ground_truth(video: VideoSpec) -> FrameSet:
    """The frames of ``video`` that have ground truth (docs/measures.md §8): those recorded
    as annotated (:attr:`VideoSpec.annotated`), else every frame with a file."""
    if video.annotated is not None:
        return video.annotated
    return annotated_frames(video)


__all__ = ["annotated_frames", "frames_with_ground_truth"]
