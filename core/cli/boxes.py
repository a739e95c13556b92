"""``referee boxes``: per-frame boxes (docs/measures.md §5)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.core.cli import input_checks
from referee.core.cli.common import (
    Commands,
    add_block_length,
    add_force,
    add_output,
    add_quiet,
    block_length,
    progress_bar,
    write_json,
)
from referee.core.errors import InvalidOptionError
from referee.core.formats.text_files import write_text
from referee.core.measures.box_rules import AUTO, BENCHMARKS, CLASS_RULES, IOU_RULES, NO_BENCHMARK
from referee.core.measures.choices import MAPPINGS
from referee.core.significance.choices import MIN_SEQUENCES
from referee.core.workflow.options import BoxOptions, TrackingIntervalOptions

if TYPE_CHECKING:
    from referee.core.significance.tracker_bootstrap import TrackingIntervals
    from referee.core.workflow.results import BoxesResult


def add_commands(commands: Commands) -> None:
    """Register ``boxes`` on the top-level parser."""
    _add_boxes(commands)


# --- boxes -------------------------------------------------------------------------------


def _add_boxes(commands: Commands) -> None:
    parser = commands.add_parser(
        "boxes",
        help="per-frame box detection measures: SFDA, MODA, N-MODP (VACE)",
        description="Map ground-truth boxes to detected boxes on every frame, one-to-one, "
        "maximizing IoU (docs/measures.md §5), then report SFDA, MODA, N-MODP and TP/FP/misses "
        "per video and over all videos (frames pooled). GT and DET are each a "
        "LIRIS XML file or folder (.xml) or a MOTChallenge CSV (.csv or .txt, "
        "'frame,id,x,y,w,h,conf,...', the whole file one video). Videos are paired "
        "by name; a MOTChallenge file facing a single video is paired with it "
        "whatever its name. GT may also be a MOTChallenge benchmark folder "
        "(seqmaps/<split>.txt and <sequence>/gt/gt.txt, as TrackEval lays it out); DET is "
        "then a trackers folder (one folder per tracker holding data/<sequence>.txt or "
        "<sequence>.txt) or one tracker's folder: every tracker is evaluated on every "
        "sequence of the seqmap, and on all sequences pooled. With --project, a video the "
        "project records as partly annotated is evaluated on its annotated frames only.",
    )
    parser.add_argument(
        "gt", type=Path, metavar="GT", help="ground truth (file, folder or benchmark folder)"
    )
    parser.add_argument(
        "det", type=Path, metavar="DET", help="detections (file or folder), or trackers folder"
    )
    # A benchmark folder (GT, or any folder with --seqmap) says itself what it lacks.
    input_checks.require(
        parser, "gt", input_checks.in_format("boxes"), lambda args: args.seqmap is None
    )
    input_checks.require(
        parser,
        "det",
        input_checks.in_format("boxes"),
        lambda args: args.seqmap is None and not args.gt.is_dir(),
    )
    parser.add_argument(
        "--iou",
        type=_threshold,
        default=BoxOptions.iou,
        metavar="T",
        help=f"a mapped pair is a true positive iff IoU >= T (default {BoxOptions.iou})",
    )
    parser.add_argument(
        "--iou-rule",
        choices=IOU_RULES,
        default=BoxOptions.iou_rule,
        help=f"when --iou applies: '{IOU_RULES[0]}' maps the boxes maximizing IoU, then a "
        f"pair below T is no true positive (VACE; default); '{IOU_RULES[1]}' never assigns "
        f"a pair below T, as CLEAR-MOT tools do; '{IOU_RULES[2]}' takes CLEAR MOT's matches, "
        "which first keep the previous frame's pairs of identities still at T or above, as "
        "TrackEval does (every box needs an identity; the benchmarks' rule); SFDA does not "
        "change (docs/measures.md §5)",
    )
    parser.add_argument(
        "--mapping",
        choices=MAPPINGS,
        default=BoxOptions.mapping,
        help="per-frame mapping: 'hungarian' maximizes the total IoU (default); "
        "'greedy' takes the largest IoU first",
    )
    parser.add_argument(
        "--class-aware",
        action="store_true",
        help="boxes of different classes never match (LIRIS inputs only); "
        "default: classes are ignored",
    )
    parser.add_argument(
        "--min-conf",
        type=float,
        metavar="C",
        help="MOTChallenge detections: drop rows with conf < C (default: keep all)",
    )
    parser.add_argument(
        "--gt-min-conf",
        type=float,
        metavar="C",
        help="MOTChallenge ground truth: rows with conf < C are not counted, e.g. 0.5 for "
        "the rows MOT16, MOT17 and MOT20 mark 0 in their consider flag (default: count all)",
    )
    parser.add_argument(
        "--mot-classes",
        choices=tuple(CLASS_RULES),
        help="MOTChallenge ground truth: count only pedestrians (class 1, 8th column) and "
        "remove the detections assigned at IoU >= 0.5 to a distractor (person on vehicle, "
        "static person, distractor, reflection; mot20 also non-motorized vehicle) instead of "
        "counting them as false positives, as the benchmark defines (default: classes ignored)",
    )
    parser.add_argument(
        "--benchmark",
        choices=(AUTO, NO_BENCHMARK, *BENCHMARKS),
        default=BoxOptions.benchmark,
        help="MOTChallenge boxes: apply that benchmark's rules (ground-truth rows whose "
        "consider flag is 0 not counted; MOT16, MOT17, MOT20: pedestrians only, detections "
        "on distractors removed; --iou-rule keep-matches), as TrackEval does; "
        "default 'auto': the benchmark a seqmap, folder or file name names (e.g. "
        "MOT17-train), none otherwise; --gt-min-conf, --mot-classes and --iou-rule "
        "given explicitly win; the output names the rules applied",
    )
    parser.add_argument(
        "--ap",
        action="store_true",
        help="also COCO's detection AP of the detections' scores (MOTChallenge conf column, "
        "COCO score): AP@[.50:.95], AP50, AP75, per size and AR at 1, 10, 100 detections a "
        "frame, per class when every box has a label, else every box one category "
        "(docs/measures.md §5)",
    )
    parser.add_argument(
        "--image-size",
        metavar="WxH",
        help="frame size in pixels, for YOLO label folders (docs/measures.md §10)",
    )
    parser.add_argument(
        "--images",
        metavar="FILE",
        help="the COCO instances file a COCO detection results file refers to (its images "
        "give the frames and video names; docs/measures.md §10)",
    )
    parser.add_argument(
        "--intervals",
        action="store_true",
        help="also 95%% percentile bootstrap intervals of each tracker's HOTA, MOTA and IDF1 "
        "combined over the sequences: the sequences resampled, or with fewer than "
        f"{MIN_SEQUENCES} of them blocks of --block-length frames (docs/measures.md §5)",
    )
    parser.add_argument(
        "--resamples",
        type=int,
        metavar="N",
        help=f"with --intervals: bootstrap resamples (default {TrackingIntervalOptions.resamples})",
    )
    parser.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help=f"with --intervals: seed of the draws (default {TrackingIntervalOptions.seed})",
    )
    add_block_length(parser, "with --intervals")
    parser.add_argument(
        "--seqmap",
        metavar="FILE",
        help="benchmark: the seqmap listing the sequences, a file or a name in GT/seqmaps "
        "(e.g. MOT17-train); default: the only one in GT/seqmaps",
    )
    parser.add_argument(
        "--trackers",
        nargs="+",
        metavar="NAME",
        help="benchmark: evaluate these trackers of DET, in this order (default: every "
        "tracker folder)",
    )
    parser.add_argument(
        "--project",
        type=Path,
        metavar="FILE",
        help="a project file (*.referee.json, or a folder holding one) whose dataset and "
        "record of annotated frames apply: a sequence paired with a partly annotated "
        "video is evaluated on its annotated frames only (docs/measures.md §5); "
        "default: every frame",
    )
    input_checks.require(parser, "project", input_checks.opened)
    add_output(parser, "--json", "write every result, per frame included, to FILE")
    add_output(
        parser,
        "--csv",
        "write one row per video plus an 'all videos' row (per tracker on a benchmark) to FILE",
    )
    add_output(parser, "--frames-csv", "write one row per frame (FDA, counts) to FILE")
    add_quiet(parser)
    add_force(parser)
    parser.set_defaults(run=run_boxes)


def _interval_options(args: argparse.Namespace) -> TrackingIntervalOptions | None:
    """The bootstrap's options with ``--intervals``, else ``None``.

    Raises
    ------
    InvalidOptionError
        An interval option without ``--intervals``, or a value out of range.
    """
    given = [
        flag
        for flag, value in (
            ("--resamples", args.resamples),
            ("--seed", args.seed),
            ("--block-length", args.block_length),
        )
        if value is not None
    ]
    if not args.intervals:
        if given:
            verb = "applies" if len(given) == 1 else "apply"
            raise InvalidOptionError(f"{' and '.join(given)} {verb} only with --intervals")
        return None
    defaults = TrackingIntervalOptions()
    return TrackingIntervalOptions(
        resamples=defaults.resamples if args.resamples is None else args.resamples,
        seed=defaults.seed if args.seed is None else args.seed,
    )


def _read_options(args: argparse.Namespace) -> tuple[tuple[str, Any], ...]:
    """``--image-size`` and ``--images`` as the readers' options."""
    from referee.core.workflow.convert import parse_image_size

    found: list[tuple[str, Any]] = []
    if args.image_size is not None:
        found.append(("image_size", parse_image_size(args.image_size)))
    if args.images is not None:
        found.append(("images", args.images))
    return tuple(found)


