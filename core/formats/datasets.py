"""Mask datasets: CDnet's folders or LASIESTA's sequences, told apart by their layout
(docs/measures.md §1, §10), and what the computations read of a video of either: its
ground truth as CDnet's levels and its region of interest.

Reading only: no measure is computed here.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from referee.core.formats.cdnet import discover_videos, read_gt, read_roi
from referee.core.formats.lasiesta import discover_sequences, read_lasiesta_gt
from referee.core.model.videos import VideoSpec


def discover_dataset(root: str | Path, require_groundtruth: bool = True) -> list[VideoSpec]:
    """The videos of the dataset at ``root``: LASIESTA's sequences when it is laid out as
    them (:func:`~referee.core.formats.lasiesta.sequence_folders`), else CDnet's videos
    (:func:`~referee.core.formats.cdnet.discover_videos`, whose ``require_groundtruth``
    it takes; a LASIESTA sequence always has its ground truth).

    Raises
    ------
    InputFileError
        If ``root`` is neither, or a video of it is malformed (naming the file).
    """
    p = Path(root)
    sequences = discover_sequences(p) if p.is_dir() else []
    return sequences or discover_videos(p, require_groundtruth)


def read_truth(video: VideoSpec, i: int) -> np.ndarray:
    """The ground truth of frame ``i`` of ``video`` as CDnet's levels, ``uint8``, ``(h, w)``.

    Raises
    ------
    MissingFrameError, InputFileError
        Naming the file, if it is missing or cannot be read as the video's ground truth.
    """
    if video.layout is None:
        return read_gt(video.gt_name(i), i)
    return read_lasiesta_gt(video.gt_name(i), i)


def roi_file(video: VideoSpec) -> Path:
    """The file that sets the video's region of interest and frame size: ``ROI.bmp``, or
    for a LASIESTA sequence without one its first ground-truth frame (the whole frame)."""
    if video.layout is None or os.path.lexists(video.roi_path):
        return video.roi_path
    return video.gt_path(video.first)


def read_video_roi(video: VideoSpec) -> np.ndarray:
    """The video's region of interest, ``True`` inside, from :func:`roi_file`.

    Raises
    ------
    MissingFrameError, InputFileError
        Naming the file, if it is missing or cannot be read.
    """
    path = roi_file(video)
    if path == video.roi_path:
        return read_roi(path)
    return np.ones(read_truth(video, video.first).shape, dtype=bool)


def fixed_frames(video: VideoSpec) -> bool:
    """Whether the dataset fixes the video's frames: CDnet's ``temporalROI.txt``, a LASIESTA
    sequence's ground truth on every frame. Otherwise the frames are those every detector
    has (docs/measures.md §7)."""
    return video.layout is not None or os.path.lexists(video.temporal_roi_path)


def has_truth_files(video: VideoSpec) -> bool:
    """Whether the video's folders hold what its ground truth needs: CDnet's ``groundtruth/``,
    ``ROI.bmp`` and ``temporalROI.txt``, or a LASIESTA sequence's ``-GT`` folder."""
    return video.truth_folder.is_dir() and (
        video.layout is not None or (video.roi_path.is_file() and video.temporal_roi_path.is_file())
    )
