"""Every stage of the workflow in order, and running them on a whole project.

The report computes a project with :func:`run_stages`; the desktop session runs
the same stage functions one job at a time. A stage the project cannot provide
(no masks, a single detector…) is skipped and its reason kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from referee.core.errors import UnavailableError
from referee.core.model.project import Project
from referee.core.progress import CancelToken, ProgressCallback, check, report
from referee.core.workflow.detections import run_actions, run_boxes, run_counts
from referee.core.workflow.options import AnalysisOptions
from referee.core.workflow.pixels import run_curves, run_pixels
from referee.core.workflow.pseudo import run_pseudo
from referee.core.workflow.ranking import run_ranking
from referee.core.workflow.results import ProjectResults
from referee.core.workflow.significance import run_significance

StageRun = Callable[
    [Project, AnalysisOptions, ProjectResults, ProgressCallback, CancelToken | None], None
]


@dataclass(frozen=True)
class Stage:
    """One computation: its key in :class:`ProjectResults`, what it does, its share of a
    whole run's progress, and how it runs."""

    key: str
    title: str
    share: int
    run: StageRun


def _pixels(
    p: Project, o: AnalysisOptions, r: ProjectResults, pr: ProgressCallback, c: CancelToken | None
) -> None:
    r.pixels = run_pixels(p, o.pixels, pr, c)


def _curves(
    p: Project, o: AnalysisOptions, r: ProjectResults, pr: ProgressCallback, c: CancelToken | None
) -> None:
    r.curves = run_curves(p, o.curves, pr, c)


def _actions(
    p: Project, o: AnalysisOptions, r: ProjectResults, pr: ProgressCallback, c: CancelToken | None
) -> None:
    r.actions = run_actions(p, o.actions, pr, c)


def _boxes(
    p: Project, o: AnalysisOptions, r: ProjectResults, pr: ProgressCallback, c: CancelToken | None
) -> None:
    r.boxes = run_boxes(p, o.boxes, pr, c)


def _counts(
    p: Project, o: AnalysisOptions, r: ProjectResults, pr: ProgressCallback, c: CancelToken | None
) -> None:
    r.counts = run_counts(p, o.counts, pr, c)


def _pseudo(
    p: Project, o: AnalysisOptions, r: ProjectResults, pr: ProgressCallback, c: CancelToken | None
) -> None:
    r.pseudo = run_pseudo(p, o.pseudo, pr, c, r.pixels)


def _ranking(
    p: Project, o: AnalysisOptions, r: ProjectResults, pr: ProgressCallback, c: CancelToken | None
) -> None:
    r.ranking = run_ranking(p, o.ranking, pr, c)


def _significance(
    p: Project, o: AnalysisOptions, r: ProjectResults, pr: ProgressCallback, c: CancelToken | None
) -> None:
    r.significance = run_significance(p, o.significance, pr, c, r)


#: The stages in the order they run (later ones reuse earlier results).
STAGES: tuple[Stage, ...] = (
    Stage("pixels", "evaluating masks", 30, _pixels),
    Stage("curves", "sweeping score curves", 15, _curves),
    Stage("actions", "evaluating actions", 5, _actions),
    Stage("boxes", "evaluating per-frame boxes", 5, _boxes),
    Stage("counts", "evaluating counts", 2, _counts),
    Stage("pseudo", "pseudo ground truth", 25, _pseudo),
    Stage("ranking", "ranking frames to annotate", 15, _ranking),
    Stage("significance", "significance", 3, _significance),
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

        def stage_progress(d: int, t: int, start: int = done, share: int = stage.share) -> None:
            fraction = min(d, t) / max(t, 1)
            report(
                progress, int((start + share * fraction) * PROGRESS_TOTAL // whole), PROGRESS_TOTAL
            )

        existing = getattr(results, stage.key)
        if existing is not None and getattr(existing, "options", None) == getattr(
            options, stage.key
        ):
            done += stage.share
            continue
        try:
            stage.run(project, options, results, stage_progress, cancel)
        except UnavailableError as error:
            results.skipped[stage.key] = str(error)
        done += stage.share
        report(progress, done * PROGRESS_TOTAL // whole, PROGRESS_TOTAL)
    return results
