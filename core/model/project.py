"""The project model: which videos, ground truth and detector outputs Referee works on."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from referee.core.errors import InvalidOptionError

PROJECT_SUFFIX = ".referee.json"
#: Extensions of the plain video files a project may hold (lower case).
#: The name reserved for the ground truth among the files named after detectors
#: (``<counts root>/<video>/groundtruth.csv``, the demo's ``actions/groundtruth.xml``).
GROUND_TRUTH = "groundtruth"
VIDEO_EXTENSIONS: tuple[str, ...] = (".mp4", ".avi", ".mkv", ".mov", ".webm")


@dataclass(frozen=True)
class DetectorSource:
    """One named detector's outputs; each path is optional.

    ``masks`` and ``scores`` are CDnet results roots holding
    ``<category>/<video>/bin%06d.png`` (0/255 masks, SPEC §1; 0-255 scores,
    SPEC §3); ``actions`` is a LIRIS XML file of detected actions (SPEC §4).
    The detector's counts, if any, are ``<counts root>/<category>_<video>/<name>.csv``.
    """

    name: str
    masks: Path | None = None
    scores: Path | None = None
    actions: Path | None = None


@dataclass(frozen=True)
class Project:
    """Videos, their ground truth and the detectors' outputs, with absolute paths.

    ``dataset`` is a CDnet dataset folder or a single CDnet video folder;
    ``video_files`` are plain videos without ground truth;
    ``actions_groundtruth`` is a LIRIS XML file; ``counts`` is a counts root
    holding ``<category>_<video>/<name>.csv`` with ``name`` "groundtruth" or a
    detector's name (SPEC §6). ``file`` is where the project was loaded from
    or saved to; it is not stored in the file.
    """

    name: str
    dataset: Path | None = None
    video_files: tuple[Path, ...] = ()
    actions_groundtruth: Path | None = None
    counts: Path | None = None
    detectors: tuple[DetectorSource, ...] = ()
    file: Path | None = None

    def mask_detectors(self) -> dict[str, Path]:
        """Detectors with masks: name → results root."""
        return {d.name: d.masks for d in self.detectors if d.masks is not None}

    def action_detectors(self) -> dict[str, Path]:
        """Detectors with LIRIS actions: name → XML file."""
        return {d.name: d.actions for d in self.detectors if d.actions is not None}

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
