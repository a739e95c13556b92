"""The options of every computation, with their defaults, each in exactly one place.

One frozen dataclass per stage of :mod:`referee.core.workflow`; the command line,
the report and the desktop application build these and nothing else holds a
default. docs/measures.md gives the meaning of every option.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core.errors import InvalidOptionError
from referee.core.estimation.choices import (
    DEFAULT_UNIFORM_SHARE,
    ESTIMATORS,
    LABELLED,
    SAMPLERS,
    check_uniform_share,
)
from referee.core.measures.box_rules import (
    AUTO,
    IOU_RULES,
    check_benchmark,
    check_class_rule,
    check_iou_rule,
)
from referee.core.measures.choices import (
    DEFAULT_IOU_THRESHOLD,
    MAPPINGS,
    WEIGHT_SCHEMES,
    check_threshold,
)
from referee.core.measures.liris_parameters import LirisParameters
from referee.core.model.videos import VideoKey
from referee.core.parallel import check_workers
from referee.core.pseudo.committee_options import CommitteeOptions
from referee.core.ranking.choices import CRITERIA, DEFAULT_GAP
from referee.core.significance.choices import (
    AUTO_TEST,
    CASE_KINDS,
    DEFAULT_ALPHA,
    DEFAULT_BLOCK_LENGTH,
    DEFAULT_RESAMPLES,
    DEFAULT_TAU,
    DEFAULT_THRESHOLDS,
    TESTS,
    TRACKING_MEASURES,
    check_block_length,
    check_tracking_measure,
)

#: CCR_WCC's half window, in frames (docs/measures.md §6 sets no default; its worked
#: example uses 1).
DEFAULT_COUNT_WINDOW = 1

#: Weight schemes an option may name (``custom`` comes with its weights).
SCHEMES: tuple[str, ...] = tuple(s for s in WEIGHT_SCHEMES if s != "custom")


def _check_scheme(scheme: str) -> None:
    if scheme not in SCHEMES:
        raise InvalidOptionError(
            f"unknown weight scheme {scheme!r} (choose from {', '.join(SCHEMES)})"
        )


@dataclass(frozen=True)
class PixelOptions:
    """Masks against the ground truth, summarized over videos (docs/measures.md §1, §2).

    Attributes
    ----------
    threshold
        ``None``: a mask pixel is detected iff it is 255; ``T``: iff it is ``>= T``.
    weights
        How videos weigh in the summary: ``auto`` (``category`` when videos have
        categories, else ``video``), ``video``, ``category`` or ``pixels``.
    custom_weights
        One weight per video key, instead of ``weights``.
    rank_by
        Indicator ranking the methods under both summaries.
    workers
        Workers comparing frame ranges (``None``: every available core).
    pattern, offset
        Result file names inside a one-video result folder (``mask_%04d.png``) and
        the difference between file and frame numbers; default CDnet's ``bin%06d``.
    """

    threshold: int | None = None
    weights: str = "auto"
    custom_weights: Mapping[VideoKey, float] | None = None
    rank_by: str = "f1"
    workers: int | None = None
    pattern: str | None = None
    offset: int = 0

    def __post_init__(self) -> None:
        check_threshold(self.threshold)
        _check_scheme(self.weights)
        check_workers(self.workers)

    @property
    def scheme(self) -> str:
        """The scheme passed to the summary: ``custom`` with custom weights."""
        return "custom" if self.custom_weights is not None else self.weights


@dataclass(frozen=True)
class CurveOptions:
    """ROC and PR curves of soft scores (docs/measures.md §3)."""

    weights: str = "auto"
    workers: int | None = None

    def __post_init__(self) -> None:
        _check_scheme(self.weights)
        check_workers(self.workers)


@dataclass(frozen=True)
class ActionOptions:
    """LIRIS action localization (docs/measures.md §4): ε, the threshold grid and the
    matching's reading (one-to-one or best-partner)."""

    liris: LirisParameters = field(default_factory=LirisParameters)


