"""``referee rank``: which frames to annotate next (docs/measures.md §8).

One command, two kinds of input, told apart by the arguments themselves:

* ``referee rank DATASET RESULTS...``: CDnet masks. DATASET is a dataset root
  or one video folder (ground truth not needed), RESULTS two or more methods'
  results roots. Criteria ``vote-entropy`` (default), ``pairwise`` (1 − Dice)
  and ``pseudo-gap``. Frames that already have a ground-truth file are skipped
  unless ``--include-annotated``.
* ``referee rank PROJECT``: the masks of a project file's detectors, as above.
* ``referee rank DET DET...``: detections, every argument a LIRIS XML file,
  a folder of ``.xml`` files, or a MOTChallenge ``.csv``/``.txt``. Criterion
  ``pairwise`` (default, 1 − FDA of two detectors' boxes) or ``classes``
  (LIRIS only: disagreement on the action classes present, over every input).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from referee.core.cli import input_checks
from referee.core.cli.common import (
    Commands,
    add_cache,
    add_force,
    add_frames,
    add_output,
    add_pair,
    add_quiet,
    add_ranking_list,
    add_threshold,
    add_workers,
    chosen_pair,
    open_cache,
    progress_bar,
    refuse_frames,
    write_json,
)
from referee.core.cli.inputs import is_project_input, project_of_inputs
from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.measures.choices import MAPPINGS
from referee.core.model.project import Project
from referee.core.ranking.choices import (
    CLASSES,
    PAIRWISE_DICE,
    PAIRWISE_FDA,
    PSEUDO_GAP,
    VOTE_ENTROPY,
)
from referee.core.workflow.options import RankingOptions

if TYPE_CHECKING:
    from referee.core.ranking.criteria import FrameScores
    from referee.core.ranking.order import RankedFrame
    from referee.core.workflow.results import RankingResult

#: ``--criterion`` choices; ``pairwise`` means 1 − Dice for masks, 1 − FDA for boxes.
CLI_CRITERIA: tuple[str, ...] = ("vote-entropy", "pairwise", "pseudo-gap", "classes")
MASKS, DETECTIONS = "masks", "detections"

_DESCRIPTION = f"""\
Which frames should be annotated next? (docs/measures.md §8)
Scores every frame by how much the detectors disagree on it (no ground truth
needed), then lists the frames by score, highest first (ties: lower frame
number first). After a frame is chosen, every frame of the same video within
±G frames of it (|Δ| <= G, default {RankingOptions.gap}) is dropped, so the list spreads
over the video. Scores are in [0, 1]; higher means more disagreement.

Inputs (the kind is told from the arguments):
  DATASET RESULTS...   CDnet masks: a dataset root or one video folder, then two
                       or more methods' results roots (<category>/<video>/
                       bin%06d.png). Frames of each video's temporal ROI, pixels
                       inside its ROI.bmp (every pixel without one).
  PROJECT              a project file (*.referee.json, 'referee project new') alone:
                       its dataset and its detectors' masks, as DATASET RESULTS...
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
                classifiers (the default committee of §7).
  classes       LIRIS detections: 1 - |classes present for every detector| /
                |classes present for any| on the frame, over every input (0
                when none has an action).
pairwise and pseudo-gap compare two methods: --a and --b (default: the first two).

