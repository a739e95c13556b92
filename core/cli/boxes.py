"""``referee boxes``: per-frame boxes (docs/measures.md §5)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from referee.core.cli.common import (
    Commands,
    add_force,
    add_output,
    add_quiet,
    progress_bar,
    write_json,
)
from referee.core.exports.boxes import (
    boxes_to_dict,
    format_boxes_csv,
    format_boxes_table,
    format_frames_csv,
)
from referee.core.formats.text_files import write_text
from referee.core.measures.boxes import MAPPINGS
from referee.core.workflow.options import BoxOptions


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
        "whatever its name. With --project, a video the project records as partly "
        "annotated is evaluated on its annotated frames only.",
    )
    parser.add_argument("gt", type=Path, metavar="GT", help="ground truth")
    parser.add_argument("det", type=Path, metavar="DET", help="detections")
    parser.add_argument(
        "--iou",
        type=_threshold,
        default=BoxOptions.iou,
        metavar="T",
        help=f"a mapped pair is a true positive iff IoU >= T (default {BoxOptions.iou})",
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
        help="MOTChallenge ground truth: drop rows with conf < C, e.g. 0.5 to "
        "drop MOT17's ignored rows (default: keep all)",
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
    add_output(parser, "--json", "write every result, per frame included, to FILE")
    add_output(parser, "--csv", "write one row per video plus an 'all videos' row to FILE")
    add_output(parser, "--frames-csv", "write one row per frame (FDA, counts) to FILE")
    add_quiet(parser)
    add_force(parser)
    parser.set_defaults(run=run_boxes)


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
    from referee.core.workflow.detections import run_boxes as evaluate
    from referee.core.workflow.projects import open_path, project_of_outputs

    options = BoxOptions(args.iou, args.mapping, args.class_aware, args.min_conf, args.gt_min_conf)
    project = project_of_outputs("boxes", [args.det], groundtruth=args.gt)
    if args.project is not None:
        recorded = open_path(args.project)
        project = replace(project, dataset=recorded.dataset, annotated=recorded.annotated)
    with progress_bar("evaluating boxes", "frame", args.quiet) as progress:
        boxes = evaluate(project, options, progress)
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
    print(format_boxes_table(result, boxes.annotated_only))
    parameters = {
        "gt": str(args.gt),
        "det": str(args.det),
        "project": None if args.project is None else str(args.project),
        "iou_threshold": args.iou,
        "mapping": args.mapping,
        "class_aware": args.class_aware,
        "min_conf": args.min_conf,
        "gt_min_conf": args.gt_min_conf,
    }
    if args.json is not None:
        write_json(args.json, boxes_to_dict(result, parameters, boxes.annotated_only))
    if args.csv is not None:
        write_text(args.csv, format_boxes_csv(result))
    if args.frames_csv is not None:
        write_text(args.frames_csv, format_frames_csv(result))
    return 0
