"""Every stage of the workflow in order, and running them on a whole project.

The report computes a project with :func:`run_stages`; the desktop session runs
the same stage functions one job at a time. A stage the project cannot provide
(no masks, a single detector…) is skipped and its reason kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from referee.core.errors import UnavailableError
from referee.core.model.project import Project
from referee.core.progress import CancelToken, ProgressCallback, check, report, scaled
from referee.core.workflow.detections import run_actions, run_boxes, run_counts
from referee.core.workflow.options import AnalysisOptions
from referee.core.workflow.pixels import run_curves, run_pixels
from referee.core.workflow.pseudo import run_pseudo
from referee.core.workflow.ranking import run_ranking
from referee.core.workflow.results import ProjectResults
from referee.core.workflow.significance import run_significance

#: ``run(project, stage options, progress, cancel, results so far) -> the stage's result``.
StageRun = Callable[[Project, Any, ProgressCallback, CancelToken | None, ProjectResults], object]


@dataclass(frozen=True)
class Stage:
    """One computation: its field in :class:`ProjectResults` and :class:`AnalysisOptions`,
    what it does, its share of a whole run's progress, and how it runs."""

    key: str
    title: str
    share: int
    run: StageRun


#: The stages in the order they run (later ones reuse earlier results).
STAGES: tuple[Stage, ...] = (
    Stage("pixels", "evaluating masks", 30, lambda p, o, pr, c, r: run_pixels(p, o, pr, c)),
    Stage("curves", "sweeping score curves", 15, lambda p, o, pr, c, r: run_curves(p, o, pr, c)),
    Stage("actions", "evaluating actions", 5, lambda p, o, pr, c, r: run_actions(p, o, pr, c)),
    Stage("boxes", "evaluating per-frame boxes", 5, lambda p, o, pr, c, r: run_boxes(p, o, pr, c)),
    Stage("counts", "evaluating counts", 2, lambda p, o, pr, c, r: run_counts(p, o, pr, c)),
    Stage(
        "pseudo",
        "pseudo ground truth",
        25,
        lambda p, o, pr, c, r: run_pseudo(p, o, pr, c, r.pixels),
    ),
    Stage(
        "ranking", "ranking frames to annotate", 15, lambda p, o, pr, c, r: run_ranking(p, o, pr, c)
    ),
    Stage(
        "significance", "significance", 3, lambda p, o, pr, c, r: run_significance(p, o, pr, c, r)
    ),
)
#: Progress of :func:`run_stages` runs from 0 to this.
PROGRESS_TOTAL = 1000


def run_stages(
    project: Project,
    options: AnalysisOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    stages: Sequence[Stage] = STAGES,
    results: ProjectResults | None = None,
) -> ProjectResults:
    """Run ``stages`` in order on ``project``; what the project cannot provide is skipped.

    A stage whose result ``results`` already holds, computed with the same
    options, is not run again.

    ``progress(done, total)`` runs from 0 to :data:`PROGRESS_TOTAL` over all stages,
    each taking its share.

    Raises
    ------
    RefereeError
        Bad input files (named in the message), as each stage raises them.
    CancelledError
        If ``cancel`` is set.
    """
    options = options or AnalysisOptions()
    results = results or ProjectResults()
    whole, done = sum(s.share for s in stages), 0
    for stage in stages:
        check(cancel)

        start, width = done * PROGRESS_TOTAL // whole, stage.share * PROGRESS_TOTAL // whole
        stage_progress = scaled(progress, start, width, PROGRESS_TOTAL)
        stage_options = getattr(options, stage.key)
        existing = getattr(results, stage.key)
        if existing is not None and getattr(existing, "options", None) == stage_options:
            done += stage.share
            continue
        try:
            result = stage.run(project, stage_options, stage_progress, cancel, results)
            setattr(results, stage.key, result)
        except UnavailableError as error:
            results.skipped[stage.key] = str(error)
        done += stage.share
        report(progress, done * PROGRESS_TOTAL // whole, PROGRESS_TOTAL)
    return results
