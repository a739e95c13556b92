"""What each stage of the workflow returns, and the results of a whole project.

Plain data: the command line prints it, the report lays it out, the desktop
session holds it and its docks draw it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from referee.core.estimation.result import EstimateResult
    from referee.core.evaluation.batch import MissingResult
    from referee.core.evaluation.masks import VideoEvaluation, VideoHistograms
    from referee.core.formats.counts_csv import CountSeries
    from referee.core.measures.action_scores import ActionEvaluation
    from referee.core.measures.box_rules import BenchmarkRules
    from referee.core.measures.boxes import BoxEvaluation
    from referee.core.measures.counting import CountingResult
    from referee.core.measures.curves import Curves
    from referee.core.measures.detection_ap import DetectionAP
    from referee.core.measures.indicators import IndicatorValue
    from referee.core.measures.summarize import MethodResult, RankComparison
    from referee.core.measures.tracking import TrackingEvaluation
    from referee.core.model.videos import AnnotatedFrames
    from referee.core.pseudo.agreement import AgreementResult
    from referee.core.pseudo.dataset import PseudoResult
    from referee.core.pseudo.truth import TruthComparison
    from referee.core.ranking.criteria import FrameScores
    from referee.core.ranking.order import RankedFrame
    from referee.core.significance.sweep import DiscriminativeResult
    from referee.core.workflow.options import (
        ActionOptions,
        BoxOptions,
        CountOptions,
        CurveOptions,
        PixelOptions,
        PseudoOptions,
        RankingOptions,
    )


@dataclass(frozen=True, eq=False)
class PixelResult:
    """Every detector's masks against the ground truth, per video and summarized
    (docs/measures.md §1, §2).

    ``evaluations`` is empty when the matrices were given, not counted
    (``referee summarize``). ``missing`` names the results that kept failing on
    a cluster: they are left out of the summaries (locally a failure stops the run).
    ``annotated_only`` holds, by video label, the partly annotated videos and the
    frames with ground truth they were evaluated on (docs/measures.md §8).
    """

    options: PixelOptions
    evaluations: dict[str, list[VideoEvaluation]]
    methods: dict[str, MethodResult]
    ranking: RankComparison
    missing: tuple[MissingResult, ...] = ()
    annotated_only: dict[str, AnnotatedFrames] = field(default_factory=dict)

    @property
    def scheme(self) -> str:
        """The weight scheme the summaries used (``auto`` resolved)."""
        return next(iter(self.methods.values())).summary.scheme


@dataclass(frozen=True, eq=False)
class CurvesResult:
    """Every detector's score histograms and its ROC and PR curves (docs/measures.md §3).

    ``summaries[detector]`` is ``(scheme, curves)``: the curves summarized over
    videos threshold by threshold, with the weight scheme used; ``areas[detector]``
    the summarized curves' ROC AUC and average precision.
    """

    options: CurveOptions
    histograms: dict[str, list[VideoHistograms]]
    summaries: dict[str, tuple[str, Curves]]
    areas: dict[str, tuple[IndicatorValue, IndicatorValue]]
    missing: tuple[MissingResult, ...] = ()


@dataclass(frozen=True, eq=False)
class ActionsResult:
    """Every detector's actions against the ground-truth actions (docs/measures.md §4)."""

    options: ActionOptions
    evaluations: dict[str, ActionEvaluation]


