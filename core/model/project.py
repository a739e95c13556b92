"""The project model: which videos, ground truth and detector outputs Referee works on.

A :class:`Project` names a CDnet dataset (docs/measures.md §10), plain video
files, the ground-truth actions and boxes (§4, §5), a counts root (§6), named
:class:`DetectorSource` s and named :class:`AnnotatorSource` s (§13). It is saved as a
``*.referee.json`` file (see :mod:`referee.core.formats.project_json`) whose paths are
relative to the file's folder; in memory every path is absolute. Projects are immutable:
:func:`with_detector` and :func:`without_detector` return a new project.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from referee.core.errors import InvalidOptionError
from referee.core.model.frame_set import FrameSet, as_frame_set
from referee.core.model.origins import AcceptedRun
from referee.core.model.videos import FrameRange

#: A project file's name ends with this.
PROJECT_SUFFIX = ".referee.json"
#: The name reserved for the ground truth among the files named after detectors
#: (``<counts root>/<video>/groundtruth.csv``, the demo's ``actions/groundtruth.xml``).
GROUND_TRUTH = "groundtruth"


@dataclass(frozen=True)
class DetectorSource:
    """One named detector's outputs; each path is optional.

    ``masks`` and ``scores`` are CDnet results roots holding
    ``<category>/<video>/bin%06d.png`` (0/255 masks, docs/measures.md §1; 0-255
    scores, §3); ``actions`` is a LIRIS XML file of detected actions (§4);
    ``boxes`` holds per-frame boxes, LIRIS XML or MOTChallenge CSV (§5; without
    it, the boxes of ``actions`` are used).
    The detector's counts, if any, are ``<counts root>/<category>_<video>/<name>.csv``.
    """

    name: str
    masks: Path | None = None
    scores: Path | None = None
    actions: Path | None = None
    boxes: Path | None = None

    @property
    def box_source(self) -> Path | None:
        """Where this detector's per-frame boxes are: ``boxes``, else ``actions``."""
        return self.boxes if self.boxes is not None else self.actions


@dataclass(frozen=True)
class AnnotatorSource:
    """One annotator's ground truth of the dataset's frames (docs/measures.md §13).

    ``root`` is laid out like the dataset: ``<category>/<video>/groundtruth/gt%06d.png``
    holding CDnet's levels (a copy of the dataset annotated in Referee is one).
    """

    name: str
    root: Path