@dataclass(frozen=True)
class BoxOptions:
    """Per-frame boxes (docs/measures.md §5).

    ``iou``: a mapped pair is a true positive iff its IoU is at least this;
    ``mapping``: ``hungarian`` or ``greedy``; ``class_aware``: only boxes of one
    class match; ``min_conf``: MOTChallenge detections of lower confidence are
    dropped; ``groundtruth_min_conf``: MOTChallenge ground-truth boxes of lower
    confidence (the consider flag) are not counted; ``iou_rule``:
    ``map-then-threshold``, ``threshold-then-map`` (pairs below ``iou`` are never
    assigned) or ``keep-matches`` (the true positives are CLEAR MOT's matches, which keep
    the previous frame's pairs of identities; every box needs an identity); ``mot_classes``: ``None`` (classes ignored) or the class rules of
    ``mot16``, ``mot17`` or ``mot20`` (one class counted, detections on distractors
    removed); ``seqmap``: against a MOTChallenge benchmark folder, the seqmap file, or
    a name in its ``seqmaps/`` folder (default: the only one there);
    ``groundtruth_zero_marked``: MOTChallenge ground-truth rows whose consider flag is
    exactly 0 are not counted; ``benchmark``: a MOTChallenge benchmark's rules
    (``MOT15`` … ``MOT20``, :data:`~referee.core.measures.box_rules.BENCHMARKS`) applied
    to MOTChallenge boxes, ``auto`` (the default) when a seqmap, split, folder or file
    name names the benchmark, or ``none``; options set to other than their defaults win
    over the benchmark's; ``detection_ap``: also COCO's detection AP of the detections'
    scores, every box one category; ``tracking_block``: with fewer than
    :data:`~referee.core.significance.choices.MIN_SEQUENCES` sequences, the tracking
    measures are also computed on blocks of this many consecutive frames of each
    sequence, the units of the tracking intervals and tests (``None``: not);
    ``read``: ``(name, value)`` options for the readers of formats that need them
    (docs/measures.md §10): ``image_size`` ``(width, height)`` for YOLO, ``images`` the COCO instances
    file a COCO results file refers to, ``frame_from`` how a COCO image gives its
    frame.
    """

    iou: float = DEFAULT_IOU_THRESHOLD
    mapping: str = MAPPINGS[0]
    class_aware: bool = False
    min_conf: float | None = None
    groundtruth_min_conf: float | None = None
    iou_rule: str = IOU_RULES[0]
    mot_classes: str | None = None
    seqmap: str | None = None
    groundtruth_zero_marked: bool = False
    benchmark: str = AUTO
    detection_ap: bool = False
    tracking_block: int | None = DEFAULT_BLOCK_LENGTH
    read: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        check_benchmark(self.benchmark)
        check_block_length(self.tracking_block)
        if not 0 <= self.iou <= 1:
            raise InvalidOptionError(f"the IoU threshold must be between 0 and 1, not {self.iou}")
        if self.mapping not in MAPPINGS:
            raise InvalidOptionError(
                f"unknown mapping {self.mapping!r} (choose from {', '.join(MAPPINGS)})"
            )
        check_iou_rule(self.iou_rule)
        check_class_rule(self.mot_classes)


@dataclass(frozen=True)
class CountOptions:
    """Counting (docs/measures.md §6): CCR_WCC's half window ``w``, in frames."""

    window: int = DEFAULT_COUNT_WINDOW

    def __post_init__(self) -> None:
        if self.window < 0:
            raise InvalidOptionError(f"the counting window must be >= 0 frames, not {self.window}")


@dataclass(frozen=True)
class PseudoOptions:
    """Pseudo ground truth (docs/measures.md §7).

    ``methods`` are the committee's detectors (default: every detector with masks);
    ``committee`` says how they vote; ``weights`` how videos weigh in the
    summary; ``entropy`` also keeps each video's per-pixel mean ``H(P)``;
    ``compare_with_truth`` correlates the pseudo values with the true ones when
    every video has ground truth.
    """

    committee: CommitteeOptions = field(default_factory=CommitteeOptions)
    weights: str = "auto"
    workers: int | None = None
    entropy: bool = True
    compare_with_truth: bool = True
    methods: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        _check_scheme(self.weights)
        if self.methods is not None and len(set(self.methods)) < 2:
            raise InvalidOptionError("the committee needs at least two different detectors")
        check_workers(self.workers)


@dataclass(frozen=True)
class RankingOptions:
    """Frames to annotate next (docs/measures.md §8).

    Attributes
    ----------
    criterion
        ``None``: ``vote-entropy`` when the project has masks, ``pairwise-fda``
        when it has only boxes or actions.
    pair
        The two detectors of the pair criteria (default: the first two).
    top
        List at most this many frames (default: every frame left by the gap rule).
    gap
        After a frame is chosen, the frames within ±gap of it are dropped.
    include_annotated
        Also rank frames that already have ground truth (default: they are left out).
    threshold
        Masks: the detection rule, as in :class:`PixelOptions`.
    mapping
        Boxes: the per-frame mapping of ``pairwise-fda``.
    workers
        Masks: workers scoring frame ranges (``None``: every available core).
    """

    criterion: str | None = None
    pair: tuple[str, str] | None = None
    top: int | None = None
    gap: int = DEFAULT_GAP
    include_annotated: bool = False
    threshold: int | None = None
    mapping: str = MAPPINGS[0]
    workers: int | None = None

    def __post_init__(self) -> None:
        check_workers(self.workers)
        if self.criterion is not None and self.criterion not in CRITERIA:
            raise InvalidOptionError(
                f"unknown ranking criterion {self.criterion!r} (choose from {', '.join(CRITERIA)})"
            )
        if self.pair is not None and (len(self.pair) != 2 or self.pair[0] == self.pair[1]):
            raise InvalidOptionError(f"give two different detectors to compare, not {self.pair}")
        if self.top is not None and self.top < 1:
            raise InvalidOptionError(f"top must be at least 1, not {self.top}")
        if self.gap < 0:
            raise InvalidOptionError(f"the gap must be 0 frames or more, not {self.gap}")
        check_threshold(self.threshold)


