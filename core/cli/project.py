"""``referee project new``: write a project file from folders and files on disk."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.core.cli.common import Commands, add_force, check_output_file
from referee.core.model.project import PROJECT_SUFFIX

_NEW_DESCRIPTION = f"""\
Write a project file (*{PROJECT_SUFFIX}) naming a CDnet dataset, the detectors' results
and, optionally, action, box and count ground truth with the detectors' files; then
give it to 'referee evaluate PROJECT', 'referee report PROJECT' or the window (File ›
Open). Paths are stored relative to the project file's folder.

Each detector is named after its results folder or file (its name without extension):
outputs of one name (results/mog2, results-soft/mog2, actions/mog2.xml) are one
detector's. Every source is checked as the window's Data dock checks it (the dataset
lists videos whose first frame reads, each results root has every video, files
parse) and listed, one line each; a missing or unreadable source is an error and
nothing is written, unless --no-check.

Layouts:
  DATASET   <category>/<video>/ folders holding input/in%06d.jpg, groundtruth/gt%06d.png,
            ROI.bmp and temporalROI.txt (CDnet), or one such video folder
  RESULTS   <category>/<video>/bin%06d.png, 0/255 masks, one root per detector
  SCORES    the same layout, 0-255 scores (for 'referee curves')
  COUNTS    <category>_<video>/groundtruth.csv and <category>_<video>/<detector>.csv
"""


def add_commands(commands: Commands) -> None:
    """Register ``project`` (and its action ``new``) on the top-level parser."""
    parser = commands.add_parser(
        "project",
        help="make a project file (*.referee.json) from your dataset and results",
        description="Project files: 'referee project new FILE --dataset DIR --results "
        "ROOT...' writes one.",
    )
    actions = parser.add_subparsers(title="actions", metavar="ACTION", required=True)
    new = actions.add_parser(
        "new",
        help="write a project file naming a dataset, results and ground truth, each checked",
        description=_NEW_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    new.add_argument(
        "file", type=Path, metavar="FILE", help=f"the project file to write (*{PROJECT_SUFFIX})"
    )
    new.add_argument(
        "--dataset",
        type=Path,
        metavar="DIR",
        help="the CDnet dataset folder (or one video folder); needed with --results and --scores",
    )
    new.add_argument(
        "--results",
        type=Path,
        nargs="+",
        default=[],
        metavar="ROOT",
        help="one results root of binary masks per detector, named after the folder",
    )
    new.add_argument(
        "--scores",
        type=Path,
        nargs="+",
        default=[],
        metavar="ROOT",
        help="results roots of soft scores (0-255); one of a --results root's name is the "
        "same detector's",
    )
    new.add_argument(
        "--actions",
        type=Path,
        nargs="+",
        metavar=("GT", "DET"),
        help="LIRIS XML: the ground-truth actions, then each detector's (named after the file)",
    )
    new.add_argument(
        "--boxes",
        type=Path,
        nargs="+",
        metavar=("GT", "DET"),
        help="per-frame boxes (LIRIS XML, MOTChallenge CSV or benchmark folder): the ground "
        "truth, then each detector's (named after the file or folder)",
    )
    new.add_argument(
        "--counts",
        type=Path,
        metavar="DIR",
        help="counts root: <category>_<video>/groundtruth.csv and <detector>.csv",
    )
    new.add_argument(
        "--name", help=f"the project's name (default: FILE's name without {PROJECT_SUFFIX})"
    )
    new.add_argument(
        "--no-check",
        action="store_true",
        help="write the project without checking its sources (files made later, a slow disk)",
    )
    add_force(new, "replace FILE if it exists")
    new.set_defaults(run=run_new)


def run_new(args: argparse.Namespace) -> int:
    """Build the project, check and list its sources, write it."""
    from referee.core.workflow.new_project import ProjectSources, new_project, write_new_project
    from referee.core.workflow.sources import source_status

    check_output_file(args.file, args.force)
    actions, boxes = args.actions or [], args.boxes or []
    sources = ProjectSources(
        dataset=args.dataset,
        masks=tuple(args.results),
        scores=tuple(args.scores),
        actions_groundtruth=actions[0] if actions else None,
        actions=tuple(actions[1:]),
        boxes_groundtruth=boxes[0] if boxes else None,
        boxes=tuple(boxes[1:]),
        counts=args.counts,
    )
    project = new_project(args.file, sources, args.name)
    rows = None if args.no_check else source_status(project)
    width = max((len(row.title) for row in rows or ()), default=0)
    for row in rows or ():
        where = f"{row.path}: " if row.path is not None else ""
        print(f"{row.state:<7}  {row.title:<{width}}  {where}{row.message}")
    written = write_new_project(
        project, rows, "fix it, or add --no-check to write the project anyway", args.force
    )
    count = len(written.detectors)
    unchecked = ", sources not checked" if rows is None else ""
    print(f"wrote {written.file} ({count} detector{'' if count == 1 else 's'}{unchecked})")
    return 0
