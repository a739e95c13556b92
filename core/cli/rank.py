"""``referee rank``: which frames to annotate next (SPEC §8).

One command, two kinds of input, told apart by the arguments themselves:

* ``referee rank DATASET RESULTS...``: CDnet masks. DATASET is a dataset root
  or one video folder (ground truth not needed), RESULTS two or more methods'
  results roots. Criteria ``vote-entropy`` (default), ``pairwise`` (1 − Dice)
  and ``pseudo-gap``. Frames that already have a ground-truth file are skipped
  unless ``--include-annotated``.
* ``referee rank DET DET...``: detections, every argument a LIRIS XML file,
  a folder of ``.xml`` files, or a MOTChallenge ``.csv``/``.txt``. Criterion
  ``pairwise`` (default, 1 − FDA of two detectors' boxes) or ``classes``
  (LIRIS only: disagreement on the action classes present, over every input).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from referee.core.cli.common import parse_workers, refuse_overwrite, tqdm_progress
from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.ranking.criteria import (
    CLASSES,
    PAIRWISE_DICE,
    PAIRWISE_FDA,
    PSEUDO_GAP,
    VOTE_ENTROPY,
    FrameScores,
    describe,
)
from referee.core.ranking.order import DEFAULT_GAP, RankedFrame, rank_frames

#: ``--criterion`` choices; ``pairwise`` means 1 − Dice for masks, 1 − FDA for boxes.
CLI_CRITERIA: tuple[str, ...] = ("vote-entropy", "pairwise", "pseudo-gap", "classes")
MASKS, DETECTIONS = "masks", "detections"
_DETECTION_SUFFIXES = (".xml", ".csv", ".txt")

_DESCRIPTION = f"""\
Which frames should be annotated next? (SPEC §8)
Scores every frame by how much the detectors disagree on it (no ground truth
needed), then lists the frames by score, highest first (ties: lower frame
number first). After a frame is chosen, every frame of the same video within
±G frames of it (|Δ| <= G, default {DEFAULT_GAP}) is dropped, so the list spreads
over the video. Scores are in [0, 1]; higher means more disagreement.

Inputs (the kind is told from the arguments):
  DATASET RESULTS...   CDnet masks: a dataset root or one video folder, then two
                       or more methods' results roots (<category>/<video>/
                       bin%06d.png). Frames of each video's temporal ROI, pixels
                       inside its ROI.bmp (every pixel without one).
  DET DET...           detections: LIRIS XML files or folders of .xml files, or
                       MOTChallenge CSV (.csv/.txt); videos paired by name.
Methods are named after their folders / files.

Criteria (--criterion):
  vote-entropy  masks, default: mean binary entropy (bits) of the fraction of
                the detectors that detect each pixel (no trivial classifiers).
  pairwise      masks: 1 - Dice of two detectors' masks (0 when both are empty);
                detections, default: 1 - FDA of two detectors' boxes (0 on a
                frame where neither has a box).
  pseudo-gap    masks: |pseudo-F1 of A - pseudo-F1 of B| on the frame, under the
                consensus of every RESULTS plus the all-ones and all-zeros
                classifiers (SPEC §7 default committee).
  classes       LIRIS detections: 1 - |classes present for every detector| /
                |classes present for any| on the frame, over every input (0
                when none has an action).
pairwise and pseudo-gap compare two methods: --a and --b (default: the first two).

