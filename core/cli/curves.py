"""``referee curves``: ROC and PR curves of soft outputs (docs/measures.md §3)."""

from __future__ import annotations

import argparse

from referee.core.cli.common import (
    Commands,
    add_cache,
    add_force,
    add_frames,
    add_output,
    add_quiet,
    add_weights,
    add_workers,
    open_cache,
    progress_bar,
    report_missing,
    write_json,
)
from referee.core.cli.inputs import add_dataset_and_results, input_parameters, project_of_inputs


def add_commands(commands: Commands) -> None:
    """Register ``curves`` on the top-level parser."""
    parser = commands.add_parser(
        "curves",
        help="ROC and PR curves of soft score maps (0-255), per video and summarized",
        description="Sweep all 256 thresholds of soft results in one pass (docs/measures.md "
        "§3): a pixel is detected at threshold T iff its score >= T. Prints, per method, the "
        "threshold where the summarized F1 is highest and the summarized curve's ROC AUC and "
        "average precision (AP), the numbers scikit-learn's roc_auc_score and "
        "average_precision_score give on the same pixels (motion positive, static and shadow "
        "negative). --csv writes every curve point; --areas-csv the AUC and AP of every curve.",
    )
    add_dataset_and_results(
        parser,
        "dataset root (<category>/<video>/{groundtruth,ROI.bmp,temporalROI.txt}) or one "
        "video folder",
        "a method's soft results root (<category>/<video>/bin%%06d.png)",
        kind="scores",
    )
    add_weights(parser)
    add_output(
        parser,
        "--csv",
        "write every curve point (per video and summarized) to FILE, thresholds 0-256: "
        "column 'end' marks T=0 'all detected' (ROC (1,1)) and T=256 'nothing detected' "
        "(ROC (0,0), recall 0), the end points the areas are measured between",
    )
    add_output(
        parser,
        "--areas-csv",
        "write one row per curve (per video and summarized) to FILE: positives and negatives "
        "(pixel counts; a summary's: its videos' together), positive_share (their share of "
        "the curve's weight: a summary's from its blended matrices), roc_auc, "
        "average_precision; an undefined area (AUC: no positive or no negative pixel; AP: no "
        "positive pixel) is an empty cell, its reason in the 'undefined' column",
    )
    add_output(
        parser,
        "--json",
        "write, per method, each video's and the summarized curve's positives, negatives, "
        "ROC AUC and AP (every digit; undefined: null with the reason) and the summarized "
        "curve's best threshold to FILE",
    )
    add_frames(parser)
    add_workers(parser)
    add_cache(parser, "score histograms")
    add_quiet(parser)
    add_force(parser)
    parser.set_defaults(run=run_curves)


def run_curves(args: argparse.Namespace) -> int:
    """Sweep every RESULTS, print each best threshold, AUC and AP, and write the curves."""
    from referee.core.exports import text_table
    from referee.core.exports.curves_csv import write_curve_areas_csv, write_curves_csv
    from referee.core.measures.curves import roc_pr_curves
    from referee.core.workflow.options import CurveOptions
    from referee.core.workflow.pixels import run_curves as sweep

    project = project_of_inputs("curves", args.dataset, args.results, args.frames, "scores")
    with progress_bar("sweeping thresholds", "frame", args.quiet) as progress:
        options = CurveOptions(args.weights, args.workers)
        result = sweep(project, options, progress, cache=open_cache(args.cache))
    rows, best = [], []
    for method, histograms in result.histograms.items():
        scheme, summary = result.summaries[method]
        rows += [
            (method, "video", h.category, h.video, roc_pr_curves(h.histograms)) for h in histograms
        ]
        rows.append((method, f"summary:{scheme}", "", "", summary))
        best.append((method, scheme, summary))
    print(text_table.format_best_threshold_table(best))
    if args.csv is not None:
        write_curves_csv(args.csv, rows)
    if args.areas_csv is not None:
        write_curve_areas_csv(args.areas_csv, rows)
    if args.json is not None:
        from referee.core.exports.curves_json import curves_to_dict

        parameters = {**input_parameters(project), "weights": args.weights}
        write_json(args.json, curves_to_dict(rows, parameters))
    return report_missing(result.missing)
