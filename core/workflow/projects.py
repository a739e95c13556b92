"""Opening whatever the user points at as a project."""

from __future__ import annotations

import os
from pathlib import Path

from referee.core.errors import InputFileError
from referee.core.formats import project_json
from referee.core.formats.cdnet import discover_videos, find_result_folder
from referee.core.model.project import (
    PROJECT_SUFFIX,
    VIDEO_EXTENSIONS,
    DetectorSource,
    Project,
    detector_name_problem,
)
from referee.core.model.videos import VideoSpec

#: Folders next to (or inside) a dataset folder that :func:`open_path` takes as detectors'
#: outputs: ``<folder>/<method>/<category>/<video>``, masks then soft scores.
RESULTS_FOLDER, SOFT_RESULTS_FOLDER = "results", "results-soft"

_WHAT_OPENS = (
    f"Referee opens a project file (*{PROJECT_SUFFIX}), a CDnet dataset folder "
    "(<category>/<video>/ folders holding groundtruth/, ROI.bmp and "
    "temporalROI.txt), one CDnet video folder, or a video file ("
    + ", ".join(VIDEO_EXTENSIONS)
    + ")"
)


def project_videos(project: Project) -> tuple[VideoSpec, ...]:
    """The CDnet videos of the project's dataset, by category then name (empty without one).

    Raises
    ------
    InputFileError
        If the dataset folder is missing or holds no valid CDnet video.
    """
    if project.dataset is None:
        return ()
    return tuple(discover_videos(project.dataset))


# --------------------------------------------------------------------------- opening


def open_path(path: str | Path) -> Project:
    """A project for whatever the user opened.

    * a ``.json`` file: a project file, read;
    * a folder holding one ``*.referee.json``: that project (several: an error);
    * a CDnet dataset folder or one CDnet video folder: a project of that
      dataset, named after the folder, with a detector for each method found
      in a ``results`` (masks) or ``results-soft`` (scores) folder inside it
      or next to it (``<method>/<category>/<video>``);
    * a video file (:data:`VIDEO_EXTENSIONS`): a project of that file.

    Raises
    ------
    InputFileError
        If the path does not exist or is none of these; a malformed project
        file or CDnet video folder gives that file's own error.
    """
    target = Path(os.path.abspath(path))
    if not target.exists():
        raise InputFileError(target, "does not exist; " + _WHAT_OPENS)
    if target.is_file() and target.suffix.lower() == ".json":
        return project_json.read_project(target)
    if target.is_file() and target.suffix.lower() in VIDEO_EXTENSIONS:
        return Project(name=target.stem, video_files=(target,))
    if target.is_dir():
        return _open_folder(target)
    raise InputFileError(target, "Referee cannot open this kind of file; " + _WHAT_OPENS)


def _open_folder(folder: Path) -> Project:
    project_files = sorted(folder.glob("*" + PROJECT_SUFFIX))
    if len(project_files) == 1:
        return project_json.read_project(project_files[0])
    if project_files:
        names = ", ".join(p.name for p in project_files)
        raise InputFileError(
            folder, f"this folder holds several project files ({names}); open one of them"
        )
    try:
        videos = discover_videos(folder)
    except InputFileError as error:
        if error.path == folder:  # no video at all; a broken video keeps its own message
            raise InputFileError(
                folder, "this folder holds no CDnet video; " + _WHAT_OPENS
            ) from None
        raise
    return Project(name=folder.name, dataset=folder, detectors=_detectors_near(folder, videos))


def _detectors_near(dataset: Path, videos: list[VideoSpec]) -> tuple[DetectorSource, ...]:
    """Detectors whose results for at least one of ``videos`` are inside or next to ``dataset``."""
    masks = _methods_in(RESULTS_FOLDER, dataset, videos)
    scores = _methods_in(SOFT_RESULTS_FOLDER, dataset, videos)
    names = [*masks, *(name for name in scores if name not in masks)]
    return tuple(
        DetectorSource(name, masks=masks.get(name), scores=scores.get(name))
        for name in names
        if detector_name_problem(name) is None
    )


def _methods_in(folder_name: str, dataset: Path, videos: list[VideoSpec]) -> dict[str, Path]:
    """Method folders of ``<dataset>/<folder_name>`` then ``<dataset>/../<folder_name>``."""
    methods: dict[str, Path] = {}
    for root in (dataset / folder_name, dataset.parent / folder_name):
        if not root.is_dir():
            continue
        for method in sorted(p for p in root.iterdir() if p.is_dir()):
            fresh = not method.name.startswith(".") and method.name not in methods
            if fresh and _has_results(method, videos):
                methods[method.name] = method
    return methods


def _has_results(root: Path, videos: list[VideoSpec], single_video: bool = False) -> bool:
    """Whether the results root ``root`` has a folder for at least one of ``videos``."""
    for video in videos:
        try:
            find_result_folder(root, video, single_video)
        except InputFileError:
            continue
        return True
    return False
