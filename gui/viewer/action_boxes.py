"""Boxes to draw for the LIRIS action evaluation on one frame (docs/measures.md §4).

Maps a core :class:`~referee.core.measures.action_scores.ActionEvaluation` (its matching
and its pair table) to :class:`~referee.gui.widgets.palette.BoxDrawing`
objects; it computes no metric. Ground-truth boxes are drawn in the ground-truth
yellow and detections in their detector's colour, so that no box takes a colour
of the pixel comparison; the line and a short marker tell what a box is: solid
and "matched" for an accepted pair, dashed and "vetoed" for a vetoed one,
dotted and "miss" or "false alarm" for an action left alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.core.colours import OKABE_ITO
from referee.core.errors import InvalidOptionError
from referee.core.measures.action_matching import VideoMatching
from referee.core.measures.action_scores import (
    ACCEPTED,
    FALSE_ALARM,
    MISS,
    VETOED,
    ActionEvaluation,
    PairRow,
)
from referee.core.model.annotations import ACTION_CLASSES, Action
from referee.gui.widgets.palette import (
    GROUND_TRUTH_RGB,
    LINE_SAMPLE_RGB,
    BoxDrawing,
    BoxLine,
    LegendEntry,
)

#: Colour of each outcome in tables (TP green, FP vermillion, FN sky blue as in the
#: pixel comparison; a vetoed pair orange). Boxes do not use them: see :data:`OUTCOME_LINES`.
OUTCOME_RGB: dict[str, tuple[int, int, int]] = {
    ACCEPTED: OKABE_ITO["bluish green"],
    VETOED: OKABE_ITO["orange"],
    MISS: OKABE_ITO["sky blue"],
    FALSE_ALARM: OKABE_ITO["vermillion"],
}

#: Line of a box of each outcome, and what the legend says it means.
OUTCOME_LINES: dict[str, BoxLine] = {
    ACCEPTED: BoxLine.SOLID,
    VETOED: BoxLine.DASHED,
    MISS: BoxLine.DOTTED,
    FALSE_ALARM: BoxLine.DOTTED,
}
LINE_MEANINGS: dict[BoxLine, str] = {
    BoxLine.SOLID: "matched pair",
    BoxLine.DASHED: "vetoed pair",
    BoxLine.DOTTED: "miss or false alarm",
}

_RATIO_NAMES = ("spatial recall", "spatial precision", "temporal recall", "temporal precision")


def class_name(action_class: int | None) -> str:
    """Name of a LIRIS class ("enter/leave room"); "—" for ``None``."""
    return "—" if action_class is None else ACTION_CLASSES[action_class][1]


def video_matching(evaluation: ActionEvaluation, video: str) -> VideoMatching:
    """The matching of one video by name.

    Raises
    ------
    InvalidOptionError
        If the evaluation has no such video.
    """
    for matching in evaluation.matching.videos:
        if matching.video == video:
            return matching
    raise InvalidOptionError(f"the action evaluation has no video {video!r}")


def row_actions(evaluation: ActionEvaluation, row: PairRow) -> tuple[Action | None, Action | None]:
    """The ground-truth and detected actions of a pair-table row (``None`` where absent)."""
    matching = video_matching(evaluation, row.video)
    gt = None if row.gt_index is None else matching.gt[row.gt_index]
    det = None if row.det_index is None else matching.det[row.det_index]
    return gt, det


def first_frame(evaluation: ActionEvaluation, row: PairRow) -> int:
    """First frame where both actions of the row have a box; a lone action's first frame."""
    gt, det = row_actions(evaluation, row)
    if gt is not None and det is not None:
        start = max(gt.first, det.first)
        return start if start <= min(gt.last, det.last) else gt.first
    present = gt if gt is not None else det
    assert present is not None
    return present.first


