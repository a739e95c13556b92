"""``referee significance``: discriminative evaluation from the command line (SPEC §9).

The test cases come from one of four inputs:

* ``DATASET RESULTS...`` (CDnet masks): per-frame F1 over every video's
  temporal-ROI frames (``--cases frames``, default), or, without ground truth,
  per-frame pseudo-F1 under the consensus of all the RESULTS as a committee
  (``--cases pseudo``; SPEC §7 default committee, trivial classifiers included,
  ROI pixels only);
* ``--boxes GT DET DET...``: per-frame FDA (SPEC §5);
* ``--actions GT DET DET...``: per-action Dice of the LIRIS matching (SPEC §4);
* ``--scores FILE.csv``: any scores, ``case,A,B[,C…]``.

Two methods (two inputs, or ``--a``/``--b`` among more) get a pairwise test;
more than two, without ``--a``/``--b``, a repeated-measures ANOVA or Friedman test.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from referee.core.cli.common import parse_workers, refuse_overwrite, tqdm_progress
from referee.core.errors import InvalidOptionError
from referee.core.model.case_scores import CaseScores
from referee.core.significance.hypothesis_tests import PAIR_TESTS, SEVERAL_TESTS
from referee.core.significance.sweep import (
    DEFAULT_ALPHA,
    DEFAULT_TAU,
    DEFAULT_THRESHOLDS,
    compare_cases,
)

CASE_KINDS: tuple[str, ...] = ("frames", "pseudo")

_DESCRIPTION = """\
Is one method really better than another? (SPEC §9, Pavlopoulou et al.)
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
                            all-zeros classifiers, SPEC §7), ROI pixels; no
                            ground-truth frame is read.
  --boxes GT DET DET...     per-frame FDA (SPEC §5): LIRIS XML file/folder or
                            MOTChallenge CSV; frames with no box on any side are
                            left out.
  --actions GT DET DET...   per ground-truth action, the Dice overlap of the
                            detection the LIRIS matching assigned to it, 0 if none.
  --scores FILE.csv         any scores: header 'case,A,B[,C...]', one row per
                            case; empty cells leave the case out.
Methods are named after their folders / files (or the CSV header).

Two methods: paired t-test (default), Wilcoxon or Welch. More than two and no
--a/--b: repeated-measures ANOVA (default) or Friedman. --a/--b pick two methods
among more (with --cases pseudo the others stay in the committee).
"""


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``significance`` on the top-level parser."""
    parser = commands.add_parser(
        "significance",
        help="discriminative evaluation: do methods really differ? (SPEC §9)",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "inputs",
        type=Path,
        nargs="*",
        metavar="DATASET RESULTS",
        help="a CDnet dataset followed by two or more methods' result roots",
    )
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
        "--scores", type=Path, metavar="FILE.csv", help="per-case scores, header 'case,A,B[,C...]'"
    )
    parser.add_argument("--a", metavar="NAME", help="method A (with --b): compare these two")
    parser.add_argument("--b", metavar="NAME", help="method B (with --a)")
    parser.add_argument(
        "--cases",
        choices=CASE_KINDS,
        default=CASE_KINDS[0],
        help="with DATASET RESULTS: 'frames' per-frame F1 against the ground "
        "truth (default), 'pseudo' per-frame pseudo-F1 without it",
    )
    parser.add_argument(
        "--test",
        choices=PAIR_TESTS + SEVERAL_TESTS,
        help="two methods: t (paired t-test, default), wilcoxon, welch; "
        "more: anova (repeated-measures, default), friedman",
    )
    parser.add_argument(
        "--alpha",
        type=_fraction,
        default=DEFAULT_ALPHA,
        metavar="A",
        help=f"significance level (default {DEFAULT_ALPHA})",
    )
    parser.add_argument(
        "--tau",
        type=_fraction,
        default=DEFAULT_TAU,
        metavar="T",
        help=f"largest normalized t_0 (default {DEFAULT_TAU})",
    )
    parser.add_argument(
        "--thresholds",
        type=parse_workers,
        default=DEFAULT_THRESHOLDS,
        metavar="K",
        help=f"number of thresholds (default {DEFAULT_THRESHOLDS})",
    )
    parser.add_argument(
        "--lower-is-better",
        action="store_true",
        help="a lower score is better (for --scores of errors); decides which "
        "method is reported better",
    )
    parser.add_argument(
        "--workers",
        type=parse_workers,
        default=1,
        metavar="N",
        help="worker processes for --cases frames (default 1)",
    )
    parser.add_argument(
        "--csv",
        type=Path,
        metavar="FILE",
        help="write the sweep table (one row per threshold) to FILE",
    )
    parser.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        help="write everything, per-case scores included, to FILE",
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite output files that already exist"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run_significance)


