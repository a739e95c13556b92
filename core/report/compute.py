"""Run every computation a report needs on a project, with progress and cancellation.

:func:`compute_results` is the one place a report's numbers come from: it calls
the same core functions as the CLI and the GUI (evaluation, summaries, curves,
LIRIS, counting, pseudo ground truth, ranking, significance) and keeps their
result objects. Whatever the project cannot provide (no masks, no actions, a
single detector…) is skipped, and the reason is kept for the report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from referee.core.errors import InvalidOptionError, RefereeError
from referee.core.evaluation.masks import (
    VideoEvaluation,
    VideoHistograms,
    evaluate_methods,
    score_histograms_method,
)
from referee.core.formats.annotated import annotated_frames
from referee.core.formats.counts_csv import CountSeries, read_counts_pair
from referee.core.formats.liris_xml import read_liris
from referee.core.frames.results import result_sources
from referee.core.measures.action_scores import ActionEvaluation, evaluate_actions
from referee.core.measures.counting import CountingResult, evaluate_counts
from referee.core.measures.summarize import (
    MethodResult,
    RankComparison,
    compare_rankings,
    summarize_method,
)
from referee.core.model.project import GROUND_TRUTH, Project
from referee.core.model.videos import VideoSpec
from referee.core.progress import CancelToken, ProgressCallback, check, report
from referee.core.pseudo.dataset import PseudoResult, pseudo_evaluate
from referee.core.pseudo.truth import TruthComparison, compare_with_truth
from referee.core.pseudo.video import consensus_map
from referee.core.ranking.order import RankedFrame, rank_frames
from referee.core.ranking.scores import mask_scores
from referee.core.ranking.scores import video_label as ranking_label
from referee.core.report.options import ReportOptions
from referee.core.significance.cases import cases_of_kind
from referee.core.significance.sweep import DiscriminativeResult, compare_cases
from referee.core.workflow.projects import project_videos


@dataclass(frozen=True)
class CountRow:
    """One detector's counts on one video against the ground-truth counts (SPEC §6)."""

    video: str
    detector: str
    groundtruth: CountSeries
    estimate: CountSeries
    result: CountingResult


@dataclass(frozen=True)
class Heatmap:
    """The consensus ``P`` of one frame (SPEC §7), NaN outside the ROI."""

    video: str
    frame: int
    consensus: np.ndarray = field(repr=False)


@dataclass
class ProjectResults:
    """Everything computed for a report; empty parts are listed in ``skipped`` with why."""

    videos: tuple[VideoSpec, ...] = ()
    evaluations: dict[str, list[VideoEvaluation]] = field(default_factory=dict)
    methods: dict[str, MethodResult] = field(default_factory=dict)
    rank_comparison: RankComparison | None = None
    histograms: dict[str, list[VideoHistograms]] = field(default_factory=dict)
    actions: dict[str, ActionEvaluation] = field(default_factory=dict)
    counts: list[CountRow] = field(default_factory=list)
    pseudo: PseudoResult | None = None
    truth: TruthComparison | None = None
    heatmaps: list[Heatmap] = field(default_factory=list)
    annotate_next: list[RankedFrame] = field(default_factory=list)
    annotate_all_annotated: bool = False
    significance: DiscriminativeResult | None = None
    skipped: dict[str, str] = field(default_factory=dict)


Stage = Callable[[Project, ProjectResults, ReportOptions, ProgressCallback, CancelToken], None]


def _mask_detectors(project: Project, results: ProjectResults) -> dict[str, Path]:
    return project.mask_detectors() if results.videos else {}


def _evaluate(
    project: Project,
    results: ProjectResults,
    options: ReportOptions,
    progress: ProgressCallback,
    cancel: CancelToken,
) -> None:
    detectors = _mask_detectors(project, results)
    if not detectors:
        results.skipped["pixels"] = (
            "the project has no CDnet dataset with detector masks"
            if not results.videos
            else "no detector has masks"
        )
        return
    results.evaluations = evaluate_methods(
        results.videos, detectors, options.threshold, progress, cancel
    )
    for name, evaluations in results.evaluations.items():
        results.methods[name] = summarize_method(
            name, [e.confusion for e in evaluations], options.weights
        )
    results.rank_comparison = compare_rankings(
        {m: r.summary for m, r in results.methods.items()},
        {m: r.cdnet for m, r in results.methods.items()},
        options.rank_by,
    )


def _curves(
    project: Project,
    results: ProjectResults,
    options: ReportOptions,
    progress: ProgressCallback,
    cancel: CancelToken,
) -> None:
    soft = {d.name: d.scores for d in project.detectors if d.scores is not None}
    if not results.videos or not soft:
        results.skipped["curves"] = "no detector has soft scores (0–255) for ROC and PR curves"
        return
    for k, (name, root) in enumerate(soft.items()):
        check(cancel)
        results.histograms[name] = score_histograms_method(results.videos, root)
        progress(k + 1, len(soft))


def _actions(
    project: Project,
    results: ProjectResults,
    options: ReportOptions,
    progress: ProgressCallback,
    cancel: CancelToken,
) -> None:
    detectors = project.action_detectors()
    if project.actions_groundtruth is None or not detectors:
        results.skipped["actions"] = (
            "the project has no ground-truth actions"
            if project.actions_groundtruth is None
            else "no detector has actions"
        )
        return
    gt = read_liris(project.actions_groundtruth)
    for k, (name, path) in enumerate(detectors.items()):
        results.actions[name] = evaluate_actions(gt, read_liris(path), options.liris, cancel=cancel)
        progress(k + 1, len(detectors))


