"""Plain-text tables of results for the terminal (what ``referee evaluate`` prints)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from referee.core.measures.curve_areas import curve_areas
from referee.core.measures.curves import Curves, best_f1_threshold
from referee.core.measures.indicators import INDICATORS, IndicatorValue, evaluate
from referee.core.measures.summarize import CDNET_STATISTICS, MethodResult, RankComparison
from referee.core.model.confusion import ConfusionMatrix

#: Indicators shown in the terminal summary, in order (docs/measures.md §2 keys).
TABLE_INDICATORS: tuple[str, ...] = (
    "recall",
    "specificity",
    "fpr",
    "fnr",
    "pwc",
    "precision",
    "f1",
    "mcc",
)
#: CDnet's seven statistics, in the order of its ``stats.txt``.
CDNET_COLUMNS: tuple[tuple[str, str], ...] = tuple(
    zip(CDNET_STATISTICS, ("Recall", "Specificity", "FPR", "FNR", "PWC", "Precision", "F"))
)


#: What the areas under a curve (docs/measures.md §3) are called by the terminal, the report
#: and the window.
AREA_SYMBOLS: tuple[str, str] = ("AUC", "AP")
AREAS_NOTE = "AUC: area under the ROC curve; AP: average precision (recall steps, no interpolation)"


def area_text(value: IndicatorValue) -> str:
    """An area to 4 decimals, or ``undefined`` with its reason."""
    return f"{value.value:.4f}" if value.defined else value.reason or "undefined"


def _number(value: IndicatorValue | float) -> str:
    v = value.value if isinstance(value, IndicatorValue) else value
    return "undef." if math.isnan(v) else f"{v:.4f}"


def grid(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A plain-text table: first column left-aligned, the others right-aligned."""
    table = [[str(c) for c in header], *([str(c) for c in row] for row in rows)]
    widths = [max(len(line[c]) for line in table) for c in range(len(header))]
    return "\n".join(
        "  ".join(
            cell.rjust(w) if c else cell.ljust(w) for c, (cell, w) in enumerate(zip(line, widths))
        ).rstrip()
        for line in table
    )


def format_summary_table(results: Sequence[MethodResult]) -> str:
    """Blended summary per method: one row per method, TABLE_INDICATORS as columns."""
    scheme = results[0].summary.scheme if results else "?"
    header = ["method", *(INDICATORS[k].symbol for k in TABLE_INDICATORS)]
    rows = [[r.method, *(_number(r.summary.values[k]) for k in TABLE_INDICATORS)] for r in results]
    return (
        f"Summary over videos: blend of normalized confusion matrices, "
        f"weights '{scheme}' (docs/measures.md §2)\n" + grid(header, rows)
    )


def format_cdnet_table(results: Sequence[MethodResult]) -> str:
    """CDnet procedure per method: mean per category, then mean of categories."""
    header = ["method", *(title for _, title in CDNET_COLUMNS)]
    rows = [
        [r.method, *(_number(r.cdnet.statistics_overall[k]) for k, _ in CDNET_COLUMNS)]
        for r in results
    ]
    return "CDnet procedure: per-video values, mean per category, mean of categories\n" + grid(
        header, rows
    )


def format_ranking_table(ranking: RankComparison) -> str:
    """Each method's rank under both procedures and Kendall τ between the rankings."""
    header = ["method", "summary", "rank", "CDnet", "rank"]
    rows = [
        [
            m,
            _number(ranking.summary_values[m]),
            str(ranking.summary_rank[m]),
            _number(ranking.cdnet_values[m]),
            str(ranking.cdnet_rank[m]),
        ]
        for m in ranking.summary_ranking
    ]
    tau = ranking.kendall_tau
    tau_text = f"{tau.value:.3f}" if tau.defined else str(tau.reason)
    return (
        f"Ranking by {ranking.indicator}: summary vs CDnet procedure "
        f"(Kendall tau = {tau_text})\n" + grid(header, rows)
    )


def format_video_table(result: MethodResult) -> str:
    """Per-video counts and CDnet statistics of one method."""
    header = [
        "category",
        "video",
        "TP",
        "FP",
        "FN",
        "TN",
        "SE",
        *(title for _, title in CDNET_COLUMNS),
    ]
    rows = []
    for v in result.videos:
        stats = result.cdnet.statistics_per_video[v.key]
        se = "" if v.shadow_errors is None else str(v.shadow_errors)
        rows.append(
            [
                v.category,
                v.video,
                *(f"{int(c)}" for c in (v.cm.tp, v.cm.fp, v.cm.fn, v.cm.tn)),
                se,
                *(_number(stats[k]) for k, _ in CDNET_COLUMNS),
            ]
        )
    return f"{result.method}: per video\n" + grid(header, rows)


def format_best_threshold_table(rows: Sequence[tuple[str, str, Curves]]) -> str:
    """Per method, on its summarized curve: the threshold of highest F1, ROC AUC and AP.

    The best threshold comes with F1, TPR, FPR and PPV there; a line under the
    table gives the reason of each undefined area.
    """
    header = ["method", "weights", "best T", "F1", "TPR", "FPR", "PPV", *AREA_SYMBOLS]
    lines, notes = [], []
    for method, scheme, curves in rows:
        f1 = [evaluate("f1", ConfusionMatrix(*row)).value for row in curves.confusions]
        best = best_f1_threshold(curves)
        areas = dict(zip(AREA_SYMBOLS, curve_areas(curves)))
        lines.append(
            [
                method,
                scheme,
                str(int(curves.thresholds[best])),
                _number(f1[best]),
                _number(curves.tpr[best]),
                _number(curves.fpr[best]),
                _number(curves.precision[best]),
                *(_number(v) for v in areas.values()),
            ]
        )
        notes += [f"{method}: {name} {v.reason}" for name, v in areas.items() if not v.defined]
    return "\n".join(
        [
            "Soft outputs: summarized curves, threshold of highest F1 "
            "(detected iff score >= T; docs/measures.md §3)",
            grid(header, lines),
            AREAS_NOTE,
            *notes,
        ]
    )
