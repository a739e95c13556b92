"""What a report computes, with every default named (SPEC: defaults are named in reports)."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.core.errors import InvalidOptionError
from referee.core.measures.action_matching import LirisParameters
from referee.core.measures.summarize import WEIGHT_SCHEMES
from referee.core.pseudo.committee import CommitteeOptions
from referee.core.ranking.criteria import MASK_CRITERIA, VOTE_ENTROPY
from referee.core.ranking.order import DEFAULT_GAP
from referee.core.significance.cases import CASE_KINDS
from referee.core.significance.hypothesis_tests import PAIR_TESTS, SEVERAL_TESTS
from referee.core.significance.sweep import DEFAULT_ALPHA, DEFAULT_TAU

#: Test-case kinds a report's significance section can compare.
SIGNIFICANCE_CASES: tuple[str, ...] = tuple(CASE_KINDS)


@dataclass(frozen=True)
class ReportOptions:
    """Every parameter of a report's computations; the defaults are SPEC's.

    Attributes
    ----------
    title
        Report title (default: "Referee report — <project name>").
    weights
        Summarization weight scheme (SPEC §2, default ``auto``).
    rank_by
        Indicator key ranking the methods in the summarized-vs-CDnet comparison
        (default ``f1``).
    threshold
        Detection rule of the masks: ``None`` (default) positive iff 255, else
        positive iff ``>= threshold`` (SPEC §1).
    liris
        ε and grid of the LIRIS metric (SPEC §4).
    count_window
        Half-width ``w`` of the CCR_WCC window, in frames (SPEC §6; SPEC sets
        no default, the report uses 1 as in SPEC's worked example).
    committee
        Pseudo ground-truth committee options (SPEC §7).
    heatmap_frames
        Consensus heatmap thumbnails per video (evenly spaced evaluated frames).
    ranking_criterion, ranking_top, ranking_gap
        The annotate-next list (SPEC §8): criterion, length and suppression gap.
    significance_cases, significance_test, alpha, tau
        Significance (SPEC §9): which paired cases (``frames``: per-frame F1,
        ``pseudo``: per-frame pseudo-F1, ``actions``: per-action Dice), the test
        (``None``: paired t for two detectors, repeated-measures ANOVA for
        more), the significance level and the largest normalized ``t_0``.
    """

    title: str | None = None
    weights: str = "auto"
    rank_by: str = "f1"
    threshold: int | None = None
    liris: LirisParameters = field(default_factory=LirisParameters)
    count_window: int = 1
    committee: CommitteeOptions = field(default_factory=CommitteeOptions)
    heatmap_frames: int = 3
    ranking_criterion: str = VOTE_ENTROPY
    ranking_top: int = 20
    ranking_gap: int = DEFAULT_GAP
    significance_cases: str = "frames"
    significance_test: str | None = None
    alpha: float = DEFAULT_ALPHA
    tau: float = DEFAULT_TAU

    def __post_init__(self) -> None:
        if self.weights not in WEIGHT_SCHEMES or self.weights == "custom":
            raise InvalidOptionError(
                f"unknown weight scheme {self.weights!r} for a report "
                f"(choose from {', '.join(s for s in WEIGHT_SCHEMES if s != 'custom')})"
            )
        if self.count_window < 0:
            raise InvalidOptionError(
                f"the counting window must be >= 0 frames, not {self.count_window}"
            )
        if not 0 <= self.heatmap_frames <= 10:
            raise InvalidOptionError("heatmap thumbnails per video must be between 0 and 10")
        if self.ranking_criterion not in MASK_CRITERIA:
            raise InvalidOptionError(
                f"unknown ranking criterion {self.ranking_criterion!r} "
                f"(choose from {', '.join(MASK_CRITERIA)})"
            )
        if self.significance_cases not in SIGNIFICANCE_CASES:
            raise InvalidOptionError(
                f"unknown significance cases {self.significance_cases!r} "
                f"(choose from {', '.join(SIGNIFICANCE_CASES)})"
            )
        tests = PAIR_TESTS + SEVERAL_TESTS
        if self.significance_test is not None and self.significance_test not in tests:
            raise InvalidOptionError(
                f"unknown test {self.significance_test!r} (choose from {', '.join(tests)})"
            )
        if not 0 < self.alpha < 1:
            raise InvalidOptionError(f"alpha must be between 0 and 1, not {self.alpha}")
