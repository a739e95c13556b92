"""The open project, what has been computed on it, and the jobs that compute it.

:class:`ProjectSession` holds no widget. It starts core computations through
the :class:`~referee.gui.worker.JobRunner` and announces each new result with
a signal; docks and views subscribe. When the project changes (a detector
added or removed) everything that depends on it is recomputed without the
user asking.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from referee.core.errors import InvalidOptionError, RefereeError
from referee.core.evaluation.masks import VideoEvaluation, evaluate_methods
from referee.core.formats.annotated import annotated_frames
from referee.core.formats.liris_xml import read_liris
from referee.core.frames.results import result_sources
from referee.core.measures.action_scores import ActionEvaluation, evaluate_actions
from referee.core.model.case_scores import CaseScores
from referee.core.model.project import Project
from referee.core.model.videos import VideoSpec
from referee.core.pseudo.committee import CommitteeOptions
from referee.core.pseudo.dataset import PseudoResult, pseudo_evaluate
from referee.core.pseudo.truth import TruthComparison, compare_with_truth
from referee.core.ranking.criteria import VOTE_ENTROPY
from referee.core.ranking.order import DEFAULT_GAP, RankedFrame, rank_frames
from referee.core.ranking.scores import mask_scores
from referee.core.ranking.scores import video_label as ranking_label
from referee.core.significance.cases import cases_of_kind
from referee.core.significance.sweep import DiscriminativeResult, compare_cases
from referee.core.workflow.projects import project_videos
from referee.gui.worker import Job, JobRunner


@dataclass(frozen=True)
class PseudoOutcome:
    """A pseudo ground-truth run and, when ground truth exists, its comparison with it."""

    methods: tuple[str, ...]
    options: CommitteeOptions
    result: PseudoResult
    truth: TruthComparison | None


class ProjectSession(QObject):
    """The open project and its results; every computation runs as a job."""

    project_changed = Signal()
    evaluations_changed = Signal()
    actions_changed = Signal()
    pseudo_changed = Signal()
    ranking_changed = Signal()
    significance_changed = Signal()
    error = Signal(str)

    def __init__(self, runner: JobRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.project: Project | None = None
        self.videos: tuple[VideoSpec, ...] = ()
        self.evaluations: dict[str, list[VideoEvaluation]] = {}
        self.actions: dict[str, ActionEvaluation] = {}
        self.pseudo: PseudoOutcome | None = None
        self.ranking: list[RankedFrame] = []
        self.significance: DiscriminativeResult | None = None
        self._ranking_request: tuple = (VOTE_ENTROPY, 20, DEFAULT_GAP, None)
        self._pseudo_request: tuple[tuple[str, ...], CommitteeOptions] | None = None

    # --- the project ------------------------------------------------------------------------

    def open(self, project: Project) -> None:
        """Make ``project`` current and recompute everything on it."""
        videos = tuple(project_videos(project))
        self.project = project
        self.videos = videos
        self.evaluations, self.actions, self.pseudo = {}, {}, None
        self.ranking, self.significance = [], None
        self._pseudo_request = None
        self.project_changed.emit()
        self.refresh()

    def refresh(self) -> None:
        """Start every computation the project allows (after opening or a change)."""
        if self.project is None:
            return
        if self.mask_detectors():
            self.evaluate()
            if len(self.mask_detectors()) >= 2:
                self.run_pseudo(
                    *(self._pseudo_request or (tuple(self.mask_detectors()), CommitteeOptions()))
                )
                self.run_ranking(*self._ranking_request)
        if self.project.actions_groundtruth and self.action_detectors():
            self.evaluate_actions()

    def mask_detectors(self) -> dict[str, Path]:
        """Detectors with masks: name → results root (only with a CDnet dataset)."""
        if self.project is None or not self.videos:
            return {}
        return self.project.mask_detectors()

    def action_detectors(self) -> dict[str, Path]:
        """Detectors with LIRIS actions: name → XML file."""
        if self.project is None:
            return {}
        return self.project.action_detectors()

    def annotated(self) -> set[tuple[str, int]]:
        """(video label, frame) of every frame that already has ground truth."""
        return {(ranking_label(v), i) for v in self.videos for i in annotated_frames(v)}

    # --- jobs -------------------------------------------------------------------------------

    def _start(
        self, kind: str, title: str, fn: Callable[..., Any], on_done: Callable[[Any], None]
    ) -> Job:
        return self.runner.run(kind, title, fn, on_done, self.error.emit)

    def evaluate(self) -> Job:
        """Evaluate every mask detector on every video (SPEC §1)."""
        videos, detectors = self.videos, self.mask_detectors()

        def run(progress, cancel) -> dict[str, list[VideoEvaluation]]:
            return evaluate_methods(videos, detectors, progress=progress, cancel=cancel)

        return self._start("evaluate", "Evaluating detectors", run, self._on_evaluated)

    def _on_evaluated(self, evaluations: dict[str, list[VideoEvaluation]]) -> None:
        self.evaluations = evaluations
        self.evaluations_changed.emit()
        if self.pseudo is not None and self.pseudo.truth is None:
            self._attach_truth()

    def evaluate_actions(self) -> Job:
        """Evaluate every detector's LIRIS actions against the ground truth (SPEC §4)."""
        gt_path = self.project.actions_groundtruth
        detectors = self.action_detectors()

        def run(progress, cancel) -> dict[str, ActionEvaluation]:
            gt = read_liris(gt_path)
            results = {}
            for k, (name, path) in enumerate(detectors.items()):
                results[name] = evaluate_actions(gt, read_liris(path), cancel=cancel)
                progress(k + 1, len(detectors))
            return results

        return self._start("actions", "Evaluating actions", run, self._on_actions)

    def _on_actions(self, actions: dict[str, ActionEvaluation]) -> None:
        self.actions = actions
        self.actions_changed.emit()

    def run_pseudo(self, methods: Sequence[str], options: CommitteeOptions) -> Job:
        """Pseudo ground truth of the chosen committee (SPEC §7)."""
        roots = self.mask_detectors()
        unknown = [m for m in methods if m not in roots]
        if unknown or len(methods) < 2:
            raise InvalidOptionError(
                "choose at least two detectors with masks for the "
                f"committee (unknown: {', '.join(unknown) or 'none'})"
            )
        methods, videos = tuple(methods), self.videos
        self._pseudo_request = (methods, options)

        def run(progress, cancel) -> PseudoResult:
            return pseudo_evaluate(
                videos, {m: roots[m] for m in methods}, options, progress=progress, cancel=cancel
            )

        def done(result: PseudoResult) -> None:
            self.pseudo = PseudoOutcome(methods, options, result, None)
            self._attach_truth()

        return self._start("pseudo", "Pseudo ground truth", run, done)

    def _attach_truth(self) -> None:
        """Correlate the pseudo indicators with the true ones (off the GUI thread) once both exist."""
        pseudo = self.pseudo
        self.pseudo_changed.emit()
        if pseudo is None or not all(m in self.evaluations for m in pseudo.methods):
            return
        truth = {m: self.evaluations[m] for m in pseudo.methods}

        def run(progress, cancel) -> TruthComparison | None:
            try:
                return compare_with_truth(pseudo.result, truth)
            except RefereeError:
                return None  # e.g. a video without ground truth: no correlation to show

        def done(comparison: TruthComparison | None) -> None:
            if self.pseudo is pseudo and comparison is not None:
                self.pseudo = replace(pseudo, truth=comparison)
                self.pseudo_changed.emit()

        self._start("truth", "Correlating with ground truth", run, done)

    def run_ranking(
        self, criterion: str, top: int, gap: int, pair: tuple[str, str] | None = None
    ) -> Job:
        """Frames to annotate next over all videos (SPEC §8); ``pair`` for pair criteria."""
        roots = self.mask_detectors()
        if len(roots) < 2:
            raise InvalidOptionError("ranking frames needs at least two detectors with masks")
        self._ranking_request = (criterion, top, gap, pair)
        names = list(roots)
        pair = pair or (names[0], names[1])
        videos = self.videos

        def run(progress, cancel) -> list[RankedFrame]:
            sources = {name: result_sources(videos, roots[name]) for name in names}
            scores = mask_scores(videos, sources, criterion, pair, progress=progress, cancel=cancel)
            return rank_frames(scores, gap, top=top)

        return self._start("ranking", "Ranking frames", run, self._on_ranking)

    def _on_ranking(self, ranking: list[RankedFrame]) -> None:
        self.ranking = ranking
        self.ranking_changed.emit()

    def case_scores(self, kind: str) -> CaseScores:
        """Paired test cases of every detector for ``kind`` (a key of ``significance.CASE_KINDS``)."""
        return cases_of_kind(
            kind,
            self.evaluations,
            self.pseudo.result if self.pseudo is not None else None,
            self.actions,
        )

    def run_significance(
        self, methods: Sequence[str], kind: str, test: str | None, alpha: float
    ) -> Job:
        """Is one detector really better than another (SPEC §9)?"""
        cases = self.case_scores(kind).select(list(methods))

        def run(progress, cancel) -> DiscriminativeResult:
            return compare_cases(cases, test, alpha)

        return self._start("significance", "Significance test", run, self._on_significance)

    def _on_significance(self, result: DiscriminativeResult) -> None:
        self.significance = result
        self.significance_changed.emit()