@dataclass(frozen=True)
class SignificanceOptions:
    """Do the detectors really differ (docs/measures.md §9)?

    Attributes
    ----------
    cases
        ``frames`` (per-frame F1), ``pseudo`` (per-frame pseudo-F1), ``boxes``
        (per-frame FDA), ``actions`` (per-action Dice) or ``tracking`` (a tracking
        measure per sequence, or per frame block with few sequences).
    methods
        The detectors compared (default: all that have such cases).
    test
        ``auto``: the paired t-test for two detectors, the repeated-measures
        ANOVA for more; else ``t``, ``wilcoxon``, ``welch``, ``anova``, ``friedman``.
    alpha, tau, thresholds
        Significance level, largest normalized ``t_0``, number of thresholds.
    higher_is_better
        Which way the scores point.
    tracking_measure
        With ``tracking`` cases: ``hota``, ``mota`` or ``idf1``.
    """

    cases: str = "frames"
    methods: tuple[str, ...] | None = None
    test: str = AUTO_TEST
    alpha: float = DEFAULT_ALPHA
    tau: float = DEFAULT_TAU
    thresholds: int = DEFAULT_THRESHOLDS
    higher_is_better: bool = True
    tracking_measure: str = next(iter(TRACKING_MEASURES))

    def __post_init__(self) -> None:
        check_tracking_measure(self.tracking_measure)
        if self.cases not in CASE_KINDS:
            raise InvalidOptionError(
                f"unknown test cases {self.cases!r} (choose from {', '.join(CASE_KINDS)})"
            )
        if self.test not in TESTS:
            raise InvalidOptionError(f"unknown test {self.test!r} (choose from {', '.join(TESTS)})")
        if not 0 < self.alpha < 1:
            raise InvalidOptionError(f"alpha must be between 0 and 1, not {self.alpha}")
        if not 0 <= self.tau <= 1:
            raise InvalidOptionError(f"tau must be between 0 and 1, not {self.tau}")
        if self.thresholds < 1:
            raise InvalidOptionError(f"give at least one threshold, not {self.thresholds}")
        if self.methods is not None and len(set(self.methods)) < 2:
            raise InvalidOptionError("compare at least two different detectors")