@dataclass(frozen=True, eq=False)
class BoxesResult:
    """Every detector's per-frame boxes against the ground truth (docs/measures.md §5).

    ``formats`` names the format each input was read as, the ground truth's
    under ``""``. ``annotated_only`` holds, by sequence name, the sequences paired
    with a partly annotated video of the project and evaluated on its recorded
    annotated frames only (how many, of how many frames of its temporal ROI), for
    every detector; every other sequence was evaluated on all its frames.
    ``tracking`` holds each tracker's HOTA, CLEAR MOT and identity measures when the
    boxes carry identities (MOTChallenge tracks, LIRIS actions; docs/measures.md §5), and
    ``untracked`` why a detector has none. ``applied`` are the options
    the evaluation used: ``options`` with the ``rules`` of a MOTChallenge benchmark,
    named or inferred from ``rules_source``. ``detection_ap`` holds each detector's COCO
    AP when asked for (``options.detection_ap``). ``tracking_blocks`` holds each tracker's
    tracking measures on frame blocks of the sequences (``options.tracking_block``
    frames each; none with enough sequences), the units of the tracking intervals and
    tests (docs/measures.md §5, "Tracking: intervals and tests").
    """

    options: BoxOptions
    evaluations: dict[str, BoxEvaluation]
    formats: dict[str, str] = field(default_factory=dict)
    annotated_only: dict[str, AnnotatedFrames] = field(default_factory=dict)
    tracking: dict[str, TrackingEvaluation] = field(default_factory=dict)
    applied: BoxOptions | None = None
    rules: BenchmarkRules | None = None
    rules_source: str | None = None
    detection_ap: dict[str, DetectionAP] = field(default_factory=dict)
    untracked: dict[str, str] = field(default_factory=dict)
    tracking_blocks: dict[str, TrackingEvaluation] = field(default_factory=dict)


@dataclass(frozen=True)
class CountRow:
    """One detector's counts on one video against the ground-truth counts (docs/measures.md §6)."""

    video: str
    detector: str
    groundtruth: CountSeries
    estimate: CountSeries
    result: CountingResult


@dataclass(frozen=True, eq=False)
class CountsResult:
    """Every detector's counts on every video that has ground-truth counts."""

    options: CountOptions
    rows: list[CountRow]


@dataclass(frozen=True, eq=False)
class PseudoOutcome:
    """A pseudo ground-truth evaluation and, when ground truth exists, its comparison
    with the true values (docs/measures.md §7).

    ``truth_problem`` says why there is no comparison when the project has no
    complete ground truth (``None`` when there is one).
    """

    options: PseudoOptions
    result: PseudoResult
    truth: TruthComparison | None = None
    truth_problem: str | None = None

    @property
    def methods(self) -> tuple[str, ...]:
        return self.result.methods


@dataclass(frozen=True, eq=False)
class RankingResult:
    """Frames to annotate next (docs/measures.md §8).

    Attributes
    ----------
    options
        The options asked for.
    criterion
        The criterion used (``options.criterion`` or the project's default).
    methods
        The detectors compared.
    scores
        Every video's per-frame disagreement.
    frames
        The ranked frames.
    considered
        Frames considered (a video's temporal ROI; for boxes and actions, the
        frames with a detection).
    annotated
        Of those, frames that already have ground truth (left out of the ranking
        unless ``options.include_annotated``).
    """

    options: RankingOptions
    criterion: str
    methods: tuple[str, ...]
    scores: list[FrameScores]
    frames: list[RankedFrame]
    considered: int
    annotated: int

    @property
    def all_annotated(self) -> bool:
        """Every scored frame has ground truth and annotated frames were left out."""
        return (
            self.considered > 0
            and self.annotated == self.considered
            and not (self.options.include_annotated)
        )


@dataclass
class ProjectResults:
    """The results of every stage computed on a project so far.

    ``skipped[stage]`` says why a stage could not run on this project; ``stale[stage]``
    holds a stage's result from before a change it must be brought up to date with
    (:func:`~referee.core.workflow.graph.invalidate`).
    """

    pixels: PixelResult | None = None
    curves: CurvesResult | None = None
    actions: ActionsResult | None = None
    boxes: BoxesResult | None = None
    counts: CountsResult | None = None
    pseudo: PseudoOutcome | None = None
    ranking: RankingResult | None = None
    significance: DiscriminativeResult | None = None
    estimate: EstimateResult | None = None
    agreement: AgreementResult | None = None
    skipped: dict[str, str] = field(default_factory=dict)
    stale: dict[str, object] = field(default_factory=dict)
