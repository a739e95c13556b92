"""Trackers' combined HOTA, MOTA and IDF1 with bootstrap intervals (docs/measures.md §5,
"Tracking: intervals and tests")."""

from __future__ import annotations

from referee.core.errors import UnavailableError
from referee.core.model.project import Project
from referee.core.progress import CancelToken, ProgressCallback, check
from referee.core.significance.tracker_bootstrap import TrackingIntervals, bootstrap_intervals
from referee.core.significance.tracking_units import TrackingUnits, tracking_units
from referee.core.workflow.detections import run_boxes
from referee.core.workflow.options import TrackingIntervalOptions
from referee.core.workflow.results import BoxesResult


def boxes_units(boxes: BoxesResult) -> TrackingUnits:
    """The units the trackers of ``boxes`` are resampled and compared on: their sequences,
    or with few sequences their frame blocks.

    Raises
    ------
    UnavailableError
        If no detector has tracking measures, or blocks are needed and were not computed.
    """
    if not boxes.tracking:
        reasons = "; ".join(f"{name}: {why}" for name, why in boxes.untracked.items())
        raise UnavailableError(
            "no detector has tracking measures (boxes with identities, such as "
            "MOTChallenge tracks)" + (f" ({reasons})" if reasons else "")
        )
    return tracking_units(boxes.tracking, boxes.tracking_blocks)


def run_tracking_intervals(
    project: Project,
    options: TrackingIntervalOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    boxes: BoxesResult | None = None,
) -> TrackingIntervals:
    """Each tracker's HOTA, MOTA and IDF1 combined over the sequences, with percentile
    bootstrap intervals over its sequences, or over frame blocks with few sequences.

    The tracking measures come from ``boxes`` when given (evaluated with a block length
    when there are few sequences), else from :func:`run_boxes` with its default options.

    Raises
    ------
    UnavailableError
        If no detector has tracking measures, or the frame blocks they need are missing.
    """
    options = options or TrackingIntervalOptions()
    boxes = boxes or run_boxes(project, progress=progress, cancel=cancel)
    units = boxes_units(boxes)
    check(cancel)
    return bootstrap_intervals(
        units,
        {name: evaluation.combined for name, evaluation in boxes.tracking.items()},
        options.resamples,
        options.seed,
        (boxes.applied or boxes.options).tracking_block,
    )
