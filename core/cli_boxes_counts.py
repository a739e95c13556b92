"""``referee`` sub-commands for per-frame boxes (SPEC §5) and counts (SPEC §6).

* ``referee boxes GT DET``: SFDA, MODA, N-MODP and TP/FP/misses, per video and
  over all videos (frames pooled). GT and DET are each a LIRIS XML file or
  folder, or a MOTChallenge CSV (the whole file is one video).
* ``referee counts GT.csv EST.csv --window W``: CCR_WCC with its numerator and
  three denominator terms, and the MAEs of counts and of count changes.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .boxes import (
    DEFAULT_IOU_THRESHOLD,
    MAPPINGS,
    BoxEvaluation,
    BoxTotals,
    FrameBoxResult,
    VideoBoxes,
    VideoBoxResult,
    boxes_from_annotations,
    evaluate_boxes,
)
from .cli import refuse_overwrite, tqdm_progress
from .counting import CountingResult, evaluate_counts
from .errors import InputFileError
from .formats.counts_csv import CountSeries, read_counts_pair
from .formats.text_files import write_text
from .formats.text_table import grid
from .indicators import IndicatorValue

BOXES_FORMAT = "referee-boxes"
COUNTS_FORMAT = "referee-counts"
FORMAT_VERSION = 1
_LIRIS_SUFFIXES = (".xml",)
_MOT_SUFFIXES = (".csv", ".txt")
_LISTED = 12  # instants printed per term before "… (k more)"


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``boxes`` and ``counts`` on the top-level parser."""
    _add_boxes(commands)
    _add_counts(commands)


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
        from .formats.liris_xml import read_liris

        return boxes_from_annotations(read_liris(path)), "liris"
    if suffix in _MOT_SUFFIXES:
        from .formats.mot_csv import read_mot_boxes

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


def _number(value: IndicatorValue | float) -> str:
    v = value.value if isinstance(value, IndicatorValue) else value
    return "undef." if math.isnan(v) else f"{v:.4f}"


def _totals_row(label: str, t: BoxTotals) -> list[str]:
    return [
        label,
        str(t.frames),
        str(t.n_gt),
        str(t.n_det),
        str(t.tp),
        str(t.false_positives),
        str(t.misses),
        _number(t.sfda),
        _number(t.moda),
        _number(t.n_modp),
    ]


def _video_label(video: VideoBoxResult) -> str:
    if not video.in_det:
        return f"{video.name} (no detections)"
    if not video.in_gt:
        return f"{video.name} (no ground truth)"
    return video.name


def format_boxes_table(result: BoxEvaluation) -> str:
    """The terminal report of ``referee boxes``: one row per video, then all videos."""
    classes = "classes must match" if result.class_aware else "classes ignored"
    title = (
        f"Per-frame boxes (SPEC §5): mapping {result.mapping}, TP iff IoU >= "
        f"{result.iou_threshold:g}, {classes}; frames = frames with a box"
    )
    header = ["video", "frames", "GT", "det", "TP", "FP", "misses", "SFDA", "MODA", "N-MODP"]
    rows = [_totals_row(_video_label(v), v.totals) for v in result.videos]
    rows.append(_totals_row("all videos (frames pooled)", result.overall))
    notes = [
        f"{name} undefined: {value.reason.removeprefix('undefined: ')}"
        for name, value in (
            ("SFDA", result.overall.sfda),
            ("MODA", result.overall.moda),
            ("N-MODP", result.overall.n_modp),
        )
        if not value.defined
    ]
    return "\n".join([title, grid(header, rows), *notes])


def _value(value: IndicatorValue) -> dict[str, Any]:
    return {"value": None if math.isnan(value.value) else value.value, "reason": value.reason}


def _totals_dict(t: BoxTotals) -> dict[str, Any]:
    return {
        "frames": t.frames,
        "gt_boxes": t.n_gt,
        "det_boxes": t.n_det,
        "tp": t.tp,
        "fp": t.false_positives,
        "misses": t.misses,
        "sfda": _value(t.sfda),
        "moda": _value(t.moda),
        "n_modp": _value(t.n_modp),
    }


