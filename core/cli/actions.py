"""``referee actions``: the LIRIS action-localization metric from the command line (SPEC §4)."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.core.cli.common import refuse_overwrite, tqdm_progress


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register the action-localization commands on the top-level parser."""
    parser = commands.add_parser(
        "actions",
        help="evaluate action localizations (LIRIS HARL metric)",
        description="Compare detected actions with ground truth, both LIRIS XML (a file or a "
        "folder of *.xml), videos paired by videoName (SPEC §4). Prints recall, "
        "precision and F at the fixed operating point ε, the four integrated "
        "measures I_sr, I_sp, I_tr, I_tp (mean F while one threshold varies over "
        "0, 0.1, ..., 1 and the others stay at ε) and their mean, the final score.",
    )
    parser.add_argument(
        "gt", type=Path, metavar="GT", help="ground truth: LIRIS XML file or folder"
    )
    parser.add_argument(
        "det", type=Path, metavar="DET", help="detections: LIRIS XML file or folder"
    )
    parser.add_argument(
        "--epsilon",
        type=float,
        default=0.1,
        metavar="E",
        help="the fixed operating point: all four thresholds (default 0.1)",
    )
    parser.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        help="write every result (scores, curves, confusion, pairs) to FILE",
    )
    parser.add_argument(
        "--csv",
        type=Path,
        metavar="FILE",
        help="write the per-pair table (accepted, vetoed and why, misses, false alarms) to FILE",
    )
    parser.add_argument(
        "--curves",
        type=Path,
        metavar="FILE",
        help="write the precision/recall/F-vs-threshold curves to FILE",
    )
    parser.add_argument(
        "--per-video", action="store_true", help="also print one row of scores per video"
    )
    parser.add_argument(
        "--confusion", action="store_true", help="also print the class confusion matrix"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--force", action="store_true", help="overwrite output files that already exist"
    )
    parser.set_defaults(run=run_actions)


def run_actions(args: argparse.Namespace) -> int:
    """Read both annotation sets, evaluate, print and write the requested outputs."""
    from referee.core.exports import actions as actions_io
    from referee.core.formats.liris_xml import read_liris
    from referee.core.measures.action_matching import DEFAULT_GRID, LirisParameters
    from referee.core.measures.action_scores import evaluate_actions

    params = LirisParameters(epsilon=args.epsilon, grid=DEFAULT_GRID)
    refuse_overwrite([args.json, args.csv, args.curves], args.force)
    gt, det = read_liris(args.gt), read_liris(args.det)
    progress, close = tqdm_progress("matching actions", "video", not args.quiet)
    try:
        evaluation = evaluate_actions(gt, det, params, progress=progress)
    finally:
        close()
    print(actions_io.format_report(evaluation, args.per_video, args.confusion))
    if args.json is not None:
        actions_io.write_json(
            args.json, evaluation, {"ground_truth": str(args.gt), "detections": str(args.det)}
        )
    if args.csv is not None:
        actions_io.write_pairs_csv(args.csv, evaluation)
    if args.curves is not None:
        actions_io.write_curves_csv(args.curves, evaluation)
    return 0
