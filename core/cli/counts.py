"""``referee counts``: counting (docs/measures.md §6)."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.core.cli import input_checks
from referee.core.cli.common import (
    Commands,
    add_force,
    add_output,
    add_quiet,
    whole_number,
    write_json,
)
from referee.core.workflow.options import CountOptions


def add_commands(commands: Commands) -> None:
    parser = commands.add_parser(
        "counts",
        help="counting measures: CCR_WCC, MAE of counts and of count changes",
        description="Compare estimated counts with ground-truth counts (docs/measures.md §6): the windowed "
        "count-change correct classification rate CCR_WCC with its numerator and "
        "three denominator terms, the MAE of counts and the MAE of count changes. "
        "Both files are CSV 'frame,count' covering the same consecutive frames.",
    )
    parser.add_argument("gt", type=Path, metavar="GT.csv", help="ground-truth counts")
    parser.add_argument("estimate", type=Path, metavar="EST.csv", help="estimated counts")
    for dest in ("gt", "estimate"):
        input_checks.require(parser, dest, input_checks.text_file)
    parser.add_argument(
        "-w",
        "--window",
        type=whole_number(0),
        default=CountOptions.window,
        metavar="W",
        help="match a ground-truth change with an estimated one up to W frames "
        f"earlier or later (0: same frame only; default {CountOptions.window})",
    )
    add_output(parser, "--json", "write the result, with every instant, to FILE")
    add_force(parser)
    add_quiet(parser)
    parser.set_defaults(run=run_counts)


def run_counts(args: argparse.Namespace) -> int:
    """Compare the two count files, print and write the result."""
    from referee.core.exports.counts import counts_to_dict, format_counts_report
    from referee.core.workflow.detections import evaluate_count_pair

    row = evaluate_count_pair(args.gt, args.estimate, CountOptions(args.window))
    print(format_counts_report(row.result, row.groundtruth, row.estimate))
    if args.json is not None:
        write_json(args.json, counts_to_dict(row.result, row.groundtruth, row.estimate))
    return 0
