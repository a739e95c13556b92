"""Report sections of detections: LIRIS actions, per-frame boxes and counting
(docs/measures.md §4–§6)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from referee.core.exports.actions import INTEGRAL_SYMBOLS
from referee.core.exports.boxes import annotated_wording, totals_cells
from referee.core.exports.tracking import COLUMNS, tracking_values
from referee.core.measures.box_rules import benchmark_wording, groundtruth_rules_wording
from referee.core.measures.liris_parameters import THRESHOLD_KEYS
from referee.core.measures.tracking import TrackingEvaluation
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
from referee.core.report.plots import class_confusion_figure, counts_figure, liris_curves_figure
from referee.core.workflow.results import CountRow


def actions_section(results: ReportResults) -> Section | None:
    """LIRIS results: operating point at ε, integrated measures, per video, curves, confusion."""
    if results.actions is None:
        return None
    evaluations = results.actions.evaluations
    parameters = results.actions.options.liris
    point_rows: list[tuple[Cell, ...]] = []
    integral_rows: list[tuple[Cell, ...]] = []
    video_rows: list[tuple[Cell, ...]] = []
    for name, evaluation in evaluations.items():
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
                f"and precision all reach their thresholds (docs/measures.md §4). Operating point: all "
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
                liris_curves_figure(evaluations, order=results.detectors),
                caption="F of each detector as one threshold varies, the three others at ε.",
            ),
            Figure(
                "liris-confusion",
                "Class confusion",
                class_confusion_figure({m: e.confusion for m, e in evaluations.items()}),
                caption=f"Pairs matched ignoring the class and accepted at ε = {eps}: rows are "
                "ground-truth classes, columns detected classes; numbers are counts, "
                "colour the share of the row. Unmatched actions are not counted.",
            ),
        ),
    )


def boxes_section(results: ReportResults) -> Section | None:
    """Per-frame boxes: SFDA, MODA and N-MODP of every detector, per video and pooled
    (docs/measures.md §5)."""
    if results.boxes is None:
        return None
    options = results.boxes.applied or results.boxes.options
    rows = []
    for name, evaluation in results.boxes.evaluations.items():
        totals = [(video.name, video.totals) for video in evaluation.videos]
        for video, t in [*totals, ("all videos", evaluation.overall)]:
            rows.append((name, video, *totals_cells(t)))
    classes = "boxes of different classes never match" if options.class_aware else "classes ignored"
    rules = groundtruth_rules_wording(
        options.groundtruth_min_conf, options.mot_classes, options.groundtruth_zero_marked
    )
    if results.boxes.rules is not None:
        benchmark = benchmark_wording(results.boxes.rules, results.boxes.rules_source)
        rules = f"{benchmark}. {rules}" if rules else benchmark
    restricted = [
        f"{name}{'' if frames.video == name else f' (video {frames.video})'} is "
        + annotated_wording(frames)
        for name, frames in results.boxes.annotated_only.items()
    ]
    annotated = (
        (
            Paragraph(
                "Partly annotated videos are evaluated on the frames the project records as "
                "annotated only, for every detector (docs/measures.md §5): "
                + "; ".join(restricted)
                + ". Every other video is evaluated on all its frames."
            ),
        )
        if restricted
        else ()
    )
    return Section(
        "boxes",
        "Per-frame boxes (VACE)",
        (
            Paragraph(
                f"On every frame, ground-truth and detected boxes are paired one to one "
                f"({options.mapping} mapping on IoU, {classes}); a pair is a true positive "
                f"when its IoU is at least {options.iou:g}, under the IoU rule "
                f"{options.iou_rule} (docs/measures.md §5). Frames count "
                "when either side has a box; 'all videos' pools their frames."
                + (f" {rules}." if rules else "")
            ),
            *annotated,
            Table(
                "boxes",
                "Per-frame box measures",
                (
                    "detector",
                    "video",
                    "frames",
                    "GT",
                    "detections",
                    "TP",
                    "FP",
                    "misses",
                    "SFDA",
                    "MODA",
                    "N-MODP",
                ),
                tuple(rows),
            ),
            *_tracking_blocks(results.boxes.tracking),
        ),
    )


def _tracking_blocks(tracking: Mapping[str, TrackingEvaluation]) -> tuple[Block, ...]:
    """The tracking measures of MOTChallenge tracks: a row per detector and sequence, then
    the sequences combined (docs/measures.md §5); nothing without tracks."""
    if not tracking:
        return ()
    rows: list[tuple[Cell, ...]] = [
        (name, sequence, *(tracking_values(scores)[key] for _, key in COLUMNS))
        for name, evaluation in tracking.items()
        for sequence, scores in [
            *evaluation.sequences.items(),
            ("all sequences", evaluation.combined),
        ]
    ]
    return (
        Paragraph(
            "Tracking measures (docs/measures.md §5): HOTA with its detection, association and "
            "localisation accuracies, averaged over the localisation thresholds α = 0.05 … "
            "0.95; CLEAR MOT and IDF1 at IoU ≥ 0.5. 'All sequences' combines them as "
            "TrackEval combines each measure (counts summed, accuracies weighted by true "
            "positives)."
        ),
        Table(
            "tracking",
            "Tracking measures",
            ("detector", "sequence", *(title for title, _ in COLUMNS)),
            tuple(rows),
        ),
    )


def counts_section(results: ReportResults) -> Section | None:
    """CCR_WCC with its terms and the MAEs, and the count series of each video
    (docs/measures.md §6)."""
    if results.counts is None:
        return None
    window = results.counts.options.window
    rows = []
    by_video: dict[str, list[CountRow]] = defaultdict(list)
    for row in results.counts.rows:
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
            f"counts-{figure_key(video)}",
            f"Counts — {video}",
            counts_figure(
                video,
                rows_[0].groundtruth.first_frame,
                rows_[0].groundtruth.counts,
                {r.detector: r.estimate.counts for r in rows_},
                order=results.detectors,
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
                f"estimated changes), with a matching window of ±{window} "
                f"frame{'s' if window != 1 else ''} (docs/measures.md §6). MAE of counts "
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
