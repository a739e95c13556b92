"""Checks of a video's ground truth that evaluation makes on the way (docs/measures.md §1).

Neither changes a count: a temporal ROI longer than the ground truth is refused
before any frame is read, and grey levels other than CDnet's five are counted
so that the first file holding them is named in a warning.
"""

from __future__ import annotations

import os
import warnings

import cv2
import numpy as np

from referee.core.errors import MissingFrameError, RefereeWarning
from referee.core.formats.annotated import annotated_frames
from referee.core.formats.cdnet import last_frame_present
from referee.core.measures.pixel import GT_LEVEL_NAMES, N_LEVELS
from referee.core.model.videos import VideoSpec

#: Every how many rows of a ground-truth frame are checked for other levels: checking
#: every pixel would cost 4% of an evaluation; lossy or resampled ground truth has
#: such levels along every object edge, so it is still found.
STRAY_ROW_STEP = 16
#: 255 for the grey levels that are none of CDnet's five, 0 for those five.
_STRAY_LEVELS = np.full(N_LEVELS, 255, dtype=np.uint8)
_STRAY_LEVELS[list(GT_LEVEL_NAMES)] = 0
_LEVELS_TEXT = ", ".join(map(str, sorted(GT_LEVEL_NAMES)))


def check_temporal_roi(video: VideoSpec) -> None:
    """Check the temporal ROI and the recorded frames against the files, before any work.

    A video whose ground truth holds only some frames of its temporal ROI is
    partly annotated (docs/measures.md §8); but a temporal ROI reaching beyond
    every frame the video has, input or ground truth (e.g. a typo in
    ``temporalROI.txt``), is refused at once, and so is a recorded frame whose
    file is gone (the last one is checked).

    Raises
    ------
    MissingFrameError
        Naming the missing file, ``temporalROI.txt`` and the frames present.
    """
    if video.annotated is not None:
        recorded = video.truth_frames
        if recorded and not os.path.lexists(video.gt_path(recorded[-1])):
            raise MissingFrameError(
                video.gt_path(recorded[-1]),
                f"ground truth of frame {recorded[-1]} is missing, yet the project records the "
                "frame as annotated; save the annotation again or restore the file",
            )
        if video.last <= last_frame_present(video):
            return
    elif os.path.lexists(video.gt_path(video.last)):  # read, and refused if not an image
        return
    last = video.gt_path(video.last)
    present = annotated_frames(video)
    holds = (
        f"groundtruth/ holds {len(present):,} files, frames {min(present)} to {max(present)}"
        if present
        else "groundtruth/ holds no gt%06d.png file"
    )
    raise MissingFrameError(
        last,
        f"ground truth of frame {video.last} is missing, yet {video.temporal_roi_path} makes it "
        f"the last evaluated frame ({video.first} {video.last}); {holds}: correct "
        "temporalROI.txt or add the missing files",
    )


class StrayLevels:
    """Ground-truth frames of one video with grey levels other than CDnet's five.

    Such pixels are not evaluated (docs/measures.md §1, as CDnet's own tool
    does), but they usually mean a lossy or wrongly converted file, so the
    first one is named in a :class:`RefereeWarning`. Every
    :data:`STRAY_ROW_STEP`-th row of each frame is checked.
    """

    __slots__ = ("frames", "level", "path", "pixels")

    def __init__(self) -> None:
        self.frames = 0  # frames with such pixels
        self.path = ""  # the first of them
        self.pixels = 0  # its pixels with such levels
        self.level = 0  # one of those levels

    def check(self, path: str, gt: np.ndarray) -> None:
        """Count ``gt`` if a level other than CDnet's five is on one of its checked rows."""
        if not cv2.countNonZero(cv2.LUT(gt[::STRAY_ROW_STEP], _STRAY_LEVELS)):
            return
        if not self.frames:
            stray = cv2.LUT(gt, _STRAY_LEVELS)
            self.path, self.pixels = path, cv2.countNonZero(stray)
            self.level = int(gt[stray > 0][0])
        self.frames += 1

    def merge(self, later: StrayLevels) -> None:
        """Add the count of frames that come after this one's."""
        if later.frames and not self.frames:
            self.path, self.pixels, self.level = later.path, later.pixels, later.level
        self.frames += later.frames

    def warn(self, video: VideoSpec) -> None:
        """Warn (:class:`RefereeWarning`) if any frame held such levels."""
        if not self.frames:
            return
        others = self.frames - 1
        also = f", and so have at least {others:,} other frames of {video.label}" if others else ""
        warnings.warn(
            f"{self.path}: {self.pixels:,} pixels of this ground truth have grey levels other "
            f"than {_LEVELS_TEXT} (e.g. {self.level}){also}; such pixels are not evaluated, as "
            "CDnet's own tool does (docs/measures.md §1): check that the ground truth was "
            "saved losslessly",
            RefereeWarning,
            stacklevel=2,
        )
