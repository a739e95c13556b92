"""Every result a report shows, computed through the workflow's stages.

:func:`compute_results` runs :func:`~referee.core.workflow.graph.run_stages`
(the same stages as the command line and the desktop application) and adds
what only a report shows: consensus thumbnails and the trackers' intervals. Whatever
the project cannot provide is skipped, and the reason is kept for the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from referee.core.cache.store import FrameCache
from referee.core.errors import UnavailableError
from referee.core.model.project import Project
from referee.core.model.videos import VideoSpec
from referee.core.progress import CancelToken, ProgressCallback, report, scaled
from referee.core.report.options import ReportOptions
from referee.core.significance.tracker_bootstrap import TrackingIntervals
from referee.core.workflow.graph import PROGRESS_TOTAL, STAGES, run_stages
from referee.core.workflow.projects import project_videos
from referee.core.workflow.pseudo import consensus_maps, spread
from referee.core.workflow.results import ProjectResults
from referee.core.workflow.tracking_intervals import run_tracking_intervals

#: The key of the trackers' intervals in ``ReportResults.skipped``.
INTERVALS = "tracking_intervals"
#: Share of the progress bar taken by the consensus thumbnails.
_HEATMAP_SHARE = 0.05


@dataclass(frozen=True)
class Heatmap:
    """The consensus ``P`` of one frame (docs/measures.md §7), NaN outside the ROI."""

    video: str
    frame: int
    consensus: np.ndarray = field(repr=False)


@dataclass
class ReportResults(ProjectResults):
    """A project's results and what a report adds: its videos, its detector names in the
    project's order (which give each detector its colour), consensus thumbnails and the
    trackers' intervals (docs/measures.md §5)."""

    videos: tuple[VideoSpec, ...] = ()
    detectors: tuple[str, ...] = ()
    heatmaps: list[Heatmap] = field(default_factory=list)
    tracking_intervals: TrackingIntervals | None = None


def compute_results(
    project: Project,
    options: ReportOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    computed: ProjectResults | None = None,
    cache: FrameCache | None = None,
) -> ReportResults:
    """Every result a report shows for ``project``, computed with ``options``.

    Results in ``computed`` (the desktop session's) that used the same options
    are taken as they are; ``cache`` gives the per-frame counts of unchanged
    frames. ``progress(done, total)`` runs to 1000.

    Raises
    ------
    RefereeError
        Bad input files (named in the message), as the commands raise them.
    CancelledError
        If ``cancel`` is set.
    """
    options = options or ReportOptions()
    results = ReportResults(
        videos=project_videos(project), detectors=tuple(d.name for d in project.detectors)
    )
    if computed is not None:
        for stage in STAGES:
            setattr(results, stage.key, getattr(computed, stage.key))
    stages_total = round(PROGRESS_TOTAL * (1 - _HEATMAP_SHARE))
    stages_progress = scaled(progress, 0, stages_total, PROGRESS_TOTAL)
    run_stages(project, options.analysis, stages_progress, cancel, results=results, cache=cache)
    if results.boxes is not None and results.boxes.tracking:
        try:
            results.tracking_intervals = run_tracking_intervals(
                project, options.intervals, cancel=cancel, boxes=results.boxes
            )
        except UnavailableError as error:
            results.skipped[INTERVALS] = str(error)
    if results.pseudo is not None:
        count = options.heatmap_frames
        maps = consensus_maps(project, results.pseudo, lambda v: spread(v.frames, count), cancel)
        results.heatmaps = [Heatmap(video.label, frame, p) for video, frame, p in maps]
    report(progress, PROGRESS_TOTAL, PROGRESS_TOTAL)
    return results