def _counts(
    project: Project,
    results: ProjectResults,
    options: ReportOptions,
    progress: ProgressCallback,
    cancel: CancelToken,
) -> None:
    root = project.counts
    folders = (
        sorted(p.parent for p in root.glob(f"*/{GROUND_TRUTH}.csv"))
        if root is not None and root.is_dir()
        else []
    )
    if not folders:
        results.skipped["counts"] = "the project has no ground-truth counts"
        return
    for k, folder in enumerate(folders):
        for detector in project.detectors:
            path = folder / f"{detector.name}.csv"
            if path.is_file():
                gt, estimate = read_counts_pair(folder / f"{GROUND_TRUTH}.csv", path)
                result = evaluate_counts(gt.counts, estimate.counts, options.count_window)
                results.counts.append(CountRow(folder.name, detector.name, gt, estimate, result))
        check(cancel)
        progress(k + 1, len(folders))
    if not results.counts:
        results.skipped["counts"] = "no detector has counts beside the ground-truth counts"


def _pseudo(
    project: Project,
    results: ProjectResults,
    options: ReportOptions,
    progress: ProgressCallback,
    cancel: CancelToken,
) -> None:
    detectors = _mask_detectors(project, results)
    if len(detectors) < 2:
        results.skipped["pseudo"] = "pseudo ground truth needs at least two detectors with masks"
        return
    results.pseudo = pseudo_evaluate(
        results.videos, detectors, options.committee, progress=progress, cancel=cancel
    )
    if all(m in results.evaluations for m in detectors):
        try:
            results.truth = compare_with_truth(results.pseudo, results.evaluations)
        except RefereeError as error:
            results.skipped["truth"] = str(error)
    for video in results.videos:
        sources = {name: result_sources([video], root)[0] for name, root in detectors.items()}
        pseudo_video = results.pseudo.video((video.category, video.name))
        for frame in _spread(pseudo_video.frames, options.heatmap_frames):
            check(cancel)
            results.heatmaps.append(
                Heatmap(
                    ranking_label(video),
                    frame,
                    consensus_map(video, frame, sources, options.committee),
                )
            )


def _spread(frames: np.ndarray, count: int) -> list[int]:
    """``count`` frames evenly spaced over ``frames`` (all of them if there are fewer)."""
    if count <= 0 or frames.size == 0:
        return []
    picks = np.linspace(0, frames.size - 1, num=min(count, frames.size)).round().astype(int)
    return [int(frames[i]) for i in np.unique(picks)]


def _annotate_next(
    project: Project,
    results: ProjectResults,
    options: ReportOptions,
    progress: ProgressCallback,
    cancel: CancelToken,
) -> None:
    detectors = _mask_detectors(project, results)
    if len(detectors) < 2:
        results.skipped["annotate"] = "ranking frames needs at least two detectors with masks"
        return
    names = list(detectors)
    sources = {name: result_sources(results.videos, detectors[name]) for name in names}
    scores = mask_scores(
        results.videos,
        sources,
        options.ranking_criterion,
        (names[0], names[1]),
        progress=progress,
        cancel=cancel,
    )
    annotated = {ranking_label(v): annotated_frames(v) for v in results.videos}
    ranked = rank_frames(scores, options.ranking_gap, exclude=annotated, top=options.ranking_top)
    if not ranked:  # every frame has ground truth: rank them anyway, to check the truth
        ranked = rank_frames(scores, options.ranking_gap, top=options.ranking_top)
        results.annotate_all_annotated = True
    results.annotate_next = ranked


def _significance(
    project: Project,
    results: ProjectResults,
    options: ReportOptions,
    progress: ProgressCallback,
    cancel: CancelToken,
) -> None:
    kind = options.significance_cases
    try:
        cases = cases_of_kind(kind, results.evaluations, results.pseudo, results.actions)
    except InvalidOptionError as error:
        results.skipped["significance"] = str(error)
        return
    if len(cases.methods) < 2:
        results.skipped["significance"] = f"fewer than two detectors have {kind} results"
        return
    results.significance = compare_cases(
        cases, options.significance_test, options.alpha, options.tau
    )
    progress(1, 1)


#: The stages in order, with their share of the progress bar.
STAGES: tuple[tuple[str, Stage, int], ...] = (
    ("evaluating masks", _evaluate, 30),
    ("sweeping score curves", _curves, 15),
    ("evaluating actions", _actions, 5),
    ("evaluating counts", _counts, 2),
    ("pseudo ground truth", _pseudo, 30),
    ("ranking frames to annotate", _annotate_next, 15),
    ("significance", _significance, 3),
)


def compute_results(
    project: Project,
    options: ReportOptions = ReportOptions(),
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> ProjectResults:
    """Every result a report shows for ``project``, computed with ``options``.

    ``progress(done, total)`` runs from 0 to 1000 over all stages.

    Raises
    ------
    RefereeError
        Bad input files (named in the message), as the CLI commands raise them.
    CancelledError
        If ``cancel`` is set.
    """
    cancel = cancel or CancelToken()
    results = ProjectResults(videos=tuple(project_videos(project)))
    whole, done = sum(share for _, _, share in STAGES), 0
    for _, stage, share in STAGES:
        check(cancel)

        def stage_progress(d: int, t: int, start: int = done, share: int = share) -> None:
            report(progress, (start * 1000 + share * 1000 * min(d, t) // max(t, 1)) // whole, 1000)

        stage(project, results, options, stage_progress, cancel)
        done += share
        report(progress, done * 1000 // whole, 1000)
    return results
