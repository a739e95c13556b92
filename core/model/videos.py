"""Videos: where their files are and which frames are evaluated."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from referee.core.errors import InvalidOptionError
from referee.core.model.frame_set import FrameSet, as_frame_set

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
class FrameRange:
    """Frames ``first..last``, 1-based and inclusive as CDnet numbers them; ``None`` leaves
    that end open. A video restricted to it keeps the frames of its temporal ROI that lie
    in it (docs/measures.md §1).

    Raises
    ------
    InvalidOptionError
        An end below 1, or ``first`` after ``last``.
    """

    first: int | None = None
    last: int | None = None

    def __post_init__(self) -> None:
        for end in (self.first, self.last):
            if end is not None and end < 1:
                raise InvalidOptionError(f"frame numbers start at 1, not {end}")
        if self.first is not None and self.last is not None and self.first > self.last:
            raise InvalidOptionError(
                f"the frame range {self} ends before it starts; give FIRST <= LAST"
            )

    def __str__(self) -> str:
        """``FIRST:LAST``, an open end left empty (``FIRST:``, ``:LAST``)."""
        first, last = ("" if end is None else str(end) for end in (self.first, self.last))
        return f"{first}:{last}"


@dataclass(frozen=True)
class AnnotatedFrames:
    """The frames of a partly annotated video that a comparison with its ground truth read:
    the ``frames`` recorded as annotated in its temporal ROI, of the ``of``
    frames of that ROI (docs/measures.md §5, §8). ``video`` is the video's label."""

    video: str
    frames: FrameSet
    of: int

    @property
    def count(self) -> int:
        """Number of frames read."""
        return len(self.frames)


def numbered_names(stem: str, extensions: Sequence[str]) -> re.Pattern[str]:
    """The file names ``<stem><i><extension>``, ``i`` a frame number from 1 written without
    leading zeros (LASIESTA's names): group 1 is ``i``, group 2 the extension."""
    endings = "|".join(map(re.escape, extensions))
    return re.compile(f"{re.escape(stem)}([1-9][0-9]*)({endings})")


@dataclass(frozen=True)
class NumberedFiles:
    """One file per frame, ``<folder>/<stem><i><extension>`` (:func:`numbered_names`)."""

    folder: Path
    stem: str
    extension: str

    def name(self, i: int) -> str:
        """The file of frame ``i`` (1-based), as a string."""
        return os.path.join(os.fspath(self.folder), f"{self.stem}{i}{self.extension}")

    def numbers(self, names: Iterable[str]) -> list[int]:
        """The frame numbers of those of ``names`` that are this sequence's files."""
        pattern = numbered_names(self.stem, (self.extension,))
        return [int(match.group(1)) for match in map(pattern.fullmatch, names) if match]


@dataclass(frozen=True)
class SequenceLayout:
    """Where a LASIESTA sequence keeps its frames (docs/measures.md §1): its input frames
    and its colour ground truth, in two folders. It has no ``ROI.bmp`` (every pixel is
    evaluated) and no ``temporalROI.txt`` (every frame is)."""

    inputs: NumberedFiles
    truth: NumberedFiles


@dataclass(frozen=True)
class VideoSpec:
    """One video, CDnet's or a LASIESTA sequence: where its files are and which frames are
    evaluated.

    ``first`` and ``last`` are the 1-based, inclusive frame numbers of the
    temporal ROI (docs/measures.md §1). ``annotated`` holds the frames that have
    ground truth when not all do (docs/measures.md §8): those a project records as
    annotated, or those with a ground-truth file when ``groundtruth/`` lacks some
    frames of the temporal ROI; ``None``: every frame of the temporal ROI has
    ground truth. ``layout`` places the frames of a LASIESTA sequence, whose ``folder``
    is the folder of its input frames; ``None``: CDnet's ``input/`` and ``groundtruth/``.
    """

    category: str
    name: str
    folder: Path
    first: int
    last: int
    annotated: FrameSet | None = None
    layout: SequenceLayout | None = None

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
        """The frame numbers of the temporal ROI, ``first..last``."""
        return range(self.first, self.last + 1)

    @property
    def n_frames(self) -> int:
        """Number of frames of the temporal ROI."""
        return self.last - self.first + 1

    @property
    def truth_frames(self) -> range | FrameSet:
        """The frames compared with the ground truth: the temporal ROI's, or only its
        annotated ones when not all have ground truth (docs/measures.md §8)."""
        if self.annotated is None:
            return self.frames
        return self.annotated.within(self.first, self.last)

    @property
    def partly_annotated(self) -> bool:
        """Whether fewer frames of the temporal ROI have ground truth than it holds."""
        return self.annotated is not None and len(self.truth_frames) < self.n_frames

    def annotated_subset(self) -> AnnotatedFrames | None:
        """The frames read of this video when it is partly annotated (:attr:`truth_frames`
        of :attr:`n_frames`), else ``None``: then every frame is read."""
        if not self.partly_annotated:
            return None
        return AnnotatedFrames(self.label, as_frame_set(self.truth_frames), self.n_frames)

    def within(self, frames: FrameRange) -> VideoSpec:
        """This video with only the frames of its temporal ROI that lie in ``frames``
        (docs/measures.md §1).

        Raises
        ------
        InvalidOptionError
            Naming the video, when none of its frames lies in ``frames``.
        """
        first = self.first if frames.first is None else max(self.first, frames.first)
        last = self.last if frames.last is None else min(self.last, frames.last)
        if first > last:
            raise InvalidOptionError(
                f"the frame range {frames} leaves video {self.label} no frame: its temporal "
                f"ROI is frames {self.first} to {self.last}"
            )
        return dataclasses.replace(self, first=first, last=last)

    @property
    def roi_path(self) -> Path:
        return self.folder / ROI_FILE

    @property
    def temporal_roi_path(self) -> Path:
        return self.folder / TEMPORAL_ROI_FILE

    def gt_path(self, i: int) -> Path:
        """Ground-truth file of frame ``i`` (1-based)."""
        return Path(self.gt_name(i))

    def gt_name(self, i: int) -> str:
        """:meth:`gt_path` as a string (thousands of names a pass are built without
        :class:`~pathlib.Path`)."""
        if self.layout is not None:
            return self.layout.truth.name(i)
        return f"{self._gt_prefix}{i:06d}.png"

    @cached_property
    def _gt_prefix(self) -> str:
        return os.path.join(os.fspath(self.folder), GROUNDTRUTH_DIR, "gt")

    @property
    def truth_folder(self) -> Path:
        """The folder of the ground-truth files."""
        return self.folder / GROUNDTRUTH_DIR if self.layout is None else self.layout.truth.folder

    def input_path(self, i: int) -> Path:
        """Input image of frame ``i`` (1-based)."""
        if self.layout is not None:
            return Path(self.layout.inputs.name(i))
        return self.folder / INPUT_DIR / self.input_file_name(i)

    def input_file_name(self, i: int) -> str:
        """The file name (no folder) of :meth:`input_path`, built without
        :class:`~pathlib.Path` (a video's frames are counted by it)."""
        if self.layout is not None:
            return os.path.basename(self.layout.inputs.name(i))
        return f"in{i:06d}.jpg"
