"""The report's figures, drawn with matplotlib's Agg canvas and returned as PNG bytes.

Each function takes result objects from ``referee.core`` and draws them; none
computes a measure. A detector takes the colour of its position in ``order``,
the project's detector list (:func:`~referee.core.colours.detector_colours`),
as in the desktop application; every plot has axis labels and a legend, and
heatmaps carry a colour bar.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from referee.core.colours import OKABE_ITO, RGB, detector_colours
from referee.core.measures.action_matching import CRITERIA
from referee.core.measures.action_scores import ActionEvaluation, ClassConfusion
from referee.core.measures.curves import ISO_F_LEVELS, Curves, iso_f1_curve
from referee.core.measures.liris_parameters import THRESHOLD_KEYS
from referee.core.model.annotations import ACTION_CLASSES
from referee.core.significance.sweep import DiscriminativeResult

#: Resolution of every figure, in dots per inch (figure sizes are in inches).
DPI = 110
FAINT = "#999999"
#: Colour of the p-value curve: no detector's.
P_VALUE = "#333333"


def _fraction(rgb: RGB) -> tuple[float, float, float]:
    red, green, blue = rgb
    return red / 255, green / 255, blue / 255


def _colours(names: Sequence[str], order: Sequence[str]) -> dict[str, tuple[float, float, float]]:
    """Each detector's colour as matplotlib takes it, by its position in ``order``."""
    return {name: _fraction(rgb) for name, rgb in detector_colours(names, order).items()}


def _png(figure: Figure) -> bytes:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI)
    return buffer.getvalue()


