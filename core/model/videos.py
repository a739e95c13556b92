"""Videos: where their files are and which frames are evaluated."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

INPUT_DIR = "input"
GROUNDTRUTH_DIR = "groundtruth"
ROI_FILE = "ROI.bmp"
TEMPORAL_ROI_FILE = "temporalROI.txt"


@dataclass(frozen=True)
class VideoSpec:
    """One CDnet video: where its files are and which frames are evaluated.

    ``first`` and ``last`` are the 1-based, inclusive frame numbers of the
    temporal ROI (SPEC §1).
    """

    category: str
    name: str
    folder: Path
    first: int
    last: int

    @property
    def key(self) -> tuple[str, str]:
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
