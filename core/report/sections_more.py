"""Report sections beyond pixel masks: LIRIS actions, counting, pseudo ground truth,
frames to annotate next, significance (SPEC §4, §6–9)."""

from __future__ import annotations

from collections import defaultdict

from referee.core.exports.actions import INTEGRAL_SYMBOLS
from referee.core.measures.action_matching import THRESHOLD_KEYS
from referee.core.measures.indicators import get_indicator
from referee.core.pseudo.truth import TruthComparison
from referee.core.ranking.criteria import describe
from referee.core.report.compute import ProjectResults
from referee.core.report.document import Figure, Paragraph, Section, Table
from referee.core.report.options import ReportOptions
from referee.core.report.plots import (
    class_confusion_figure,
    counts_figure,
    heatmaps_figure,
    liris_curves_figure,
    pvalue_figure,
)

#: Pseudo indicators shown per detector (registry keys, then the map measures).
PSEUDO_INDICATORS: tuple[str, ...] = ("recall", "precision", "f1", "mcc")


def actions_section(results: ProjectResults) -> Section | None:
    """LIRIS results: operating point at ε, integrated measures, per video, curves, confusion."""
    if not results.actions:
        return None
    parameters = next(iter(results.actions.values())).parameters
    point_rows, integral_rows, video_rows = [], [], []
    for name, evaluation in results.actions.items():
        point = evaluation.overall.point
        point_rows.append(
            (
                name,
                point.n_gt,
                point.n_det,
                point.assigned,
                point.accepted,
                point.missed,
                point.false_alarms,
                point.recall,
                point.precision,
                point.f,
            )
        )
        integrals = evaluation.overall.integrals
        integral_rows.append(
            (name, *(integrals[k] for k in THRESHOLD_KEYS), evaluation.overall.final)
        )
        for video, scores in evaluation.per_video.items():
            p = scores.point
            video_rows.append(
                (name, video, p.n_gt, p.n_det, p.accepted, p.recall, p.precision, p.f, scores.final)
            )
    eps = f"{parameters.epsilon:g}"
    return Section(
        "actions",
        "Action localization (LIRIS)",
        (
            Paragraph(
                f"Detections are matched to ground-truth actions greedily on Dice overlap "
                f"within a class; a pair is accepted when its spatial and temporal recall "
                f"and precision all reach their thresholds (SPEC §4). Operating point: all "
                f"four thresholds at ε = {eps}. Integrated measures: the mean F as one "
                f"threshold varies over {', '.join(f'{t:g}' for t in parameters.grid)}, "
                f"the others at ε; the final score is their mean."
            ),
            Table(
                "actions-point",
                f"Operating point at ε = {eps}",
                (
                    "detector",
                    "GT actions",
                    "detections",
                    "assigned",
                    "accepted",
                    "missed",
                    "false alarms",
                    "recall",
                    "precision",
                    "F",
                ),
                tuple(point_rows),
            ),
            Table(
                "actions-integrals",
                "Integrated measures and final score",
                ("detector", *(INTEGRAL_SYMBOLS[k] for k in THRESHOLD_KEYS), "final score"),
                tuple(integral_rows),
            ),
            Table(
                "actions-per-video",
                "Per video",
                (
                    "detector",
                    "video",
                    "GT actions",
                    "detections",
                    "accepted",
                    "recall",
                    "precision",
                    "F",
                    "final score",
                ),
                tuple(video_rows),
            ),
            Figure(
                "liris-curves",
                "Performance against quality",
                liris_curves_figure(results.actions),
                caption="F of each detector as one threshold varies, the three others at ε.",
            ),
            Figure(
                "liris-confusion",
                "Class confusion",
                class_confusion_figure({m: e.confusion for m, e in results.actions.items()}),
                caption=f"Pairs matched ignoring the class and accepted at ε = {eps}: rows are "
                "ground-truth classes, columns detected classes; numbers are counts, "
                "colour the share of the row. Unmatched actions are not counted.",
            ),
        ),
    )


