"""Making a project file from folders and files on disk: ``referee project new`` and the
window's File › New project… call these.

The caller builds the project (:func:`new_project`), checks its sources with
:func:`~referee.core.workflow.sources.source_status` and shows each row, then
:func:`write_new_project` refuses a project one of whose sources could not be read and
writes the file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.project_json import write_project
from referee.core.formats.text_files import keeping_existing
from referee.core.model.project import (
    PROJECT_SUFFIX,
    DetectorSource,
    Project,
    detector_name_problem,
)
from referee.core.workflow.projects import method_names
from referee.core.workflow.sources import SourceStatus, failed_sources


@dataclass(frozen=True)
class ProjectSources:
    """What a new project names.

    ``masks`` and ``scores`` are CDnet results roots (``<category>/<video>/bin%06d.png``);
    ``actions`` and ``boxes`` the detectors' action and box files, beside their ground
    truth; ``counts`` a counts root (``<category>_<video>/<name>.csv``). Each detector is
    named after its folder or file (its stem), and outputs of one name are one detector's.
    """

    dataset: Path | None = None
    masks: tuple[Path, ...] = ()
    scores: tuple[Path, ...] = ()
    actions_groundtruth: Path | None = None
    actions: tuple[Path, ...] = ()
    boxes_groundtruth: Path | None = None
    boxes: tuple[Path, ...] = ()
    counts: Path | None = None


def new_project(file: Path, sources: ProjectSources, name: str | None = None) -> Project:
    """The project ``sources`` describe, to be written to ``file``, every path absolute.

    ``name`` defaults to the file's name without :data:`PROJECT_SUFFIX`.

    Raises
    ------
    InputFileError
        If ``file``'s name does not end with :data:`PROJECT_SUFFIX`.
    InvalidOptionError
        If the project would name nothing, results come without a dataset, a detector
        would be named "groundtruth" (or nothing), or two outputs of one kind share a name.
    """
    target = Path(os.path.abspath(file))
    if not target.name.endswith(PROJECT_SUFFIX) or target.name == PROJECT_SUFFIX:
        raise InputFileError(
            target,
            f"a project file's name ends with {PROJECT_SUFFIX}; call it, say, "
            f"{target.name.removesuffix('.json') or 'study'}{PROJECT_SUFFIX}",
        )
    if sources.dataset is None and (sources.masks or sources.scores):
        raise InvalidOptionError(
            "results roots are checked against a dataset's videos: give the dataset folder too"
        )
    if sources.dataset is None and not (sources.actions_groundtruth or sources.boxes_groundtruth):
        raise InvalidOptionError(
            "a project needs a dataset folder or a ground truth of actions or boxes"
        )
    title = (name if name is not None else target.name.removesuffix(PROJECT_SUFFIX)).strip()
    if not title:
        raise InvalidOptionError("a project needs a name")
    return Project(
        name=title,
        dataset=_absolute(sources.dataset),
        actions_groundtruth=_absolute(sources.actions_groundtruth),
        boxes_groundtruth=_absolute(sources.boxes_groundtruth),
        counts=_absolute(sources.counts),
        detectors=_detectors(sources),
        file=target,
    )


def _absolute(path: Path | None) -> Path | None:
    return None if path is None else Path(os.path.abspath(path))


def _detectors(sources: ProjectSources) -> tuple[DetectorSource, ...]:
    """One detector per name, in the order its first output was given."""
    fields: dict[str, dict[str, Path]] = {}
    kinds = (
        ("masks", sources.masks),
        ("scores", sources.scores),
        ("actions", sources.actions),
        ("boxes", sources.boxes),
    )
    for kind, paths in kinds:
        absolute = [Path(os.path.abspath(path)) for path in paths]
        for detector, path in zip(method_names(absolute), absolute):
            problem = detector_name_problem(detector)
            if problem is not None:
                raise InvalidOptionError(f"{path}: {problem} (detectors are named after it)")
            fields.setdefault(detector, {})[kind] = path
    return tuple(DetectorSource(detector, **paths) for detector, paths in fields.items())


def write_new_project(
    project: Project, rows: Sequence[SourceStatus] | None, advice: str, force: bool = False
) -> Project:
    """Write ``project`` to its file, atomically, unless a source could not be read.

    ``rows`` are the project's :func:`~referee.core.workflow.sources.source_status`
    (``None``: not checked); ``advice`` ends the error about a failed source (what the
    user can do); ``force`` replaces an existing file.

    Raises
    ------
    InputFileError
        Naming the first source that could not be read, with what is wrong and how many
        others fail; or the project file, if it exists (without ``force``) or its folder
        cannot be written.
    InvalidOptionError
        If the project has no file.
    """
    if project.file is None:
        raise InvalidOptionError("say where to write the project file")
    problem = failed_source_error(rows or (), advice)
    if problem is not None:
        raise problem
    with keeping_existing(not force):
        return write_project(project, project.file)


def failed_source_error(rows: Sequence[SourceStatus], advice: str) -> InputFileError | None:
    """The error naming the first of ``rows`` whose source could not be read, what is wrong
    with it and how many others fail, ending with ``advice``; ``None`` if every one reads."""
    failed = failed_sources(rows)
    if not failed:
        return None
    first, others = failed[0], len(failed) - 1
    more = f"; {others} other source{'s' if others > 1 else ''} fail too" if others else ""
    return InputFileError(
        first.path or Path(first.name), f"{first.message} ({first.title}){more}; {advice}"
    )