def _frame_dict(f: FrameBoxResult) -> dict[str, Any]:
    return {
        "frame": f.frame,
        "gt_boxes": f.n_gt,
        "det_boxes": f.n_det,
        "fda": f.fda,
        "mapped": [list(p) for p in f.mapped],
        "tp": [list(p) for p in f.tp],
        "misses": list(f.misses),
        "false_positives": list(f.false_positives),
    }


def boxes_to_dict(result: BoxEvaluation, parameters: dict[str, Any]) -> dict[str, Any]:
    """Everything ``referee boxes`` computed, JSON-ready; undefined values are ``null``.

    Per frame, ``mapped`` and ``tp`` list ``[gt index, det index, IoU]``; box
    indices follow the order of the boxes of that frame in the input.
    """
    return {
        "format": BOXES_FORMAT,
        "version": FORMAT_VERSION,
        "parameters": parameters,
        "overall": _totals_dict(result.overall),
        "videos": [
            {
                "name": v.name,
                "in_gt": v.in_gt,
                "in_det": v.in_det,
                "totals": _totals_dict(v.totals),
                "frames": [_frame_dict(f) for f in v.frames],
            }
            for v in result.videos
        ],
    }


def _cell(value: IndicatorValue) -> str:
    return "" if math.isnan(value.value) else repr(value.value)


def _csv_text(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def format_boxes_csv(result: BoxEvaluation) -> str:
    """CSV, one row per video then ``all videos``; undefined values empty, reason given."""
    header = [
        "video",
        "frames",
        "gt_boxes",
        "det_boxes",
        "tp",
        "fp",
        "misses",
        "sfda",
        "moda",
        "n_modp",
        "undefined",
    ]
    rows = []
    for label, t in [*((v.name, v.totals) for v in result.videos), ("all videos", result.overall)]:
        reasons = "; ".join(
            f"{n}: {v.reason}"
            for n, v in (("sfda", t.sfda), ("moda", t.moda), ("n_modp", t.n_modp))
            if not v.defined
        )
        rows.append(
            [
                label,
                t.frames,
                t.n_gt,
                t.n_det,
                t.tp,
                t.false_positives,
                t.misses,
                _cell(t.sfda),
                _cell(t.moda),
                _cell(t.n_modp),
                reasons,
            ]
        )
    return _csv_text(header, rows)


def format_frames_csv(result: BoxEvaluation) -> str:
    """CSV, one row per frame with a box: counts and FDA (inputs for SPEC §9)."""
    header = ["video", "frame", "gt_boxes", "det_boxes", "tp", "fp", "misses", "fda"]
    rows = [
        [
            v.name,
            f.frame,
            f.n_gt,
            f.n_det,
            len(f.tp),
            len(f.false_positives),
            len(f.misses),
            repr(f.fda),
        ]
        for v in result.videos
        for f in v.frames
    ]
    return _csv_text(header, rows)


# --- counts ------------------------------------------------------------------------------


def _add_counts(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "counts",
        help="counting measures: CCR_WCC, MAE of counts and of count changes",
        description="Compare estimated counts with ground-truth counts (SPEC §6): the windowed "
        "count-change correct classification rate CCR_WCC with its numerator and "
        "three denominator terms, the MAE of counts and the MAE of count changes. "
        "Both files are CSV 'frame,count' covering the same consecutive frames.",
    )
    parser.add_argument("gt", type=Path, metavar="GT.csv", help="ground-truth counts")
    parser.add_argument("estimate", type=Path, metavar="EST.csv", help="estimated counts")
    parser.add_argument(
        "--window",
        type=_window,
        required=True,
        metavar="W",
        help="match a ground-truth change with an estimated one up to W frames "
        "earlier or later (0: same frame only)",
    )
    parser.add_argument(
        "--json", type=Path, metavar="FILE", help="write the result, with every instant, to FILE"
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite output files that already exist"
    )
    parser.set_defaults(run=run_counts)


def _window(value: str) -> int:
    try:
        window = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of frames, got {value!r}"
        ) from None
    if window < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return window


