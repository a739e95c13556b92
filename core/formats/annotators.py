"""Annotators' ground truth, laid out like the dataset's (docs/measures.md §13).

Each annotator's root holds ``<category>/<video>/groundtruth/gt%06d.png`` of CDnet's
levels (docs/measures.md §1): a copy of the dataset folder annotated in Referee is one.
``<root>/<video>/groundtruth/`` is accepted when the category level is absent, and for
a one-video dataset the root may be that video's folder itself. An annotator labelled
a frame when its file exists. The consensus is written in the same layout, so that it
reads back as an annotator's root.

Reading and writing files only: no measure is computed here.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError
from referee.core.formats.cdnet import list_folder
from referee.core.formats.gt_png import encode_ground_truth_png
from referee.core.model.videos import GROUNDTRUTH_DIR, VideoSpec

#: How an annotator's root is laid out, for messages.
LAYOUT = "<category>/<video>/groundtruth/gt%06d.png, like the dataset"


def check_annotator_root(name: str, root: Path) -> None:
    """Raise unless ``root``, annotator ``name``'s ground truth, is a folder that lists.

    Raises
    ------
    InputFileError
        Naming ``root``, if it is missing, not a folder, or cannot be listed.
    """
    if not root.is_dir():
        problem = "is not a folder" if os.path.lexists(root) else "does not exist"
        raise InputFileError(
            root,
            f"the ground truth of annotator {name!r} {problem}; give a folder holding {LAYOUT}",
        )
    list_folder(root)


def annotator_video(root: Path, video: VideoSpec, single_video: bool) -> VideoSpec | None:
    """``video`` as the annotator of ``root`` labelled it: the same frames, its ground truth
    in the first of ``<root>/<category>/<video>``, ``<root>/<video>`` and (``single_video``)
    ``root`` that holds a ``groundtruth/`` folder; ``None`` when none does."""
    candidates = [root / video.category / video.name, root / video.name]
    if single_video:
        candidates.append(root)
    for folder in candidates:
        if (folder / GROUNDTRUTH_DIR).is_dir():
            return dataclasses.replace(video, folder=folder, annotated=None, layout=None)
    return None


def consensus_video_folder(folder: Path, video: VideoSpec) -> Path:
    """Where the consensus of ``video`` goes under ``folder``: ``<category>/<video>``, or
    ``<video>`` for a video that is a category of its own."""
    if video.category == video.name:
        return folder / video.name
    return folder / video.category / video.name


def consensus_files(
    folder: Path, video: VideoSpec, labels: Mapping[int, np.ndarray]
) -> dict[Path, bytes]:
    """The PNG files of the consensus label maps of ``video`` by frame, under ``folder``."""
    target = consensus_video_folder(folder, video) / GROUNDTRUTH_DIR
    return {
        target / f"gt{frame:06d}.png": encode_ground_truth_png(label)
        for frame, label in sorted(labels.items())
    }
