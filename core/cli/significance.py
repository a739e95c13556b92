"""``referee significance``: discriminative evaluation from the command line
(docs/measures.md §9).

The test cases come from one of four inputs:

* ``DATASET RESULTS...`` (CDnet masks), or a project file in their place: per-frame F1 over every video's
  temporal-ROI frames (``--cases frames``, default), or, without ground truth,
  per-frame pseudo-F1 under the consensus of all the RESULTS as a committee
  (``--cases pseudo``; docs/measures.md §7 default committee, trivial classifiers included,
  ROI pixels only);
* ``--boxes GT DET DET...``: per-frame FDA (docs/measures.md §5);
* ``--actions GT DET DET...``: per-action Dice of the LIRIS matching (docs/measures.md §4);
* ``--tracking GT DET DET...``: per-sequence (or, with few sequences, per-block) HOTA,
  MOTA or IDF1 of MOTChallenge tracks (docs/measures.md §5);
* ``--scores FILE.csv``: any scores, ``case,A,B[,C…]``.

Two methods (two inputs, or ``--a``/``--b`` among more) get a pairwise test;
more than two, without ``--a``/``--b``, a repeated-measures ANOVA or Friedman test.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from referee.core.cli import input_checks
from referee.core.cli.common import (
    Commands,
    add_block_length,
    add_frames,
    add_outputs,
    add_pair,
    add_quiet,
    add_test,
    add_workers,
    block_length,
    chosen_pair,
    fraction,
    frames_parameter,
    progress_bar,
    refuse_frames,
    whole_number,
)
from referee.core.cli.inputs import input_parameters, project_of_inputs
from referee.core.errors import InvalidOptionError
from referee.core.model.project import Project
from referee.core.significance.choices import MIN_SEQUENCES, TRACKING_MEASURES
from referee.core.workflow.options import SignificanceOptions

if TYPE_CHECKING:
    from referee.core.workflow.results import ProjectResults

#: ``--cases`` with DATASET RESULTS.
CASE_KINDS: tuple[str, ...] = ("frames", "pseudo")

_DESCRIPTION = f"""\
Is one method really better than another? (docs/measures.md §9, Pavlopoulou et al.)
Each method gets one score per test case; d_i is how much the methods' scores
differ on case i (|a_i - b_i|, or max - min over several methods). For K
thresholds t_k = k * max d / K (k = 0..K-1: from 0 included to max d excluded)
the cases with d_i < t_k are removed and the rest are tested. The methods
differ iff p < alpha from some t_0 on, at every larger threshold where p is
defined (3 cases or more), and t_0 / sum of all thresholds <= tau.
Note: with the default K = 20 that normalized value is at most 2/K = 0.1, so
tau = 0.1 never rejects; use a smaller K or a smaller tau to make it bite.
The removed cases and the means are those at t_0 (shown even when tau rejects
it); with no t_0 nothing is removed and the means are over every case.

Inputs (exactly one kind):
  DATASET RESULTS...        CDnet masks. --cases frames (default): per-frame F1
                            against the ground truth over every video's temporal
                            ROI; frames where F1 is 0/0 for a method are left out
                            and counted. --cases pseudo: per-frame pseudo-F1 with
                            every RESULTS as the committee (plus the all-ones and
                            all-zeros classifiers, docs/measures.md §7), ROI pixels; no
                            ground-truth frame is read.
  PROJECT                   a project file (*.referee.json, 'referee project new')
                            alone: its dataset and its detectors' masks, as
                            DATASET RESULTS..., with its record of annotated frames.
  --boxes GT DET DET...     per-frame FDA (docs/measures.md §5): LIRIS XML file/folder or
                            MOTChallenge CSV; frames with no box on any side are
                            left out.
  --actions GT DET DET...   per ground-truth action, the Dice overlap of the
                            detection the LIRIS matching assigned to it, 0 if none.
  --tracking GT DET DET...  MOTChallenge tracks (files, or a benchmark folder and
                            tracker folders): --measure (HOTA by default) of each
                            sequence; with fewer than {MIN_SEQUENCES} sequences, of each block of
                            --block-length frames (tracks cut at the borders;
                            docs/measures.md §5).
  --scores FILE.csv         any scores: header 'case,A,B[,C...]', one row per
                            case; empty cells leave the case out.
Methods are named after their folders / files (or the CSV header).

