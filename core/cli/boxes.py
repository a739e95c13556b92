"""``referee boxes``: per-frame boxes (docs/measures.md §5)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from referee.core.cli.common import refuse_overwrite, tqdm_progress
from referee.core.errors import InputFileError
from referee.core.exports.boxes import (
    boxes_to_dict,
    format_boxes_csv,
    format_boxes_table,
    format_frames_csv,
)
from referee.core.formats.text_files import write_text
from referee.core.measures.boxes import (
    DEFAULT_IOU_THRESHOLD,
    MAPPINGS,
    VideoBoxes,
    boxes_from_annotations,
    evaluate_boxes,
)

_LIRIS_SUFFIXES = (".xml",)
_MOT_SUFFIXES = (".csv", ".txt")


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``boxes`` on the top-level parser."""
    _add_boxes(commands)


# --- boxes -------------------------------------------------------------------------------


def _add_boxes(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "boxes",
        help="per-frame box detection measures: SFDA, MODA, N-MODP (VACE)",
        description="Map ground-truth boxes to detected boxes on every frame, one-to-one, "
        "maximizing IoU (SPEC §5), then report SFDA, MODA, N-MODP and TP/FP/misses "
        "per video and over all videos (frames pooled). GT and DET are each a "
        "LIRIS XML file or folder (.xml) or a MOTChallenge CSV (.csv or .txt, "
        "'frame,id,x,y,w,h,conf,...', the whole file one video). Videos are paired "
        "by name; a MOTChallenge file facing a single video is paired with it "
        "whatever its name.",
    )
    parser.add_argument("gt", type=Path, metavar="GT", help="ground truth")
    parser.add_argument("det", type=Path, metavar="DET", help="detections")
    parser.add_argument(
        "--iou",
        type=_threshold,
        default=DEFAULT_IOU_THRESHOLD,
        metavar="T",
        help=f"a mapped pair is a true positive iff IoU >= T (default {DEFAULT_IOU_THRESHOLD})",
    )
    parser.add_argument(
        "--mapping",
        choices=MAPPINGS,
        default=MAPPINGS[0],
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
        "--json", type=Path, metavar="FILE", help="write every result, per frame included, to FILE"
    )
    parser.add_argument(
        "--csv",
        type=Path,
        metavar="FILE",
        help="write one row per video plus an 'all videos' row to FILE",
    )
    parser.add_argument(
        "--frames-csv",
        type=Path,
        metavar="FILE",
        help="write one row per frame (FDA, counts) to FILE",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--force", action="store_true", help="overwrite output files that already exist"
    )
    parser.set_defaults(run=run_boxes)


def _threshold(value: str) -> float:
    try:
        threshold = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {value!r}") from None
    if not 0 <= threshold <= 1:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return threshold


def read_box_input(path: Path, min_conf: float | None = None) -> tuple[list[VideoBoxes], str]:
    """The videos of a boxes input and its kind, ``"liris"`` or ``"mot"``, by name.

    A folder or ``.xml`` file is LIRIS XML; ``.csv`` or ``.txt`` is MOTChallenge.

    Raises
    ------
    InputFileError
        Missing path or a name that says neither format.
    """
    if not path.exists():
        raise InputFileError(
            path, "no such file or folder; give a LIRIS XML file or folder, or a MOTChallenge CSV"
        )
    suffix = path.suffix.lower()
    if path.is_dir() or suffix in _LIRIS_SUFFIXES:
        from referee.core.formats.liris_xml import read_liris

        return boxes_from_annotations(read_liris(path)), "liris"
    if suffix in _MOT_SUFFIXES:
        from referee.core.formats.mot_csv import read_mot_boxes

        return [read_mot_boxes(path, min_conf)], "mot"
    raise InputFileError(
        path,
        "cannot tell the format from the name: use .xml (or a folder) "
        "for LIRIS XML, .csv or .txt for MOTChallenge boxes",
    )


def pair_single_videos(
    gt: list[VideoBoxes], det: list[VideoBoxes], kinds: tuple[str, str]
) -> list[VideoBoxes]:
    """Detections renamed to the ground truth's video when a MOT file faces one video."""
    if "mot" in kinds and len(gt) == 1 and len(det) == 1 and gt[0].name != det[0].name:
        return [VideoBoxes(gt[0].name, det[0].frames)]
    return det


def run_boxes(args: argparse.Namespace) -> int:
    refuse_overwrite([args.json, args.csv, args.frames_csv], args.force)
    gt, gt_kind = read_box_input(args.gt, args.gt_min_conf)
    det, det_kind = read_box_input(args.det, args.min_conf)
    det = pair_single_videos(gt, det, (gt_kind, det_kind))
    gt_names, det_names = {v.name for v in gt}, {v.name for v in det}
    if gt_names and det_names and not gt_names & det_names:
        print(
            "referee: warning: no video name is shared by the ground truth and the "
            "detections; every box counts as a miss or a false positive",
            file=sys.stderr,
        )
    progress, close = tqdm_progress("evaluating boxes", "frame", not args.quiet)
    try:
        result = evaluate_boxes(gt, det, args.iou, args.mapping, args.class_aware, progress)
    finally:
        close()
    print(format_boxes_table(result))
    parameters = {
        "gt": str(args.gt),
        "det": str(args.det),
        "iou_threshold": args.iou,
        "mapping": args.mapping,
        "class_aware": args.class_aware,
        "min_conf": args.min_conf,
        "gt_min_conf": args.gt_min_conf,
    }
    if args.json is not None:
        write_text(args.json, json.dumps(boxes_to_dict(result, parameters), indent=1) + "\n")
    if args.csv is not None:
        write_text(args.csv, format_boxes_csv(result))
    if args.frames_csv is not None:
        write_text(args.frames_csv, format_frames_csv(result))
    return 0
