"""Actions, per-frame boxes and counts against their ground truth (docs/measures.md §4–§6)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from referee.core.errors import InvalidOptionError, RefereeWarning, UnavailableError
from referee.core.formats import registry
from referee.core.formats.counts_csv import read_counts_pair
from referee.core.formats.mot_benchmark import (
    MOT_BENCHMARK,
    Benchmark,
    find_benchmark,
    is_benchmark,
    read_groundtruth,
    read_tracker,
    tracker_files,
)
from referee.core.formats.mot_csv import read_mot_boxes
from referee.core.measures.action_scores import evaluate_actions
from referee.core.measures.box_rules import (
    AUTO,
    BENCHMARKS,
    NO_BENCHMARK,
    BenchmarkRules,
    inferred_benchmark,
)
from referee.core.measures.boxes import VideoBoxes, evaluate_boxes
from referee.core.measures.counting import evaluate_counts
from referee.core.measures.detection_ap import DetectionAP, sequences_ap
from referee.core.measures.mot_groundtruth import counted_groundtruth, without_distractor_matches
from referee.core.measures.tracking import TrackingEvaluation, evaluate_tracking
from referee.core.model.project import GROUND_TRUTH, Project
from referee.core.model.videos import AnnotatedFrames, VideoSpec
from referee.core.progress import CancelToken, ProgressCallback, check, part, report
from referee.core.significance.tracking_units import block_tracking, needs_blocks
from referee.core.workflow.options import ActionOptions, BoxOptions, CountOptions
from referee.core.workflow.projects import project_videos
from referee.core.workflow.results import (
    ActionsResult,
    BoxesResult,
    CountRow,
    CountsResult,
)


def run_actions(
    project: Project,
    options: ActionOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> ActionsResult:
    """Every detector's LIRIS actions against the ground-truth actions.

    Raises
    ------
    UnavailableError
        If the project has no ground-truth actions or no detector has actions.
    """
    options = options or ActionOptions()
    detectors = project.action_detectors()
    if project.actions_groundtruth is None:
        raise UnavailableError("the project has no ground-truth actions")
    if not detectors:
        raise UnavailableError("no detector has actions")
    groundtruth, _ = registry.read(project.actions_groundtruth, registry.ACTIONS)
    evaluations = {}
    for k, (name, path) in enumerate(detectors.items()):
        detections, _ = registry.read(path, registry.ACTIONS)
        step = part(progress, k, len(detectors))
        evaluations[name] = evaluate_actions(groundtruth, detections, options.liris, step, cancel)
    return ActionsResult(options, evaluations)


def read_boxes(
    path: Path, min_conf: float | None = None, read: Sequence[tuple[str, Any]] = ()
) -> tuple[list[VideoBoxes], str]:
    """The per-frame boxes of a file or folder in any registered format, and its format;
    ``read`` holds the options of formats that need some (``BoxOptions.read``)."""
    reader = registry.detect(path, registry.BOXES)
    extra = registry.reader_keywords(reader.name, registry.BOXES, dict(read))
    return list(reader.read(path, min_conf=min_conf, **extra)), reader.name


def read_detections(project: Project, path: Path) -> tuple[list[VideoBoxes], str]:
    """A detector's boxes at ``path`` read as the box stage reads them with default options:
    a tracker's files when the project's ground truth is a MOTChallenge benchmark folder
    (:func:`benchmark_of`), else any registered format (:func:`read_boxes`)."""
    source, options = project.box_groundtruth, BoxOptions()
    benchmark = benchmark_of(source, options) if source is not None else None
    return _read_detector(path, benchmark, options)


def _read_detector(
    path: Path, benchmark: Benchmark | None, options: BoxOptions
) -> tuple[list[VideoBoxes], str]:
    """A detector's boxes: a tracker's files of ``benchmark``, else any registered format."""
    if benchmark is not None:
        return read_tracker(path, benchmark, options.min_conf), MOT_BENCHMARK
    return read_boxes(path, options.min_conf, options.read)


def read_groundtruth_boxes(
    path: Path, classes: str | None = None, read: Sequence[tuple[str, Any]] = ()
) -> tuple[list[VideoBoxes], str]:
    """The ground-truth boxes of a file or folder in any registered format, every row
    kept, and its format; with MOTChallenge class rules ``classes``, a MOTChallenge file's
    boxes keep their class (8th column) as label.

    Raises
    ------
    InvalidOptionError
        Class rules on ground truth that is not a MOTChallenge file.
    """
    reader = registry.detect(path, registry.BOXES)
    if classes is None:
        given = {k: v for k, v in read if k != "images"}  # a results file's option
        extra = registry.reader_keywords(reader.name, registry.BOXES, given)
        return list(reader.read(path, **extra)), reader.name
    if reader.name != registry.MOT_CSV:
        raise InvalidOptionError(
            f"the MOTChallenge class rules ({classes}) need MOTChallenge ground truth; "
            f"{path} is {reader.description}"
        )
    return [read_mot_boxes(path, classes=True)], reader.name


def benchmark_of(path: Path, options: BoxOptions) -> Benchmark | None:
    """The MOTChallenge benchmark folder ``path`` is (docs/measures.md §5), or ``None`` if
    it is none and ``options`` names no seqmap."""
    if options.seqmap is None and not is_benchmark(path):
        return None
    return find_benchmark(path, options.seqmap)


def pair_single_videos(
    groundtruth: list[VideoBoxes], detections: list[VideoBoxes], formats: tuple[str, str]
) -> list[VideoBoxes]:
    """The detections, renamed after the ground truth's video when a one-video format
    (MOTChallenge, YOLO or labelme, whose files name no video) faces a single video."""
    single = bool(registry.ONE_VIDEO_FORMATS & set(formats)) and (
        len(groundtruth) == len(detections) == 1
    )
    if single and groundtruth[0].name != detections[0].name:
        return [VideoBoxes(groundtruth[0].name, detections[0].frames)]
    return detections


def recorded_videos(project: Project) -> tuple[VideoSpec, ...]:
    """The videos of the project's dataset, with their recorded annotated frames, when the
    project records any (else none: then no box sequence is restricted, and the dataset is
    not read). Box ground truth needs no mask ground truth, so every video folder counts."""
    if not project.annotated or project.dataset is None:
        return ()
    return project_videos(project, require_groundtruth=False)


def paired_video(
    name: str, videos: Sequence[VideoSpec], motchallenge: bool = False
) -> VideoSpec | None:
    """The project video a box sequence called ``name`` is paired with (docs/measures.md §5):
    the one whose :attr:`~VideoSpec.file_stem` is ``name``, else, for the one sequence of a
    MOTChallenge file (``motchallenge``), the project's only video; ``None`` if neither."""
    for video in videos:
        if video.file_stem == name:
            return video
    return videos[0] if motchallenge and len(videos) == 1 else None


