"""Per-frame box results as text, JSON and CSV."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from referee.core.exports.header import json_header
from referee.core.exports.text_table import grid
from referee.core.formats.text_files import format_csv
from referee.core.measures.boxes import (
    BoxEvaluation,
    BoxTotals,
    FrameBoxResult,
    VideoBoxResult,
)
from referee.core.measures.indicators import IndicatorValue
from referee.core.model.videos import AnnotatedFrames

BOXES_FORMAT = "referee-boxes"
FORMAT_VERSION = 1


def _number(value: IndicatorValue | float) -> str:
    v = value.value if isinstance(value, IndicatorValue) else value
    return "undef." if math.isnan(v) else f"{v:.4f}"


def totals_cells(
    t: BoxTotals,
) -> tuple[int, int, int, int, int, int, IndicatorValue, IndicatorValue, IndicatorValue]:
    """The columns every boxes table shows, in order: frames, GT and detected boxes, TP, FP,
    misses, SFDA, MODA, N-MODP."""
    return (t.frames, t.n_gt, t.n_det, t.tp, t.false_positives, t.misses, t.sfda, t.moda, t.n_modp)


def totals_row(label: str, t: BoxTotals) -> list[str]:
    """A table row: ``label``, then :func:`totals_cells` as text."""
    cells = totals_cells(t)
    return [label, *(str(c) for c in cells[:6]), *(_number(v) for v in cells[6:])]


def set_aside_counts(result: BoxEvaluation, name: str | None = None) -> tuple[int, int]:
    """The ground-truth boxes not counted and the detections removed by the ground-truth
    rules (docs/measures.md §5) on video ``name``, or on every video (``None``)."""
    if name is not None:
        return result.groundtruth_ignored.get(name, 0), result.detections_removed.get(name, 0)
    return sum(result.groundtruth_ignored.values()), sum(result.detections_removed.values())


def boxes_title(result: BoxEvaluation) -> str:
    """The first line of every ``referee boxes`` report: the parameters of the mapping."""
    classes = "classes must match" if result.class_aware else "classes ignored by the mapping"
    return (
        f"Per-frame boxes (docs/measures.md §5): mapping {result.mapping}, TP iff IoU >= "
        f"{result.iou_threshold:g}, {classes}, IoU rule {result.iou_rule}; "
        "frames = frames with a box"
    )


def _video_label(video: VideoBoxResult) -> str:
    if not video.in_det:
        return f"{video.name} (no detections)"
    if not video.in_gt:
        return f"{video.name} (no ground truth)"
    return video.name


def annotated_wording(frames: AnnotatedFrames) -> str:
    """How a video evaluated on its annotated frames only is described (docs/measures.md §5):
    ``evaluated on 12 annotated frames of 300``."""
    if not frames.count:
        return f"not evaluated: none of its {frames.of:,} frames has ground truth yet"
    plural = "" if frames.count == 1 else "s"
    return f"evaluated on {frames.count:,} annotated frame{plural} of {frames.of:,}"


def annotated_notes(
    names: Sequence[str], annotated: Mapping[str, AnnotatedFrames] | None
) -> list[str]:
    """One line per video of ``names`` evaluated on its annotated frames only."""
    notes = []
    for name in names:
        frames = (annotated or {}).get(name)
        if frames is not None:
            paired = "" if frames.video == name else f" (video {frames.video})"
            notes.append(f"{name}{paired}: {annotated_wording(frames)}")
    return notes


def format_boxes_table(
    result: BoxEvaluation,
    annotated: Mapping[str, AnnotatedFrames] | None = None,
    rules: str | None = None,
) -> str:
    """The terminal report of ``referee boxes``: the parameters and the ground-truth
    ``rules`` (:func:`~referee.core.measures.box_rules.groundtruth_rules_wording`), then
    :func:`format_boxes_grid`."""
    return "\n".join(
        [boxes_title(result), *([rules] if rules else []), format_boxes_grid(result, annotated)]
    )


def format_boxes_grid(
    result: BoxEvaluation, annotated: Mapping[str, AnnotatedFrames] | None = None
) -> str:
    """One row per video, then all videos, then the videos evaluated on their annotated
    frames only (``annotated``, by video name); when the ground-truth rules set boxes
    aside, two more columns count them."""
    header = ["video", "frames", "GT", "det", "TP", "FP", "misses", "SFDA", "MODA", "N-MODP"]
    rows = [totals_row(_video_label(v), v.totals) for v in result.videos]
    rows.append(totals_row("all videos (frames pooled)", result.overall))
    if result.groundtruth_ignored or result.detections_removed:
        header += ["GT ignored", "det removed"]
        names: list[str | None] = [v.name for v in result.videos]
        rows = [
            [*row, *map(str, set_aside_counts(result, name))]
            for row, name in zip(rows, [*names, None])
        ]
    notes = [
        f"{name} undefined: {(value.reason or '').removeprefix('undefined: ')}"
        for name, value in (
            ("SFDA", result.overall.sfda),
            ("MODA", result.overall.moda),
            ("N-MODP", result.overall.n_modp),
        )
        if not value.defined
    ]
    restricted = annotated_notes([v.name for v in result.videos], annotated)
    return "\n".join([grid(header, rows), *restricted, *notes])


def _value(value: IndicatorValue) -> dict[str, Any]:
    return {"value": None if math.isnan(value.value) else value.value, "reason": value.reason}


def _totals_dict(t: BoxTotals, set_aside: tuple[int, int]) -> dict[str, Any]:
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
        "gt_ignored": set_aside[0],
        "det_removed": set_aside[1],
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


def annotated_dict(frames: AnnotatedFrames | None) -> dict[str, Any] | None:
    """A partly annotated video's evaluated frames, JSON-ready: ``video``, ``frames`` (how
    many), ``of`` (frames of its temporal ROI) and ``runs`` (``[first, last]``)."""
    if frames is None:
        return None
    runs = [list(run) for run in frames.frames.runs]
    return {"video": frames.video, "frames": frames.count, "of": frames.of, "runs": runs}


def evaluation_dict(
    result: BoxEvaluation, annotated: Mapping[str, AnnotatedFrames] | None = None
) -> dict[str, Any]:
    """One detector's results, JSON-ready: ``overall`` and ``videos`` (see
    :func:`boxes_to_dict`)."""
    annotated = annotated or {}
    return {
        "overall": _totals_dict(result.overall, set_aside_counts(result)),
        "videos": [
            {
                "name": v.name,
                "in_gt": v.in_gt,
                "in_det": v.in_det,
                "annotated_only": annotated_dict(annotated.get(v.name)),
                "totals": _totals_dict(v.totals, set_aside_counts(result, v.name)),
                "frames": [_frame_dict(f) for f in v.frames],
            }
            for v in result.videos
        ],
    }


def boxes_to_dict(
    result: BoxEvaluation,
    parameters: dict[str, Any],
    annotated: Mapping[str, AnnotatedFrames] | None = None,
) -> dict[str, Any]:
    """Everything ``referee boxes`` computed, JSON-ready; undefined values are ``null``.

    Per frame, ``mapped`` and ``tp`` list ``[gt index, det index, IoU]``; box
    indices follow the order of the boxes of that frame in the input. Per video and
    overall, ``gt_ignored`` and ``det_removed`` count the boxes the ground-truth rules
    set aside. Per video, ``annotated_only`` is ``null``, or, for a video evaluated on
    its annotated frames only (``annotated``, by video name), the project video, how
    many frames, of how many, and their ``[first, last]`` runs.
    """
    return {
        **json_header(BOXES_FORMAT, FORMAT_VERSION),
        "parameters": parameters,
        **evaluation_dict(result, annotated),
    }


def _cell(value: IndicatorValue) -> str:
    return "" if math.isnan(value.value) else repr(value.value)


def _csv_text(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    return format_csv([header, *rows])


#: The columns of the boxes CSV after the video's.
CSV_COLUMNS: tuple[str, ...] = (
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
    "gt_ignored",
    "det_removed",
    "iou_rule",
)


def summary_csv_rows(result: BoxEvaluation) -> list[list[Any]]:
    """The rows of :func:`format_boxes_csv`: one per video, then ``all videos``."""
    rows = []
    named = [*((v.name, v.totals) for v in result.videos), ("all videos", result.overall)]
    for (label, t), name in zip(named, [*(v.name for v in result.videos), None]):
        reasons = "; ".join(
            f"{n}: {v.reason}"
            for n, v in (("sfda", t.sfda), ("moda", t.moda), ("n_modp", t.n_modp))
            if not v.defined
        )
        cells = totals_cells(t)
        rows.append(
            [
                label,
                *cells[:6],
                *(_cell(v) for v in cells[6:]),
                reasons,
                *set_aside_counts(result, name),
                result.iou_rule,
            ]
        )
    return rows


def format_boxes_csv(result: BoxEvaluation) -> str:
    """CSV, one row per video then ``all videos``; undefined values empty, reason given;
    the boxes the ground-truth rules set aside, and the IoU rule, on every row."""
    return _csv_text(["video", *CSV_COLUMNS], summary_csv_rows(result))


def frames_csv_rows(result: BoxEvaluation) -> list[list[Any]]:
    """The rows of :func:`format_frames_csv`."""
    return [
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


#: The columns of the per-frame CSV.
FRAMES_CSV_COLUMNS: tuple[str, ...] = (
    "video",
    "frame",
    "gt_boxes",
    "det_boxes",
    "tp",
    "fp",
    "misses",
    "fda",
)


def format_frames_csv(result: BoxEvaluation) -> str:
    """CSV, one row per frame with a box: counts and FDA (inputs for docs/measures.md §9)."""
    return _csv_text(FRAMES_CSV_COLUMNS, frames_csv_rows(result))
