"""``referee report``: build a project's report and write it as HTML, PDF, CSV and JSON."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from referee.core.cli import input_checks
from referee.core.cli.common import (
    Commands,
    add_cache,
    add_consensus,
    add_force,
    add_frames,
    add_output,
    add_quiet,
    add_ranking_list,
    add_test,
    add_threshold,
    add_weights,
    committee_options,
    open_cache,
    progress_bar,
    refuse_frames,
    whole_number,
)
from referee.core.errors import InvalidOptionError, RefereeError
from referee.core.ranking.choices import MASK_CRITERIA
from referee.core.significance.choices import CASE_KINDS
from referee.core.workflow.options import (
    AnalysisOptions,
    CountOptions,
    PixelOptions,
    RankingOptions,
    SignificanceOptions,
)


def add_commands(commands: Commands) -> None:
    parser = commands.add_parser(
        "report",
        help="write a stand-alone report of a project (HTML, PDF, CSV, JSON)",
        description="Evaluate everything a project holds (masks, score curves, actions, "
        "counts, pseudo ground truth, frames to annotate next, estimates from labelled "
        "frames, significance, agreement between annotators) and "
        "write one report: a self-contained HTML file, a PDF, one CSV per table "
        "and a JSON file. Every parameter and default is listed in the report.",
    )
    parser.add_argument(
        "project",
        type=Path,
        metavar="PROJECT",
        help="project file (*.referee.json), CDnet dataset or video folder; "
        "'demo' for the built-in demo project",
    )
    input_checks.require(parser, "project", _missing_project)
    add_output(parser, "--html", "write the HTML report")
    add_output(parser, "--pdf", "write the PDF report")
    add_output(parser, "--csv", "write every table as DIR/<table>.csv", "DIR", kind="folder")
    add_output(parser, "--json", "write the report as JSON")
    parser.add_argument("--title", help="report title (default: 'Referee report — <project>')")
    add_weights(parser)
    parser.add_argument(
        "--rank-by",
        default=PixelOptions.rank_by,
        metavar="INDICATOR",
        help="indicator ranking the detectors, summarized against CDnet "
        f"(default {PixelOptions.rank_by})",
    )
    add_threshold(parser)
    add_frames(parser)
    parser.add_argument(
        "--count-window",
        type=whole_number(0),
        default=CountOptions.window,
        metavar="W",
        help=f"CCR_WCC matching window ±W frames (docs/measures.md §6; default "
        f"{CountOptions.window})",
    )
    add_consensus(parser)
    parser.add_argument(
        "--no-trivial",
        action="store_true",
        help="pseudo ground truth by committee: without the all-ones and all-zeros members",
    )
    parser.add_argument(
        "--leave-one-out",
        action="store_true",
        help="score each detector against the consensus of the others",
    )
    parser.add_argument(
        "--criterion",
        choices=MASK_CRITERIA,
        help=f"frames to annotate next: criterion (default {MASK_CRITERIA[0]} with masks)",
    )
    add_ranking_list(parser)
    parser.add_argument(
        "--cases",
        default=SignificanceOptions.cases,
        choices=tuple(CASE_KINDS),
        help="significance: per-frame F1, per-frame pseudo-F1, per-action Dice, "
        "per-frame FDA or per-sequence (per-block with few sequences) HOTA of tracks "
        f"(default {SignificanceOptions.cases})",
    )
    add_test(parser)
    add_force(parser)
    add_cache(parser, "confusion counts, score histograms and disagreement scores")
    add_quiet(parser)
    parser.set_defaults(run=run_report)


def _missing_project(paths: Sequence[Path], index: int) -> None:
    """PROJECT does not exist: said unless it is ``demo``, the built-in demo project."""
    if str(paths[index]) != "demo":
        input_checks.opened(paths, index)


def run_report(args: argparse.Namespace) -> int:
    targets = {
        name: path
        for name, path in (
            ("html", args.html),
            ("pdf", args.pdf),
            ("csv", args.csv),
            ("json", args.json),
        )
        if path is not None
    }
    if not targets:
        raise InvalidOptionError(
            "say what to write: --html FILE, --pdf FILE, --csv DIR and/or --json FILE"
        )
    from referee.core.demo.project import default_demo_dir, ensure_demo_project
    from referee.core.report.build import build_report
    from referee.core.report.options import ReportOptions
    from referee.core.report.outputs import replaced_files, write_outputs
    from referee.core.workflow.projects import open_path
    from referee.core.workflow.sources import check_sources

    options = ReportOptions(_analysis(args), title=args.title)
    project = (
        ensure_demo_project(default_demo_dir())
        if str(args.project) == "demo"
        else open_path(args.project)
    )
    check_sources(project)  # a source the project names but that is missing is said first
    if project.dataset is None:
        refuse_frames(args.frames, "a project without a CDnet dataset")
    project = replace(project, frame_range=args.frames)
    cache = open_cache(args.cache)
    with progress_bar("building the report", "‰", args.quiet) as progress:
        report = build_report(project, options, progress=progress, cache=cache)
    replaced = replaced_files(report, targets)
    if replaced and not args.force:
        raise RefereeError(
            f"{replaced[0]} already exists ({len(replaced)} files would be "
            "replaced); choose another place or add --force"
        )
    written = write_outputs(report, targets)
    for name, paths in written.items():
        where = targets[name] if len(paths) > 1 else paths[0]
        print(f"{name}: {where}" + (f" ({len(paths)} tables)" if len(paths) > 1 else ""))
    return 0


def _analysis(args: argparse.Namespace) -> AnalysisOptions:
    """Every stage's options from the command line (one ``--weights`` and ``--threshold``
    for all)."""
    from referee.core.workflow.options import CurveOptions, PseudoOptions

    committee = committee_options(args)
    return AnalysisOptions(
        pixels=PixelOptions(threshold=args.threshold, weights=args.weights, rank_by=args.rank_by),
        curves=CurveOptions(weights=args.weights),
        counts=CountOptions(window=args.count_window),
        pseudo=PseudoOptions(committee=committee, weights=args.weights),
        ranking=RankingOptions(
            criterion=args.criterion,
            top=args.top,
            gap=args.gap,
            include_annotated=args.include_annotated,
            threshold=args.threshold,
        ),
        significance=SignificanceOptions(cases=args.cases, test=args.test, alpha=args.alpha),
    )