def _threshold(value: str) -> float:
    try:
        threshold = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {value!r}") from None
    if not 0 <= threshold <= 1:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return threshold


def run_boxes(args: argparse.Namespace) -> int:
    """Evaluate the detections' boxes frame by frame, print and write the outputs."""
    from referee.core.formats.mot_benchmark import tracker_folders
    from referee.core.measures.box_rules import benchmark_wording, groundtruth_rules_wording
    from referee.core.workflow.detections import benchmark_of
    from referee.core.workflow.detections import run_boxes as evaluate
    from referee.core.workflow.projects import open_path, project_of_outputs, project_videos
    from referee.core.workflow.tracking_intervals import run_tracking_intervals

    options = BoxOptions(
        iou=args.iou,
        mapping=args.mapping,
        class_aware=args.class_aware,
        min_conf=args.min_conf,
        groundtruth_min_conf=args.gt_min_conf,
        iou_rule=args.iou_rule,
        mot_classes=args.mot_classes,
        seqmap=args.seqmap,
        benchmark=args.benchmark,
        detection_ap=args.ap,
        tracking_block=block_length(args) if args.intervals else None,
        read=_read_options(args),
    )
    intervals = _interval_options(args)
    benchmark = benchmark_of(args.gt, options)
    if benchmark is None and args.trackers is not None:
        raise InvalidOptionError(
            f"--trackers chooses among the trackers of a MOTChallenge benchmark, and {args.gt} "
            "is no benchmark folder (seqmaps/ and <sequence>/gt/gt.txt)"
        )
    outputs = (
        [args.det]
        if benchmark is None
        else list(tracker_folders(args.det, benchmark, args.trackers).values())
    )
    project = project_of_outputs("boxes", outputs, groundtruth=args.gt)
    if args.project is not None:
        recorded = open_path(args.project)
        project_videos(recorded, require_groundtruth=False)  # a record that does not fit its
        # videos names the project file
        project = replace(project, dataset=recorded.dataset, annotated=recorded.annotated)
    with progress_bar("evaluating boxes", "frame", args.quiet) as progress:
        boxes = evaluate(project, options, progress)
    found = None if intervals is None else run_tracking_intervals(project, intervals, boxes=boxes)
    applied = boxes.applied or options
    rules = groundtruth_rules_wording(
        applied.groundtruth_min_conf, applied.mot_classes, applied.groundtruth_zero_marked
    )
    if boxes.rules is not None:
        rules = benchmark_wording(boxes.rules, boxes.rules_source) + (f"\n{rules}" if rules else "")
    parameters: dict[str, Any] = {
        "gt": str(args.gt),
        "det": str(args.det),
        "project": None if args.project is None else str(args.project),
        "iou_threshold": args.iou,
        "iou_rule": applied.iou_rule,
        "mapping": args.mapping,
        "class_aware": args.class_aware,
        "min_conf": args.min_conf,
        "gt_min_conf": applied.groundtruth_min_conf,
        "gt_zero_marked": applied.groundtruth_zero_marked,
        "mot_classes": applied.mot_classes,
        "benchmark": None if boxes.rules is None else boxes.rules.name,
    }
    if benchmark is None:
        _write_single(args, boxes, found, rules, parameters)
        return 0
    from referee.core.exports.box_benchmark import (
        benchmark_to_dict,
        format_benchmark_csv,
        format_benchmark_frames_csv,
        format_benchmark_report,
    )

    evaluations, annotated = boxes.evaluations, boxes.annotated_only
    print(format_benchmark_report(evaluations, benchmark, rules, annotated))
    _print_tracking(boxes, found)
    parameters["seqmap"] = str(benchmark.seqmap)
    parameters["trackers"] = list(evaluations)
    if args.json is not None:
        document = benchmark_to_dict(evaluations, benchmark, parameters, annotated)
        write_json(args.json, {**document, **_tracking_json(boxes, found)})
    if args.csv is not None:
        write_text(args.csv, format_benchmark_csv(evaluations))
    if args.frames_csv is not None:
        write_text(args.frames_csv, format_benchmark_frames_csv(evaluations))
    return 0