@dataclass(frozen=True)
class Project:
    """Videos, their ground truth and the detectors' outputs, with absolute paths.

    ``dataset`` is a CDnet dataset folder or a single CDnet video folder;
    ``video_files`` are plain videos without ground truth;
    ``actions_groundtruth`` is a LIRIS XML file; ``boxes_groundtruth`` holds
    per-frame boxes (LIRIS XML or MOTChallenge CSV; without it, the boxes of the
    ground-truth actions are used); ``counts`` is a counts root
    holding ``<category>_<video>/<name>.csv`` with ``name`` "groundtruth" or a
    detector's name (docs/measures.md §6). ``annotators`` hold several people's ground
    truth of the same frames, compared with each other (§13). ``annotated`` records, per
    video label, the frames someone has annotated (increasing frame numbers,
    docs/measures.md §8): a video listed there is compared with its ground truth on those
    frames only;
    a video not listed has ground truth on every frame of its temporal ROI (or on the
    frames with a ground-truth file). ``origins`` records, per video label, where the
    frames accepted in Referee came from and when (:mod:`referee.core.model.origins`).
    ``file`` is where the project was loaded from or saved to; ``frame_range``,
    when set, keeps only those frames of each video's temporal ROI
    (docs/measures.md §1; the command line's ``--frames``). Neither is stored in
    the file.
    """

    name: str
    dataset: Path | None = None
    video_files: tuple[Path, ...] = ()
    actions_groundtruth: Path | None = None
    boxes_groundtruth: Path | None = None
    counts: Path | None = None
    detectors: tuple[DetectorSource, ...] = ()
    annotators: tuple[AnnotatorSource, ...] = ()
    annotated: tuple[tuple[str, FrameSet], ...] = ()
    origins: tuple[tuple[str, tuple[AcceptedRun, ...]], ...] = ()
    file: Path | None = None
    frame_range: FrameRange | None = None

    def annotated_frames(self, label: str) -> FrameSet | None:
        """The frames recorded as annotated for the video ``label``, or ``None`` if none are."""
        for name, frames in self.annotated:
            if name == label:
                return frames
        return None

    def origins_of(self, label: str) -> tuple[AcceptedRun, ...]:
        """The recorded origins of the video ``label``'s accepted frames."""
        return next((runs for name, runs in self.origins if name == label), ())

    def mask_detectors(self) -> dict[str, Path]:
        """Detectors with masks: name → results root."""
        return {d.name: d.masks for d in self.detectors if d.masks is not None}

    def action_detectors(self) -> dict[str, Path]:
        """Detectors with LIRIS actions: name → XML file."""
        return {d.name: d.actions for d in self.detectors if d.actions is not None}

    def box_detectors(self) -> dict[str, Path]:
        """Detectors with per-frame boxes (or actions): name → file or folder."""
        return {d.name: source for d in self.detectors if (source := d.box_source) is not None}

    @property
    def box_groundtruth(self) -> Path | None:
        """The ground truth of per-frame boxes: ``boxes_groundtruth``, else the actions'."""
        return (
            self.boxes_groundtruth
            if self.boxes_groundtruth is not None
            else self.actions_groundtruth
        )

    def detector(self, name: str) -> DetectorSource:
        """The detector called ``name``.

        Raises
        ------
        InvalidOptionError
            If the project has no such detector.
        """
        for detector in self.detectors:
            if detector.name == name:
                return detector
        known = ", ".join(d.name for d in self.detectors) or "none"
        raise InvalidOptionError(
            f"project {self.name!r} has no detector {name!r} (its detectors: {known})"
        )


# --------------------------------------------------------------------------- editing


def detector_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a detector, or ``None`` if it can."""
    if not name.strip():
        return "a detector name cannot be empty"
    if name == GROUND_TRUTH:
        return (
            f"{GROUND_TRUTH!r} cannot name a detector: counts files of that name "
            "hold the ground truth; choose another name"
        )
    return None


def with_detector(project: Project, detector: DetectorSource) -> Project:
    """``project`` with ``detector`` added after the others.

    Raises
    ------
    InvalidOptionError
        If the name is empty, reserved, or already taken by another detector.
    """
    problem = detector_name_problem(detector.name)
    if problem is not None:
        raise InvalidOptionError(problem)
    if any(d.name == detector.name for d in project.detectors):
        raise InvalidOptionError(
            f"project {project.name!r} already has a detector "
            f"{detector.name!r}; choose another name or remove it first"
        )
    return dataclasses.replace(project, detectors=(*project.detectors, detector))


def with_annotated(project: Project, label: str, frames: Iterable[int]) -> Project:
    """``project`` recording ``frames`` (a :class:`FrameSet`, or frame numbers in any
    order) as the annotated frames of the video ``label``, replacing what it recorded
    for that video."""
    recorded = as_frame_set(frames)
    kept = tuple((name, known) for name, known in project.annotated if name != label)
    return dataclasses.replace(project, annotated=(*kept, (label, recorded)))


def with_origins(project: Project, label: str, runs: tuple[AcceptedRun, ...]) -> Project:
    """``project`` recording ``runs`` as the origins of the video ``label``'s frames,
    replacing what it recorded for that video (none recorded: the entry is dropped)."""
    kept = tuple((name, known) for name, known in project.origins if name != label)
    return dataclasses.replace(project, origins=(*kept, (label, runs)) if runs else kept)


def without_detector(project: Project, name: str) -> Project:
    """``project`` without the detector called ``name``.

    Raises
    ------
    InvalidOptionError
        If the project has no such detector.
    """
    project.detector(name)
    kept = tuple(d for d in project.detectors if d.name != name)
    return dataclasses.replace(project, detectors=kept)
