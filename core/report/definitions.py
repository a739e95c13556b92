"""The definitions section: every indicator used, from the registry, and the other measures."""

from __future__ import annotations

from collections.abc import Iterable

from referee.core.measures.indicators import Indicator, get_indicator
from referee.core.report.document import Definitions, Paragraph, Section

#: Measures that are not registry indicators, with what they mean (docs/measures.md §2, §4, §6, §7, §9).
OTHER_MEASURES: tuple[tuple[str, str], ...] = (
    (
        "Summarized (blended) indicator",
        "Each video's confusion matrix is normalized to sum to 1, the matrices are averaged "
        "with the weights of the scheme (video, category, pixels or auto), and the indicator "
        "is computed once on the blend (docs/measures.md §2).",
    ),
    (
        "CDnet procedure",
        "Each statistic is computed per video, averaged per category, then averaged over the "
        "categories; F-measure is 2·Pr·Re/(Pr + Re) of each video's Pr and Re (docs/measures.md §2).",
    ),
    (
        "Kendall τ",
        "Rank correlation between the summarized and the CDnet rankings: 1 when "
        "they agree, −1 when one reverses the other.",
    ),
    (
        "LIRIS R, P, F",
        "Recall = accepted / ground-truth actions, precision = accepted / "
        "detections, F = 2·accepted / (ground-truth actions + detections) "
        "(docs/measures.md §4). With the best-partner matching, recall = found / "
        "ground-truth actions, precision = correct / detections and F = 2PR / (P + R).",
    ),
    (
        "I_sr, I_sp, I_tr, I_tp and final score",
        "Mean F over the grid of one varied threshold (spatial recall, spatial precision, "
        "temporal recall, temporal precision), the others at ε; the final score is the mean of "
        "the four (docs/measures.md §4).",
    ),
    (
        "CCR_WCC",
        "Windowed count-change correct classification rate: ground-truth count "
        "changes matched exactly within the window, over ground-truth changes plus "
        "missed no-change instants plus unpaired estimated changes (docs/measures.md §6).",
    ),
    (
        "Consensus P",
        "Per pixel, the weighted share of committee members that detect it "
        "(with the trivial all-ones and all-zeros members by default); pseudo "
        "counts are expected counts against P (docs/measures.md §7).",
    ),
    (
        "NCC",
        "Normalized cross-correlation between a detector's mask and the consensus P over "
        "the evaluated pixels (docs/measures.md §7).",
    ),
    (
        "PSNR",
        "Peak signal-to-noise ratio of the mask against P, 10·log10(1 / mean squared "
        "difference), in dB (docs/measures.md §7).",
    ),
    (
        "Pearson r, Spearman ρ",
        "Correlation across detectors between a pseudo indicator and "
        "the true one (linear, and of the ranks).",
    ),
    (
        "p-value, t_0",
        "The probability of differences at least as large if the detectors did "
        "not differ; t_0 is the smallest threshold from which p stays below α, "
        "after removing the cases whose difference is below it (docs/measures.md §9).",
    ),
)


def indicator_definition(indicator: Indicator) -> tuple[str, str]:
    """``(term, meaning)`` of a registry indicator: formula, range and which way is better."""
    low, high = indicator.range
    better = "higher is better" if indicator.higher_is_better else "lower is better"
    return (
        f"{indicator.name} ({indicator.symbol})",
        f"{indicator.symbol} = {indicator.formula}; range {low:g} to {high:g}; {better}. "
        f"Undefined (not 0) when its denominator is 0; the reason is shown in its place.",
    )


def definitions_section(indicator_keys: Iterable[str]) -> Section:
    """Definitions of the indicators ``indicator_keys`` (registry order kept) and other measures."""
    indicators = tuple(indicator_definition(get_indicator(k)) for k in indicator_keys)
    return Section(
        "definitions",
        "Definitions",
        (
            Paragraph(
                "tp, fp, fn, tn count true positives, false positives, false negatives and "
                "true negatives; n = tp + fp + fn + tn."
            ),
            Definitions(indicators),
            Definitions(OTHER_MEASURES),
        ),
    )
