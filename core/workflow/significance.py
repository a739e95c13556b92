"""Do the detectors really differ (docs/measures.md §9)?"""

from __future__ import annotations

from collections.abc import Sequence

from referee.core.errors import UnavailableError
from referee.core.model.case_scores import CaseScores
from referee.core.model.project import Project
from referee.core.progress import CancelToken, ProgressCallback
from referee.core.significance.cases import (
    action_dice_cases,
    box_fda_cases,
    frame_f1_cases,
    pseudo_result_cases,
    tracking_cases,
)
from referee.core.significance.sweep import DiscriminativeResult, compare_cases
from referee.core.workflow.detections import run_actions, run_boxes
from referee.core.workflow.options import PseudoOptions, SignificanceOptions
from referee.core.workflow.pixels import run_pixels
from referee.core.workflow.pseudo import run_pseudo
from referee.core.workflow.results import ProjectResults
from referee.core.workflow.tracking_intervals import boxes_units


def run_significance(
    project: Project,
    options: SignificanceOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    upstream: ProjectResults | None = None,
) -> DiscriminativeResult:
    """The discriminative test of the chosen detectors on the chosen test cases.

    The cases come from ``upstream`` when it holds the results they are built
    from; missing results are computed with their stage's default options.

    Raises
    ------
    UnavailableError
        If fewer than two detectors have such cases.
    InvalidOptionError
        An unknown detector, or a test that does not fit the number of detectors.
    """
    options = options or SignificanceOptions()
    return compare_scores(case_scores(project, options, upstream, progress, cancel), options)


def compare_scores(cases: CaseScores, options: SignificanceOptions) -> DiscriminativeResult:
    """The discriminative test on given scores (``options.methods`` selects among them)."""
    if options.methods is not None and tuple(options.methods) != cases.methods:
        cases = cases.select(options.methods)
    return compare_cases(
        cases,
        options.test,
        options.alpha,
        options.tau,
        options.thresholds,
        options.higher_is_better,
    )


def case_scores(
    project: Project,
    options: SignificanceOptions,
    upstream: ProjectResults | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> CaseScores:
    """One score per case and detector, for ``options.cases`` and ``options.methods``."""
    found = upstream or ProjectResults()
    kind = options.cases
    if kind == "frames":
        pixels = found.pixels or run_pixels(project, progress=progress, cancel=cancel)
        chosen = _chosen(options, list(pixels.evaluations), "masks")
        return frame_f1_cases({m: pixels.evaluations[m] for m in chosen})
    if kind == "pseudo":
        outcome = found.pseudo or run_pseudo(
            project, PseudoOptions(entropy=False, compare_with_truth=False), progress, cancel
        )
        chosen = _chosen(options, list(outcome.methods), "masks in the committee")
        return pseudo_result_cases(outcome.result, chosen)
    if kind == "actions":
        actions = found.actions or run_actions(project, progress=progress, cancel=cancel)
        chosen = _chosen(options, list(actions.evaluations), "actions")
        return action_dice_cases({m: actions.evaluations[m].matching for m in chosen})
    boxes = found.boxes or run_boxes(project, progress=progress, cancel=cancel)
    if kind == "tracking":
        units = boxes_units(boxes)
        chosen = _chosen(options, list(units.scores), "tracking measures")
        return tracking_cases(units, options.tracking_measure, chosen)
    chosen = _chosen(options, list(boxes.evaluations), "boxes")
    return box_fda_cases({m: boxes.evaluations[m] for m in chosen})


def _chosen(options: SignificanceOptions, names: Sequence[str], what: str) -> list[str]:
    """The detectors compared: ``options.methods`` (checked), else every one with cases."""
    if options.methods is None:
        if len(names) < 2:
            raise UnavailableError(f"comparing detectors needs at least two with {what}")
        return list(names)
    unknown = [m for m in options.methods if m not in names]
    if unknown:
        raise UnavailableError(
            f"no {what} for {', '.join(unknown)}; detectors with {what}: "
            + (", ".join(names) or "none")
        )
    return list(options.methods)