@dataclass(frozen=True)
class TrackingIntervalOptions:
    """Bootstrap intervals of trackers' combined HOTA, MOTA and IDF1 (docs/measures.md §5,
    "Tracking: intervals and tests"): how many resamples, and the seed of the draws."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = 0

    def __post_init__(self) -> None:
        if self.resamples < 1:
            raise InvalidOptionError(
                f"the number of resamples must be at least 1, not {self.resamples}"
            )
        if self.seed < 0:
            raise InvalidOptionError(f"the seed must be 0 or more, not {self.seed}")


@dataclass(frozen=True)
class EstimateOptions:
    """Estimates with intervals from a few labelled frames (docs/measures.md §12).

    Attributes
    ----------
    labels
        With ``simulate``: how many frames the sampler draws (required; 0: the
        consensus alone). Without: ``None`` uses the labelled frames, 0 none.
    labelled
        Without ``simulate``, which frames of a partly annotated video count as
        labelled: ``drawn``, the start of the sampler's sequence of draws of that
        video that has ground truth (the frames the window proposes), or
        ``annotated``, every frame with ground truth, taken as a uniform sample.
        Videos with ground truth on every frame are counted whole.
    sampler
        ``balanced`` (more draws where the detectors disagree and where each
        detector's own F1 is at stake), ``active`` (where they disagree) or
        ``random`` (uniform).
    estimator
        ``tuned`` (the consensus corrected by the labelled frames, as much as it
        helps each detector), ``surrogate`` (corrected, always) or ``plain``
        (the labelled frames alone).
    seed
        Seed of the draws.
    uniform_share
        The balanced and active samplers' uniform share ``u``, in (0, 1].
    simulate
        Play an annotator on fully annotated data: ground truth is read only for
        the drawn frames, and the true values over every frame are reported too.
    repeat
        With ``simulate``: how many samples to draw, with the seeds ``seed`` to
        ``seed + repeat − 1``, the consensus computed once (planning a budget).
    workers
        Workers computing the consensus and the true values (``None``: every available core).
    """

    labels: int | None = None
    labelled: str = LABELLED[0]
    sampler: str = SAMPLERS[0]
    estimator: str = ESTIMATORS[0]
    seed: int = 0
    uniform_share: float = DEFAULT_UNIFORM_SHARE
    simulate: bool = False
    repeat: int = 1
    workers: int | None = None

    def __post_init__(self) -> None:
        # The one place of these rules: the command line only builds the options, so each
        # message names the options as ``referee estimate`` spells them.
        if self.labels is not None and self.labels < 0:
            raise InvalidOptionError(f"--labels K must be 0 or more, not {self.labels}")
        if self.repeat < 1:
            raise InvalidOptionError(f"--repeat R must be at least 1, not {self.repeat}")
        if self.simulate and self.labels is None:
            raise InvalidOptionError("--simulate needs --labels K, the number of frames to draw")
        if self.repeat > 1 and not self.simulate:
            raise InvalidOptionError(
                "--repeat R draws R simulated samples: add --simulate and --labels K"
            )
        if not self.simulate and self.labels:
            raise InvalidOptionError(
                "without --simulate the labelled frames are those that already have ground "
                "truth; add --simulate to draw --labels K frames (--labels 0: the consensus "
                "alone)"
            )
        if self.sampler not in SAMPLERS:
            raise InvalidOptionError(
                f"unknown sampler {self.sampler!r} (choose from {', '.join(SAMPLERS)})"
            )
        if self.estimator not in ESTIMATORS:
            raise InvalidOptionError(
                f"unknown estimator {self.estimator!r} (choose from {', '.join(ESTIMATORS)})"
            )
        if self.labelled not in LABELLED:
            raise InvalidOptionError(
                f"unknown labelled frames {self.labelled!r} (choose from {', '.join(LABELLED)})"
            )
        check_uniform_share(self.uniform_share)
        check_workers(self.workers)


@dataclass(frozen=True)
class AgreementOptions:
    """Agreement between annotators (docs/measures.md §13).

    ``annotators`` are the annotators compared (default: every annotator of the
    project); ``consensus_folder``, when set, is where their STAPLE consensus is also
    written as ground truth (``<category>/<video>/groundtruth/gt%06d.png``); an existing
    file there is replaced only with ``force``.
    """

    annotators: tuple[str, ...] | None = None
    consensus_folder: Path | None = None
    force: bool = False

    def __post_init__(self) -> None:
        if self.annotators is not None and len(set(self.annotators)) < 2:
            raise InvalidOptionError("compare at least two different annotators")


@dataclass(frozen=True)
class ConvertOptions:
    """How ``referee convert`` reads a file and writes it in another format (docs/measures.md
    §10).

    ``to`` is the target format's name; ``kind`` the content to convert (tracks, actions,
    boxes, label maps; default: the first both formats hold, in that order). ``labels``
    maps region or class names to CDnet levels or LIRIS classes (and back, for the
    names written); ``image_size`` is ``(width, height)`` for formats with normalized
    or sized coordinates; ``images`` names the COCO instances file a COCO results file
    refers to, and ``frame_from`` how a COCO image gives its frame. A conversion that
    would drop what its input holds is refused unless ``lossy``; an existing output
    is replaced only with ``force``.
    """

    to: str
    kind: str | None = None
    labels: Mapping[str, int] | None = None
    image_size: tuple[int, int] | None = None
    images: str | None = None
    frame_from: str | None = None
    lossy: bool = False
    force: bool = False


@dataclass(frozen=True)
class AnalysisOptions:
    """Every stage's options together: what a report computes, what the desktop session
    uses."""

    pixels: PixelOptions = field(default_factory=PixelOptions)
    curves: CurveOptions = field(default_factory=CurveOptions)
    actions: ActionOptions = field(default_factory=ActionOptions)
    boxes: BoxOptions = field(default_factory=BoxOptions)
    counts: CountOptions = field(default_factory=CountOptions)
    pseudo: PseudoOptions = field(default_factory=PseudoOptions)
    ranking: RankingOptions = field(default_factory=RankingOptions)
    significance: SignificanceOptions = field(default_factory=SignificanceOptions)
    estimate: EstimateOptions = field(default_factory=EstimateOptions)
    agreement: AgreementOptions = field(default_factory=AgreementOptions)
