"""``referee counts``: counting (docs/measures.md §6)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from referee.core.cli.common import refuse_overwrite
from referee.core.exports.counts import counts_to_dict, format_counts_report
from referee.core.formats.counts_csv import read_counts_pair
from referee.core.formats.text_files import write_text
from referee.core.measures.counting import evaluate_counts

# --- counts ------------------------------------------------------------------------------


def add_commands(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "counts",
        help="counting measures: CCR_WCC, MAE of counts and of count changes",
        description="Compare estimated counts with ground-truth counts (SPEC §6): the windowed "
        "count-change correct classification rate CCR_WCC with its numerator and "
        "three denominator terms, the MAE of counts and the MAE of count changes. "
        "Both files are CSV 'frame,count' covering the same consecutive frames.",
    )
    parser.add_argument("gt", type=Path, metavar="GT.csv", help="ground-truth counts")
    parser.add_argument("estimate", type=Path, metavar="EST.csv", help="estimated counts")
    parser.add_argument(
        "--window",
        type=_window,
        required=True,
        metavar="W",
        help="match a ground-truth change with an estimated one up to W frames "
        "earlier or later (0: same frame only)",
    )
    parser.add_argument(
        "--json", type=Path, metavar="FILE", help="write the result, with every instant, to FILE"
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite output files that already exist"
    )
    parser.set_defaults(run=run_counts)


def _window(value: str) -> int:
    try:
        window = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of frames, got {value!r}"
        ) from None
    if window < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return window


def run_counts(args: argparse.Namespace) -> int:
    refuse_overwrite([args.json], args.force)
    gt, estimate = read_counts_pair(args.gt, args.estimate)
    result = evaluate_counts(gt.counts, estimate.counts, args.window)
    print(format_counts_report(result, gt, estimate))
    if args.json is not None:
        write_text(args.json, json.dumps(counts_to_dict(result, gt, estimate), indent=1) + "\n")
    return 0
