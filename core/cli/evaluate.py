"""``referee evaluate`` and ``referee summarize``: masks and published counts (docs/measures.md §1, §2)."""

from __future__ import annotations

import argparse
import csv
from collections.abc import Sequence
from pathlib import Path

from referee.core.cli.common import method_name, parse_workers, refuse_overwrite, tqdm_progress
from referee.core.errors import InputFileError
from referee.core.exports import summary as summary_io
from referee.core.exports import text_table
from referee.core.formats import cm_csv, stats_txt
from referee.core.measures.summarize import (
    WEIGHT_SCHEMES,
    MethodResult,
    RankComparison,
    compare_rankings,
    summarize_method,
)
from referee.core.model.confusion import VideoConfusion


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``evaluate`` and ``summarize`` on the top-level parser."""
    _add_evaluate(commands)
    _add_summarize(commands)


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that summarizes confusion matrices."""
    parser.add_argument(
        "--weights",
        choices=[s for s in WEIGHT_SCHEMES if s != "custom"],
        default="auto",
        help="how videos are weighted in the summary (SPEC §2): 'video' uniform, 'category' "
        "1/C per category split over its videos, 'pixels' pooled counts; 'auto' "
        "(default) is 'category' when videos have categories, else 'video'",
    )
    parser.add_argument(
        "--weights-csv",
        type=Path,
        metavar="FILE",
        help="custom weights: CSV 'category,video,weight' (overrides --weights)",
    )
    parser.add_argument(
        "--rank-by",
        default="f1",
        metavar="INDICATOR",
        help="indicator used to compare the rankings of the two procedures (default: f1)",
    )
    parser.add_argument(
        "--json", type=Path, metavar="FILE", help="write every result, machine-readable, to FILE"
    )
    parser.add_argument(
        "--csv",
        type=Path,
        metavar="FILE",
        help="write one row per video and method plus summary rows to FILE",
    )
    parser.add_argument(
        "--stats-txt",
        type=Path,
        metavar="PATH",
        help="write CDnet's official stats.txt; with several methods, PATH is a folder "
        "that gets <method>/stats.txt",
    )
    parser.add_argument(
        "--per-video", action="store_true", help="also print the per-video table of each method"
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite output files that already exist"
    )


# --- evaluate --------------------------------------------------------------------------


