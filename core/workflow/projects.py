"""Opening whatever the user points at as a project."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats import project_json
from referee.core.formats.annotated import frames_with_ground_truth
from referee.core.formats.cdnet import find_result_folder, last_annotatable_frame, list_folder
from referee.core.formats.datasets import discover_dataset, fixed_frames
from referee.core.formats.registry import is_project_file, is_video_file
from referee.core.frames.sources import first_frame_size
from referee.core.model.frame_set import FrameSet
from referee.core.model.project import (
    PROJECT_SUFFIX,
    DetectorSource,
    Project,
    detector_name_problem,
)
from referee.core.model.videos import TEMPORAL_ROI_FILE, FrameRange, VideoSpec
from referee.core.workflow.opening import WHAT_OPENS, missing_error

#: Folders next to (or inside) a dataset folder that :func:`open_path` takes as detectors'
#: outputs: ``<folder>/<method>/<category>/<video>``, masks then soft scores.
RESULTS_FOLDER, SOFT_RESULTS_FOLDER = "results", "results-soft"


def project_videos(project: Project, require_groundtruth: bool = True) -> tuple[VideoSpec, ...]:
    """The videos of the project's dataset (CDnet's or LASIESTA's,
    :func:`~referee.core.formats.datasets.discover_dataset`), by category then name (empty
    without one),
    each with the frames the project records as annotated (:attr:`VideoSpec.annotated`)
    and, with the project's :attr:`~Project.frame_range`, only the frames of its temporal
    ROI in that range.

    ``require_groundtruth=False`` also lists video folders without ground truth
    (for the computations that need none).

    Raises
    ------
    InputFileError
        If the dataset folder is missing or holds no valid CDnet video.
    InvalidOptionError
        If the frame range leaves a video no frame, or a video it applies to has no
        temporal ROI file.
    """
    if project.dataset is None:
        return ()
    videos = [
        _recorded(project, video)
        for video in discover_dataset(project.dataset, require_groundtruth)
    ]
    if project.frame_range is not None:
        videos = [_within(video, project.frame_range) for video in videos]
    return tuple(videos)


def _recorded(project: Project, video: VideoSpec) -> VideoSpec:
    """``video`` with the annotated frames the project records for it, if it does.

    Raises
    ------
    InputFileError
        Naming the project file, if it records frames (annotated or their origins)
        beyond the video's last frame (:func:`last_annotatable_frame`).
    """
    recorded = project.annotated_frames(video.label)
    origins = project.origins_of(video.label)
    claimed = max(
        recorded.last if recorded is not None and recorded.last is not None else 0,
        max((run.last for run in origins), default=0),
    )
    if claimed > video.last and claimed > (last := last_annotatable_frame(video)):
        raise InputFileError(
            project.file or Path(project.name),
            f"records frame {claimed:,} of video {video.label} as annotated, but the video's "
            f"frames end at {last:,}; remove the runs beyond it from 'annotated' and 'origins'",
        )
    return video if recorded is None else dataclasses.replace(video, annotated=recorded)


def _within(video: VideoSpec, frames: FrameRange) -> VideoSpec:
    """``video`` restricted to ``frames``; refused when the dataset does not fix its frames
    (no temporal ROI file), which lets pseudo ground truth take the frames every detector
    has instead."""
    if not fixed_frames(video):
        raise InvalidOptionError(
            f"the frame range {frames} narrows each video's temporal ROI, but video "
            f"{video.label} has no {TEMPORAL_ROI_FILE}; add one ('first last') or leave the "
            "range out"
        )
    return video.within(frames)


def method_names(paths: Sequence[Path]) -> list[str]:
    """Each path's detector name: its file stem or folder name.

    Raises
    ------
    InvalidOptionError
        If two paths give the same name.
    """
    names: list[str] = []
    for path in paths:
        resolved = path.resolve()
        name = (resolved.stem if resolved.is_file() else resolved.name) or str(path)
        if name in names:
            raise InvalidOptionError(
                f"two detectors are both named {name!r} (after their folders or files); "
                "rename one so they can be told apart"
            )
        names.append(name)
    return names


def project_of_outputs(
    kind: str,
    outputs: Sequence[Path],
    dataset: Path | None = None,
    groundtruth: Path | None = None,
    frame_range: FrameRange | None = None,
) -> Project:
    """A project of detector outputs given one by one (the command line's arguments).

    Parameters
    ----------
    kind
        What the outputs are: ``masks``, ``scores``, ``actions`` or ``boxes``
        (a field of :class:`DetectorSource`); each detector is named after its
        file or folder.
    dataset
        The CDnet dataset or video folder of masks and scores.
    groundtruth
        The ground-truth actions (``actions``) or boxes (``boxes``).
    frame_range
        The frames of each video's temporal ROI to keep (:attr:`Project.frame_range`).

    Raises
    ------
    InvalidOptionError
        If two outputs have the same name.
    """
    detectors = tuple(
        DetectorSource(name, **{kind: path}) for name, path in zip(method_names(outputs), outputs)
    )
    anchor = dataset or groundtruth or (outputs[0] if outputs else Path("."))
    return Project(
        name=anchor.resolve().name or str(anchor),
        dataset=dataset,
        actions_groundtruth=groundtruth if kind == "actions" else None,
        boxes_groundtruth=groundtruth if kind == "boxes" else None,
        detectors=detectors,
        frame_range=frame_range,
    )


# --------------------------------------------------------------------------- opening


@dataclass(frozen=True)
class ListedProject:
    """A project with what showing it needs listed from its folders: its videos
    (:func:`project_videos`) and, by video label, the frames that have ground truth
    (:func:`~referee.core.formats.annotated.frames_with_ground_truth`)."""

    project: Project
    videos: tuple[VideoSpec, ...]
    annotated: Mapping[str, FrameSet]


def list_project(project: Project) -> ListedProject:
    """List ``project``'s videos and their annotated frames, as opening it does.

    Raises
    ------
    InputFileError
        If the project's dataset cannot be read (:func:`project_videos`), or the project
        has nothing to show: no dataset, video file or ground truth.
    """
    videos = project_videos(project)
    if not (videos or project.video_files or project.box_groundtruth or project.counts):
        raise InputFileError(
            project.file or Path(project.name),
            "the project is empty: it names no dataset, video file or ground truth, "
            "so there is nothing to show; add a dataset folder or video files to it",
        )
    annotated = {video.label: frames_with_ground_truth(video) for video in videos}
    return ListedProject(project, videos, annotated)


def open_path(path: str | Path) -> Project:
    """A project for whatever the user opened.

    * a ``.json`` file: a project file, read;
    * a folder holding one ``*.referee.json``: that project (several: an error);
    * a CDnet dataset folder, one CDnet video folder or a LASIESTA folder: a project of
      that dataset, named after the folder, with a detector for each method found
      in a ``results`` (masks) or ``results-soft`` (scores) folder inside it
      or next to it (``<method>/<category>/<video>``);
    * a video file (:data:`VIDEO_EXTENSIONS`): a project of that file, once
      its first frame is decoded.

    Raises
    ------
    InputFileError
        If the path does not exist or is none of these, or is a video file
        whose first frame cannot be decoded; a malformed project file or
        CDnet video folder gives that file's own error.
    """
    target = Path(os.path.abspath(path))
    if not target.exists():
        raise missing_error(target)
    if target.is_file() and is_project_file(target):
        return project_json.read_project(target)
    if target.is_file() and is_video_file(target):
        first_frame_size(target)  # a corrupt file is refused here, not shown as a blank view
        return Project(name=target.stem, video_files=(target,))
    if target.is_dir():
        return _open_folder(target)
    raise InputFileError(target, "Referee cannot open this kind of file; " + WHAT_OPENS)


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
        videos = discover_dataset(folder)
    except InputFileError as error:
        if error.path == folder:  # no video at all; a broken video keeps its own message
            raise InputFileError(
                folder, "this folder holds no CDnet video or LASIESTA sequence; " + WHAT_OPENS
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
        for method in sorted(root / name for name in list_folder(root)):
            if method.name.startswith(".") or method.name in methods or not method.is_dir():
                continue
            list_folder(method)  # an unreadable method folder is named, not skipped
            if _has_results(method, videos):
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