def _fraction(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {value!r}") from None
    if not 0 < number < 1:
        raise argparse.ArgumentTypeError("must be between 0 and 1 (exclusive)")
    return number


# --- running ---------------------------------------------------------------------------------


def run_significance(args: argparse.Namespace) -> int:
    """Build the test cases from the chosen input, test, print and write the outputs."""
    refuse_overwrite([args.json, args.csv], args.force)
    pair = _chosen_pair(args)
    if args.scores is not None:
        _no_positionals(args, "--scores")
        from referee.core.formats.scores_csv import read_scores_csv

        cases = read_scores_csv(args.scores)
        if pair is not None:
            cases = cases.select(pair)
        inputs = {"scores": str(args.scores)}
    elif args.boxes is not None:
        _no_positionals(args, "--boxes")
        cases = _box_cases(args.boxes, pair, args.quiet)
        inputs = {"boxes": [str(p) for p in args.boxes]}
    elif args.actions is not None:
        _no_positionals(args, "--actions")
        cases = _action_cases(args.actions, pair, args.quiet)
        inputs = {"actions": [str(p) for p in args.actions]}
    else:
        if len(args.inputs) < 3:
            raise InvalidOptionError(
                "give a DATASET and at least two RESULTS folders, or one of --boxes, "
                "--actions, --scores (see 'referee significance --help')"
            )
        cases = _mask_cases(
            args.inputs[0], args.inputs[1:], pair, args.cases, args.workers, args.quiet
        )
        inputs = {
            "dataset": str(args.inputs[0]),
            "results": [str(p) for p in args.inputs[1:]],
            "cases": args.cases,
        }
    test = _check_test(args.test, len(cases.methods))
    result = compare_cases(
        cases, test, args.alpha, args.tau, args.thresholds, not args.lower_is_better
    )
    from referee.core.exports import significance as significance_io

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


def _chosen_pair(args: argparse.Namespace) -> tuple[str, str] | None:
    if (args.a is None) != (args.b is None):
        raise InvalidOptionError("give both --a and --b, or neither")
    if args.a is None:
        return None
    if args.a == args.b:
        raise InvalidOptionError(f"--a and --b are both {args.a!r}; choose two different methods")
    return (args.a, args.b)


def _no_positionals(args: argparse.Namespace, option: str) -> None:
    if args.inputs:
        raise InvalidOptionError(
            f"{option} takes its own files; drop the DATASET/RESULTS "
            f"arguments ({' '.join(map(str, args.inputs))})"
        )


def _check_test(test: str | None, methods: int) -> str:
    if test is None:
        return PAIR_TESTS[0] if methods == 2 else SEVERAL_TESTS[0]
    if methods > 2 and test in PAIR_TESTS:
        raise InvalidOptionError(
            f"--test {test} compares two methods but there are {methods}; "
            "pick two with --a and --b, or use --test anova or friedman"
        )
    if methods == 2 and test == "friedman":
        raise InvalidOptionError(
            "--test friedman needs at least three methods; with two use --test t, wilcoxon or welch"
        )
    return test


def _names(paths: Sequence[Path]) -> list[str]:
    names = []
    for path in paths:
        resolved = path.resolve()
        name = (resolved.stem if resolved.is_file() else resolved.name) or str(path)
        if name in names:
            raise InvalidOptionError(
                f"two methods are both named {name!r} (after their folders "
                "or files); rename one so they can be told apart"
            )
        names.append(name)
    return names


def _pick(names: Sequence[str], pair: tuple[str, str] | None) -> list[int]:
    """Indices of the compared methods: the pair, or all."""
    if pair is None:
        return list(range(len(names)))
    for name in pair:
        if name not in names:
            raise InvalidOptionError(
                f"no method named {name!r}; the methods are {', '.join(names)}"
            )
    return [names.index(pair[0]), names.index(pair[1])]


def _split_gt(paths: Sequence[Path], option: str) -> tuple[Path, list[Path]]:
    if len(paths) < 3:
        raise InvalidOptionError(
            f"{option} needs the ground truth then at least two methods' "
            f"files, got {len(paths)} file(s)"
        )
    return paths[0], list(paths[1:])


# --- cases from each kind of input ------------------------------------------------------------


def _box_cases(paths: Sequence[Path], pair: tuple[str, str] | None, quiet: bool) -> CaseScores:
    from referee.core.cli.boxes import pair_single_videos, read_box_input
    from referee.core.measures.boxes import evaluate_boxes
    from referee.core.significance.cases import box_fda_cases

    gt_path, det_paths = _split_gt(paths, "--boxes")
    names = _names(det_paths)
    gt, gt_kind = read_box_input(gt_path)
    evaluations = {}
    for k in _pick(names, pair):
        det, det_kind = read_box_input(det_paths[k])
        det = pair_single_videos(gt, det, (gt_kind, det_kind))
        progress, close = tqdm_progress(f"boxes of {names[k]}", "frame", not quiet)
        try:
            evaluations[names[k]] = evaluate_boxes(gt, det, progress=progress)
        finally:
            close()
    return box_fda_cases(evaluations)


def _action_cases(paths: Sequence[Path], pair: tuple[str, str] | None, quiet: bool) -> CaseScores:
    from referee.core.formats.liris_xml import read_liris
    from referee.core.measures.action_matching import match_actions
    from referee.core.significance.cases import action_dice_cases

    gt_path, det_paths = _split_gt(paths, "--actions")
    names = _names(det_paths)
    gt = read_liris(gt_path)
    matchings = {}
    for k in _pick(names, pair):
        progress, close = tqdm_progress(f"matching {names[k]}", "video", not quiet)
        try:
            matchings[names[k]] = match_actions(gt, read_liris(det_paths[k]), progress)
        finally:
            close()
    return action_dice_cases(matchings)


def _mask_cases(
    dataset: Path,
    results: Sequence[Path],
    pair: tuple[str, str] | None,
    kind: str,
    workers: int,
    quiet: bool,
) -> CaseScores:
    from referee.core.formats.cdnet import discover_videos
    from referee.core.significance.cases import frame_f1_cases

    names = _names(results)
    chosen = _pick(names, pair)
    videos = discover_videos(dataset)
    if kind == "pseudo":
        return _pseudo_cases(videos, names, results, chosen, quiet)
    from referee.core.evaluation.masks import evaluate_method

    evaluations = {}
    for k in chosen:
        progress, close = tqdm_progress(f"evaluating {names[k]}", "frame", not quiet)
        try:
            evaluations[names[k]] = evaluate_method(
                videos, results[k], workers=workers, progress=progress
            )
        finally:
            close()
    return frame_f1_cases(evaluations)


def _pseudo_cases(
    videos: Sequence,
    names: Sequence[str],
    results: Sequence[Path],
    chosen: Sequence[int],
    quiet: bool,
) -> CaseScores:
    """Per-frame pseudo-F1 of the chosen methods, the committee being all methods
    (SPEC §7 default: plus the trivial classifiers), over ROI pixels."""
    from referee.core.pseudo.dataset import pseudo_evaluate
    from referee.core.significance.cases import pseudo_result_cases

    progress, close = tqdm_progress("pseudo ground truth", "frame", not quiet)
    try:
        result = pseudo_evaluate(
            videos, dict(zip(names, results)), progress=progress, entropy=False
        )
    finally:
        close()
    return pseudo_result_cases(result, [names[k] for k in chosen])
