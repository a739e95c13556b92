"""The open project, what has been computed on it, and the jobs that compute it.

:class:`ProjectSession` holds no widget. It runs the core workflow's stages
(:mod:`referee.core.workflow`) as jobs through the
:class:`~referee.gui.worker.JobRunner`, keeps their results in one
:class:`~referee.core.workflow.results.ProjectResults` and the options of
each stage in one :class:`~referee.core.workflow.options.AnalysisOptions`, and
announces each new result with a signal; docks and views subscribe and draw.

Which stage runs when is the graph's business
(:mod:`referee.core.workflow.graph`): every stage whose inputs are computed
starts as a job, and when a saved annotation or new options change something,
the graph says which results are wrong and only those are computed again,
the per-frame counts of unchanged frames coming from the session's cache.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from referee.core.cache.store import FrameCache
from referee.core.errors import UnavailableError
from referee.core.estimation.result import EstimateResult
from referee.core.evaluation.masks import VideoEvaluation
from referee.core.measures.action_scores import ActionEvaluation
from referee.core.model.frame_set import FrameSet
from referee.core.model.project import Project
from referee.core.model.videos import VideoSpec
from referee.core.progress import CancelToken, check
from referee.core.ranking.order import RankedFrame
from referee.core.significance.sweep import DiscriminativeResult
from referee.core.workflow.graph import (
    PARTS,
    STAGES,
    Stage,
    changed_parts,
    invalidate,
    ready,
    run_stage,
)
from referee.core.workflow.options import (
    AnalysisOptions,
    EstimateOptions,
    PixelOptions,
    PseudoOptions,
    RankingOptions,
    SignificanceOptions,
)
from referee.core.workflow.projects import ListedProject, list_project
from referee.core.workflow.results import (
    CurvesResult,
    PixelResult,
    ProjectResults,
    PseudoOutcome,
    RankingResult,
)
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
    agreement_changed = Signal()
    error = Signal(str)

    def __init__(
        self, runner: JobRunner, parent: QObject | None = None, cache: FrameCache | None = None
    ) -> None:
        super().__init__(parent)
        self.runner = runner
        #: Per-frame counts kept for the session (and on disk, with a folder).
        self.cache = cache if cache is not None else FrameCache()
        self._jobs: dict[str, Job] = {}
        self.project: Project | None = None
        self.videos: tuple[VideoSpec, ...] = ()
        self._annotated: Mapping[str, FrameSet] = {}
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
    def curves(self) -> CurvesResult | None:
        """ROC and PR curves of the detectors with soft scores (docs/measures.md §3)."""
        return self.results.curves

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

    def annotated(self) -> Mapping[str, FrameSet]:
        """The frames of each video (by label) that already have ground truth: as listed
        when the project opened, listed again after a save."""
        return self._annotated

    # --- the project ------------------------------------------------------------------------

    def open(self, listed: ListedProject) -> None:
        """Make the project ``listed`` current (what :func:`list_project` lists, run as a
        job by the window) and compute everything on it."""
        self._cancel(self._jobs)
        self.videos = listed.videos
        self._annotated = listed.annotated
        self.project = listed.project
        self.project_unsaved = False
        self.results = ProjectResults()
        self.previous_results = None
        self.project_changed.emit()
        self.refresh()

    def annotations_saved(self, project: Project, files: Sequence[Path] = ()) -> None:
        """Take ``project`` as saved with new ground truth in ``files`` and bring up to date,
        in the background, what they change (every stage when ``files`` is empty), and list
        the videos again (a job); the results so far stay in :attr:`previous_results`."""
        before = self.project
        self.project = project
        self.previous_results = _copy(self.results)
        parts = changed_parts(before or project, files) if files else PARTS
        self._forget(invalidate(self.results, parts=parts))
        with self.runner.together():
            self._list_videos(project)
            self.refresh()

    def _list_videos(self, project: Project) -> None:
        """List ``project``'s videos and annotated frames again in a job, as opening does
        (the stages list them on their own); :attr:`videos` and :meth:`annotated` hold the
        new listing once done."""

        def done(listed: ListedProject) -> None:
            if self.project is project:
                self.videos, self._annotated = listed.videos, listed.annotated

        self.runner.run(
            "videos",
            "Listing the videos",
            lambda progress, cancel: list_project(project),
            done,
            self._on_failed,
        )

    def recompute(self) -> None:
        """Compute every stage again, as if every file had changed (files changed outside
        Referee); unchanged frames' counts still come from the cache."""
        if self.project is not None:
            self.annotations_saved(self.project)

    def refresh(self) -> None:
        """Start every stage that is ready: not computed, and what it uses computed."""
        project = self.project
        if project is None:
            return
        with self.runner.together():
            for stage in ready(self.results, self._jobs, self._wanted()):
                self._run(stage, project)

    def _wanted(self) -> list[str]:
        """The stages the window shows (every stage of the graph)."""
        return [stage.key for stage in STAGES]

    # --- jobs -------------------------------------------------------------------------------

    def _run(self, stage: Stage, project: Project) -> Job:
        options, results, cache = self.options, _copy(self.results), self.cache

        def run(progress: Any, cancel: Any) -> object:
            try:
                with contextlib.nullcontext() if stage.apart else _computing_here(cancel):
                    return run_stage(
                        stage, project, options, progress, cancel, results, cache, apart=True
                    )
            except UnavailableError as error:
                return _Skipped(str(error))

        def done(result: object) -> None:
            if self._jobs.get(stage.key) is not job:
                return  # made stale meanwhile
            del self._jobs[stage.key]
            if isinstance(result, _Skipped):
                self.results.skipped[stage.key] = result.reason
                setattr(self.results, stage.key, None)
            else:
                setattr(self.results, stage.key, result)
            self.results.stale.pop(stage.key, None)
            self._signals()[stage.key].emit()
            self.refresh()

        def failed(message: str) -> None:
            if self._jobs.get(stage.key) is job:
                del self._jobs[stage.key]
                self.results.skipped[stage.key] = message
                self._on_failed(message)
                self.refresh()

        job = self.runner.run(stage.key, _TITLES[stage.key], run, done, failed)
        self._jobs[stage.key] = job
        return job

    def _forget(self, keys: Iterable[str]) -> None:
        """Stop the jobs of stages whose results a change made wrong."""
        self._cancel({key: job for key, job in self._jobs.items() if key in set(keys)})

    def _cancel(self, jobs: dict[str, Job]) -> None:
        for key, job in list(jobs.items()):
            job.cancel()
            self._jobs.pop(key, None)

    def _signals(self) -> dict[str, Any]:
        return {
            "pixels": self.evaluations_changed,
            "curves": self.curves_changed,
            "actions": self.actions_changed,
            "boxes": self.boxes_changed,
            "counts": self.counts_changed,
            "pseudo": self.pseudo_changed,
            "ranking": self.ranking_changed,
            "significance": self.significance_changed,
            "estimate": self.estimate_changed,
            "agreement": self.agreement_changed,
        }

    def _on_failed(self, message: str) -> None:
        self.error.emit(message)

    def rerun(self, key: str, options: Any = None) -> Job | None:
        """Compute stage ``key`` again (with ``options``, if given) and what uses it; returns
        its job when it could start at once."""
        if self.project is None:
            raise UnavailableError("no project is open")
        if options is not None:
            self.options = replace(self.options, **{key: options})
        self._forget(invalidate(self.results, options=(key,)))
        self.refresh()
        return self._jobs.get(key)

    def evaluate(self, options: PixelOptions | None = None) -> Job | None:
        """Every mask detector on every video (docs/measures.md §1, §2)."""
        return self.rerun("pixels", options)

    def set_pixel_weights(self, weights: str) -> Job | None:
        """Summarize the evaluated masks again with another weight scheme (no frame is read)."""
        options = replace(self.options.pixels, weights=weights)
        if options == self.options.pixels:
            return None
        return self.rerun("pixels", options)

    def run_pseudo(self, options: PseudoOptions | None = None) -> Job | None:
        """Pseudo ground truth of the chosen committee (docs/measures.md §7)."""
        return self.rerun("pseudo", options)

    def run_ranking(self, options: RankingOptions | None = None) -> Job | None:
        """Frames to annotate next over all videos (docs/measures.md §8)."""
        return self.rerun("ranking", options)

    def run_significance(self, options: SignificanceOptions | None = None) -> Job | None:
        """Do the chosen detectors really differ (docs/measures.md §9)?"""
        return self.rerun("significance", options)

    def run_estimate(self, options: EstimateOptions | None = None) -> Job | None:
        """Estimates with intervals from the labelled frames (docs/measures.md §12)."""
        return self.rerun("estimate", options)


#: Held by the stage that computes in the window's process (not :attr:`Stage.apart`): such
#: stages run one at a time. Two at once took the interpreter lock from the window's paints
#: in turn, each paint waiting for it dozens of times (README, "Does the window stay
#: responsive?").
_COMPUTING_HERE = threading.Lock()
#: How often a stage waiting for its turn looks whether it was cancelled (seconds).
_TURN_POLL_SECONDS = 0.1


@contextlib.contextmanager
def _computing_here(cancel: CancelToken) -> Iterator[None]:
    """Wait for this process's turn to compute a stage (cancellation ends the wait)."""
    while not _COMPUTING_HERE.acquire(timeout=_TURN_POLL_SECONDS):
        check(cancel)
    try:
        yield
    finally:
        _COMPUTING_HERE.release()


class _Skipped:
    """A stage the project cannot provide, and why (a job's result)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _copy(results: ProjectResults) -> ProjectResults:
    """A snapshot of ``results`` that later changes to them leave alone."""
    return replace(results, skipped=dict(results.skipped), stale=dict(results.stale))


#: What the jobs panel calls each stage's job.
_TITLES = {stage.key: stage.title[0].upper() + stage.title[1:] for stage in STAGES}
