"""``referee pseudo``: evaluate detectors without ground truth (SPEC §7).

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
from collections.abc import Sequence
from pathlib import Path

from referee.core.cli.common import parse_workers, refuse_overwrite, tqdm_progress
from referee.core.errors import InvalidOptionError

HEATMAP_COLORMAP = "viridis"


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``referee pseudo`` on the top-level parser."""
    parser = commands.add_parser(
        "pseudo",
        help="evaluate detectors without ground truth (pseudo ground truth from their consensus)",
        description="Pseudo ground truth (SPEC §7): the RESULTS form a committee whose "
        "per-pixel consensus P is the reference. Each detector gets pseudo "
        "precision, recall, F1 and every other indicator from its expected "
        "confusion matrix under P, summarized over videos by blending (SPEC §2), "
        "and pseudo NCC and PSNR between its masks and P. Pixels inside ROI.bmp "
        "(whole frame without one) of the frames of temporalROI.txt (without "
        "one: the frames every detector has) are evaluated; ground truth is not "
        "needed. When every video has ground truth, the true values are shown "
        "too, with the Pearson and Spearman correlation across detectors of "
        "each pseudo indicator and its true value.",
    )
    parser.add_argument(
        "dataset",
        type=Path,
        metavar="DATASET",
        help="dataset root (<category>/<video>/ folders with input/, ROI.bmp "
        "and temporalROI.txt; ground truth optional) or one video folder",
    )
    parser.add_argument(
        "results",
        type=Path,
        nargs="+",
        metavar="RESULTS",
        help="a detector's results root holding <category>/<video>/bin%%06d.png "
        "(or, for a one-video dataset, its result folder); the folder "
        "name is the detector's name",
    )
    parser.add_argument(
        "--heatmaps",
        type=Path,
        metavar="DIR",
        help="write DIR/<video>/consensus_<frame>.png (P of one frame) and "
        "entropy.png (mean binary entropy of P per pixel), colour-mapped "
        f"({HEATMAP_COLORMAP}, black outside the ROI), each with a "
        "16-bit grey *_grey16.png holding the values (0..1 → 0..65535)",
    )
    parser.add_argument(
        "--frame",
        type=int,
        metavar="N",
        help="frame of the consensus heatmap (default: the middle of each "
        "video's evaluated frames)",
    )
    parser.add_argument(
        "--no-trivial",
        action="store_true",
        help="leave the trivial all-ones and all-zeros classifiers out of the "
        "committee (default: in, K' = K + 2, as in the seed)",
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
        help="one non-negative weight per RESULTS, in order (default: equal); "
        "trivial classifiers weigh 1",
    )
    parser.add_argument(
        "--threshold",
        type=int,
        metavar="T",
        help="a mask pixel is a detection iff its value >= T (default: iff 255)",
    )
    parser.add_argument(
        "--weights",
        choices=("auto", "video", "category", "pixels"),
        default="auto",
        help="how videos are weighted in the summary (SPEC §2); 'auto' (default) is "
        "'category' when videos have categories, else 'video'",
    )
    parser.add_argument(
        "--json", type=Path, metavar="FILE", help="write every result, machine-readable, to FILE"
    )
    parser.add_argument(
        "--csv",
        type=Path,
        metavar="FILE",
        help="write one row per video and detector plus summary rows to FILE",
    )
    parser.add_argument(
        "--workers",
        type=parse_workers,
        default=1,
        metavar="N",
        help="number of worker processes (default 1)",
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite output files that already exist"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
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


def video_folder_name(category: str, video: str) -> str:
    """Folder of a video's heatmaps: ``<category>_<video>``, or the video alone when it
    has no category of its own."""
    return video if not category or category == video else f"{category}_{video}"


def has_ground_truth(videos: Sequence) -> bool:
    """Whether every video can be evaluated against ground truth (SPEC §1 needs
    ``groundtruth/``, ``ROI.bmp`` and ``temporalROI.txt``)."""
    from referee.core.model.videos import GROUNDTRUTH_DIR

    return all(
        (v.folder / GROUNDTRUTH_DIR).is_dir()
        and v.roi_path.is_file()
        and v.temporal_roi_path.is_file()
        for v in videos
    )


def run_pseudo(args: argparse.Namespace) -> int:
    from referee.core.cli.common import method_name
    from referee.core.evaluation.masks import evaluate_method
    from referee.core.exports import pseudo as pseudo_io
    from referee.core.formats.cdnet import discover_videos
    from referee.core.pseudo.committee import CommitteeOptions
    from referee.core.pseudo.dataset import pseudo_evaluate
    from referee.core.pseudo.truth import compare_with_truth

    refuse_overwrite([args.json, args.csv], args.force)
    videos = discover_videos(args.dataset, require_groundtruth=False)
    roots: dict[str, Path] = {}
    for path in args.results:
        roots[method_name(path, roots)] = path
    committee = CommitteeOptions(
        include_trivial=not args.no_trivial,
        leave_one_out=args.leave_one_out,
        weights=args.weights_detectors,
        threshold=args.threshold,
    )
    progress, close = tqdm_progress("pseudo ground truth", "frame", not args.quiet)
    try:
        result = pseudo_evaluate(
            videos,
            roots,
            committee,
            workers=args.workers,
            progress=progress,
            scheme=args.weights,
            entropy=args.heatmaps is not None,
        )
    finally:
        close()
    truth = None
    if has_ground_truth(videos):
        evaluations = {}
        for method, root in roots.items():
            progress, close = tqdm_progress(f"ground truth: {method}", "frame", not args.quiet)
            try:
                evaluations[method] = evaluate_method(
                    videos, root, threshold=args.threshold, workers=args.workers, progress=progress
                )
            finally:
                close()
        truth = compare_with_truth(result, evaluations)

    n_frames = sum(v.frames.size for v in result.videos)
    blocks = [
        f"Pseudo ground truth (SPEC §7), {committee.describe(result.methods)}\n"
        f"{len(result.videos)} video(s), {n_frames} frames; pixels inside each ROI; "
        + (
            "ground truth found: true values computed"
            if truth is not None
            else "no ground truth (or incomplete): pseudo values only"
        ),
        pseudo_io.format_pseudo_table(result, truth),
    ]
    if truth is not None:
        blocks.append(pseudo_io.format_correlation_table(truth))
    if args.heatmaps is not None:
        blocks.append(
            _write_heatmaps(args.heatmaps, result, videos, roots, committee, args.frame, args.force)
        )
    print("\n\n".join(blocks))
    parameters = {
        "dataset": str(args.dataset),
        "weights": result.scheme,
        "results": {m: str(p) for m, p in roots.items()},
    }
    if args.json is not None:
        pseudo_io.write_pseudo_json(args.json, result, truth, parameters)
    if args.csv is not None:
        pseudo_io.write_pseudo_csv(args.csv, result, truth)
    return 0


def _write_heatmaps(
    directory: Path,
    result,
    videos: Sequence,
    roots: dict[str, Path],
    committee,
    frame: int | None,
    force: bool,
) -> str:
    """Write each video's consensus and entropy heatmaps; return a line saying where."""
    from referee.core.formats.heatmap_png import write_heatmap_grey16_png, write_heatmap_png
    from referee.core.frames.results import result_sources
    from referee.core.pseudo.video import consensus_map

    sources = {m: result_sources(videos, root) for m, root in roots.items()}
    written = []
    for index, (video, evaluated) in enumerate(zip(videos, result.videos)):
        chosen = frame if frame is not None else int(evaluated.frames[evaluated.frames.size // 2])
        if chosen < 1:
            raise InvalidOptionError(f"--frame must be a frame number from 1, not {chosen}")
        folder = directory / video_folder_name(video.category, video.name)
        targets = [
            folder / f"consensus_{chosen:06d}.png",
            folder / f"consensus_{chosen:06d}_grey16.png",
            folder / "entropy.png",
            folder / "entropy_grey16.png",
        ]
        refuse_overwrite(targets, force)
        folder.mkdir(parents=True, exist_ok=True)
        p = consensus_map(video, chosen, {m: s[index] for m, s in sources.items()}, committee)
        write_heatmap_png(targets[0], p, colormap=HEATMAP_COLORMAP)
        write_heatmap_grey16_png(targets[1], p)
        assert evaluated.entropy is not None
        write_heatmap_png(targets[2], evaluated.entropy, colormap=HEATMAP_COLORMAP)
        write_heatmap_grey16_png(targets[3], evaluated.entropy)
        written.append(f"  {folder}: consensus of frame {chosen}, mean entropy")
    return (
        "Heatmaps (values 0..1; viridis, black outside the ROI; *_grey16.png hold "
        "the values ×65535):\n" + "\n".join(written)
    )
