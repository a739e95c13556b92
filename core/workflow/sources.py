"""Cheap checks of a project's sources, for the Data dock."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.core.errors import InputFileError, RefereeError
from referee.core.formats.cdnet import is_video_folder
from referee.core.formats.counts_csv import read_counts_csv
from referee.core.formats.datasets import discover_dataset
from referee.core.formats.liris_xml import read_liris
from referee.core.formats.mot_benchmark import Benchmark, tracker_files
from referee.core.frames.sources import CdnetResultSource, first_frame_size
from referee.core.model.project import GROUND_TRUTH, DetectorSource, Project
from referee.core.model.videos import VideoSpec
from referee.core.workflow.detections import benchmark_of, read_boxes
from referee.core.workflow.frame_layers import CdnetInputSource
from referee.core.workflow.options import BoxOptions
from referee.core.workflow.projects import _has_results

#: States of a :class:`SourceStatus`.
LOADED, MISSING, ERROR = "loaded", "missing", "error"


@dataclass(frozen=True)
class SourceStatus:
    """The state of one source of a project, for the Data dock's tree.

    ``group`` is "Dataset", "Videos", "Ground truth" or a detector's name;
    ``kind`` is "dataset", "video", "masks", "scores", "actions", "boxes" or "counts";
    ``state`` is "loaded", "missing" or "error"; ``message`` says what was
    found or what is wrong (without repeating ``path`` when the problem is that
    file's own).
    """

    group: str
    name: str
    kind: str
    path: Path | None
    state: str
    message: str

    @property
    def failed(self) -> bool:
        """Whether the source could not be read: missing or in error."""
        return self.state != LOADED

    @property
    def title(self) -> str:
        """How messages name the source: "dataset", "video", "ground-truth actions",
        "knn masks"."""
        if self.group in ("Dataset", "Videos"):
            return self.kind
        if self.group == "Ground truth":
            return f"ground-truth {self.kind}"
        return f"{self.group} {self.kind}"


# --------------------------------------------------------------------------- status


def source_status(project: Project) -> tuple[SourceStatus, ...]:
    """Cheap checks of every source of ``project``, in tree order.

    Checks that paths exist, that the dataset lists at least one video whose
    first input frame decodes, that masks and scores roots have a folder for
    every dataset video whose first frame (the temporal ROI's) decodes, that
    action files are valid LIRIS XML, that box files read, that video files
    open and give a frame, and that the counts root holds ground-truth counts
    that read. No frame is evaluated.
    """
    rows: list[SourceStatus] = []
    videos: list[VideoSpec] = []
    if project.dataset is not None:
        dataset_row, videos = _dataset_status(project.dataset)
        rows.append(dataset_row)
    rows.extend(_video_file_status(path) for path in project.video_files)
    if project.actions_groundtruth is not None:
        rows.append(_actions_status("Ground truth", project.actions_groundtruth))
    benchmark = None
    if project.boxes_groundtruth is not None:
        benchmark = _benchmark(project.boxes_groundtruth)
        rows.append(_boxes_status("Ground truth", project.boxes_groundtruth, benchmark))
    if project.counts is not None:
        rows.append(_counts_status("Ground truth", project.counts, GROUND_TRUTH))
    single = project.dataset is not None and is_video_folder(project.dataset)
    for detector in project.detectors:
        rows.extend(_detector_status(detector, videos, single, project.counts, benchmark))
    return tuple(rows)


def failed_sources(rows: Sequence[SourceStatus]) -> tuple[SourceStatus, ...]:
    """The rows of :func:`source_status` whose source could not be read, in tree order."""
    return tuple(row for row in rows if row.failed)


def check_sources(project: Project) -> None:
    """Refuse a project one of whose sources cannot be read (:func:`source_status`).

    Raises
    ------
    InputFileError
        Naming the first such source's file, what is wrong and how many others fail.
    """
    failed = failed_sources(source_status(project))
    if not failed:
        return
    first, others = failed[0], len(failed) - 1
    named = f"the project {project.file} names it" if project.file else "the project names it"
    more = f"; {others} other source{'s' if others > 1 else ''} fail too" if others else ""
    raise InputFileError(
        first.path or project.file or Path(project.name),
        f"{first.message} ({named}: {first.group}, {first.name}){more}; fix the project or "
        "open it in the window to see every source",
    )


def _reason(error: RefereeError, root: Path) -> str:
    """What ``error`` says, naming its file relative to ``root`` (the row names ``root``):
    just the problem when the file is ``root`` itself."""
    if isinstance(error, InputFileError):
        if error.path == root:
            return error.problem
        if error.path.is_relative_to(root):
            return f"{error.path.relative_to(root)}: {error.problem}"
    return str(error)


def _video_reason(error: RefereeError, root: Path, video: VideoSpec) -> str:
    """:func:`_reason`, saying which video when the file at fault does not."""
    reason = _reason(error, root)
    named = (
        isinstance(error, InputFileError) and error.path != root and error.path.is_relative_to(root)
    )
    return reason if named else f"{video.label}: {reason}"


def _dataset_status(dataset: Path) -> tuple[SourceStatus, list[VideoSpec]]:
    def row(state: str, message: str) -> SourceStatus:
        return SourceStatus("Dataset", dataset.name, "dataset", dataset, state, message)

    if not dataset.is_dir():
        return row(MISSING, "dataset folder does not exist"), []
    try:
        videos = discover_dataset(dataset)
    except RefereeError as error:
        return row(ERROR, _reason(error, dataset)), []
    unreadable = [_first_input_problem(video, dataset) for video in videos]
    problems = [problem for problem in unreadable if problem is not None]
    if problems:
        return row(ERROR, "; ".join(problems)), videos
    categories = len({video.category for video in videos})
    return row(
        LOADED,
        f"{_plural(len(videos), 'video')} in {_plural(categories, 'category', 'categories')}",
    ), videos


def _first_input_problem(video: VideoSpec, dataset: Path) -> str | None:
    """Why the first input frame of ``video`` (the temporal ROI's) cannot be read, if it cannot."""
    try:
        CdnetInputSource(video).read(video.first)
    except RefereeError as error:
        return _video_reason(error, dataset, video)
    return None


def _video_file_status(path: Path) -> SourceStatus:
    def describe(path: Path) -> str:
        width, height = first_frame_size(path)
        return f"{width}x{height} pixels"

    return _file_status("Videos", path.name, "video", path, "video file", describe)


def _actions_status(group: str, path: Path) -> SourceStatus:
    def describe(path: Path) -> str:
        annotations = read_liris(path)
        actions = sum(len(video.actions) for video in annotations)
        return f"{_plural(actions, 'action')} in {_plural(len(annotations), 'video')}"

    return _file_status(group, "actions", "actions", path, "actions file", describe)


def _benchmark(path: Path) -> Benchmark | None:
    """The MOTChallenge benchmark folder the box ground truth is, if it is one that reads
    (one that does not is reported by its row)."""
    try:
        return benchmark_of(path, BoxOptions())
    except RefereeError:
        return None


def _boxes_status(group: str, path: Path, benchmark: Benchmark | None = None) -> SourceStatus:
    def describe(path: Path) -> str:
        if benchmark is not None and group == "Ground truth":
            count = _plural(len(benchmark.sequences), "sequence")
            return f"MOTChallenge benchmark of {count} (seqmap {benchmark.seqmap.name})"
        if benchmark is not None:
            files = tracker_files(path, benchmark)
            return f"MOTChallenge tracker files of {_plural(len(files), 'sequence')}"
        sequences, format_name = read_boxes(path)
        return f"{format_name} boxes of {_plural(len(sequences), 'video')}"

    return _file_status(group, "boxes", "boxes", path, "boxes file or folder", describe)


def _file_status(
    group: str, name: str, kind: str, path: Path, what: str, describe: Callable[[Path], str]
) -> SourceStatus:
    """The row of one file: missing, or what ``describe`` (which reads it) says of it, or
    why it cannot be read."""

    def row(state: str, message: str) -> SourceStatus:
        return SourceStatus(group, name, kind, path, state, message)

    if not os.path.lexists(path):
        return row(MISSING, f"{what} does not exist")
    try:
        return row(LOADED, describe(path))
    except RefereeError as error:
        return row(ERROR, _reason(error, path))


def _counts_status(group: str, root: Path, name: str) -> SourceStatus:
    def row(state: str, message: str) -> SourceStatus:
        return SourceStatus(group, "counts", "counts", root, state, message)

    if not root.is_dir():
        return row(MISSING, "counts folder does not exist")
    found = _count_files(root, name)
    if not found:
        return row(MISSING, f"no <category>_<video>/{name}.csv in the counts folder")
    problems = []
    for path in found:
        try:
            read_counts_csv(path)
        except RefereeError as error:
            problems.append(_reason(error, root))
    if problems:
        return row(ERROR, "; ".join(problems))
    return row(LOADED, f"counts for {_plural(len(found), 'video')}")


def _count_files(root: Path, name: str) -> list[Path]:
    return sorted(p for p in root.glob(f"*/{name}.csv") if p.is_file())


def _detector_status(
    detector: DetectorSource,
    videos: list[VideoSpec],
    single_video: bool,
    counts: Path | None,
    benchmark: Benchmark | None,
) -> list[SourceStatus]:
    rows = [
        _results_status(detector.name, kind, root, videos, single_video)
        for kind, root in (("masks", detector.masks), ("scores", detector.scores))
        if root is not None
    ]
    if detector.actions is not None:
        rows.append(_actions_status(detector.name, detector.actions))
    if detector.boxes is not None:
        rows.append(_boxes_status(detector.name, detector.boxes, benchmark))
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
    lacking = [video.label for video in videos if not _has_results(root, [video], single_video)]
    if lacking:
        return row(
            MISSING, f"no {kind} for {_plural(len(lacking), 'video')}: " + ", ".join(lacking)
        )
    problems = []
    for video in videos:
        try:
            CdnetResultSource.for_video(root, video, single_video).read(video.first)
        except RefereeError as error:
            problems.append(_video_reason(error, root, video))
    if problems:
        return row(ERROR, "; ".join(problems))
    return row(LOADED, f"{kind} for {_plural(len(videos), 'video')}")


def _plural(count: int, singular: str, plural: str | None = None) -> str:
    return f"{count:,} {singular if count == 1 else plural or singular + 's'}"
