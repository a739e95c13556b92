"""``referee demo`` and ``referee demo-data``."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.core.cli.common import parse_workers, tqdm_progress
from referee.core.cli.evaluate import run_evaluate
from referee.core.demo.project import default_demo_dir

# --- demo --------------------------------------------------------------------------------


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``demo-data`` and ``demo`` on the top-level parser."""
    _add_demo_data(commands)
    _add_demo(commands)


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
    from referee.core.demo.dataset import write_demo

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


def run_demo(args: argparse.Namespace) -> int:
    from referee.core.demo.dataset import ensure_demo

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
