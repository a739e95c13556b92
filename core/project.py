"""The project model: which videos, ground truth and detector outputs Referee works on.

A :class:`Project` names a CDnet dataset (SPEC §10), plain video files, the
LIRIS ground-truth actions (SPEC §4), a counts root (SPEC §6) and named
:class:`DetectorSource` s. It is saved as a ``*.referee.json`` file (see
:mod:`referee.core.formats.project_json`) whose paths are relative to the
file's folder; in memory every path is absolute.

Projects are immutable: :func:`with_detector` and :func:`without_detector`
return a new project. :func:`source_status` makes cheap checks of every source
for the Data dock. Nothing here computes a measure.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

import cv2

from .demo import BINARY_METHODS, GROUND_TRUTH, DemoLayout, ensure_demo
from .errors import InputFileError, InvalidOptionError, RefereeError
from .formats import project_json
from .formats.cdnet import (
    VideoSpec,
    discover_videos,
    find_result_folder,
    is_video_folder,
)
from .formats.liris_xml import read_liris
from .progress import CancelToken, ProgressCallback

PROJECT_SUFFIX = ".referee.json"
#: Extensions of the plain video files a project may hold (lower case).
VIDEO_EXTENSIONS: tuple[str, ...] = (".mp4", ".avi", ".mkv", ".mov", ".webm")
#: File name of the demo's project, in the demo's root folder.
DEMO_PROJECT_NAME = "demo" + PROJECT_SUFFIX
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


#: States of a :class:`SourceStatus`.
LOADED, MISSING, ERROR = "loaded", "missing", "error"


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


@dataclass(frozen=True)
class SourceStatus:
    """The state of one source of a project, for the Data dock's tree.

    ``group`` is "Dataset", "Videos", "Ground truth" or a detector's name;
    ``kind`` is "dataset", "video", "masks", "scores", "actions" or "counts";
    ``state`` is "loaded", "missing" or "error"; ``message`` says what was
    found or what is wrong.
    """

    group: str
    name: str
    kind: str
    path: Path | None
    state: str
    message: str


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


# --------------------------------------------------------------------------- demo


def demo_project(layout: DemoLayout) -> Project:
    """The built-in demo as a project (see :mod:`referee.core.demo`).

    Its detectors are the demo's :data:`~referee.core.demo.BINARY_METHODS`
    with their masks, soft scores and tracked actions where the demo has them;
    its file is ``demo.referee.json`` in the demo's root.
    """
    detectors = tuple(
        DetectorSource(
            method,
            masks=layout.results[method],
            scores=layout.soft_results.get(method),
            actions=layout.actions.get(method),
        )
        for method in BINARY_METHODS
    )
    return Project(
        name="Referee demo",
        dataset=layout.dataset,
        actions_groundtruth=layout.actions_gt,
        counts=layout.root / "counts",
        detectors=detectors,
        file=layout.root / DEMO_PROJECT_NAME,
    )


def ensure_demo_project(
    root: str | Path, progress: ProgressCallback | None = None, cancel: CancelToken | None = None
) -> Project:
    """The demo's project in ``root``, writing the demo and its project file when needed.

    The demo is reused or written by :func:`~referee.core.demo.ensure_demo`
    (``progress`` and ``cancel`` go there). The project file is written only
    if it does not exist yet, so a project the user edited is kept; the
    project is then read from it.

    Raises
    ------
    RefereeError
        See :func:`~referee.core.demo.ensure_demo` and
        :func:`~referee.core.formats.project_json.read_project`.
    """
    layout = ensure_demo(Path(os.path.abspath(root)), progress, cancel)
    file = layout.root / DEMO_PROJECT_NAME
    if not file.exists():
        project_json.write_project(demo_project(layout), file)
    return project_json.read_project(file)


# --------------------------------------------------------------------------- status


def source_status(project: Project) -> tuple[SourceStatus, ...]:
    """Cheap checks of every source of ``project``, in tree order.

    Checks that paths exist, that the dataset lists at least one video, that
    masks and scores roots have a folder for every dataset video, that action
    files are valid LIRIS XML, that video files open and give a frame, and
    that the counts root holds ground-truth counts. No frame is evaluated.
    """
    rows: list[SourceStatus] = []
    videos: list[VideoSpec] = []
    if project.dataset is not None:
        dataset_row, videos = _dataset_status(project.dataset)
        rows.append(dataset_row)
    rows.extend(_video_file_status(path) for path in project.video_files)
    if project.actions_groundtruth is not None:
        rows.append(_actions_status("Ground truth", project.actions_groundtruth))
    if project.counts is not None:
        rows.append(_counts_status("Ground truth", project.counts, GROUND_TRUTH))
    single = project.dataset is not None and is_video_folder(project.dataset)
    for detector in project.detectors:
        rows.extend(_detector_status(detector, videos, single, project.counts))
    return tuple(rows)


def _dataset_status(dataset: Path) -> tuple[SourceStatus, list[VideoSpec]]:
    def row(state: str, message: str) -> SourceStatus:
        return SourceStatus("Dataset", dataset.name, "dataset", dataset, state, message)

    if not dataset.is_dir():
        return row(MISSING, "dataset folder does not exist"), []
    try:
        videos = discover_videos(dataset)
    except RefereeError as error:
        return row(ERROR, str(error)), []
    categories = len({video.category for video in videos})
    return row(
        LOADED,
        f"{_plural(len(videos), 'video')} in {_plural(categories, 'category', 'categories')}",
    ), videos


def _video_file_status(path: Path) -> SourceStatus:
    def row(state: str, message: str) -> SourceStatus:
        return SourceStatus("Videos", path.name, "video", path, state, message)

    if not path.is_file():
        return row(MISSING, "video file does not exist")
    capture = cv2.VideoCapture(os.fspath(path))
    try:
        ok, frame = capture.read() if capture.isOpened() else (False, None)
    finally:
        capture.release()
    if not ok or frame is None:
        return row(
            ERROR,
            "cannot decode a frame of this video: the file is corrupt or its "
            "codec is not supported",
        )
    return row(LOADED, f"{frame.shape[1]}x{frame.shape[0]} pixels")


def _actions_status(group: str, path: Path) -> SourceStatus:
    def row(state: str, message: str) -> SourceStatus:
        return SourceStatus(group, "actions", "actions", path, state, message)

    if not path.exists():
        return row(MISSING, "actions file does not exist")
    try:
        annotations = read_liris(path)
    except RefereeError as error:
        return row(ERROR, str(error))
    actions = sum(len(video.actions) for video in annotations)
    return row(LOADED, f"{_plural(actions, 'action')} in {_plural(len(annotations), 'video')}")


def _counts_status(group: str, root: Path, name: str) -> SourceStatus:
    def row(state: str, message: str) -> SourceStatus:
        return SourceStatus(group, "counts", "counts", root, state, message)

    if not root.is_dir():
        return row(MISSING, "counts folder does not exist")
    found = _count_files(root, name)
    if not found:
        return row(MISSING, f"no <category>_<video>/{name}.csv in the counts folder")
    return row(LOADED, f"counts for {_plural(len(found), 'video')}")


def _count_files(root: Path, name: str) -> list[Path]:
    return sorted(p for p in root.glob(f"*/{name}.csv") if p.is_file())


def _detector_status(
    detector: DetectorSource, videos: list[VideoSpec], single_video: bool, counts: Path | None
) -> list[SourceStatus]:
    rows = [
        _results_status(detector.name, kind, root, videos, single_video)
        for kind, root in (("masks", detector.masks), ("scores", detector.scores))
        if root is not None
    ]
    if detector.actions is not None:
        rows.append(_actions_status(detector.name, detector.actions))
    if counts is not None and counts.is_dir() and _count_files(counts, detector.name):
        rows.append(_counts_status(detector.name, counts, detector.name))
    return rows


def _results_status(
    group: str, kind: str, root: Path, videos: list[VideoSpec], single_video: bool
) -> SourceStatus:
    def row(state: str, message: str) -> SourceStatus:
        return SourceStatus(group, kind, kind, root, state, message)

    if not root.is_dir():
        return row(MISSING, f"{kind} folder does not exist")
    if not videos:
        return row(LOADED, "folder exists (no dataset video to check it against)")
    lacking = [
        f"{video.category}/{video.name}"
        for video in videos
        if not _has_results(root, [video], single_video)
    ]
    if lacking:
        return row(
            MISSING, f"no {kind} for {_plural(len(lacking), 'video')}: " + ", ".join(lacking)
        )
    return row(LOADED, f"{kind} for {_plural(len(videos), 'video')}")


def _plural(count: int, singular: str, plural: str | None = None) -> str:
    return f"{count:,} {singular if count == 1 else plural or singular + 's'}"