def _finite(
    x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(xs) & np.isfinite(ys)
    return xs[keep], ys[keep]


def roc_pr_figure(
    points: Mapping[str, Mapping[str, np.ndarray]],
    summary_points: Mapping[str, tuple[float, float, float]],
    curves: Mapping[str, Curves],
    scheme: str,
    order: Sequence[str] = (),
) -> bytes:
    """ROC and PR spaces side by side (docs/measures.md §2, §3).

    Parameters
    ----------
    points
        Per detector, arrays ``fpr``, ``tpr``, ``precision`` of its videos.
    summary_points
        Per detector, ``(fpr, tpr, precision)`` of its blended summary.
    curves
        Per detector with soft scores, its summarized curve over 256 thresholds.
    scheme
        The weight scheme of the summaries (for the legend).
    order
        The project's detector list, which gives each detector its colour.
    """
    figure = Figure(figsize=(10, 4.6), layout="constrained")
    roc, pr = figure.subplots(1, 2)
    roc.plot([0, 1], [0, 1], ls="--", lw=0.8, color=FAINT, label="chance (TPR = FPR)")
    for f in ISO_F_LEVELS:
        recall, precision = iso_f1_curve(f)
        pr.plot(recall, precision, ls=":", lw=0.7, color=FAINT)
        pr.annotate(f"F={f:.1f}", (f, f), fontsize=7, color=FAINT)
    names = list(dict.fromkeys([*points, *curves]))
    colours = _colours(names, order)
    for name in names:
        colour = colours[name]
        if name in curves:
            c = curves[name]
            roc.plot(*_finite(c.fpr, c.tpr), color=colour, lw=1.4, label=f"{name} (score curve)")
            pr.plot(*_finite(c.tpr, c.precision), color=colour, lw=1.4)
        if name in points:
            p = points[name]
            roc.scatter(
                *_finite(p["fpr"], p["tpr"]),
                s=22,
                color=colour,
                edgecolor="k",
                linewidth=0.4,
                label=f"{name} (videos)",
            )
            pr.scatter(
                *_finite(p["tpr"], p["precision"]), s=22, color=colour, edgecolor="k", linewidth=0.4
            )
        if name in summary_points:
            fpr, tpr, ppv = summary_points[name]
            roc.scatter(
                *_finite([fpr], [tpr]),
                s=160,
                marker="*",
                color=colour,
                edgecolor="k",
                linewidth=0.7,
            )
            pr.scatter(
                *_finite([tpr], [ppv]),
                s=160,
                marker="*",
                color=colour,
                edgecolor="k",
                linewidth=0.7,
            )
    roc.scatter(
        [],
        [],
        s=160,
        marker="*",
        color="white",
        edgecolor="k",
        label=f"summarized ({scheme} weights)",
    )
    roc.set(
        xlim=(0, 1),
        ylim=(0, 1.02),
        xlabel="false positive rate (FPR)",
        ylabel="true positive rate (TPR, recall)",
        title="ROC space",
    )
    pr.set(
        xlim=(0, 1),
        ylim=(0, 1.02),
        xlabel="recall (TPR)",
        ylabel="precision",
        title="PR space (dotted: iso-F lines)",
    )
    for axes in (roc, pr):
        axes.grid(alpha=0.3)
    figure.legend(*roc.get_legend_handles_labels(), loc="outside right center", fontsize=8)
    return _png(figure)


def liris_curves_figure(
    evaluations: Mapping[str, ActionEvaluation], order: Sequence[str] = ()
) -> bytes:
    """LIRIS performance against quality: F as each threshold varies, the others at ε
    (docs/measures.md §4); ``order``, the project's detector list, gives the colours."""
    figure = Figure(figsize=(10, 6.4), layout="constrained")
    panels = figure.subplots(2, 2, sharey=True).ravel()
    epsilon = next(iter(evaluations.values())).parameters.epsilon if evaluations else 0.0
    colours = _colours(list(evaluations), order)
    for k, (key, axes) in enumerate(zip(THRESHOLD_KEYS, panels)):
        for name, evaluation in evaluations.items():
            curves = evaluation.overall.curves
            axes.plot(
                *_finite(curves.grid, curves.f[k]),
                marker="o",
                ms=3,
                lw=1.4,
                color=colours[name],
                label=name,
            )
        axes.set(
            xlim=(0, 1),
            ylim=(0, 1.02),
            xlabel=f"t_{key} ({CRITERIA[key]})",
            title=f"varying t_{key}, the others at ε = {epsilon:g}",
        )
        axes.grid(alpha=0.3)
        if k % 2 == 0:
            axes.set_ylabel("F")
    figure.legend(*panels[0].get_legend_handles_labels(), loc="outside right center", fontsize=8)
    return _png(figure)


def class_confusion_figure(confusions: Mapping[str, ClassConfusion]) -> bytes:
    """Each detector's LIRIS class confusion matrix (row percentages, counts written in)."""
    count = len(confusions)
    columns = min(count, 3)
    rows = -(-count // columns)
    figure = Figure(figsize=(3.6 * columns + 0.8, 3.6 * rows), layout="constrained")
    panels = np.atleast_1d(figure.subplots(rows, columns)).ravel()
    image = None
    for axes, (name, confusion) in zip(panels, confusions.items()):
        codes = [ACTION_CLASSES[c][0] for c in confusion.classes]
        image = axes.imshow(
            np.nan_to_num(confusion.percentages, nan=0.0), cmap="Blues", vmin=0, vmax=100
        )
        for (r, c), n in np.ndenumerate(confusion.counts):
            if n:
                dark = confusion.percentages[r, c] > 60
                axes.text(
                    c,
                    r,
                    str(int(n)),
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if dark else "black",
                )
        axes.set_xticks(range(len(codes)), codes, fontsize=7, rotation=90)
        axes.set_yticks(range(len(codes)), codes, fontsize=7)
        axes.set(title=name, xlabel="detected class", ylabel="ground-truth class")
    for axes in panels[count:]:
        axes.set_visible(False)
    if image is not None:
        figure.colorbar(
            image, ax=list(panels[:count]), shrink=0.8, label="% of the ground-truth row"
        )
    return _png(figure)


def counts_figure(
    video: str,
    first_frame: int,
    groundtruth: np.ndarray,
    estimates: Mapping[str, np.ndarray],
    order: Sequence[str] = (),
) -> bytes:
    """Ground-truth and estimated counts of one video over its frames (docs/measures.md §6);
    ``order``, the project's detector list, gives the colours."""
    figure = Figure(figsize=(10, 3.2), layout="constrained")
    axes = figure.subplots()
    frames = np.arange(first_frame, first_frame + len(groundtruth))
    axes.step(frames, groundtruth, where="post", color="k", lw=2.2, label="ground truth")
    colours = _colours(list(estimates), order)
    for name, counts in estimates.items():
        axes.step(frames, counts, where="post", color=colours[name], lw=1.3, label=name)
    axes.set(xlabel="frame", ylabel="count", title=f"Counts — {video}")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    return _png(figure)


def heatmaps_figure(video: str, maps: Sequence[tuple[int, np.ndarray]]) -> bytes:
    """Consensus heatmap thumbnails of one video with one colour bar (docs/measures.md §7)."""
    count = max(len(maps), 1)
    height, width = maps[0][1].shape if maps else (1, 1)
    panel_width = 3.2
    figure = Figure(
        figsize=(panel_width * count + 1.0, panel_width * height / width + 0.6),
        layout="constrained",
    )
    panels = np.atleast_1d(figure.subplots(1, count)).ravel()
    image = None
    for axes, (frame, consensus) in zip(panels, maps):
        image = axes.imshow(
            np.ma.masked_invalid(consensus), cmap="viridis", vmin=0, vmax=1, interpolation="nearest"
        )
        axes.set_facecolor("black")
        axes.set_title(f"{video}, frame {frame}", fontsize=8)
        axes.set_xticks([])
        axes.set_yticks([])
    if image is not None:
        figure.colorbar(
            image, ax=list(panels), shrink=0.9, label="consensus P (black: outside the ROI)"
        )
    return _png(figure)


def pvalue_figure(result: DiscriminativeResult) -> bytes:
    """p-value against the normalized threshold, with α and t_0 marked (docs/measures.md §9)."""
    figure = Figure(figsize=(8, 3.6), layout="constrained")
    axes = figure.subplots()
    normalized = np.array([row.normalized for row in result.rows])
    p = np.array([row.p.value for row in result.rows])
    x, y = _finite(normalized, np.maximum(p, 1e-300))
    axes.semilogy(x, y, marker="o", ms=4, lw=1.4, color=P_VALUE, label="p-value")
    axes.axhline(
        result.alpha,
        color=tuple(c / 255 for c in OKABE_ITO["vermillion"]),
        ls="--",
        lw=1,
        label=f"α = {result.alpha:g}",
    )
    axes.axvline(result.tau, color=FAINT, ls=":", lw=1, label=f"τ = {result.tau:g}")
    if result.t0_index is not None:
        row = result.rows[result.t0_index]
        axes.scatter(
            [row.normalized],
            [max(row.p.value, 1e-300)],
            s=120,
            marker="*",
            color=tuple(c / 255 for c in OKABE_ITO["bluish green"]),
            edgecolor="k",
            zorder=3,
            label="t_0",
        )
    axes.set(
        xlabel="normalized threshold t_k / Σ t_j (cases with d < t_k removed)",
        ylabel="p-value (log scale)",
        title=f"{result.test} test on {result.cases.measure}: {', '.join(result.methods)}",
    )
    axes.set_ylim(top=2.0)  # p <= 1: leave room for the marker only
    axes.grid(alpha=0.3, which="both")
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    return _png(figure)
