"""``referee evaluate`` and ``referee summarize``: masks and published counts
(docs/measures.md §1, §2)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from referee.core.cli import input_checks
from referee.core.cli.common import (
    Commands,
    add_cache,
    add_force,
    add_frames,
    add_output,
    add_quiet,
    add_threshold,
    add_weights,
    add_workers,
    check_output_file,
    check_output_folder,
    frames_parameter,
    missing_parameters,
    open_cache,
    progress_bar,
    refuse_overwrite,
    report_missing,
)
from referee.core.cli.inputs import add_dataset_and_results, input_parameters, project_of_inputs
from referee.core.errors import InputFileError
from referee.core.workflow.options import PixelOptions

if TYPE_CHECKING:
    from referee.core.workflow.results import PixelResult


def add_commands(commands: Commands) -> None:
    """Register ``evaluate`` and ``summarize`` on the top-level parser."""
    _add_evaluate(commands)
    _add_summarize(commands)


def add_summary_options(parser: argparse.ArgumentParser) -> None:
    """The options of every command that summarizes confusion matrices, and its outputs."""
    add_weights(parser)
    parser.add_argument(
        "--weights-csv",
        type=Path,
        metavar="FILE",
        help="custom weights: CSV 'category,video,weight' (overrides --weights)",
    )
    input_checks.require(parser, "weights_csv", input_checks.text_file)
    parser.add_argument(
        "--rank-by",
        default=PixelOptions.rank_by,
        metavar="INDICATOR",
        help="indicator comparing the rankings of the two procedures "
        f"(default: {PixelOptions.rank_by})",
    )
    add_output(parser, "--json", "write every result, machine-readable, to FILE")
    add_output(parser, "--csv", "write one row per video and method plus summary rows to FILE")
    add_output(
        parser,
        "--stats-txt",
        "write CDnet's official stats.txt; with several methods, PATH is a folder "
        "that gets <method>/stats.txt",
        metavar="PATH",
        kind="file or folder",
    )
    parser.add_argument(
        "--per-video", action="store_true", help="also print the per-video table of each method"
    )
    add_force(parser)


# --- evaluate --------------------------------------------------------------------------


def _add_evaluate(commands: Commands) -> None:
    parser = commands.add_parser(
        "evaluate",
        help="evaluate background-subtraction masks against CDnet ground truth",
        description="Compare the binary masks of one or more methods with a CDnet-style "
        "dataset (docs/measures.md §1), then summarize over videos by blending normalized "
        "confusion matrices and, side by side, by the CDnet procedure (§2).",
    )
    add_dataset_and_results(
        parser,
        "dataset root (<category>/<video>/{groundtruth,ROI.bmp,temporalROI.txt}) or one "
        "video folder",
        "a method's results root holding <category>/<video>/bin%%06d.png, "
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
        default=PixelOptions.offset,
        metavar="K",
        help="with --pattern: frame i is file number i+K (-1 for files numbered from 0)",
    )
    add_threshold(parser, "a result pixel")
    add_frames(parser)
    add_workers(parser)
    add_cache(parser)
    add_quiet(parser)
    add_summary_options(parser)
    parser.set_defaults(run=run_evaluate)


def run_evaluate(args: argparse.Namespace) -> int:
    """Evaluate every RESULTS against the dataset, print and write the summaries."""
    from referee.core.workflow.pixels import run_pixels

    project = project_of_inputs("evaluate", args.dataset, args.results, args.frames)
    _check_stats_txt(args, list(project.mask_detectors()))
    options = _pixel_options(args, args.threshold, args.workers, args.pattern, args.offset)
    cache = open_cache(args.cache)
    with progress_bar("evaluating masks", "frame", args.quiet) as progress:
        result = run_pixels(project, options, progress, cache=cache)
    threshold = args.threshold if args.threshold is not None else "exactly 255"
    parameters = {
        **input_parameters(project),
        "threshold": threshold,
        "frames": frames_parameter(args.frames),
        **missing_parameters(result.missing),
    }
    report_summaries(result, SummaryOutputs.of(args), parameters)
    return report_missing(result.missing)


# --- summarize -------------------------------------------------------------------------


def _add_summarize(commands: Commands) -> None:
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
    input_checks.require(parser, "inputs", input_checks.in_format("confusions"))
    add_summary_options(parser)
    parser.set_defaults(run=run_summarize)


def run_summarize(args: argparse.Namespace) -> int:
    """Summarize the given per-video confusion matrices, print and write the summaries."""
    from referee.core.formats import registry
    from referee.core.workflow.pixels import summarize_pixels
    from referee.core.workflow.projects import method_names

    bases = [p.parent if p.name.lower() == "stats.txt" else p.with_suffix("") for p in args.inputs]
    _check_stats_txt(args, method_names(bases))
    confusions = {
        name: registry.read(path, registry.CONFUSIONS)[0]
        for name, path in zip(method_names(bases), args.inputs)
    }
    result = summarize_pixels(confusions, _pixel_options(args))
    report_summaries(result, SummaryOutputs.of(args), {"inputs": [str(p) for p in args.inputs]})
    return 0


# --- shared reporting --------------------------------------------------------------------


def _pixel_options(
    args: argparse.Namespace,
    threshold: int | None = None,
    workers: int | None = PixelOptions.workers,
    pattern: str | None = None,
    offset: int = PixelOptions.offset,
) -> PixelOptions:
    custom = None
    if args.weights_csv is not None:
        from referee.core.formats.weights_csv import read_weights_csv

        custom = read_weights_csv(args.weights_csv)
    return PixelOptions(
        threshold=threshold,
        weights=args.weights,
        custom_weights=custom,
        rank_by=args.rank_by,
        workers=workers,
        pattern=pattern,
        offset=offset,
    )


def _check_stats_txt(args: argparse.Namespace, methods: Sequence[str]) -> None:
    """``--stats-txt`` is a file for one method, a folder of ``<method>/stats.txt`` for more."""
    if args.stats_txt is None:
        return
    if len(methods) == 1:
        check_output_file(args.stats_txt, args.force)
    else:
        check_output_folder(args.stats_txt, "--stats-txt")
        refuse_overwrite(stats_txt_files(args.stats_txt, methods), args.force)


def stats_txt_files(folder: Path, methods: Sequence[str]) -> list[Path]:
    """Where ``--stats-txt`` puts the stats.txt of each of several methods."""
    return [folder / method / "stats.txt" for method in methods]


@dataclass(frozen=True)
class SummaryOutputs:
    """Where the summaries go: ``--json``, ``--csv``, ``--stats-txt``, ``--per-video``."""

    json: Path | None = None
    csv: Path | None = None
    stats_txt: Path | None = None
    per_video: bool = False
    force: bool = False

    @classmethod
    def of(cls, args: argparse.Namespace) -> SummaryOutputs:
        return cls(args.json, args.csv, args.stats_txt, args.per_video, args.force)


def report_summaries(
    result: PixelResult, args: SummaryOutputs, parameters: Mapping[str, object]
) -> None:
    """Print the summaries and write the ``--json``, ``--csv`` and ``--stats-txt`` outputs."""
    from referee.core.exports import summary as summary_io
    from referee.core.exports import text_table
    from referee.core.exports.boxes import annotated_dict, annotated_notes
    from referee.core.formats import stats_txt

    methods = list(result.methods.values())
    stats_files = []  # several methods: one stats.txt each in the folder --stats-txt
    if args.stats_txt is not None and len(methods) > 1:
        stats_files = stats_txt_files(args.stats_txt, list(result.methods))
    refuse_overwrite(stats_files, args.force)  # before writing anything
    blocks = [text_table.format_video_table(r) for r in methods] if args.per_video else []
    blocks += [text_table.format_summary_table(methods), text_table.format_cdnet_table(methods)]
    if len(methods) > 1:
        blocks.append(text_table.format_ranking_table(result.ranking))
    notes = annotated_notes(sorted(result.annotated_only), result.annotated_only)
    print("\n\n".join(blocks + (["\n".join(notes)] if notes else [])))
    parameters = {
        **parameters,
        "weights": result.scheme,
        "rank_by": result.options.rank_by,
        "partly_annotated": [annotated_dict(f) for _, f in sorted(result.annotated_only.items())],
    }
    if args.json is not None:
        summary_io.write_results_json(args.json, methods, [result.ranking], parameters)
    if args.csv is not None:
        summary_io.write_results_csv(args.csv, methods)
    if args.stats_txt is not None and not stats_files:
        stats_txt.write_stats_txt(args.stats_txt, methods[0].cdnet)
    for method, target in zip(methods, stats_files):
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputFileError(
                target.parent, f"cannot create the folder ({exc.strerror}); check the path"
            ) from exc
        stats_txt.write_stats_txt(target, method.cdnet)