def annotated_only(
    sequences: Sequence[VideoBoxes],
    videos: Sequence[VideoSpec],
    motchallenge: str | None,
    restricted: dict[str, AnnotatedFrames],
) -> list[VideoBoxes]:
    """``sequences``, each paired with a partly annotated video (:func:`paired_video`) kept
    on that video's annotated frames only (docs/measures.md §5); the others as they are.

    ``motchallenge`` names the sequence that is a MOTChallenge file's, if any. Every
    restricted sequence is recorded in ``restricted``, by name.
    """
    kept = []
    for sequence in sequences:
        video = paired_video(sequence.name, videos, sequence.name == motchallenge)
        subset = video.annotated_subset() if video is not None else None
        if subset is None:
            kept.append(sequence)
            continue
        restricted[sequence.name] = subset
        frames = set(subset.frames)
        kept.append(
            VideoBoxes(sequence.name, {f: b for f, b in sequence.frames.items() if f in frames})
        )
    return kept


def run_boxes(
    project: Project,
    options: BoxOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> BoxesResult:
    """Every detector's per-frame boxes against the ground truth, frame by frame.

    The boxes are the project's box files, or its actions' boxes when it has none. When
    the ground truth is a MOTChallenge benchmark folder (:func:`benchmark_of`), every
    detector is a tracker's folder and every sequence of the seqmap is evaluated. The
    ground-truth rules of ``options`` (consider flag, MOTChallenge classes) set boxes
    aside first; the evaluations count them. A sequence paired with a partly annotated
    video of the project is evaluated on that video's recorded annotated frames only,
    for every detector (:func:`annotated_only`, docs/measures.md §5); the result says
    which. Boxes with identities (MOTChallenge tracks, LIRIS actions) also get the tracking
    measures (HOTA, CLEAR MOT, identity, ATA), over every frame of each sequence (the
    annotated frames of a restricted one); ``untracked`` says why a detector has none.
    With few sequences they are also computed on frame blocks of ``options.tracking_block``
    frames (:func:`~referee.core.significance.tracking_units.block_tracking`).
    Progress counts frames over all detectors.

    Raises
    ------
    UnavailableError
        If the project has no ground-truth boxes or actions, or no detector has any.
    InputFileError
        A missing or malformed file; against a benchmark, every tracker's files are
        checked before any is read.
    """
    requested = options = options or BoxOptions()
    source = project.box_groundtruth
    detectors = project.box_detectors()
    if source is None:
        raise UnavailableError("the project has no ground-truth boxes or actions")
    if not detectors:
        raise UnavailableError("no detector has boxes or actions")
    benchmark = benchmark_of(source, options)
    rules, rules_source = _benchmark_rules(source, benchmark, options)
    options = applied_rules(options, rules)
    if benchmark is not None:
        groundtruth = read_groundtruth(benchmark, classes=options.mot_classes is not None)
        gt_format = MOT_BENCHMARK
        for path in detectors.values():
            tracker_files(path, benchmark)
    else:
        groundtruth, gt_format = read_groundtruth_boxes(source, options.mot_classes, options.read)
        if gt_format != registry.MOT_CSV and rules is not None:  # no MOTChallenge boxes
            rules, rules_source, options = None, None, applied_rules(requested, None)
    videos = recorded_videos(project)
    # A MOTChallenge ground truth is one sequence; detections paired with it take its name.
    single = gt_format == registry.MOT_CSV and len(groundtruth) == 1
    motchallenge = groundtruth[0].name if single else None
    restricted: dict[str, AnnotatedFrames] = {}
    counted = [
        counted_groundtruth(
            v, options.groundtruth_min_conf, options.mot_classes, options.groundtruth_zero_marked
        )
        for v in groundtruth
    ]
    ignored = _set_aside(groundtruth, counted)
    truth = annotated_only(counted, videos, motchallenge, restricted)
    whole = {v.name: v for v in groundtruth}
    evaluations, formats = {}, {"": gt_format}
    tracking: dict[str, TrackingEvaluation] = {}
    untracked: dict[str, str] = {}
    tracking_blocks: dict[str, TrackingEvaluation] = {}
    detection_ap: dict[str, DetectionAP] = {}
    for k, (name, path) in enumerate(detectors.items()):
        check(cancel)
        detections, formats[name] = _read_detector(path, benchmark, options)
        if benchmark is None:
            detections = pair_single_videos(groundtruth, detections, (gt_format, formats[name]))
        kept = [
            without_distractor_matches(whole[d.name], d, options.mot_classes)
            if d.name in whole
            else d
            for d in detections
        ]
        removed = _set_aside(detections, kept)
        evaluation = evaluate_boxes(
            truth,
            annotated_only(kept, videos, motchallenge, restricted),
            options.iou,
            options.mapping,
            options.class_aware,
            part(progress, k, len(detectors)),
            cancel,
            options.iou_rule,
        )
        evaluations[name] = replace(
            evaluation, groundtruth_ignored=ignored, detections_removed=removed
        )
        if options.detection_ap:
            detection_ap[name] = sequences_ap(counted, kept)
        lengths = benchmark.lengths if benchmark is not None else None
        only = {sequence: sorted(a.frames) for sequence, a in restricted.items()}
        try:
            tracking[name] = evaluate_tracking(counted, kept, lengths, only)
        except InvalidOptionError as error:  # the box measures stand without identities
            untracked[name] = str(error)
            if formats[name] in (registry.MOT_CSV, MOT_BENCHMARK):
                warnings.warn(f"no tracking measures for {name}: {error}", RefereeWarning, 2)
        block = options.tracking_block
        if name in tracking and block is not None and needs_blocks(len(counted)):
            tracking_blocks[name] = block_tracking(counted, kept, block, lengths, only)
    return BoxesResult(
        requested,
        evaluations,
        formats,
        restricted,
        tracking,
        options,
        rules,
        rules_source,
        detection_ap,
        untracked,
        tracking_blocks=tracking_blocks,
    )


def _benchmark_rules(
    source: Path, benchmark: Benchmark | None, options: BoxOptions
) -> tuple[BenchmarkRules | None, str | None]:
    """The benchmark rules ``options`` ask for, and what they were inferred from (``None``
    when named): ``auto`` looks for MOT15 … MOT20 in the seqmap's name, the benchmark
    folder or the ground-truth file's path."""
    if options.benchmark == NO_BENCHMARK:
        return None, None
    if options.benchmark != AUTO:
        return BENCHMARKS[options.benchmark], None
    names = [str(source.resolve())]
    if benchmark is not None:
        names = [benchmark.seqmap.stem, str(benchmark.folder.resolve()), *names]
    found = inferred_benchmark(names)
    return (None, None) if found is None else (BENCHMARKS[found[0]], found[1])


def applied_rules(options: BoxOptions, rules: BenchmarkRules | None) -> BoxOptions:
    """``options`` with a benchmark's ground-truth and IoU rules where they keep their
    defaults (an option the user set wins)."""
    if rules is None:
        return options
    defaults = BoxOptions()
    return replace(
        options,
        groundtruth_zero_marked=options.groundtruth_zero_marked or rules.zero_marked,
        mot_classes=options.mot_classes if options.mot_classes is not None else rules.classes,
        iou_rule=rules.iou_rule if options.iou_rule == defaults.iou_rule else options.iou_rule,
    )


def _set_aside(before: Sequence[VideoBoxes], after: Sequence[VideoBoxes]) -> dict[str, int]:
    """How many boxes of each video the rules set aside (videos without any left out)."""
    counts = {a.name: a.box_count - b.box_count for a, b in zip(before, after)}
    return {name: count for name, count in counts.items() if count}


def evaluate_count_pair(
    groundtruth: Path,
    estimate: Path,
    options: CountOptions | None = None,
    video: str = "",
    detector: str = "",
) -> CountRow:
    """One count file against its ground truth (CCR_WCC and the MAEs); the row names
    ``video`` and ``detector`` (default: the estimate's file name).

    Raises
    ------
    InputFileError
        A malformed file, or files that do not cover the same frames.
    """
    options = options or CountOptions()
    gt, est = read_counts_pair(groundtruth, estimate)
    result = evaluate_counts(gt.counts, est.counts, options.window)
    return CountRow(video, detector or estimate.stem, gt, est, result)


def run_counts(
    project: Project,
    options: CountOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> CountsResult:
    """Every detector's counts on every video of the counts root that has ground-truth counts.

    The counts root holds ``<video>/groundtruth.csv`` and ``<video>/<detector>.csv``.

    Raises
    ------
    UnavailableError
        If there is no ground-truth count, or no detector has counts beside one.
    """
    options = options or CountOptions()
    root = project.counts
    folders = (
        sorted(p.parent for p in root.glob(f"*/{GROUND_TRUTH}.csv"))
        if root is not None and root.is_dir()
        else []
    )
    if not folders:
        raise UnavailableError("the project has no ground-truth counts")
    rows = []
    for k, folder in enumerate(folders):
        for detector in project.detectors:
            path = folder / f"{detector.name}.csv"
            if path.is_file():
                gt_path = folder / f"{GROUND_TRUTH}.csv"
                rows.append(evaluate_count_pair(gt_path, path, options, folder.name, detector.name))
        check(cancel)
        report(progress, k + 1, len(folders))
    if not rows:
        raise UnavailableError("no detector has counts beside the ground-truth counts")
    return CountsResult(options, rows)