def _add_evaluate(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "evaluate",
        help="evaluate background-subtraction masks against CDnet ground truth",
        description="Compare the binary masks of one or more methods with a CDnet-style "
        "dataset (SPEC §1), then summarize over videos by blending normalized "
        "confusion matrices and, side by side, by the CDnet procedure (SPEC §2).",
    )
    parser.add_argument(
        "dataset",
        type=Path,
        metavar="DATASET",
        help="dataset root (<category>/<video>/{groundtruth,ROI.bmp,"
        "temporalROI.txt}) or one video folder",
    )
    parser.add_argument(
        "results",
        type=Path,
        nargs="+",
        metavar="RESULTS",
        help="a method's results root holding <category>/<video>/bin%%06d.png, "
        "or, for a one-video dataset, its result folder or a mask video "
        "file; the folder or file name is the method's name",
    )
    parser.add_argument(
        "--pattern",
        metavar="PATTERN",
        help="result file names inside each video's result folder, e.g. "
        "'mask_%%04d.png' or '{:05d}.png' (default: CDnet's bin%%06d with "
        ".png .jpg .jpeg .bmp .ppm probed in that order)",
    )
    parser.add_argument(
        "--offset",
        type=int,
        default=0,
        metavar="K",
        help="with --pattern: frame i is file number i+K (-1 for files numbered from 0)",
    )
    parser.add_argument(
        "--threshold",
        type=int,
        metavar="T",
        help="a result pixel is positive iff its value >= T (for soft or lossy "
        "masks); default: positive iff exactly 255",
    )
    parser.add_argument(
        "--workers",
        type=parse_workers,
        default=1,
        metavar="N",
        help="number of worker processes (default 1)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_output_options(parser)
    parser.set_defaults(run=run_evaluate)


def run_evaluate(args: argparse.Namespace) -> int:
    from referee.core.evaluation.masks import evaluate_method
    from referee.core.formats.cdnet import discover_videos

    _check_outputs(args)
    videos = discover_videos(args.dataset)
    method_videos: dict[str, list[VideoConfusion]] = {}
    for results_root in args.results:
        method = method_name(results_root, method_videos)
        progress, close = tqdm_progress(f"evaluating {method}", "frame", not args.quiet)
        try:
            evaluations = evaluate_method(
                videos,
                results_root,
                threshold=args.threshold,
                workers=args.workers,
                progress=progress,
                pattern=args.pattern,
                offset=args.offset,
            )
        finally:
            close()
        method_videos[method] = [e.confusion for e in evaluations]
    _summarize_and_report(
        method_videos,
        args,
        parameters={
            "dataset": str(args.dataset),
            "threshold": args.threshold if args.threshold is not None else "exactly 255",
        },
    )
    return 0


# --- summarize -------------------------------------------------------------------------


def _add_summarize(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "summarize",
        help="summarize per-video confusion matrices (no images needed)",
        description="Summarize published per-video confusion matrices: each INPUT is one "
        "method, either a CSV 'category,video,TP,FP,FN,TN[,SE]' or a CDnet "
        "stats.txt. The method is named after the file (or, for stats.txt, its "
        "folder).",
    )
    parser.add_argument(
        "inputs", type=Path, nargs="+", metavar="INPUT", help="CM.csv or stats.txt of one method"
    )
    add_output_options(parser)
    parser.set_defaults(run=run_summarize)


def run_summarize(args: argparse.Namespace) -> int:
    _check_outputs(args)
    method_videos: dict[str, list[VideoConfusion]] = {}
    for path in args.inputs:
        if not path.is_file():
            raise InputFileError(
                path,
                "no such file; give a CSV of per-video confusion matrices or a CDnet stats.txt",
            )
        is_stats = path.name.lower() == "stats.txt" or path.suffix.lower() == ".txt"
        videos = stats_txt.read_stats_txt(path) if is_stats else cm_csv.read_cm_csv(path)
        base = path.parent if path.name.lower() == "stats.txt" else path.with_suffix("")
        method_videos[method_name(base, method_videos)] = videos
    _summarize_and_report(method_videos, args, parameters={"inputs": [str(p) for p in args.inputs]})
    return 0


# --- shared reporting --------------------------------------------------------------------


def _check_outputs(args: argparse.Namespace) -> None:
    refuse_overwrite([args.json, args.csv], args.force)
    if args.stats_txt is not None and len(_method_arguments(args)) == 1:
        refuse_overwrite([args.stats_txt], args.force)


def _method_arguments(args: argparse.Namespace) -> Sequence[Path]:
    return args.results if hasattr(args, "results") else args.inputs


def _read_custom_weights(path: Path) -> dict[tuple[str, str], float]:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as exc:
        raise InputFileError(path, f"cannot read custom weights ({exc.strerror})") from exc
    weights: dict[tuple[str, str], float] = {}
    for line, row in enumerate(rows, start=2):
        try:
            weights[(row["category"] or row["video"], row["video"])] = float(row["weight"])
        except (KeyError, TypeError, ValueError):
            raise InputFileError(
                path,
                f"line {line}: expected columns category,video,weight with a number in 'weight'",
            ) from None
    if not weights:
        raise InputFileError(
            path, "no weights: expected a header 'category,video,weight' and one row per video"
        )
    return weights


def _summarize_and_report(
    method_videos: dict[str, list[VideoConfusion]], args: argparse.Namespace, parameters: dict
) -> None:
    scheme, custom = args.weights, None
    if args.weights_csv is not None:
        scheme, custom = "custom", _read_custom_weights(args.weights_csv)
    results = [
        summarize_method(method, videos, scheme, custom) for method, videos in method_videos.items()
    ]
    ranking = compare_rankings(
        {r.method: r.summary for r in results}, {r.method: r.cdnet for r in results}, args.rank_by
    )
    _print_report(results, ranking, args.per_video)
    parameters = {**parameters, "weights": results[0].summary.scheme, "rank_by": args.rank_by}
    if args.json is not None:
        summary_io.write_results_json(args.json, results, [ranking], parameters)
    if args.csv is not None:
        summary_io.write_results_csv(args.csv, results)
    if args.stats_txt is not None:
        _write_stats_txt(args.stats_txt, results, args.force)


def _print_report(
    results: Sequence[MethodResult], ranking: RankComparison, per_video: bool
) -> None:
    blocks = []
    if per_video:
        blocks += [text_table.format_video_table(r) for r in results]
    blocks += [text_table.format_summary_table(results), text_table.format_cdnet_table(results)]
    if len(results) > 1:
        blocks.append(text_table.format_ranking_table(ranking))
    print("\n\n".join(blocks))


def _write_stats_txt(path: Path, results: Sequence[MethodResult], force: bool) -> None:
    if len(results) == 1:
        stats_txt.write_stats_txt(path, results[0].cdnet)
        return
    for result in results:
        target = path / result.method / "stats.txt"
        refuse_overwrite([target], force)
        target.parent.mkdir(parents=True, exist_ok=True)
        stats_txt.write_stats_txt(target, result.cdnet)