Already annotated frames: with masks, a frame whose groundtruth/gt%06d.png
exists is skipped (CDnet datasets are fully annotated, so add
--include-annotated to rank them anyway). Detection files carry no per-frame
annotation status: nothing is skipped.
"""


def add_commands(commands: Commands) -> None:
    """Register ``rank`` on the top-level parser."""
    parser = commands.add_parser(
        "rank",
        help="which frames to annotate next: rank frames by detector disagreement",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "inputs",
        type=Path,
        nargs="+",
        metavar="INPUT",
        help="DATASET RESULTS... (masks), PROJECT (a project file's masks) or DET DET... "
        "(detections)",
    )
    input_checks.require(parser, "inputs", _missing_input)
    parser.add_argument(
        "--criterion",
        choices=CLI_CRITERIA,
        help="disagreement criterion (default: vote-entropy for masks, pairwise for detections)",
    )
    add_pair(parser, "compared by pairwise and pseudo-gap")
    add_ranking_list(parser)
    add_threshold(parser, "masks: a pixel")
    add_frames(parser)
    parser.add_argument(
        "--mapping",
        choices=MAPPINGS,
        default=RankingOptions.mapping,
        help=f"boxes: per-frame mapping for FDA (default {RankingOptions.mapping})",
    )
    add_output(parser, "--csv", "write the list to FILE: rank,video,frame,score,criterion")
    add_output(
        parser,
        "--json",
        "write the criterion, the frames considered and annotated, and the list (every "
        "digit of each score) to FILE",
    )
    add_force(parser)
    add_workers(parser)
    add_cache(parser, "disagreement scores")
    add_quiet(parser)
    parser.set_defaults(run=run_rank)


# --- input kinds -----------------------------------------------------------------------------


def _missing_input(paths: Sequence[Path], index: int) -> None:
    """What :func:`run_rank` says of an input that does not exist (a project file alone is
    opened as one)."""
    if len(paths) == 1 and is_project_input(paths[0]):
        input_checks.opened(paths, index)
    raise InputFileError(paths[index], "no such file or folder")


def is_detection_input(path: Path) -> bool:
    """Whether ``path`` holds detections: boxes or actions in a registered format."""
    from referee.core.formats import registry

    return registry.claims_any(path, registry.BOXES)


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


# --- running ---------------------------------------------------------------------------------

#: ``--criterion`` as the command spells it, by input kind, to the criterion's key.
_CRITERIA = {
    MASKS: {"vote-entropy": VOTE_ENTROPY, "pairwise": PAIRWISE_DICE, "pseudo-gap": PSEUDO_GAP},
    DETECTIONS: {"pairwise": PAIRWISE_FDA, "classes": CLASSES},
}


def run_rank(args: argparse.Namespace) -> int:
    """Score, rank, print and optionally write the frames to annotate next."""
    from referee.core.workflow.projects import project_of_outputs
    from referee.core.workflow.ranking import run_ranking

    pair = chosen_pair(args)
    from_project = len(args.inputs) == 1 and is_project_input(args.inputs[0])
    kind = MASKS if from_project else input_kind(args.inputs)
    criterion = args.criterion or ("vote-entropy" if kind == MASKS else "pairwise")
    if pair is not None and criterion in ("vote-entropy", "classes"):
        raise InvalidOptionError(
            f"--a/--b choose the two methods of 'pairwise' and "
            f"'pseudo-gap'; '{criterion}' uses every method given"
        )
    if criterion not in _CRITERIA[kind]:
        raise InvalidOptionError(
            "--criterion classes is for LIRIS action detections; for masks use "
            "vote-entropy, pairwise or pseudo-gap"
            if kind == MASKS
            else f"--criterion {criterion} is for masks (DATASET RESULTS...); for detections "
            "use pairwise or classes"
        )
    if kind == MASKS:
        dataset, results = args.inputs[0], args.inputs[1:]
        project = project_of_inputs("rank", dataset, results, args.frames, at_least=2)
    else:
        if len(args.inputs) < 2:
            raise InvalidOptionError("give at least two detection files to compare")
        refuse_frames(args.frames, "detection files")
        outputs = "actions" if criterion == "classes" else "boxes"
        project = project_of_outputs(outputs, args.inputs)
    options = RankingOptions(
        _CRITERIA[kind][criterion],
        pair,
        args.top,
        args.gap,
        args.include_annotated,
        args.threshold,
        args.mapping,
        args.workers,
    )
    names = [d.name for d in project.detectors]
    for name in pair or ():
        if name not in names:
            raise InvalidOptionError(
                f"no method named {name!r}; the methods are {', '.join(names)}"
            )
    with progress_bar("scoring frames", "frame", args.quiet) as progress:
        result = run_ranking(project, options, progress, cache=open_cache(args.cache))
    if result.all_annotated:
        print(
            f"all {result.considered} frames already have ground truth; use "
            "--include-annotated to rank them anyway"
        )
    else:
        print(_heading(result, project))
        print(format_ranking_table(result.frames))
    if args.csv is not None:
        from referee.core.exports.ranking_csv import write_ranking_csv

        write_ranking_csv(args.csv, result.frames)
    if args.json is not None:
        from referee.core.exports.ranking_json import ranking_to_dict

        counts = (result.considered, result.annotated, result.all_annotated)
        parameters = {"inputs": [str(p) for p in args.inputs], "top": args.top, "gap": args.gap}
        write_json(
            args.json,
            ranking_to_dict(result.criterion, result.methods, counts, result.frames, parameters),
        )
    return 0


def _heading(result: RankingResult, project: Project) -> str:
    """What was scored, and the rules applied, above the table."""
    from referee.core.workflow.projects import project_videos

    scores = result.scores
    lines = [_title(result.criterion, scores[0] if scores else None, list(result.methods))]
    plural = "s" if len(scores) != 1 else ""
    if project.dataset is not None:
        videos = project_videos(project, require_groundtruth=False)
        without_roi = sum(not v.roi_path.is_file() for v in videos)
        pixels = (
            "pixels inside ROI.bmp"
            if not without_roi
            else f"pixels inside ROI.bmp; every pixel in the {without_roi} without one"
        )
        frames = (
            "temporal ROI"
            if project.frame_range is None
            else f"temporal ROI within frames {project.frame_range}"
        )
        lines.append(
            f"{result.considered} frames scored in {len(scores)} video{plural} ({frames}; {pixels})"
        )
        if result.options.include_annotated and result.annotated:
            lines.append(
                f"{result.annotated} of them already have ground truth and are ranked too "
                "(--include-annotated)"
            )
        elif result.annotated:
            lines.append(
                f"{result.annotated} of them already have ground truth and are skipped "
                "(--include-annotated ranks them too)"
            )
    else:
        lines.append(
            f"{result.considered} frames scored in {len(scores)} video{plural} (the frames with "
            "a detection); detection files carry no ground-truth "
            "status, so no frame is skipped"
        )
    lines.append(_gap_line(result.options.gap))
    if result.criterion == PAIRWISE_FDA:
        lines[0] += f"; mapping {result.options.mapping}"
    return "\n".join(lines)


def _title(key: str, example: FrameScores | None, names: Sequence[str]) -> str:
    from referee.core.ranking.criteria import describe

    if example is not None and key in (PAIRWISE_DICE, PSEUDO_GAP, PAIRWISE_FDA):
        who = f"{example.methods[0]} vs {example.methods[1]}"
        if key == PSEUDO_GAP:
            who += f", committee {', '.join(example.committee)} + all-ones + all-zeros"
    else:
        who = ", ".join(names)
    return f"Frames to annotate next (docs/measures.md §8): {key} ({who}): {describe(key)}"


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
