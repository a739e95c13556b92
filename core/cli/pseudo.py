"""``referee pseudo``: evaluate detectors without ground truth (docs/measures.md §7).

The detectors given as RESULTS form a committee whose consensus is the
pseudo ground truth. Each detector gets a pseudo confusion matrix per video,
summarized over videos like real ones; pseudo NCC and PSNR compare its masks
with the consensus map. When the dataset also has ground truth, each
detector's true values are computed too and every pseudo indicator is
correlated with its true value across detectors. ``--heatmaps`` writes the
consensus of one frame and the mean per-pixel entropy of each video as PNG.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from referee.core.cli.common import (
    Commands,
    add_consensus,
    add_frames,
    add_output,
    add_outputs,
    add_quiet,
    add_threshold,
    add_weights,
    add_workers,
    committee_options,
    frames_parameter,
    progress_bar,
    refuse_overwrite,
)
from referee.core.cli.inputs import add_dataset_and_results, input_parameters, project_of_inputs
from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.model.project import Project

if TYPE_CHECKING:
    from referee.core.workflow.results import PseudoOutcome

HEATMAP_COLORMAP = "viridis"


def add_commands(commands: Commands) -> None:
    """Register ``referee pseudo`` on the top-level parser."""
    parser = commands.add_parser(
        "pseudo",
        help="evaluate detectors without ground truth (pseudo ground truth from their consensus)",
        description="Pseudo ground truth (docs/measures.md §7): the RESULTS form a committee whose "
        "per-pixel consensus P is the reference. Each detector gets pseudo "
        "precision, recall, F1 and every other indicator from its expected "
        "confusion matrix under P, summarized over videos by blending (§2), "
        "and pseudo NCC and PSNR between its masks and P. Pixels inside ROI.bmp "
        "(whole frame without one) of the frames of temporalROI.txt (without "
        "one: the frames every detector has) are evaluated; ground truth is not "
        "needed. When every video has ground truth, the true values are shown "
        "too, with the Pearson and Spearman correlation across detectors of "
        "each pseudo indicator and its true value.",
    )
    add_dataset_and_results(
        parser,
        "dataset root (<category>/<video>/ folders with input/, ROI.bmp "
        "and temporalROI.txt; ground truth optional) or one video folder",
        "two or more detectors' results roots holding <category>/<video>/bin%%06d.png "
        "(or, for a one-video dataset, their result folders); the folder "
        "name is the detector's name",
    )
    add_output(
        parser,
        "--heatmaps",
        "write DIR/<video>/consensus_<frame>.png (P of one frame) and "
        "entropy.png (mean binary entropy of P per pixel), colour-mapped "
        f"({HEATMAP_COLORMAP}, black outside the ROI), each with a "
        "16-bit grey *_grey16.png holding the values (0..1 → 0..65535)",
        metavar="DIR",
        kind="folder",
    )
    parser.add_argument(
        "--frame",
        type=int,
        metavar="N",
        help="frame of the consensus heatmap (default: the middle of each "
        "video's evaluated frames)",
    )
    add_consensus(parser)
    parser.add_argument(
        "--no-trivial",
        action="store_true",
        help="committee consensus: leave the trivial all-ones and all-zeros classifiers "
        "out (default: in, K' = K + 2, as in the seed)",
    )
    parser.add_argument(
        "--leave-one-out",
        action="store_true",
        help="evaluate each detector against the consensus of the others "
        "(default: of the whole committee)",
    )
    parser.add_argument(
        "--weights-detectors",
        type=_parse_weights,
        metavar="W1,W2,...",
        help="committee consensus: one non-negative weight per detector with masks, in "
        "order (RESULTS, or the project's detectors; default: equal); trivial classifiers "
        "weigh 1",
    )
    add_threshold(parser)
    add_frames(parser)
    add_weights(parser)
    add_outputs(
        parser,
        "write every result, machine-readable, to FILE",
        "write one row per video and detector plus summary rows to FILE",
    )
    add_workers(parser)
    add_quiet(parser)
    parser.set_defaults(run=run_pseudo)


def _parse_weights(text: str) -> tuple[float, ...]:
    try:
        weights = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated numbers such as 1,2,0.5, got {text!r}"
        ) from None
    if any(not w >= 0 or w == float("inf") for w in weights):
        raise argparse.ArgumentTypeError("weights must be finite and non-negative")
    return weights


def run_pseudo(args: argparse.Namespace) -> int:
    """Evaluate the committee, print the tables and write the outputs."""
    from referee.core.exports import pseudo as pseudo_io
    from referee.core.exports.boxes import annotated_notes
    from referee.core.pseudo.truth import truth_agreement
    from referee.core.workflow.options import PseudoOptions
    from referee.core.workflow.projects import project_videos
    from referee.core.workflow.pseudo import run_pseudo as evaluate

    committee = committee_options(args, args.weights_detectors)
    project = project_of_inputs("pseudo", args.dataset, args.results, args.frames, at_least=2)
    options = PseudoOptions(committee, args.weights, args.workers, args.heatmaps is not None)
    with progress_bar("pseudo ground truth", "frame", args.quiet) as progress:
        outcome = evaluate(project, options, progress)
    result, truth = outcome.result, outcome.truth
    n_frames = sum(v.frames.size for v in result.videos)
    blocks = [
        f"Pseudo ground truth (docs/measures.md §7), {committee.describe(result.methods)}\n"
        f"{len(result.videos)} video(s), {n_frames} frames; pixels inside each ROI; "
        + (
            "ground truth found: true values computed"
            if truth is not None
            else "no ground truth (or incomplete): pseudo values only"
        ),
        pseudo_io.format_pseudo_table(result, truth),
    ]
    if truth is not None:
        partial = {
            v.label: subset
            for v in project_videos(project)
            if (subset := v.annotated_subset()) is not None
        }
        notes = annotated_notes(sorted(partial), partial)
        if notes:
            blocks.append("True values of partly annotated videos:\n" + "\n".join(notes))
        blocks.append(pseudo_io.format_correlation_table(truth))
        warning = pseudo_io.format_disagreement(truth_agreement(result, truth))
        if warning is not None:
            blocks.append(warning)
    if args.heatmaps is not None:
        blocks.append(_write_heatmaps(project, outcome, args.heatmaps, args.frame, args.force))
    print("\n\n".join(blocks))
    parameters = {
        **input_parameters(project),
        "weights": result.scheme,
        "frames": frames_parameter(args.frames),
        "results": {name: str(root) for name, root in project.mask_detectors().items()},
    }
    if args.json is not None:
        pseudo_io.write_pseudo_json(args.json, result, truth, parameters)
    if args.csv is not None:
        pseudo_io.write_pseudo_csv(args.csv, result, truth)
    return 0


def _write_heatmaps(
    project: Project, outcome: PseudoOutcome, directory: Path, frame: int | None, force: bool
) -> str:
    """Write each video's consensus and entropy heatmaps; return a line saying where."""
    from referee.core.formats.heatmap_png import write_heatmap_grey16_png, write_heatmap_png
    from referee.core.workflow.pseudo import consensus_maps

    if frame is not None and frame < 1:
        raise InvalidOptionError(f"--frame must be a frame number from 1, not {frame}")
    written = []
    middle = {v.key: int(v.frames[v.frames.size // 2]) for v in outcome.result.videos}
    maps = consensus_maps(
        project, outcome, lambda v: [frame if frame is not None else middle[v.key]]
    )
    folders = [directory / video.file_stem for video, _, _ in maps]
    targets = [
        [
            folder / f"consensus_{chosen:06d}.png",
            folder / f"consensus_{chosen:06d}_grey16.png",
            folder / "entropy.png",
            folder / "entropy_grey16.png",
        ]
        for folder, (_, chosen, _) in zip(folders, maps)
    ]
    refuse_overwrite([path for paths in targets for path in paths], force)  # before any write
    for (video, chosen, consensus), folder, paths in zip(maps, folders, targets):
        entropy = outcome.result.video(video.key).entropy
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputFileError(
                folder, f"cannot create the folder ({exc.strerror}); check the path"
            ) from exc
        write_heatmap_png(paths[0], consensus, colormap=HEATMAP_COLORMAP)
        write_heatmap_grey16_png(paths[1], consensus)
        if entropy is not None:  # asked for with --heatmaps
            write_heatmap_png(paths[2], entropy, colormap=HEATMAP_COLORMAP)
            write_heatmap_grey16_png(paths[3], entropy)
        written.append(f"  {folder}: consensus of frame {chosen}, mean entropy")
    return (
        "Heatmaps (values 0..1; viridis, black outside the ROI; *_grey16.png hold "
        "the values ×65535):\n" + "\n".join(written)
    )
