"""``referee demo`` and ``referee demo-data``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from referee.core.cli.common import (
    Commands,
    add_force,
    add_frames,
    add_quiet,
    add_workers,
    frames_parameter,
    progress_bar,
)
from referee.core.cli.evaluate import SummaryOutputs, report_summaries, stats_txt_files
from referee.core.errors import InputFileError

# --- demo --------------------------------------------------------------------------------


def add_commands(commands: Commands) -> None:
    """Register ``demo-data`` and ``demo`` on the top-level parser."""
    _add_demo_data(commands)
    _add_demo(commands)


def _add_demo_data(commands: Commands) -> None:
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
    add_quiet(parser)
    parser.set_defaults(run=run_demo_data)


def run_demo_data(args: argparse.Namespace) -> int:
    from referee.core.demo.dataset import write_demo

    with progress_bar("writing demo", "frame", args.quiet) as progress:
        layout = write_demo(args.directory, progress=progress, seed=args.seed)
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


def _add_demo(commands: Commands) -> None:
    parser = commands.add_parser(
        "demo",
        help="evaluate the built-in demo (generated once, then reused)",
        description="Generate the demo dataset into Referee's data folder the first time, then "
        "evaluate every demo method on it and print the summary; the JSON, CSV "
        "and stats.txt outputs go to an 'evaluation' folder beside the demo (an earlier "
        "evaluation is kept unless --force). The folder also gets a project file, so "
        "'referee gui DIR' and 'referee report DIR' open the demo.",
    )
    parser.add_argument(
        "--dir",
        type=Path,
        metavar="DIR",
        help="where the demo lives (default: Referee's user data folder)",
    )
    add_frames(parser)
    add_workers(parser)
    add_quiet(parser)
    add_force(parser, "replace the evaluation of an earlier 'referee demo'")
    parser.set_defaults(run=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    """Prepare the demo project, evaluate its masks, print and write the summaries."""
    from referee.core.demo.project import default_demo_dir, ensure_demo_project
    from referee.core.workflow.options import PixelOptions
    from referee.core.workflow.pixels import run_pixels

    root = args.dir if args.dir is not None else default_demo_dir()
    out = root / "evaluation"
    outputs = SummaryOutputs(
        out / "results.json", out / "results.csv", out / "stats", False, args.force
    )
    _keep_earlier_evaluation([outputs.json, outputs.csv], args.force)
    with progress_bar("preparing demo", "frame", args.quiet) as progress:
        project = replace(ensure_demo_project(root, progress=progress), frame_range=args.frames)
    _keep_earlier_evaluation(
        stats_txt_files(out / "stats", [d.name for d in project.detectors]), args.force
    )
    try:
        out.mkdir(exist_ok=True)
    except OSError as exc:
        raise InputFileError(out, f"cannot create the folder ({exc.strerror})") from exc
    print(f"demo dataset: {project.dataset}\n")
    with progress_bar("evaluating masks", "frame", args.quiet) as progress:
        result = run_pixels(project, PixelOptions(workers=args.workers), progress)
    parameters = {
        "dataset": str(project.dataset),
        "threshold": "exactly 255",
        "frames": frames_parameter(args.frames),
    }
    report_summaries(result, outputs, parameters)
    print(
        f"\nwritten: {out / 'results.json'}, {out / 'results.csv'}, "
        f"{out / 'stats'}/<method>/stats.txt"
    )
    return 0


def _keep_earlier_evaluation(paths: Sequence[Path | None], force: bool) -> None:
    """Raise if one of the demo's outputs exists and ``--force`` was not given."""
    for path in paths:
        if path is not None and path.exists() and not force:
            raise InputFileError(
                path,
                "already exists, from an earlier 'referee demo'; add --force to replace "
                "the demo's evaluation",
            )