def run_counts(args: argparse.Namespace) -> int:
    refuse_overwrite([args.json], args.force)
    gt, estimate = read_counts_pair(args.gt, args.estimate)
    result = evaluate_counts(gt.counts, estimate.counts, args.window)
    print(format_counts_report(result, gt, estimate))
    if args.json is not None:
        write_text(args.json, json.dumps(counts_to_dict(result, gt, estimate), indent=1) + "\n")
    return 0


def _changes(instants: Sequence[int], first_frame: int) -> str:
    shown = [f"{first_frame + n}→{first_frame + n + 1}" for n in instants[:_LISTED]]
    more = len(instants) - _LISTED
    return ", ".join(shown) + (f", … ({more} more)" if more > 0 else "") if shown else "none"


def format_counts_report(result: CountingResult, gt: CountSeries, estimate: CountSeries) -> str:
    """The terminal report of ``referee counts``; instants shown as frame changes a→b."""
    first = gt.first_frame
    value = result.ccr_wcc
    ccr = (
        f"{value.value:.4f}  ({result.numerator} / {result.denominator})"
        if value.defined
        else f"undef.  ({value.reason})"
    )
    changed, spurious, unpaired = result.denominator_terms
    frames = "frame" if result.window == 1 else "frames"
    rows = [
        ("CCR_WCC", ccr, ""),
        (
            "  numerator",
            str(result.numerator),
            f"GT changes matched exactly: {_changes(result.numerator_instants, first)}",
        ),
        ("  denominator", str(result.denominator), "sum of the three terms below"),
        (
            "    GT changes",
            str(changed),
            f"frames where the GT count changes: {_changes(result.changed_instants, first)}",
        ),
        (
            "    missed no-change",
            str(spurious),
            (
                "GT constant but no zero change estimated in the window: "
                f"{_changes(result.spurious_instants, first)}"
            ),
        ),
        (
            "    unpaired (M)",
            str(unpaired),
            (
                "estimated changes paired with no GT instant: "
                f"{_changes(result.unpaired_instants, first)}"
            ),
        ),
        ("MAE of counts", f"{result.mae_counts:.4f}", f"over {len(gt)} frames"),
        (
            "MAE of count changes",
            f"{result.mae_changes:.4f}",
            f"over {len(gt) - 1} changes, same frame",
        ),
    ]
    width = max(len(r[0]) for r in rows)
    value_width = max(len(r[1]) for r in rows)
    title = (
        f"Counting (SPEC §6): {gt.path or 'ground truth'} vs "
        f"{estimate.path or 'estimate'}, frames {gt.first_frame}–{gt.last_frame}, "
        f"window ±{result.window} {frames}"
    )
    lines = [title]
    lines += [
        f"{name.ljust(width)}  {text.ljust(value_width)}  {note}".rstrip()
        for name, text, note in rows
    ]
    return "\n".join(lines)


def counts_to_dict(
    result: CountingResult, gt: CountSeries, estimate: CountSeries
) -> dict[str, Any]:
    """Everything ``referee counts`` computed, JSON-ready.

    Instants are change indices n (from frame ``first_frame + n`` to the next).
    """
    changed, spurious, unpaired = result.denominator_terms
    return {
        "format": COUNTS_FORMAT,
        "version": FORMAT_VERSION,
        "parameters": {"gt": str(gt.path), "estimate": str(estimate.path), "window": result.window},
        "first_frame": gt.first_frame,
        "last_frame": gt.last_frame,
        "ccr_wcc": _value(result.ccr_wcc),
        "numerator": result.numerator,
        "denominator": {
            "total": result.denominator,
            "gt_changes": changed,
            "missed_no_change": spurious,
            "unpaired_estimated_changes": unpaired,
        },
        "instants": {
            "numerator": list(result.numerator_instants),
            "gt_changes": list(result.changed_instants),
            "missed_no_change": list(result.spurious_instants),
            "unpaired_estimated_changes": list(result.unpaired_instants),
        },
        "offsets": list(result.offsets),
        "mae_counts": result.mae_counts,
        "mae_changes": result.mae_changes,
    }
