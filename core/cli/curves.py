"""``referee curves``: ROC and PR curves of soft outputs (docs/measures.md §3)."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.core.cli.common import method_name, parse_workers, refuse_overwrite, tqdm_progress
from referee.core.exports import text_table

# --- curves ------------------------------------------------------------------------------


def add_commands(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "curves",
        help="ROC and PR curves of soft score maps (0-255), per video and summarized",
        description="Sweep all 256 thresholds of soft results in one pass (SPEC §3): a pixel "
        "is detected at threshold T iff its score >= T. Prints, per method, the "
        "threshold where the summarized F1 is highest; --csv writes every curve.",
    )
    parser.add_argument("dataset", type=Path, metavar="DATASET")
    parser.add_argument(
        "results",
        type=Path,
        nargs="+",
        metavar="RESULTS",
        help="a method's soft results root (<category>/<video>/bin%%06d.png)",
    )
    parser.add_argument(
        "--weights",
        choices=("auto", "video", "category", "pixels"),
        default="auto",
        help="summarization weights (SPEC §2; default auto)",
    )
    parser.add_argument(
        "--csv",
        type=Path,
        metavar="FILE",
        help="write every curve point (per video and summarized) to FILE",
    )
    parser.add_argument("--workers", type=parse_workers, default=1, metavar="N")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--force", action="store_true", help="overwrite output files that already exist"
    )
    parser.set_defaults(run=run_curves)


def run_curves(args: argparse.Namespace) -> int:
    from referee.core.evaluation.masks import score_histograms_method, summarized_histogram_curves
    from referee.core.exports.curves_csv import write_curves_csv
    from referee.core.formats.cdnet import discover_videos
    from referee.core.measures.curves import roc_pr_curves

    refuse_overwrite([args.csv], args.force)
    videos = discover_videos(args.dataset)
    rows, best = [], []
    taken: dict[str, None] = {}
    for results_root in args.results:
        method = method_name(results_root, taken)
        taken[method] = None
        progress, close = tqdm_progress(f"sweeping {method}", "frame", not args.quiet)
        try:
            histograms = score_histograms_method(videos, results_root, args.workers, progress)
        finally:
            close()
        scheme, summary = summarized_histogram_curves(histograms, args.weights)
        rows += [
            (method, "video", h.category, h.video, roc_pr_curves(h.histograms)) for h in histograms
        ]
        rows.append((method, f"summary:{scheme}", "", "", summary))
        best.append((method, scheme, summary))
    print(text_table.format_best_threshold_table(best))
    if args.csv is not None:
        write_curves_csv(args.csv, rows)
    return 0
