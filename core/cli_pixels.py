"""``referee`` sub-commands for pixel masks: evaluate, summarize, curves, demo, demo-data."""

from __future__ import annotations

import argparse
import csv
from collections.abc import Sequence
from pathlib import Path

from .cli import add_output_options, parse_workers, refuse_overwrite, tqdm_progress
from .confusion import VideoConfusion
from .errors import InputFileError, RefereeError
from .formats import cm_csv, stats_txt, summary_io, text_table
from .summarize import MethodResult, RankComparison, compare_rankings, summarize_method


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register the pixel-mask commands on the top-level parser."""
    _add_evaluate(commands)
    _add_summarize(commands)
    _add_curves(commands)
    _add_demo_data(commands)
    _add_demo(commands)


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
    from .evaluate import evaluate_method
    from .formats.cdnet import discover_videos

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


def method_name(path: Path, taken: dict) -> str:
    resolved = path.resolve()
    name = (resolved.stem if resolved.is_file() else resolved.name) or str(path)
    if name in taken:
        raise RefereeError(
            f"two methods are both named {name!r} (after their folders or "
            "files); rename one so results can be told apart"
        )
    return name


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


# --- curves ------------------------------------------------------------------------------


def _add_curves(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "curves",
        help="ROC and PR curves of soft score maps (0-255), per video and summarized",
        description="Sweep all 256 thresholds of soft results in one pass (SPEC §3): a pixel "
        "is detected at threshold T iff its score >= T. Prints, per method, the "
        "threshold where the summarized F1 is highest; --csv writes every curve.",
    )
    parser.add_argument("dataset", type=Path, metavar="DATASET")
    parser.add_argument(
        "results",
        type=Path,
        nargs="+",
        metavar="RESULTS",
        help="a method's soft results root (<category>/<video>/bin%%06d.png)",
    )
    parser.add_argument(
        "--weights",
        choices=("auto", "video", "category", "pixels"),
        default="auto",
        help="summarization weights (SPEC §2; default auto)",
    )
    parser.add_argument(
        "--csv",
        type=Path,
        metavar="FILE",
        help="write every curve point (per video and summarized) to FILE",
    )
    parser.add_argument("--workers", type=parse_workers, default=1, metavar="N")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--force", action="store_true", help="overwrite output files that already exist"
    )
    parser.set_defaults(run=run_curves)


def run_curves(args: argparse.Namespace) -> int:
    from .curves import roc_pr_curves
    from .evaluate import score_histograms_method, summarized_histogram_curves
    from .formats.cdnet import discover_videos
    from .formats.curves_csv import write_curves_csv

    refuse_overwrite([args.csv], args.force)
    videos = discover_videos(args.dataset)
    rows, best = [], []
    taken: dict[str, None] = {}
    for results_root in args.results:
        method = method_name(results_root, taken)
        taken[method] = None
        progress, close = tqdm_progress(f"sweeping {method}", "frame", not args.quiet)
        try:
            histograms = score_histograms_method(videos, results_root, args.workers, progress)
        finally:
            close()
        scheme, summary = summarized_histogram_curves(histograms, args.weights)
        rows += [
            (method, "video", h.category, h.video, roc_pr_curves(h.histograms)) for h in histograms
        ]
        rows.append((method, f"summary:{scheme}", "", "", summary))
        best.append((method, scheme, summary))
    print(text_table.format_best_threshold_table(best))
    if args.csv is not None:
        write_curves_csv(args.csv, rows)
    return 0


# --- demo --------------------------------------------------------------------------------


def _add_demo_data(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "demo-data",
        help="write the small synthetic demo dataset and its methods' results",
        description="Write a small, deterministic CDnet-style demo into DIR: synthetic videos "
        "with noise, an illumination change and cast shadows, ground truth with "
        "all five CDnet grey levels, ROI and temporal ROI, and the masks of real "
        "OpenCV background subtractors run on it. DIR must be new, empty, or a "
        "previous demo.",
    )
    parser.add_argument("directory", type=Path, metavar="DIR")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run_demo_data)


def run_demo_data(args: argparse.Namespace) -> int:
    from .demo import write_demo

    progress, close = tqdm_progress("writing demo", "frame", not args.quiet)
    try:
        layout = write_demo(args.directory, progress=progress, seed=args.seed)
    finally:
        close()
    print(f"demo dataset: {layout.dataset}")
    for method, folder in layout.results.items():
        print(f"results of {method}: {folder}")
    for method, folder in layout.soft_results.items():
        print(f"soft scores of {method}: {folder}")
    print(f"ground-truth actions (LIRIS XML): {layout.actions_gt}")
    for method, path in layout.actions.items():
        print(f"actions tracked from {method}: {path}")
    for video, series in layout.counts.items():
        print(f"counts of {video}: " + ", ".join(str(p) for p in series.values()))
    return 0


def _add_demo(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "demo",
        help="evaluate the built-in demo (generated once, then reused)",
        description="Generate the demo dataset into Referee's data folder the first time, then "
        "evaluate every demo method on it and print the summary; the JSON, CSV "
        "and stats.txt outputs go to an 'evaluation' folder beside the demo.",
    )
    parser.add_argument(
        "--dir",
        type=Path,
        metavar="DIR",
        help="where the demo lives (default: Referee's user data folder)",
    )
    parser.add_argument(
        "--workers",
        type=parse_workers,
        default=1,
        metavar="N",
        help="number of worker processes (default 1)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run_demo)


def default_demo_dir() -> Path:
    """Where ``referee demo`` keeps its demo: ``<user data dir>/referee/demo``."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("referee", appauthor=False)) / "demo"


def run_demo(args: argparse.Namespace) -> int:
    from .demo import ensure_demo

    root = args.dir if args.dir is not None else default_demo_dir()
    progress, close = tqdm_progress("preparing demo", "frame", not args.quiet)
    try:
        layout = ensure_demo(root, progress=progress)
    finally:
        close()
    out = root / "evaluation"
    out.mkdir(exist_ok=True)
    print(f"demo dataset: {layout.dataset}\n")
    evaluate_args = argparse.Namespace(
        dataset=layout.dataset,
        results=list(layout.results.values()),
        threshold=None,
        pattern=None,
        offset=0,
        workers=args.workers,
        quiet=args.quiet,
        weights="auto",
        weights_csv=None,
        rank_by="f1",
        json=out / "results.json",
        csv=out / "results.csv",
        stats_txt=out / "stats",
        per_video=False,
        force=True,
    )
    run_evaluate(evaluate_args)
    print(
        f"\nwritten: {out / 'results.json'}, {out / 'results.csv'}, "
        f"{out / 'stats'}/<method>/stats.txt"
    )
    return 0
