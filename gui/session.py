"""The open project, what has been computed on it, and the jobs that compute it.

:class:`ProjectSession` holds no widget. It runs the core workflow's stages
(:mod:`referee.core.workflow`) as jobs through the
:class:`~referee.gui.worker.JobRunner`, keeps their results in one
:class:`~referee.core.workflow.results.ProjectResults` and the options of
each stage in one :class:`~referee.core.workflow.options.AnalysisOptions`, and
announces each new result with a signal; docks and views subscribe and draw.
When the project changes (a detector added or removed) everything that
depends on it is recomputed without the user asking.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from referee.core.errors import InputFileError, UnavailableError
from referee.core.estimation.result import EstimateResult
from referee.core.evaluation.masks import VideoEvaluation
from referee.core.formats.annotated import frames_with_ground_truth
from referee.core.measures.action_scores import ActionEvaluation
from referee.core.model.frame_set import FrameSet
from referee.core.model.project import Project
from referee.core.model.videos import VideoSpec
from referee.core.ranking.order import RankedFrame
from referee.core.significance.sweep import DiscriminativeResult
from referee.core.workflow.detections import run_actions, run_boxes, run_counts
from referee.core.workflow.estimate import run_estimate
from referee.core.workflow.options import (
    AnalysisOptions,
    EstimateOptions,
    PixelOptions,
    PseudoOptions,
    RankingOptions,
    SignificanceOptions,
)
from referee.core.workflow.pixels import resummarize, run_curves, run_pixels
from referee.core.workflow.projects import project_videos
from referee.core.workflow.pseudo import run_pseudo
from referee.core.workflow.ranking import run_ranking
from referee.core.workflow.results import (
    PixelResult,
    ProjectResults,
    PseudoOutcome,
    RankingResult,
)
from referee.core.workflow.significance import run_significance
from referee.gui.worker import Job, JobRunner


class ProjectSession(QObject):
    """The open project, its stage options and results; every computation runs as a job."""

    project_changed = Signal()
    evaluations_changed = Signal()
    curves_changed = Signal()
    actions_changed = Signal()
    boxes_changed = Signal()
    counts_changed = Signal()
    pseudo_changed = Signal()
    ranking_changed = Signal()
    significance_changed = Signal()
    estimate_changed = Signal()
    error = Signal(str)

    def __init__(self, runner: JobRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.project: Project | None = None
        self.videos: tuple[VideoSpec, ...] = ()
        self.options = AnalysisOptions()
        self.results = ProjectResults()
        #: The results before the last saved annotation, to show what it changed.
        self.previous_results: ProjectResults | None = None
        #: The project differs from its file (detectors added or removed, never saved).
        self.project_unsaved = False

    # --- what the docks read -----------------------------------------------------------------

    @property
    def pixels(self) -> PixelResult | None:
        """Masks against the ground truth, summarized with ``options.pixels``."""
        return self.results.pixels

    @property
    def evaluations(self) -> dict[str, list[VideoEvaluation]]:
        """Each mask detector's per-video evaluations (empty before the first result)."""
        return self.results.pixels.evaluations if self.results.pixels is not None else {}

    @property
    def actions(self) -> dict[str, ActionEvaluation]:
        """Each detector's LIRIS evaluation (empty before the first result)."""
        return self.results.actions.evaluations if self.results.actions is not None else {}

    @property
    def pseudo(self) -> PseudoOutcome | None:
        return self.results.pseudo

    @property
    def ranking(self) -> list[RankedFrame]:
        """The frames to annotate next (empty before the first result)."""
        return self.results.ranking.frames if self.results.ranking is not None else []

    @property
    def ranking_result(self) -> RankingResult | None:
        return self.results.ranking

    @property
    def significance(self) -> DiscriminativeResult | None:
        return self.results.significance

    @property
    def estimate(self) -> EstimateResult | None:
        """Estimates with intervals over every frame, and the frames to label next."""
        return self.results.estimate

    def mask_detectors(self) -> dict[str, Path]:
        """Detectors with masks: name → results root (only with a CDnet dataset)."""
        if self.project is None or not self.videos:
            return {}
        return self.project.mask_detectors()

    def action_detectors(self) -> dict[str, Path]:
        """Detectors with LIRIS actions: name → XML file."""
        return {} if self.project is None else self.project.action_detectors()

    def annotated(self) -> dict[str, FrameSet]:
        """The frames of each video (by label) that already have ground truth."""
        return {v.label: frames_with_ground_truth(v) for v in self.videos}

    # --- the project ------------------------------------------------------------------------

    def open(self, project: Project) -> None:
        """Make ``project`` current and recompute everything on it.

        Raises
        ------
        InputFileError
            If the project's dataset cannot be read, or the project has nothing
            to show (no dataset, video file or ground truth); the open project stays.
        """
        videos = project_videos(project)
        if not (videos or project.video_files or project.box_groundtruth or project.counts):
            raise InputFileError(
                project.file or project.name,
                "the project is empty: it names no dataset, video file or ground truth, "
                "so there is nothing to show; add a dataset folder or video files to it",
            )
        self.videos = videos
        self.project = project
        self.project_unsaved = False
        self.results = ProjectResults()
        self.previous_results = None
        self.project_changed.emit()
        self.refresh()

    def annotations_saved(self, project: Project) -> None:
        """Take ``project`` as saved with new ground truth and compute everything again in
        the background; the results so far stay in :attr:`previous_results`."""
        self.project = project
        self.videos = project_videos(project)
        self.previous_results = self.results
        self.results = ProjectResults()
        self.refresh()

    def refresh(self) -> None:
        """Start every computation the project allows (after opening or a change).

        Pseudo ground truth starts when the masks are evaluated, so that its
        comparison with the truth reuses their evaluation.
        """
        if self.project is None:
            return
        if self.mask_detectors():
            self.evaluate()
        elif len(self.project.mask_detectors()) >= 2:
            self.run_pseudo()
        if len(self.mask_detectors()) >= 2:
            self.run_ranking()
        if any(d.scores is not None for d in self.project.detectors) and self.videos:
            self.sweep_curves()
        if self.project.actions_groundtruth and self.action_detectors():
            self.evaluate_actions()
            self.evaluate_boxes()
        if self.project.counts is not None:
            self.evaluate_counts()

    # --- jobs -------------------------------------------------------------------------------

    def _start(
        self, kind: str, title: str, fn: Callable[..., Any], on_done: Callable[[Any], None]
    ) -> Job:
        return self.runner.run(kind, title, fn, on_done, self._on_failed)

    def _on_failed(self, message: str) -> None:
        self.error.emit(message)

    def _project(self) -> Project:
        if self.project is None:
            raise UnavailableError("no project is open")
        return self.project

    def evaluate(self, options: PixelOptions | None = None) -> Job:
        """Every mask detector on every video (docs/measures.md §1, §2)."""
        project, options = self._project(), options or self.options.pixels
        self.options = replace(self.options, pixels=options)

        def done(result: PixelResult) -> None:
            self.results.pixels = result
            self.evaluations_changed.emit()
            self._after_pixels()

        return self._start(
            "evaluate",
            "Evaluating detectors",
            lambda progress, cancel: run_pixels(project, options, progress, cancel),
            done,
        )

    def _after_pixels(self) -> None:
        project = self.project
        if project is None or len(project.mask_detectors()) < 2:
            return
        if self.results.pseudo is None:
            self.run_pseudo()
        previous = self.previous_results
        tested = previous is not None and previous.significance is not None
        if tested and self.results.significance is None:  # new ground truth: test again
            self.run_significance(self.options.significance)

    def set_pixel_weights(self, weights: str) -> Job | None:
        """Summarize the evaluated masks again with another weight scheme (no frame is read)."""
        pixels = self.results.pixels
        options = replace(self.options.pixels, weights=weights)
        self.options = replace(self.options, pixels=options)
        if pixels is None or pixels.options == options:
            return None

        def done(result: PixelResult) -> None:
            self.results.pixels = result
            self.evaluations_changed.emit()

        return self._start(
            "summarize",
            "Summarizing",
            lambda progress, cancel: resummarize(pixels, options),
            done,
        )

    def sweep_curves(self) -> Job:
        """ROC and PR curves of the detectors with soft scores (docs/measures.md §3)."""
        project, options = self._project(), self.options.curves

        def done(result: Any) -> None:
            self.results.curves = result
            self.curves_changed.emit()

        return self._start(
            "curves",
            "Sweeping score curves",
            lambda progress, cancel: run_curves(project, options, progress, cancel),
            done,
        )

    def evaluate_actions(self) -> Job:
        """Every detector's LIRIS actions against the ground truth (docs/measures.md §4)."""
        project, options = self._project(), self.options.actions

        def done(result: Any) -> None:
            self.results.actions = result
            self.actions_changed.emit()

        return self._start(
            "actions",
            "Evaluating actions",
            lambda progress, cancel: run_actions(project, options, progress, cancel),
            done,
        )

    def evaluate_boxes(self) -> Job:
        """Every detector's per-frame boxes against the ground truth (docs/measures.md §5)."""
        project, options = self._project(), self.options.boxes

        def done(result: Any) -> None:
            self.results.boxes = result
            self.boxes_changed.emit()

        return self._start(
            "boxes",
            "Evaluating per-frame boxes",
            lambda progress, cancel: run_boxes(project, options, progress, cancel),
            done,
        )

    def evaluate_counts(self) -> Job:
        """Every detector's counts against the ground-truth counts (docs/measures.md §6)."""
        project, options = self._project(), self.options.counts

        def run(progress: Any, cancel: Any) -> Any:
            try:
                return run_counts(project, options, progress, cancel)
            except UnavailableError:
                return None  # a counts folder without counts to compare: nothing to show

        def done(result: Any) -> None:
            self.results.counts = result
            self.counts_changed.emit()

        return self._start("counts", "Evaluating counts", run, done)

    def run_pseudo(self, options: PseudoOptions | None = None) -> Job:
        """Pseudo ground truth of the chosen committee (docs/measures.md §7)."""
        project, options = self._project(), options or self.options.pseudo
        self.options = replace(self.options, pseudo=options)
        pixels = self.results.pixels

        def done(outcome: PseudoOutcome) -> None:
            self.results.pseudo = outcome
            self.pseudo_changed.emit()
            if len(outcome.methods) >= 2:
                self.run_estimate()

        return self._start(
            "pseudo",
            "Pseudo ground truth",
            lambda progress, cancel: run_pseudo(project, options, progress, cancel, pixels),
            done,
        )

    def run_ranking(self, options: RankingOptions | None = None) -> Job:
        """Frames to annotate next over all videos (docs/measures.md §8)."""
        project, options = self._project(), options or self.options.ranking
        self.options = replace(self.options, ranking=options)

        def done(result: RankingResult) -> None:
            self.results.ranking = result
            self.ranking_changed.emit()

        return self._start(
            "ranking",
            "Ranking frames",
            lambda progress, cancel: run_ranking(project, options, progress, cancel),
            done,
        )

    def run_significance(self, options: SignificanceOptions | None = None) -> Job:
        """Do the chosen detectors really differ (docs/measures.md §9)?"""
        project, options = self._project(), options or self.options.significance
        self.options = replace(self.options, significance=options)
        upstream = replace(self.results)

        def done(result: DiscriminativeResult) -> None:
            self.results.significance = result
            self.significance_changed.emit()

        return self._start(
            "significance",
            "Significance test",
            lambda progress, cancel: run_significance(project, options, progress, cancel, upstream),
            done,
        )

    def run_estimate(self, options: EstimateOptions | None = None) -> Job:
        """Every mask detector's F1, precision and recall over every frame, with intervals,
        from the consensus and the labelled frames; and the frames to label next
        (docs/measures.md §12). Reuses the consensus and the evaluation computed so far."""
        project, options = self._project(), options or self.options.estimate
        self.options = replace(self.options, estimate=options)
        pseudo, pixels = self.results.pseudo, self.results.pixels

        def done(result: EstimateResult) -> None:
            self.results.estimate = result
            self.estimate_changed.emit()

        return self._start(
            "estimate",
            "Estimating with intervals",
            lambda progress, cancel: run_estimate(
                project, options, progress, cancel, pseudo, pixels
            ),
            done,
        )
