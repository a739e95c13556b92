"""Boxes to draw for the LIRIS action evaluation on one frame (docs/measures.md §4).

Maps a core :class:`~referee.core.actions.ActionEvaluation` (its matching
and its pair table) to :class:`~referee.gui.palette.BoxDrawing` objects; it
computes no metric. Each assigned pair shares one colour; vetoed pairs are
dashed; misses and false alarms are marked.
"""

from __future__ import annotations

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
from referee.gui.widgets.palette import OKABE_ITO, BoxDrawing, series_colour

#: Colour of each outcome in tables and legends (TP green, FP vermillion, FN sky blue
#: as in the pixel comparison; a vetoed pair orange).
OUTCOME_RGB: dict[str, tuple[int, int, int]] = {
    ACCEPTED: OKABE_ITO["bluish green"],
    VETOED: OKABE_ITO["orange"],
    MISS: OKABE_ITO["sky blue"],
    FALSE_ALARM: OKABE_ITO["vermillion"],
}

_RATIO_NAMES = ("spatial recall", "spatial precision", "temporal recall", "temporal precision")


def class_name(action_class: int | None) -> str:
    """Short LIRIS code of a class (``EN``); "—" for ``None``."""
    return "—" if action_class is None else ACTION_CLASSES[action_class][0]


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
    marker = row.outcome if row.outcome in (MISS, FALSE_ALARM) else None
    x, y, width, height = box
    return BoxDrawing(
        float(x),
        float(y),
        float(width),
        float(height),
        label=f"{side} {class_name(action.action_class)}",
        colour=colour,
        dashed=row.outcome == VETOED,
        tooltip=tooltip,
        marker=marker,
        highlighted=highlighted,
    )


def boxes_for_frame(
    evaluation: ActionEvaluation, video: str, frame: int, selected: PairRow | None = None
) -> list[BoxDrawing]:
    """Ground-truth and detected boxes present on ``frame`` of ``video``.

    Assigned pairs (accepted or vetoed) take ``series_colour`` of their
    position among the video's assigned pairs, both boxes alike; vetoed ones
    are dashed. Misses and false alarms take :data:`OUTCOME_RGB` and a marker.
    The boxes of ``selected`` are highlighted.
    """
    video_matching(evaluation, video)
    drawings: list[BoxDrawing] = []
    pair_index = 0
    for row in evaluation.pairs:
        if row.video != video:
            continue
        if row.outcome in (ACCEPTED, VETOED):
            colour = series_colour(pair_index)
            pair_index += 1
        else:
            colour = OUTCOME_RGB[row.outcome]
        gt, det = row_actions(evaluation, row)
        highlighted = _same_row(row, selected)
        for action, side in ((gt, "GT"), (det, "det")):
            drawing = (
                None if action is None else _drawing(action, frame, side, row, colour, highlighted)
            )
            if drawing is not None:
                drawings.append(drawing)
    return drawings
