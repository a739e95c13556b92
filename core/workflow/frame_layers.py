"""Everything the viewer shows at one frame of one video, computed in one place.

A :class:`FrameLayerReader` reads the input image, the ground truth and each
detector's mask of frame ``i`` and derives the per-pixel comparison of every
detector (docs/measures.md §1), the consensus ``P`` (docs/measures.md §7) and the detectors'
disagreement ``H(P)``; with two or more annotators' ground truth of the frame, the share
of pairs of annotators that disagree on each pixel (docs/measures.md §13). It is a plain
frame source (``read(i)``), so the prefetcher and cache of
:mod:`referee.core.frames.video_files` serve it off the GUI thread like any other.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from referee.core.errors import InputFileError, MissingFrameError, RefereeError
from referee.core.formats.datasets import read_truth, read_video_roi
from referee.core.formats.text_files import check_regular_file
from referee.core.frames.sources import FrameReader, FrameSource
from referee.core.measures.agreement import disagreement_map
from referee.core.measures.pixel import LABEL_NOT_EVALUATED, comparison_labels, detection_mask
from referee.core.model.videos import VideoSpec
from referee.core.pseudo.consensus import binary_entropy, consensus
from referee.core.workflow.agreement import annotator_labels


class CdnetInputSource:
    """The colour input frames of a video (CDnet's ``input/in%06d.jpg``, a LASIESTA
    sequence's ``S-%d.bmp``), as RGB ``uint8``."""

    def __init__(self, video: VideoSpec) -> None:
        self.video = video
        self.frame_count = _count_inputs(video)
        if self.frame_count == 0:
            first = video.input_path(1)
            raise InputFileError(first.parent, f"holds no {first.name}-style frame")

    def path_of(self, i: int) -> Path:
        return self.video.input_path(i)

    def read(self, i: int) -> np.ndarray:
        path = self.video.input_path(i)
        if path.exists():
            check_regular_file(path)  # a named pipe would block the reading thread
        image = cv2.imread(os.fspath(path), cv2.IMREAD_COLOR)
        if image is None:
            problem = "cannot be decoded as an image" if path.exists() else "is missing"
            raise MissingFrameError(path, f"input frame {i} {problem}")
        return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)


def _count_inputs(video: VideoSpec) -> int:
    """Number of consecutive input frames from 1 (a gap ends the video)."""
    folder = video.input_path(1).parent
    names = set(os.listdir(folder)) if folder.is_dir() else set()
    n = 0
    while video.input_file_name(n + 1) in names:
        n += 1
    return n


@dataclass(frozen=True, eq=False)
class FrameLayers:
    """One frame's image and overlays.

    ``comparisons[name]`` holds the codes of :func:`~referee.core.measures.pixel.comparison_labels`
    (all "not evaluated" outside the temporal ROI); ``consensus`` is ``P`` in
    [0, 1] and ``disagreement`` is ``H(P)`` in bits of the detectors alone
    (no trivial voters); both are ``None`` with fewer than two detectors.
    ``annotator_disagreement`` is the share of pairs of the annotators who labelled the
    frame that disagree on each pixel, NaN where a pixel is not counted (docs/measures.md
    §13); ``None`` when fewer than two annotators labelled it.
    ``problems`` lists what could not be read (a missing mask, say).
    """

    frame: int
    image: np.ndarray
    groundtruth: np.ndarray | None = None
    masks: dict[str, np.ndarray] = field(default_factory=dict)
    comparisons: dict[str, np.ndarray] = field(default_factory=dict)
    consensus: np.ndarray | None = None
    disagreement: np.ndarray | None = None
    evaluated: bool = False
    problems: tuple[str, ...] = ()
    annotator_disagreement: np.ndarray | None = None

    @property
    def nbytes(self) -> int:
        """Memory held, in bytes (for byte-bounded caches)."""
        arrays = [
            self.image,
            self.groundtruth,
            self.consensus,
            self.disagreement,
            self.annotator_disagreement,
            *self.masks.values(),
            *self.comparisons.values(),
        ]
        return sum(a.nbytes for a in arrays if a is not None)