def ratios_text(row: PairRow) -> str:
    """The Dice overlap and four ratios of a pair, one line."""
    values = (
        row.spatial_recall,
        row.spatial_precision,
        row.temporal_recall,
        row.temporal_precision,
    )
    return f"Dice {row.dice:.3f}; " + ", ".join(
        f"{name} {value:.3f}" for name, value in zip(_RATIO_NAMES, values)
    )


def pair_tooltip(row: PairRow) -> str:
    """Why a row is what it is: outcome, failing criteria, ratios."""
    if row.outcome == VETOED:
        return f"vetoed: fails {', '.join(row.failed)}\n{ratios_text(row)}"
    if row.outcome == ACCEPTED:
        return f"accepted pair\n{ratios_text(row)}"
    if row.outcome == MISS:
        return f"miss: no detection assigned to GT action {row.gt_number}"
    return f"false alarm: detection {row.det_number} matches no GT action"


def _same_row(a: PairRow, b: PairRow | None) -> bool:
    return b is not None and (a.video, a.outcome, a.gt_index, a.det_index) == (
        b.video,
        b.outcome,
        b.gt_index,
        b.det_index,
    )


def _marker(row: PairRow, side: str) -> str:
    """What the box is, short: "matched det 5", "vetoed GT 2", "miss", "false alarm"."""
    if row.outcome in (MISS, FALSE_ALARM):
        return row.outcome
    partner = f"det {row.det_number}" if side == "GT" else f"GT {row.gt_number}"
    return f"{'matched' if row.outcome == ACCEPTED else 'vetoed'} {partner}"


def _drawing(
    action: Action,
    frame: int,
    side: str,
    row: PairRow,
    colour: tuple[int, int, int],
    highlighted: bool,
) -> BoxDrawing | None:
    box = action.box_at(frame)
    if box is None:
        return None
    code, name = ACTION_CLASSES[action.action_class]
    tooltip = (
        f"{'ground truth' if side == 'GT' else 'detection'} action {action.number}, "
        f"class {action.action_class} {code} ({name})\n{pair_tooltip(row)}"
    )
    x, y, width, height = box
    return BoxDrawing(
        float(x),
        float(y),
        float(width),
        float(height),
        label=f"{side} {action.number} {name}",
        colour=colour,
        line=OUTCOME_LINES[row.outcome],
        tooltip=tooltip,
        marker=_marker(row, side),
        highlighted=highlighted,
    )


def boxes_for_frame(
    evaluation: ActionEvaluation,
    video: str,
    frame: int,
    selected: PairRow | None = None,
    *,
    detector_rgb: tuple[int, int, int],
) -> list[BoxDrawing]:
    """Ground-truth and detected boxes present on ``frame`` of ``video``.

    Ground-truth boxes take :data:`GROUND_TRUTH_RGB`, detections
    ``detector_rgb`` (their detector's :func:`detector_colour`); the line
    follows :data:`OUTCOME_LINES`. The boxes of ``selected`` are highlighted.
    """
    video_matching(evaluation, video)
    drawings: list[BoxDrawing] = []
    for row in evaluation.pairs:
        if row.video != video:
            continue
        gt, det = row_actions(evaluation, row)
        highlighted = _same_row(row, selected)
        for action, side, colour in ((gt, "GT", GROUND_TRUTH_RGB), (det, "det", detector_rgb)):
            drawing = (
                None if action is None else _drawing(action, frame, side, row, colour, highlighted)
            )
            if drawing is not None:
                drawings.append(drawing)
    return drawings


def box_legend(
    drawings: Sequence[BoxDrawing], detector_rgb: tuple[int, int, int]
) -> list[LegendEntry]:
    """The legend of ``drawings``: the two colours, then the meaning of each line drawn."""
    lines = {drawing.line for drawing in drawings}
    return [
        LegendEntry("ground truth", GROUND_TRUTH_RGB),
        LegendEntry("detection", detector_rgb),
        *(
            LegendEntry(text, LINE_SAMPLE_RGB, line)
            for line, text in LINE_MEANINGS.items()
            if line in lines
        ),
    ]