Two methods: paired t-test (default), Wilcoxon or Welch. More than two and no
--a/--b: repeated-measures ANOVA (default) or Friedman. --a/--b pick two methods
among more (with --cases pseudo the others stay in the committee).
"""


def add_commands(commands: Commands) -> None:
    """Register ``significance`` on the top-level parser."""
    parser = commands.add_parser(
        "significance",
        help="discriminative evaluation: do methods really differ?",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "inputs",
        type=Path,
        nargs="*",
        metavar="DATASET RESULTS",
        help="a CDnet dataset followed by two or more methods' result roots, or a project "
        "file (*.referee.json) alone",
    )
    input_checks.require(parser, "inputs", input_checks.dataset_then_results)
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--boxes",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="GT then two or more detection files: per-frame FDA",
    )
    source.add_argument(
        "--actions",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="GT then two or more LIRIS XML detection files: per-action Dice",
    )
    source.add_argument(
        "--tracking",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="GT then two or more trackers' MOTChallenge files or folders: per-sequence "
        "(or per-block) --measure",
    )
    source.add_argument(
        "--scores", type=Path, metavar="FILE.csv", help="per-case scores, header 'case,A,B[,C...]'"
    )
    for dest, kind in (("boxes", "boxes"), ("actions", "actions"), ("tracking", "boxes")):
        input_checks.require(parser, dest, input_checks.in_format(kind))
    input_checks.require(parser, "scores", input_checks.in_format("scores"))
    add_pair(parser, "compared (among more)")
    parser.add_argument(
        "--cases",
        choices=CASE_KINDS,
        default=SignificanceOptions.cases,
        help="with DATASET RESULTS: 'frames' per-frame F1 against the ground "
        "truth (default), 'pseudo' per-frame pseudo-F1 without it",
    )
    parser.add_argument(
        "--measure",
        choices=tuple(TRACKING_MEASURES),
        help="with --tracking: the measure compared, HOTA (α-averaged), MOTA or IDF1 "
        f"(default {SignificanceOptions.tracking_measure})",
    )
    add_block_length(parser, "with --tracking")
    add_test(parser)
    parser.add_argument(
        "--tau",
        type=fraction,
        default=SignificanceOptions.tau,
        metavar="T",
        help=f"largest normalized t_0 (default {SignificanceOptions.tau})",
    )
    parser.add_argument(
        "--thresholds",
        type=whole_number(1),
        default=SignificanceOptions.thresholds,
        metavar="K",
        help=f"number of thresholds (default {SignificanceOptions.thresholds})",
    )
    parser.add_argument(
        "--lower-is-better",
        action="store_true",
        help="a lower score is better (for --scores of errors); decides which "
        "method is reported better",
    )
    add_frames(parser)
    add_workers(parser)
    add_outputs(
        parser,
        "write everything, per-case scores included, to FILE",
        "write the sweep table (one row per threshold) to FILE",
    )
    add_quiet(parser)
    parser.set_defaults(run=run_significance)


# --- running ---------------------------------------------------------------------------------


def run_significance(args: argparse.Namespace) -> int:
    """Build the test cases from the chosen input, test, print and write the outputs."""
    from referee.core.exports import significance as significance_io
    from referee.core.workflow.significance import case_scores, compare_scores

    pair = chosen_pair(args)
    options_given = (("--measure", args.measure), ("--block-length", args.block_length))
    given = [flag for flag, value in options_given if value is not None]
    if args.tracking is None and given:
        verb = "applies" if len(given) == 1 else "apply"
        raise InvalidOptionError(f"{' and '.join(given)} {verb} only with --tracking")
    options = SignificanceOptions(
        cases=args.cases,
        methods=pair,
        test=args.test,
        alpha=args.alpha,
        tau=args.tau,
        thresholds=args.thresholds,
        higher_is_better=not args.lower_is_better,
        tracking_measure=args.measure or SignificanceOptions.tracking_measure,
    )
    if args.scores is not None:
        _no_positionals(args, "--scores")
        refuse_frames(args.frames, "a --scores file")
        from referee.core.formats import registry

        cases, _ = registry.read(args.scores, registry.SCORES)
        inputs: dict[str, object] = {"scores": str(args.scores)}
    else:
        project, options, inputs = _project(args, options)
        _check_test(args.test, len(options.methods or project.detectors))
        upstream = None
        if options.cases == "frames":
            from referee.core.workflow.options import PixelOptions
            from referee.core.workflow.pixels import run_pixels
            from referee.core.workflow.results import ProjectResults

            with progress_bar("evaluating masks", "frame", args.quiet) as progress:
                pixels = run_pixels(project, PixelOptions(workers=args.workers), progress)
            upstream = ProjectResults(pixels=pixels)
        if options.cases == "tracking":
            upstream = _tracked(project, args)
            inputs.update(measure=options.tracking_measure, block_length=block_length(args))
        with progress_bar("building test cases", "frame", args.quiet) as progress:
            cases = case_scores(project, options, upstream, progress)
    _check_test(args.test, len(options.methods or cases.methods))
    result = compare_scores(cases, options)
    grid = f"{args.thresholds} evenly spaced from 0 (included) to max d (excluded)"
    print(significance_io.format_report(result, grid))
    parameters = {
        **inputs,
        "test": result.test,
        "alpha": args.alpha,
        "tau": args.tau,
        "thresholds": args.thresholds,
        "higher_is_better": not args.lower_is_better,
    }
    if args.csv is not None:
        significance_io.write_sweep_csv(args.csv, result)
    if args.json is not None:
        significance_io.write_json(args.json, result, parameters)
    return 0


def _project(
    args: argparse.Namespace, options: SignificanceOptions
) -> tuple[Project, SignificanceOptions, dict[str, object]]:
    """The project of the inputs, the options with their case kind, what to record of them."""
    from dataclasses import replace

    from referee.core.workflow.projects import project_of_outputs

    sources = (("boxes", args.boxes), ("actions", args.actions), ("tracking", args.tracking))
    for kind, paths in sources:
        if paths is None:
            continue
        _no_positionals(args, f"--{kind}")
        refuse_frames(args.frames, f"--{kind} files")
        if len(paths) < 3:
            raise InvalidOptionError(
                f"--{kind} needs the ground truth then at least two methods' files, "
                f"got {len(paths)} file(s)"
            )
        outputs = "actions" if kind == "actions" else "boxes"
        project = project_of_outputs(outputs, paths[1:], groundtruth=paths[0])
        return project, replace(options, cases=kind), {kind: [str(p) for p in paths]}
    if not args.inputs:
        raise InvalidOptionError(
            "give a DATASET and at least two RESULTS folders, a project file, or one of "
            "--boxes, --actions, --tracking, --scores (see 'referee significance --help')"
        )
    dataset, results = args.inputs[0], list(args.inputs[1:])
    project = project_of_inputs("significance", dataset, results, args.frames, at_least=2)
    inputs = {
        **input_parameters(project),
        "results": [str(root) for root in project.mask_detectors().values()],
        "cases": args.cases,
        "frames": frames_parameter(args.frames),
    }
    if options.cases == "frames" and options.methods is not None:
        _known(project, options.methods)  # only the compared methods are evaluated
        chosen = tuple(d for d in project.detectors if d.name in options.methods)
        project = replace(project, detectors=chosen)
    return project, options, inputs


def _tracked(project: Project, args: argparse.Namespace) -> ProjectResults:
    """The tracks of ``project`` evaluated, with frame blocks of ``--block-length``."""
    from referee.core.workflow.detections import run_boxes
    from referee.core.workflow.options import BoxOptions
    from referee.core.workflow.results import ProjectResults

    options = BoxOptions(tracking_block=block_length(args))
    with progress_bar("evaluating tracks", "frame", args.quiet) as progress:
        return ProjectResults(boxes=run_boxes(project, options, progress))


def _known(project: Project, methods: Sequence[str]) -> None:
    names = [d.name for d in project.detectors]
    for name in methods:
        if name not in names:
            raise InvalidOptionError(
                f"no method named {name!r}; the methods are {', '.join(names)}"
            )


def _no_positionals(args: argparse.Namespace, option: str) -> None:
    if args.inputs:
        raise InvalidOptionError(
            f"{option} takes its own files; drop the DATASET/RESULTS "
            f"arguments ({' '.join(map(str, args.inputs))})"
        )


def _check_test(test: str, methods: int) -> None:
    """The command's own words for a test that does not fit the number of methods."""
    if methods > 2 and test in ("t", "wilcoxon", "welch"):
        raise InvalidOptionError(
            f"--test {test} compares two methods but there are {methods}; "
            "pick two with --a and --b, or use --test anova or friedman"
        )
    if methods == 2 and test == "friedman":
        raise InvalidOptionError(
            "--test friedman needs at least three methods; with two use --test t, wilcoxon or welch"
        )
