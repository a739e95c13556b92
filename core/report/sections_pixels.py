"""Report sections for pixel masks: per-video tables, summaries side by side, ROC and PR
(docs/measures.md §1–§3)."""

from __future__ import annotations

import numpy as np

from referee.core.exports.text_table import AREA_SYMBOLS, AREAS_NOTE, TABLE_INDICATORS
from referee.core.measures.curves import Curves, best_f1_threshold
from referee.core.measures.indicators import IndicatorValue, evaluate_all, get_indicator
from referee.core.measures.summarize import CDNET_STATISTICS
from referee.core.model.confusion import ConfusionMatrix
from referee.core.report.compute import ReportResults
from referee.core.report.document import Block, Cell, Figure, Paragraph, Section, Table
from referee.core.report.plots import roc_pr_figure

#: CDnet's statistics in the order of its ``stats.txt``, with the report's column titles.
CDNET_COLUMNS: tuple[tuple[str, str], ...] = tuple(
    zip(CDNET_STATISTICS, ("Re", "Sp", "FPR", "FNR", "PWC", "Pr", "F-measure"))
)


def _symbols(keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(get_indicator(k).symbol for k in keys)


def per_video_section(results: ReportResults) -> Section | None:
    """Confusion counts and indicators of every detector on every video (docs/measures.md §1)."""
    if results.pixels is None:
        return None
    counts: list[tuple[Cell, ...]] = []
    values: list[tuple[Cell, ...]] = []
    for name, evaluations in results.pixels.evaluations.items():
        for e in evaluations:
            cm, label = e.total, e.confusion.label
            counts.append(
                (
                    name,
                    label,
                    int(e.frames.size),
                    int(cm.tp),
                    int(cm.fp),
                    int(cm.fn),
                    int(cm.tn),
                    int(e.shadow_errors),
                )
            )
            indicator_values = evaluate_all(cm, TABLE_INDICATORS)
            values.append((name, label, *(indicator_values[k] for k in TABLE_INDICATORS)))
    return Section(
        "per-video",
        "Per-video results",
        (
            Paragraph(
                "Pixels are counted inside the ROI on the frames of each video's temporal "
                "ROI that have ground truth (docs/measures.md §1). SE counts detections on hard shadow "
                "(grey level 50); they are also false positives."
            ),
            Table(
                "per-video-counts",
                "Confusion counts per video (pixels)",
                ("detector", "video", "frames", "TP", "FP", "FN", "TN", "SE"),
                tuple(counts),
            ),
            Table(
                "per-video-indicators",
                "Indicators per video",
                ("detector", "video", *_symbols(TABLE_INDICATORS)),
                tuple(values),
            ),
        ),
    )


def summary_section(results: ReportResults) -> Section | None:
    """Blended summaries and the CDnet procedure side by side, with rank changes
    (docs/measures.md §2)."""
    if results.pixels is None:
        return None
    methods, scheme = results.pixels.methods, results.pixels.scheme
    blended: tuple[tuple[Cell, ...], ...] = tuple(
        (name, *(r.summary.values[k] for k in TABLE_INDICATORS)) for name, r in methods.items()
    )
    cdnet: tuple[tuple[Cell, ...], ...] = tuple(
        (name, *(r.cdnet.overall_value(k) for k, _ in CDNET_COLUMNS)) for name, r in methods.items()
    )
    blocks: list[Block] = [
        Paragraph(
            f"Summarized: the videos' normalized confusion matrices blended with "
            f"'{scheme}' weights, then every indicator computed on the blend (docs/measures.md §2). "
            "CDnet procedure: each statistic per video, averaged per category, then over "
            "categories, as CDnet's official scripts do."
        ),
        Table(
            "summary-blended",
            f"Summarized indicators ({scheme} weights)",
            ("detector", *_symbols(TABLE_INDICATORS)),
            blended,
        ),
        Table(
            "summary-cdnet",
            "CDnet procedure (mean of category means)",
            ("detector", *(label for _, label in CDNET_COLUMNS)),
            cdnet,
        ),
    ]
    comparison = results.pixels.ranking
    if comparison.summary_ranking:
        summary_key = "f1" if comparison.indicator == "fmeasure" else comparison.indicator
        rows = tuple(
            (
                m,
                methods[m].summary.values[summary_key],
                comparison.summary_rank[m],
                methods[m].cdnet.overall_value(comparison.indicator),
                comparison.cdnet_rank[m],
                _rank_change(comparison.summary_rank[m], comparison.cdnet_rank[m]),
            )
            for m in comparison.summary_ranking
        )
        blocks.append(
            Table(
                "rank-changes",
                f"Ranking by {comparison.indicator}: summarized against CDnet",
                (
                    "detector",
                    "summarized value",
                    "summarized rank",
                    "CDnet value",
                    "CDnet rank",
                    "rank change",
                ),
                rows,
                notes=(
                    f"Kendall τ between the two rankings: "
                    f"{_tau_text(comparison.kendall_tau)}. A positive change means the "
                    "detector ranks higher (better) when summarized than by the CDnet "
                    "procedure.",
                ),
            )
        )
    return Section("summary", "Summarized over videos", tuple(blocks))


def _rank_change(summarized: int, cdnet: int) -> str:
    change = cdnet - summarized
    return "unchanged" if change == 0 else f"{change:+d}"


def _tau_text(tau: IndicatorValue) -> str:
    return f"{tau.value:.4f}" if tau.defined else (tau.reason or "undefined")


def roc_pr_section(results: ReportResults) -> Section | None:
    """ROC and PR spaces: each video, each summary, and score curves where there are scores."""
    if results.pixels is None and results.curves is None:
        return None
    points: dict[str, dict[str, np.ndarray]] = {}
    summaries: dict[str, tuple[float, float, float]] = {}
    pixels = results.pixels
    if pixels is not None:
        for name, r in pixels.methods.items():
            values = [
                evaluate_all(e.total, ("fpr", "recall", "precision"))
                for e in pixels.evaluations[name]
            ]
            points[name] = {
                key: np.array([v[source].value for v in values])
                for key, source in (("fpr", "fpr"), ("tpr", "recall"), ("precision", "precision"))
            }
            s = r.summary.values
            summaries[name] = (s["fpr"].value, s["recall"].value, s["precision"].value)
    curves = (
        {name: c for name, (_, c) in results.curves.summaries.items()} if results.curves else {}
    )
    scheme = (
        pixels.scheme
        if pixels is not None
        else next((sch for sch, _ in results.curves.summaries.values()), "auto")
        if results.curves
        else "auto"
    )
    blocks: list[Block] = [
        Figure(
            "roc-pr",
            "ROC and PR spaces",
            roc_pr_figure(points, summaries, curves, scheme, order=results.detectors),
            caption="Dots: one video each; stars: the summarized point of each detector; lines: "
            "summarized curves of the detectors with soft scores, over thresholds 0–255 "
            "(docs/measures.md §3). Dotted lines in PR space are iso-F lines.",
        )
    ]
    if results.curves is not None:
        blocks.append(
            Table(
                "curve-areas",
                "Areas under the score curves",
                ("detector", "weights", *AREA_SYMBOLS),
                tuple(
                    (name, scheme, *results.curves.areas[name])
                    for name, (scheme, _) in results.curves.summaries.items()
                ),
                notes=(
                    f"{AREAS_NOTE}; of each detector's summarized curve, over thresholds "
                    "0–255 and the end where nothing is detected (docs/measures.md §3).",
                ),
            )
        )
    if curves:
        blocks.append(
            Table(
                "best-thresholds",
                "Best threshold of each score curve",
                ("detector", "threshold", "recall", "precision", "F1"),
                tuple(_best_row(name, c) for name, c in curves.items()),
                notes=(
                    "The threshold where the summarized F1 is highest; a pixel "
                    "is detected iff its score ≥ the threshold.",
                ),
            )
        )
    return Section("roc-pr", "ROC and PR", tuple(blocks))


def _best_row(name: str, curves: Curves) -> tuple[Cell, ...]:
    t = best_f1_threshold(curves)
    values = evaluate_all(ConfusionMatrix(*curves.confusions[t, :4]), ("recall", "precision", "f1"))
    return (name, t, values["recall"], values["precision"], values["f1"])
