"""Report sections of detections: LIRIS actions, per-frame boxes and counting
(docs/measures.md §4–§6)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from referee.core.exports.actions import (
    INTEGRAL_SYMBOLS,
    MATCHING_WORDING,
    count_cells,
    count_columns,
)
from referee.core.exports.boxes import annotated_wording, totals_cells
from referee.core.exports.tracking import COLUMNS, tracking_values
from referee.core.exports.tracking_intervals import (
    interval_heading,
    interval_text,
    intervals_note,
)
from referee.core.measures.box_rules import benchmark_wording, groundtruth_rules_wording
from referee.core.measures.liris_parameters import ONE_TO_ONE, THRESHOLD_KEYS
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
from referee.core.significance.choices import TRACKING_MEASURES
from referee.core.significance.tracker_bootstrap import TrackingIntervals
from referee.core.workflow.results import CountRow


def actions_section(results: ReportResults) -> Section | None:
    """LIRIS results: operating point at ε, integrated measures, per video, curves, confusion."""
    if results.actions is None:
        return None
    evaluations = results.actions.evaluations
    parameters = results.actions.options.liris
    reading = parameters.matching
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
                *count_cells(point, reading, assigned=True),
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
                (
                    name,
                    video,
                    p.n_gt,
                    p.n_det,
                    *count_cells(p, reading),
                    p.recall,
                    p.precision,
                    p.f,
                    scores.final,
                )
            )
    eps = f"{parameters.epsilon:g}"
    matching = (
        "Detections are matched to ground-truth actions greedily on Dice overlap within a class"
        if reading == ONE_TO_ONE
        else f"Matching {reading}, not the default one-to-one: {MATCHING_WORDING[reading]}. "
        "Recall counts the ground-truth actions whose pair is accepted (found), precision "
        "the detections whose pair is accepted (correct)"
    )
    return Section(
        "actions",
        "Action localization (LIRIS)",
        (
            Paragraph(
                f"{matching}; a pair is accepted when its spatial and temporal recall "
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
                    *count_columns(reading, assigned=True),
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
                    *count_columns(reading),
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
            *_tracking_blocks(results.boxes.tracking, results.tracking_intervals),
        ),
    )


def _tracking_blocks(
    tracking: Mapping[str, TrackingEvaluation], intervals: TrackingIntervals | None
) -> tuple[Block, ...]:
    """The tracking measures of MOTChallenge tracks: a row per detector and sequence, then
    the sequences combined with the intervals of HOTA, MOTA and IDF1 when computed
    (docs/measures.md §5); nothing without tracks."""
    if not tracking:
        return ()
    bounded = tuple(TRACKING_MEASURES) if intervals is not None else ()
    header = ["detector", "sequence"]
    for title, key in COLUMNS:
        header += [title, *([interval_heading(key)] if key in bounded else [])]
    rows: list[tuple[Cell, ...]] = []
    for name, evaluation in tracking.items():
        found = intervals.trackers.get(name) if intervals is not None else None
        for sequence, scores in [
            *evaluation.sequences.items(),
            ("all sequences", evaluation.combined),
        ]:
            values = tracking_values(scores)
            whole = found if scores is evaluation.combined else None
            cells: list[Cell] = [name, sequence]
            for _, key in COLUMNS:
                cells.append(values[key])
                if key in bounded:
                    cells.append(None if whole is None else interval_text(whole.intervals[key]))
            rows.append(tuple(cells))
    note = () if intervals is None else (Paragraph(intervals_note(intervals)),)
    return (
        Paragraph(
            "Tracking measures (docs/measures.md §5): HOTA with its detection, association and "
            "localisation accuracies, averaged over the localisation thresholds α = 0.05 … "
            "0.95; CLEAR MOT, IDF1 and VACE's ATA at IoU ≥ 0.5. 'All sequences' combines "
            "them as TrackEval combines each measure (counts summed, accuracies weighted by "
            "true positives)."
        ),
        *note,
        Table("tracking", "Tracking measures", tuple(header), tuple(rows)),
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