def counts_section(results: ProjectResults, options: ReportOptions) -> Section | None:
    """CCR_WCC with its terms and the MAEs, and the count series of each video (SPEC §6)."""
    if not results.counts:
        return None
    rows = []
    by_video: dict[str, list] = defaultdict(list)
    for row in results.counts:
        r = row.result
        changed, spurious, unpaired = r.denominator_terms
        rows.append(
            (
                row.video,
                row.detector,
                r.ccr_wcc,
                r.numerator,
                r.denominator,
                changed,
                spurious,
                unpaired,
                r.mae_counts,
                r.mae_changes,
            )
        )
        by_video[row.video].append(row)
    figures = [
        Figure(
            f"counts-{_key(video)}",
            f"Counts — {video}",
            counts_figure(
                video,
                rows_[0].groundtruth.first_frame,
                rows_[0].groundtruth.counts,
                {r.detector: r.estimate.counts for r in rows_},
            ),
            caption="Ground-truth counts (black) and each detector's estimate.",
        )
        for video, rows_ in by_video.items()
    ]
    return Section(
        "counts",
        "Counting (CCR_WCC)",
        (
            Paragraph(
                f"CCR_WCC = numerator / (GT changes + missed no-change instants + unpaired "
                f"estimated changes), with a matching window of ±{options.count_window} "
                f"frame{'s' if options.count_window != 1 else ''} (SPEC §6). MAE of counts "
                "and of count changes are given beside it."
            ),
            Table(
                "counts",
                "Counting per video",
                (
                    "video",
                    "detector",
                    "CCR_WCC",
                    "numerator",
                    "denominator",
                    "GT changes",
                    "missed no-change",
                    "unpaired estimates",
                    "MAE counts",
                    "MAE changes",
                ),
                tuple(rows),
            ),
            *figures,
        ),
    )


def _key(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def pseudo_section(results: ProjectResults) -> Section | None:
    """Pseudo ground truth: pseudo indicators, correlation with the truth, heatmaps (SPEC §7)."""
    pseudo = results.pseudo
    if pseudo is None:
        return None
    symbols = [get_indicator(k).symbol for k in PSEUDO_INDICATORS]
    truth = results.truth
    columns = ["detector", *(f"pseudo {s}" for s in symbols), "NCC", "PSNR (dB)"]
    if truth is not None:
        columns.append("true F1")
    rows = []
    for name in pseudo.methods:
        values = pseudo.summaries[name].values
        row = [name, *(values[k] for k in PSEUDO_INDICATORS), values["ncc"], values["psnr"]]
        if truth is not None:
            row.append(truth.true_summary[name]["f1"])
        rows.append(tuple(row))
    blocks: list = [
        Paragraph(
            f"Without ground truth, each detector is scored against the consensus P of "
            f"a committee (SPEC §7): {pseudo.options.describe(pseudo.methods)}. "
            f"Summaries blend the videos with '{pseudo.scheme}' weights."
        ),
        Table("pseudo-summary", "Pseudo indicators, summarized", tuple(columns), tuple(rows)),
    ]
    if truth is not None:
        blocks.append(_correlation_table(truth))
    elif "truth" in results.skipped:
        blocks.append(Paragraph(f"No correlation with the truth: {results.skipped['truth']}."))
    by_video: dict[str, list] = defaultdict(list)
    for heatmap in results.heatmaps:
        by_video[heatmap.video].append((heatmap.frame, heatmap.consensus))
    blocks += [
        Figure(
            f"heatmaps-{_key(video)}",
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


def annotate_section(results: ProjectResults, options: ReportOptions) -> Section | None:
    """The frames to annotate next (SPEC §8)."""
    if "annotate" in results.skipped:
        return None
    rows = tuple((r.rank, r.video, r.frame, r.score) for r in results.annotate_next)
    text = (
        f"Criterion: {options.ranking_criterion} — {describe(options.ranking_criterion)}. "
        f"After a frame is chosen, frames within ±{options.ranking_gap} of it in the same "
        f"video are skipped; frames that already have ground truth are never proposed."
    )
    blocks: list = [Paragraph(text)]
    if results.annotate_all_annotated:
        blocks.append(
            Paragraph(
                "Every frame the detectors cover already has ground truth, so "
                "there is nothing new to annotate; the list ranks annotated "
                "frames instead: where the detectors disagree most is where "
                "the ground truth is worth checking."
            )
        )
    blocks.append(
        Table(
            "annotate-next",
            f"Frames to annotate next (top {options.ranking_top})",
            ("rank", "video", "frame", "score"),
            rows,
        )
    )
    return Section("annotate", "Frames to annotate next", tuple(blocks))


def significance_section(results: ProjectResults) -> Section | None:
    """Significance: the verdict in words, the threshold sweep and its p-value plot (SPEC §9)."""
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
            Paragraph(f"Verdict: {result.verdict}."),
            Paragraph(f"{result.direction[0].upper()}{result.direction[1:]}."),
            Paragraph(
                f"Test: {result.test} on {cases.measure} of {len(cases)} paired cases "
                f"({', '.join(result.methods)}).{dropped} Cases whose difference d is below "
                f"the threshold t_k are removed and the test repeated (SPEC §9); t_0 is the "
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