Already annotated frames: with masks, a frame whose groundtruth/gt%06d.png
exists is skipped (CDnet datasets are fully annotated, so add
--include-annotated to rank them anyway). Detection files carry no per-frame
annotation status: nothing is skipped.
"""


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``rank`` on the top-level parser."""
    parser = commands.add_parser(
        "rank",
        help="which frames to annotate next: rank frames by detector disagreement (SPEC §8)",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "inputs",
        type=Path,
        nargs="+",
        metavar="INPUT",
        help="DATASET RESULTS... (masks) or DET DET... (detections)",
    )
    parser.add_argument(
        "--criterion",
        choices=CLI_CRITERIA,
        help="disagreement criterion (default: vote-entropy for masks, pairwise for detections)",
    )
    parser.add_argument("--a", metavar="NAME", help="first method compared (with --b)")
    parser.add_argument("--b", metavar="NAME", help="second method compared (with --a)")
    parser.add_argument(
        "--gap",
        type=_gap,
        default=DEFAULT_GAP,
        metavar="G",
        help=f"drop frames within ±G frames of a chosen one (default "
        f"{DEFAULT_GAP}; 0 keeps every frame)",
    )
    parser.add_argument(
        "--top",
        type=parse_workers,
        metavar="N",
        help="list at most N frames (default: every frame left after the gap rule)",
    )
    parser.add_argument(
        "--include-annotated",
        action="store_true",
        help="masks: also rank frames that already have ground truth",
    )
    parser.add_argument(
        "--threshold",
        type=int,
        metavar="T",
        help="masks: a pixel is detected iff its value >= T (soft or lossy "
        "masks); default: iff exactly 255",
    )
    parser.add_argument(
        "--mapping",
        choices=("hungarian", "greedy"),
        default="hungarian",
        help="boxes: per-frame mapping for FDA (default hungarian)",
    )
    parser.add_argument(
        "--csv",
        type=Path,
        metavar="FILE",
        help="write the list to FILE: rank,video,frame,score,criterion",
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite output files that already exist"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run_rank)


def _gap(value: str) -> int:
    try:
        gap = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if gap < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return gap


# --- input kinds -----------------------------------------------------------------------------


def is_detection_input(path: Path) -> bool:
    """A LIRIS XML file, a folder holding ``.xml`` files, or a MOTChallenge CSV."""
    if path.is_file():
        return path.suffix.lower() in _DETECTION_SUFFIXES
    if path.is_dir():
        return any(p.is_file() and p.suffix.lower() == ".xml" for p in path.iterdir())
    return False


def input_kind(paths: Sequence[Path]) -> str:
    """:data:`MASKS` (DATASET RESULTS...) or :data:`DETECTIONS` (DET DET...).

    Raises
    ------
    InputFileError
        A missing path.
    InvalidOptionError
        Detection files mixed with anything else.
    """
    for path in paths:
        if not path.exists():
            raise InputFileError(path, "no such file or folder")
    detections = [is_detection_input(p) for p in paths]
    if all(detections):
        return DETECTIONS
    if any(detections):
        files = ", ".join(str(p) for p, d in zip(paths, detections) if d)
        raise InvalidOptionError(
            f"detection files ({files}) are mixed with other inputs; give either DATASET "
            "RESULTS... (CDnet masks) or only detection files (LIRIS XML, MOTChallenge CSV)"
        )
    return MASKS


def method_names(paths: Sequence[Path]) -> list[str]:
    """Each input's method name: its file stem or folder name, unique."""
    names: list[str] = []
    for path in paths:
        resolved = path.resolve()
        name = (resolved.stem if resolved.is_file() else resolved.name) or str(path)
        if name in names:
            raise InvalidOptionError(
                f"two methods are both named {name!r} (after their "
                "folders or files); rename one so they can be told apart"
            )
        names.append(name)
    return names


def _chosen_pair(args: argparse.Namespace) -> tuple[str, str] | None:
    if (args.a is None) != (args.b is None):
        raise InvalidOptionError("give both --a and --b, or neither")
    if args.a is None:
        return None
    if args.a == args.b:
        raise InvalidOptionError(f"--a and --b are both {args.a!r}; choose two different methods")
    return (args.a, args.b)


def _pick(names: Sequence[str], pair: tuple[str, str] | None) -> tuple[int, int]:
    if len(names) < 2:
        raise InvalidOptionError(f"comparing methods needs at least two, got {len(names)}")
    if pair is None:
        return 0, 1
    for name in pair:
        if name not in names:
            raise InvalidOptionError(
                f"no method named {name!r}; the methods are {', '.join(names)}"
            )
    return names.index(pair[0]), names.index(pair[1])


# --- running ---------------------------------------------------------------------------------


def run_rank(args: argparse.Namespace) -> int:
    """Score, rank, print and optionally write the frames to annotate next."""
    refuse_overwrite([args.csv], args.force)
    pair = _chosen_pair(args)
    kind = input_kind(args.inputs)
    criterion = args.criterion or ("vote-entropy" if kind == MASKS else "pairwise")
    if pair is not None and criterion in ("vote-entropy", "classes"):
        raise InvalidOptionError(
            f"--a/--b choose the two methods of 'pairwise' and "
            f"'pseudo-gap'; '{criterion}' uses every method given"
        )
    if kind == MASKS:
        if criterion == "classes":
            raise InvalidOptionError(
                "--criterion classes is for LIRIS action detections; for "
                "masks use vote-entropy, pairwise or pseudo-gap"
            )
        outcome = _mask_ranking(args, criterion, pair)
    else:
        if criterion in ("vote-entropy", "pseudo-gap"):
            raise InvalidOptionError(
                f"--criterion {criterion} is for masks (DATASET "
                "RESULTS...); for detections use pairwise or classes"
            )
        outcome = _detection_ranking(args, criterion, pair)
    if outcome is None:
        ranking: list[RankedFrame] = []
    else:
        scores, exclude, heading = outcome
        ranking = rank_frames(scores, args.gap, exclude, args.top)
        print(heading)
        print(format_ranking_table(ranking))
    if args.csv is not None:
        from referee.core.exports.ranking_csv import write_ranking_csv

        write_ranking_csv(args.csv, ranking)
    return 0


def _mask_ranking(
    args: argparse.Namespace, criterion: str, pair: tuple[str, str] | None
) -> tuple[list[FrameScores], dict[str, set[int]], str] | None:
    from referee.core.formats.annotated import annotated_frames
    from referee.core.formats.cdnet import discover_videos
    from referee.core.frames.results import result_sources
    from referee.core.ranking.scores import mask_scores, video_label

    if len(args.inputs) < 3:
        raise InvalidOptionError(
            "give a DATASET and at least two RESULTS folders (or only "
            "detection files); see 'referee rank --help'"
        )
    dataset, roots = args.inputs[0], list(args.inputs[1:])
    names = method_names(roots)
    a, b = _pick(names, pair)
    videos = discover_videos(dataset, require_groundtruth=False)
    total = sum(v.n_frames for v in videos)
    annotated = {video_label(v): annotated_frames(v) & set(v.frames) for v in videos}
    n_annotated = sum(len(f) for f in annotated.values())
    if not args.include_annotated and total and n_annotated == total:
        print(
            f"all {total} frames already have ground truth; use --include-annotated to "
            "rank them anyway"
        )
        return None
    key = {"vote-entropy": VOTE_ENTROPY, "pairwise": PAIRWISE_DICE, "pseudo-gap": PSEUDO_GAP}[
        criterion
    ]
    chosen = [a, b] if key == PAIRWISE_DICE else list(range(len(names)))
    sources = {names[k]: result_sources(videos, roots[k]) for k in chosen}
    progress, close = tqdm_progress("scoring frames", "frame", not args.quiet)
    try:
        scores = mask_scores(videos, sources, key, (names[a], names[b]), args.threshold, progress)
    finally:
        close()
    exclude = {} if args.include_annotated else annotated
    without_roi = sum(not v.roi_path.is_file() for v in videos)
    pixels = (
        "pixels inside ROI.bmp"
        if not without_roi
        else f"pixels inside ROI.bmp; every pixel in the {without_roi} without one"
    )
    plural = "s" if len(videos) != 1 else ""
    lines = [
        _title(key, scores[0] if scores else None, names),
        (f"{total} frames scored in {len(videos)} video{plural} (temporal ROI; {pixels})"),
    ]
    if args.include_annotated and n_annotated:
        lines.append(
            f"{n_annotated} of them already have ground truth and are ranked too "
            "(--include-annotated)"
        )
    elif n_annotated:
        lines.append(
            f"{n_annotated} of them already have ground truth and are skipped "
            "(--include-annotated ranks them too)"
        )
    lines.append(_gap_line(args.gap))
    return scores, exclude, "\n".join(lines)


def _detection_ranking(
    args: argparse.Namespace, criterion: str, pair: tuple[str, str] | None
) -> tuple[list[FrameScores], dict[str, set[int]], str]:
    from referee.core.cli.boxes import pair_single_videos, read_box_input
    from referee.core.ranking.scores import box_scores, class_scores

    paths = list(args.inputs)
    names = method_names(paths)
    if len(paths) < 2:
        raise InvalidOptionError("give at least two detection files to compare")
    if criterion == "classes":
        from referee.core.formats.liris_xml import read_liris

        for path in paths:
            if path.is_file() and path.suffix.lower() != ".xml":
                raise InvalidOptionError(
                    f"{path}: --criterion classes needs LIRIS XML action "
                    "files (MOTChallenge boxes have no class)"
                )
        scores = class_scores({name: read_liris(path) for name, path in zip(names, paths)})
        key = CLASSES
    else:
        a, b = _pick(names, pair)
        a_videos, a_kind = read_box_input(paths[a])
        b_videos, b_kind = read_box_input(paths[b])
        b_videos = pair_single_videos(a_videos, b_videos, (a_kind, b_kind))
        progress, close = tqdm_progress("scoring frames", "video", not args.quiet)
        try:
            scores = box_scores(
                a_videos, b_videos, (names[a], names[b]), args.mapping, progress=progress
            )
        finally:
            close()
        key = PAIRWISE_FDA
    total = sum(len(s) for s in scores)
    plural = "s" if len(scores) != 1 else ""
    lines = [
        _title(key, scores[0] if scores else None, names),
        (
            f"{total} frames scored in {len(scores)} video{plural} (from the first to the "
            "last frame with a detection); detection files carry no ground-truth status, "
            "so no frame is skipped"
        ),
        _gap_line(args.gap),
    ]
    if key == PAIRWISE_FDA:
        lines[0] += f"; mapping {args.mapping}"
    return scores, {}, "\n".join(lines)


def _title(key: str, example: FrameScores | None, names: Sequence[str]) -> str:
    if example is not None and key in (PAIRWISE_DICE, PSEUDO_GAP, PAIRWISE_FDA):
        who = f"{example.methods[0]} vs {example.methods[1]}"
        if key == PSEUDO_GAP:
            who += f", committee {', '.join(example.committee)} + all-ones + all-zeros"
    else:
        who = ", ".join(names)
    return f"Frames to annotate next (SPEC §8): {key} ({who}): {describe(key)}"


def _gap_line(gap: int) -> str:
    if gap == 0:
        return "no gap: neighbouring frames may all be listed"
    return f"after each chosen frame, frames within ±{gap} of it are dropped"


def format_ranking_table(ranking: Sequence[RankedFrame]) -> str:
    """The ranked frames as a terminal table: rank, video, frame, score."""
    if not ranking:
        return "no frame to rank"
    header = ["rank", "video", "frame", "score"]
    rows = [[str(r.rank), r.video, str(r.frame), f"{r.score:.4f}"] for r in ranking]
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows)]
    return "\n".join(
        "  ".join(
            c.ljust(w) if i == 1 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))
        )
        for line in [header, *rows]
    )


__all__ = [
    "CLI_CRITERIA",
    "add_commands",
    "format_ranking_table",
    "input_kind",
    "is_detection_input",
    "method_names",
    "run_rank",
]
