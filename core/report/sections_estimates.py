"""Report sections of estimates: pseudo ground truth, frames to annotate next and
significance (docs/measures.md §7–§9)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from referee.core.measures.indicators import get_indicator
from referee.core.pseudo.truth import TruthComparison
from referee.core.ranking.criteria import describe
from referee.core.report.compute import ReportResults
from referee.core.report.document import (
    Block,
    Cell,
    Figure,
    Paragraph,
    Section,
    Table,
    figure_key,
)
from referee.core.report.plots import heatmaps_figure, pvalue_figure
from referee.core.significance.wording import direction_text, sentence, test_name, verdict_text

#: Pseudo indicators shown per detector (registry keys, then the map measures).
PSEUDO_INDICATORS: tuple[str, ...] = ("recall", "precision", "f1", "mcc")


def pseudo_section(results: ReportResults) -> Section | None:
    """Pseudo ground truth: pseudo indicators, correlation with the truth, heatmaps
    (docs/measures.md §7)."""
    if results.pseudo is None:
        return None
    pseudo, truth = results.pseudo.result, results.pseudo.truth
    symbols = [get_indicator(k).symbol for k in PSEUDO_INDICATORS]
    columns = ["detector", *(f"pseudo {s}" for s in symbols), "NCC", "PSNR (dB)"]
    if truth is not None:
        columns.append("true F1")
    rows: list[tuple[Cell, ...]] = []
    for name in pseudo.methods:
        values = pseudo.summaries[name].values
        row: list[Cell] = [
            name,
            *(values[k] for k in PSEUDO_INDICATORS),
            values["ncc"],
            values["psnr"],
        ]
        if truth is not None:
            row.append(truth.true_summary[name]["f1"])
        rows.append(tuple(row))
    blocks: list[Block] = [
        Paragraph(
            f"Without ground truth, each detector is scored against the consensus P of "
            f"a committee (docs/measures.md §7): {pseudo.options.describe(pseudo.methods)}. "
            f"Summaries blend the videos with '{pseudo.scheme}' weights."
        ),
        Table("pseudo-summary", "Pseudo indicators, summarized", tuple(columns), tuple(rows)),
    ]
    if truth is not None:
        blocks.append(_correlation_table(truth))
    elif results.pseudo.truth_problem is not None:
        blocks.append(Paragraph(f"No correlation with the truth: {results.pseudo.truth_problem}."))
    by_video: dict[str, list[tuple[int, np.ndarray]]] = defaultdict(list)
    for heatmap in results.heatmaps:
        by_video[heatmap.video].append((heatmap.frame, heatmap.consensus))
    blocks += [
        Figure(
            f"heatmaps-{figure_key(video)}",
            f"Consensus — {video}",
            heatmaps_figure(video, maps),
            caption="The committee's consensus P on evenly spaced evaluated frames: "
            "1 where every member detects, 0 where none does.",
        )
        for video, maps in by_video.items()
    ]
    return Section("pseudo", "Quality without ground truth (pseudo ground truth)", tuple(blocks))


def _correlation_table(truth: TruthComparison) -> Table:
    keys = [*PSEUDO_INDICATORS]
    rows = tuple(
        (
            get_indicator(k).name,
            truth.summary[k].pearson,
            truth.summary[k].spearman,
            truth.summary[k].n_detectors,
        )
        for k in keys
    )
    return Table(
        "pseudo-correlation",
        "Pseudo against true values, across detectors",
        ("indicator", "Pearson r", "Spearman ρ", "detectors"),
        rows,
        notes=(
            "How far the pseudo ranking can be trusted: a correlation near 1 means "
            "the pseudo values order the detectors as the true values do; a "
            "negative one means they reverse the order.",
        ),
    )


def annotate_section(results: ReportResults) -> Section | None:
    """The frames to annotate next (docs/measures.md §8)."""
    ranking = results.ranking
    if ranking is None:
        return None
    options = ranking.options
    rows = tuple((r.rank, r.video, r.frame, r.score) for r in ranking.frames)
    left_out = (
        "frames that already have ground truth are ranked too"
        if options.include_annotated
        else "frames that already have ground truth are left out"
    )
    text = (
        f"Criterion: {ranking.criterion} — {describe(ranking.criterion)}. "
        f"After a frame is chosen, frames within ±{options.gap} of it in the same "
        f"video are skipped; {left_out} ({ranking.annotated} of the "
        f"{ranking.considered} frames considered have it)."
    )
    blocks: list[Block] = [Paragraph(text)]
    if ranking.all_annotated:
        blocks.append(
            Paragraph(
                "Every frame already has ground truth: there is nothing left to annotate. "
                "Include annotated frames in the ranking options to list where the "
                "detectors disagree most, which is where the ground truth is worth checking."
            )
        )
    else:
        length = "every frame left by the gap" if options.top is None else f"top {options.top}"
        blocks.append(
            Table(
                "annotate-next",
                f"Frames to annotate next ({length})",
                ("rank", "video", "frame", "score"),
                rows,
            )
        )
    return Section("annotate", "Frames to annotate next", tuple(blocks))


def significance_section(results: ReportResults) -> Section | None:
    """Significance: the verdict in words, the threshold sweep and its p-value plot
    (docs/measures.md §9)."""
    result = results.significance
    if result is None:
        return None
    cases = result.cases
    dropped = (
        f" {cases.dropped} cases were left out ({cases.dropped_reason})." if cases.dropped else ""
    )
    rows = tuple(
        (
            k,
            row.threshold,
            row.normalized,
            row.fraction_of_max,
            row.cases_left,
            row.fraction_removed,
            row.statistic,
            row.p,
        )
        for k, row in enumerate(result.rows)
    )
    return Section(
        "significance",
        "Do the detectors really differ?",
        (
            Paragraph(f"Verdict: {verdict_text(result)}."),
            Paragraph(sentence(direction_text(result))),
            Paragraph(
                f"Test: {test_name(result)} on {cases.measure} of {len(cases)} paired cases "
                f"({', '.join(result.methods)}).{dropped} Cases whose difference d is below "
                f"the threshold t_k are removed and the test repeated (docs/measures.md §9); "
                "t_0 is the "
                f"smallest threshold from which p stays below α = {result.alpha:g}, and it "
                f"must not exceed τ = {result.tau:g} of the thresholds' sum."
            ),
            Table(
                "significance-sweep",
                "Threshold sweep",
                (
                    "k",
                    "t_k",
                    "normalized",
                    "fraction of max d",
                    "cases left",
                    "fraction removed",
                    "statistic",
                    "p",
                ),
                rows,
            ),
            Figure(
                "p-values",
                "p-value against the threshold",
                pvalue_figure(result),
                caption="Each point repeats the test without the cases whose difference is "
                "below the threshold.",
            ),
        ),
    )