class FrameLayerReader:
    """Reads :class:`FrameLayers` of one video.

    Parameters
    ----------
    frames
        Source of the RGB input frames (``read(i)``, 1-based).
    frame_count
        Number of frames of the video.
    video
        The CDnet video (ground truth, ROI, temporal ROI), or ``None`` for a
        plain video file.
    detectors
        Mask source of each detector, by name.
    threshold, include_trivial
        Detection rule (docs/measures.md §1) and whether the consensus counts the trivial
        voters (docs/measures.md §7 default).
    annotators
        The video as each annotator labelled it, by name
        (:func:`~referee.core.workflow.agreement.labelled_videos`); needs ``video``.
    """

    def __init__(
        self,
        frames: FrameReader[np.ndarray],
        frame_count: int,
        video: VideoSpec | None = None,
        detectors: Mapping[str, FrameSource] | None = None,
        threshold: int | None = None,
        include_trivial: bool = True,
        annotators: Mapping[str, VideoSpec] | None = None,
    ) -> None:
        self.frames = frames
        self.frame_count = frame_count
        self.video = video
        self.detectors = dict(detectors or {})
        self.threshold = threshold
        self.include_trivial = include_trivial
        self.annotators = dict(annotators or {})
        self.roi = read_video_roi(video) if video is not None else None

    def read(self, i: int) -> FrameLayers:
        """Everything shown at frame ``i`` (1-based)."""
        if not 1 <= i <= self.frame_count:
            raise RefereeError(f"frame {i} is outside the video (1..{self.frame_count})")
        image = self.frames.read(i)
        problems: list[str] = []
        masks: dict[str, np.ndarray] = {}
        for name, source in self.detectors.items():
            try:
                masks[name] = source.read(i)
            except RefereeError as error:
                problems.append(f"{name}: {error}")
        gt = self._groundtruth(i, problems)
        evaluated = (
            gt is not None and self.video is not None and self.video.first <= i <= self.video.last
        )
        comparisons = {
            name: self._compare(gt, mask, evaluated)
            for name, mask in masks.items()
            if gt is not None and mask.shape == gt.shape
        }
        binary = [detection_mask(mask, self.threshold) for mask in masks.values()]
        p = h = None
        if len(binary) >= 2:
            p = consensus(binary, include_trivial=self.include_trivial).astype(np.float32)
            h = binary_entropy(consensus(binary, include_trivial=False)).astype(np.float32)
        shares = self._annotators(i, problems)
        return FrameLayers(
            i, image, gt, masks, comparisons, p, h, evaluated, tuple(problems), shares
        )

    def _groundtruth(self, i: int, problems: list[str]) -> np.ndarray | None:
        if self.video is None:
            return None
        path = self.video.gt_path(i)
        if not path.exists():
            return None
        try:
            return read_truth(self.video, i)
        except RefereeError as error:
            problems.append(str(error))
            return None

    def _annotators(self, i: int, problems: list[str]) -> np.ndarray | None:
        """The share of pairs of annotators that disagree on each pixel of frame ``i``, over
        the annotators who labelled it; ``None`` when fewer than two did (or a label map
        cannot be read: a problem)."""
        present = [v for v in self.annotators.values() if os.path.lexists(v.gt_name(i))]
        if self.video is None or len(present) < 2:
            return None
        try:
            labels = annotator_labels(self.video, present, i, self.roi)
        except RefereeError as error:
            problems.append(str(error))
            return None
        return disagreement_map(labels, self.roi).astype(np.float32)

    def _compare(self, gt: np.ndarray, mask: np.ndarray, evaluated: bool) -> np.ndarray:
        # ``evaluated`` implies a dataset's video, hence its ROI.
        if not evaluated or self.roi is None:
            return np.full(gt.shape, LABEL_NOT_EVALUATED, dtype=np.uint8)
        return comparison_labels(gt, self.roi, mask, self.threshold)
