"""``referee agreement``: how well annotators agree on the same frames (docs/measures.md §13).

The annotators come from a project file's ``annotators``, or are given as folders after
a dataset, each named after its folder. Over the frames every annotator labelled, each
pair gets its confusion, Cohen's κ and Dice, and each annotator its sensitivity and
specificity against the STAPLE consensus of all of them; ``--write-consensus`` writes
that consensus as ground truth.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from referee.core.cli import input_checks
from referee.core.cli.common import (
    Commands,
    add_frames,
    add_output,
    add_outputs,
    add_quiet,
    frames_parameter,
    progress_bar,
)
from referee.core.errors import InputFileError, InvalidOptionError

if TYPE_CHECKING:
    from referee.core.model.project import Project

#: The annotators' layout, for the help.
_LAYOUT = "<category>/<video>/groundtruth/gt%%06d.png, like the dataset"
#: What PROJECT is not when it is not a folder (nor a project file).
_NOT_OPENED = "is neither a project file nor a dataset folder; give either"


def add_commands(commands: Commands) -> None:
    """Register ``referee agreement`` on the top-level parser."""
    parser = commands.add_parser(
        "agreement",
        help="how well annotators agree: kappa, Dice and a STAPLE consensus of their ground truth",
        description="Agreement between annotators (docs/measures.md §13). Over the frames "
        "that every annotator labelled, on the pixels inside ROI.bmp that every annotator "
        "labelled 0, 50 or 255 (85 and 170 are not counted; motion is 255): each pair's "
        "confusion, Cohen's kappa and Dice, pooled, per video and per frame; and each "
        "annotator's sensitivity and specificity against the STAPLE consensus of all of "
        "them (the model of §7, fitted per video by EM, annotators in place of detectors).",
    )
    parser.add_argument(
        "dataset",
        type=Path,
        metavar="PROJECT",
        help="a project file (*.referee.json) naming its 'annotators'; or a dataset folder "
        "followed by the annotators' folders",
    )
    parser.add_argument(
        "roots",
        type=Path,
        nargs="*",
        metavar="ANNOTATOR",
        help=f"after a dataset folder: two or more annotators' folders holding {_LAYOUT}; "
        "each annotator is named after its folder",
    )
    input_checks.require(parser, "dataset", _missing_dataset)
    input_checks.require(parser, "roots", _missing_annotator)
    parser.add_argument(
        "--annotators",
        type=_names,
        metavar="A,B,...",
        help="compare only these annotators (default: all of them)",
    )
    add_frames(parser)
    add_output(
        parser,
        "--write-consensus",
        f"write the STAPLE consensus of the frames compared as ground truth to DIR ({_LAYOUT}"
        "; motion where the consensus is at least 0.5); existing files only with --force",
        metavar="DIR",
        kind="folder",
    )
    add_outputs(parser, "write every result, per frame too, machine-readable, to FILE")
    add_quiet(parser)
    parser.set_defaults(run=run_agreement)


def _names(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if len(set(names)) < 2:
        raise argparse.ArgumentTypeError(
            f"name two different annotators, such as A,B; got {text!r}"
        )
    return names


def run_agreement(args: argparse.Namespace) -> int:
    """Compare the annotators, print the tables and write the outputs."""
    from referee.core.exports.agreement import format_agreement, write_agreement_json
    from referee.core.workflow.agreement import run_agreement as compare
    from referee.core.workflow.options import AgreementOptions

    project = _project(args)
    options = AgreementOptions(args.annotators, args.write_consensus, args.force)
    with progress_bar("agreement", "frame", args.quiet) as progress:
        result = compare(project, options, progress)
    print(format_agreement(result))
    if args.json is not None:
        parameters = {
            "dataset": str(project.dataset),
            "project": None if project.file is None else str(project.file),
            "annotators": {a.name: str(a.root) for a in project.annotators},
            "frames": frames_parameter(args.frames),
        }
        write_agreement_json(args.json, result, parameters)
    return 0


def _missing_dataset(paths: Sequence[Path], index: int) -> None:
    """What :func:`_project` says of a PROJECT that does not exist."""
    from referee.core.cli.inputs import is_project_input

    if is_project_input(paths[index]):
        input_checks.opened(paths, index)
    raise InputFileError(paths[index], _NOT_OPENED)


def _missing_annotator(paths: Sequence[Path], index: int) -> None:
    """What the agreement says of an annotator's folder that does not exist."""
    root = paths[index]
    name = root.resolve().name or str(root)
    raise InputFileError(
        root,
        f"the ground truth of annotator {name!r} does not exist; give a folder holding "
        + _LAYOUT.replace("%%", "%"),
    )


def _project(args: argparse.Namespace) -> Project:
    """The project file given alone, or a project of the dataset and annotators' folders.

    Raises
    ------
    InvalidOptionError
        Annotators' folders after a project file, fewer than two after a dataset, or two
        folders of one name.
    """
    from dataclasses import replace

    from referee.core.cli.inputs import is_project_input
    from referee.core.model.project import AnnotatorSource, Project
    from referee.core.workflow.projects import open_path

    if is_project_input(args.dataset):
        if args.roots:
            raise InvalidOptionError(
                f"{args.dataset} is a project file, which names its annotators; drop the "
                f"folders after it ({' '.join(map(str, args.roots))})"
            )
        return replace(open_path(args.dataset), frame_range=args.frames)
    if not args.dataset.is_dir():
        raise InputFileError(args.dataset, _NOT_OPENED)
    if len(args.roots) < 2:
        raise InvalidOptionError(
            "give two or more annotators' folders after the dataset, or a project file "
            "(*.referee.json) alone; see 'referee agreement --help'"
        )
    names = [root.resolve().name or str(root) for root in args.roots]
    for name in names:
        if names.count(name) > 1:
            raise InvalidOptionError(
                f"two annotators' folders are both named {name!r}; annotators are named "
                "after their folders: rename one, or name them in a project file"
            )
    return Project(
        name=args.dataset.resolve().name,
        dataset=args.dataset,
        annotators=tuple(AnnotatorSource(n, r) for n, r in zip(names, args.roots)),
        frame_range=args.frames,
    )
