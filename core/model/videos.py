"""Videos: where their files are and which frames are evaluated."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

INPUT_DIR = "input"
GROUNDTRUTH_DIR = "groundtruth"
ROI_FILE = "ROI.bmp"
TEMPORAL_ROI_FILE = "temporalROI.txt"

#: A video's key: ``(category, name)``, unique within a dataset.
VideoKey = tuple[str, str]


def video_label(category: str, name: str) -> str:
    """How a video is named to users: ``category/name``, or ``name`` alone when the video
    has no category or is a category of its own (docs/measures.md §10)."""
    return name if not category or category == name else f"{category}/{name}"


def video_file_stem(category: str, name: str) -> str:
    """The video's name in file and folder names, and its LIRIS ``videoName``:
    ``category_name``, or ``name`` alone as in :func:`video_label`."""
    return name if not category or category == name else f"{category}_{name}"


@dataclass(frozen=True)
class VideoSpec:
    """One CDnet video: where its files are and which frames are evaluated.

    ``first`` and ``last`` are the 1-based, inclusive frame numbers of the
    temporal ROI (docs/measures.md §1).
    """

    category: str
    name: str
    folder: Path
    first: int
    last: int

    @property
    def label(self) -> str:
        """The video's name for users (:func:`video_label`)."""
        return video_label(self.category, self.name)

    @property
    def file_stem(self) -> str:
        """The video's name in file names (:func:`video_file_stem`)."""
        return video_file_stem(self.category, self.name)

    @property
    def key(self) -> VideoKey:
        """``(category, name)``, unique within a dataset."""
        return (self.category, self.name)

    @property
    def frames(self) -> range:
        """The evaluated frame numbers, ``first..last``."""
        return range(self.first, self.last + 1)

    @property
    def n_frames(self) -> int:
        """Number of evaluated frames."""
        return self.last - self.first + 1

    @property
    def roi_path(self) -> Path:
        return self.folder / ROI_FILE

    @property
    def temporal_roi_path(self) -> Path:
        return self.folder / TEMPORAL_ROI_FILE

    def gt_path(self, i: int) -> Path:
        """Ground-truth file of frame ``i`` (1-based)."""
        return self.folder / GROUNDTRUTH_DIR / f"gt{i:06d}.png"

    def input_path(self, i: int) -> Path:
        """Input image of frame ``i`` (1-based)."""
        return self.folder / INPUT_DIR / f"in{i:06d}.jpg"
