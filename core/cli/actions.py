"""``referee actions``: the LIRIS action-localization metric from the command line
(docs/measures.md §4)."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.core.cli import input_checks
from referee.core.cli.common import Commands, add_force, add_output, add_quiet, progress_bar
from referee.core.measures.liris_parameters import DEFAULT_EPSILON, MATCHINGS, ONE_TO_ONE


def add_commands(commands: Commands) -> None:
    """Register the action-localization commands on the top-level parser."""
    parser = commands.add_parser(
        "actions",
        help="evaluate action localizations (LIRIS HARL metric)",
        description="Compare detected actions with ground truth, both LIRIS XML (a file or a "
        "folder of *.xml), videos paired by videoName (docs/measures.md §4). Prints recall, "
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
    for dest in ("gt", "det"):
        input_checks.require(parser, dest, input_checks.in_format("actions"))
    parser.add_argument(
        "--epsilon",
        type=float,
        default=DEFAULT_EPSILON,
        metavar="E",
        help=f"the fixed operating point: all four thresholds (default {DEFAULT_EPSILON})",
    )
    parser.add_argument(
        "--matching",
        default=ONE_TO_ONE,
        metavar="{" + ",".join(MATCHINGS) + "}",
        help="how ground-truth and detected actions are paired (docs/measures.md §4): "
        "'one-to-one' (default), the greedy one-to-one matching of the CVIU 2014 paper; "
        "'best-partner', the 2012 metric page's reading: each action with its partner of "
        "highest overlap, a detection counting for several ground-truth actions and vice versa",
    )
    add_output(parser, "--json", "write every result (scores, curves, confusion, pairs) to FILE")
    add_output(
        parser,
        "--csv",
        "write the per-pair table (accepted, vetoed and why, misses, false alarms) to FILE",
    )
    add_output(parser, "--curves", "write the precision/recall/F-vs-threshold curves to FILE")
    parser.add_argument(
        "--per-video", action="store_true", help="also print one row of scores per video"
    )
    parser.add_argument(
        "--confusion", action="store_true", help="also print the class confusion matrix"
    )
    add_quiet(parser)
    add_force(parser)
    parser.set_defaults(run=run_actions)


def run_actions(args: argparse.Namespace) -> int:
    """Read both annotation sets, evaluate, print and write the requested outputs."""
    from referee.core.exports import actions as actions_io
    from referee.core.measures.liris_parameters import LirisParameters
    from referee.core.workflow.detections import run_actions as evaluate
    from referee.core.workflow.options import ActionOptions
    from referee.core.workflow.projects import project_of_outputs

    options = ActionOptions(LirisParameters(epsilon=args.epsilon, matching=args.matching))
    project = project_of_outputs("actions", [args.det], groundtruth=args.gt)
    with progress_bar("matching actions", "video", args.quiet) as progress:
        [evaluation] = evaluate(project, options, progress).evaluations.values()
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