def _write_single(
    args: argparse.Namespace,
    boxes: BoxesResult,
    intervals: TrackingIntervals | None,
    rules: str | None,
    parameters: dict[str, Any],
) -> None:
    """Print and write the outputs of one detector's files against ground-truth files."""
    from referee.core.exports.boxes import (
        boxes_to_dict,
        format_boxes_csv,
        format_boxes_table,
        format_frames_csv,
    )

    [result] = boxes.evaluations.values()
    videos = result.videos
    if (
        any(v.in_gt for v in videos)
        and any(v.in_det for v in videos)
        and not any(v.in_gt and v.in_det for v in videos)
    ):
        print(
            "referee: warning: no video name is shared by the ground truth and the "
            "detections; every box counts as a miss or a false positive",
            file=sys.stderr,
        )
    print(format_boxes_table(result, boxes.annotated_only, rules))
    _print_tracking(boxes, intervals)
    if args.json is not None:
        found = boxes_to_dict(result, parameters, boxes.annotated_only)
        write_json(args.json, {**found, **_tracking_json(boxes, intervals)})
    if args.csv is not None:
        write_text(args.csv, format_boxes_csv(result))
    if args.frames_csv is not None:
        write_text(args.frames_csv, format_frames_csv(result))


def _print_tracking(boxes: BoxesResult, intervals: TrackingIntervals | None) -> None:
    """The tracking measures, when the boxes are MOTChallenge tracks, their intervals and
    the detection AP when asked for."""
    from referee.core.exports.tracking import format_ap_table, format_tracking_table
    from referee.core.exports.tracking_intervals import format_intervals_table

    if boxes.tracking:
        print()
        print(format_tracking_table(boxes.tracking))
    if intervals is not None:
        print()
        print(format_intervals_table(intervals))
    if boxes.detection_ap:
        print()
        print(format_ap_table(boxes.detection_ap))


def _tracking_json(boxes: BoxesResult, intervals: TrackingIntervals | None) -> dict[str, Any]:
    """``tracking`` (tracker → ``combined``, ``sequences``), ``tracking_intervals`` and
    ``detection_ap`` (detector → COCO's twelve numbers), each when there is one."""
    from referee.core.exports.tracking import ap_dict, tracking_dict
    from referee.core.exports.tracking_intervals import intervals_dict

    found: dict[str, Any] = {}
    if boxes.tracking:
        found["tracking"] = {name: tracking_dict(e) for name, e in boxes.tracking.items()}
    if intervals is not None:
        found["tracking_intervals"] = intervals_dict(intervals)
    if boxes.detection_ap:
        found["detection_ap"] = {name: ap_dict(a) for name, a in boxes.detection_ap.items()}
    return found
