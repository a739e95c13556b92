"""``referee report``: build a project's report and write it as HTML, PDF, CSV and JSON."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.core.cli.common import refuse_overwrite, tqdm_progress
from referee.core.demo.project import default_demo_dir
from referee.core.errors import InvalidOptionError, RefereeError
from referee.core.measures.summarize import WEIGHT_SCHEMES
from referee.core.pseudo.committee import CommitteeOptions
from referee.core.ranking.criteria import MASK_CRITERIA
from referee.core.significance.cases import CASE_KINDS
from referee.core.significance.hypothesis_tests import PAIR_TESTS, SEVERAL_TESTS


def add_commands(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "report",
        help="write a stand-alone report of a project (HTML, PDF, CSV, JSON)",
        description="Evaluate everything a project holds (masks, score curves, actions, "
        "counts, pseudo ground truth, frames to annotate next, significance) and "
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
    parser.add_argument("--html", type=Path, metavar="FILE", help="write the HTML report")
    parser.add_argument("--pdf", type=Path, metavar="FILE", help="write the PDF report")
    parser.add_argument(
        "--csv", type=Path, metavar="DIR", help="write every table as DIR/<table>.csv"
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the report as JSON")
    parser.add_argument("--title", help="report title (default: 'Referee report — <project>')")
    parser.add_argument(
        "--weights",
        default="auto",
        choices=[s for s in WEIGHT_SCHEMES if s != "custom"],
        help="summarization weights (SPEC §2; default auto)",
    )
    parser.add_argument(
        "--rank-by",
        default="f1",
        metavar="INDICATOR",
        help="indicator ranking the detectors, summarized against CDnet (default f1)",
    )
    parser.add_argument(
        "--threshold",
        type=int,
        metavar="T",
        help="a mask pixel is positive iff >= T (default: iff exactly 255)",
    )
    parser.add_argument(
        "--count-window",
        type=int,
        default=1,
        metavar="W",
        help="CCR_WCC matching window ±W frames (SPEC §6; default 1)",
    )
    parser.add_argument(
        "--no-trivial",
        action="store_true",
        help="pseudo ground truth without the all-ones and all-zeros members",
    )
    parser.add_argument(
        "--leave-one-out",
        action="store_true",
        help="score each detector against the consensus of the others",
    )
    parser.add_argument(
        "--criterion",
        default=MASK_CRITERIA[0],
        choices=MASK_CRITERIA,
        help=f"frames to annotate next: criterion (default {MASK_CRITERIA[0]})",
    )
    parser.add_argument(
        "--top",
        type=int,
        default=20,
        metavar="N",
        help="frames to annotate next: how many (default 20)",
    )
    parser.add_argument(
        "--cases",
        default="frames",
        choices=tuple(CASE_KINDS),
        help="significance: per-frame F1, per-frame pseudo-F1 or per-action Dice (default frames)",
    )
    parser.add_argument(
        "--test",
        choices=PAIR_TESTS + SEVERAL_TESTS,
        help="significance test (default: t for two detectors, anova for more)",
    )
    parser.add_argument(
        "--alpha", type=float, default=0.05, help="significance level (default 0.05)"
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite output files that already exist"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run_report)


def run_report(args: argparse.Namespace) -> int:
    from referee.core.demo.project import ensure_demo_project
    from referee.core.report.build import build_report
    from referee.core.report.options import ReportOptions
    from referee.core.report.outputs import check_targets, replaced_files, write_outputs
    from referee.core.workflow.projects import open_path

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
    refuse_overwrite([targets.get(k) for k in ("html", "pdf", "json")], args.force)
    check_targets(targets)
    options = ReportOptions(
        title=args.title,
        weights=args.weights,
        rank_by=args.rank_by,
        threshold=args.threshold,
        count_window=args.count_window,
        committee=CommitteeOptions(
            include_trivial=not args.no_trivial,
            leave_one_out=args.leave_one_out,
            threshold=args.threshold,
        ),
        ranking_criterion=args.criterion,
        ranking_top=args.top,
        significance_cases=args.cases,
        significance_test=args.test,
        alpha=args.alpha,
    )
    project = (
        ensure_demo_project(default_demo_dir())
        if str(args.project) == "demo"
        else open_path(args.project)
    )
    progress, close = tqdm_progress("building the report", "‰", not args.quiet)
    try:
        report = build_report(project, options, progress=progress)
    finally:
        close()
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
