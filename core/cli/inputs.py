"""``DATASET RESULTS...``, or a project file in their place: the inputs of the commands
that read detectors' masks or scores (``evaluate``, ``curves``, ``pseudo``, ``rank``,
``significance``, ``estimate``)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from referee.core.cli import input_checks
from referee.core.errors import InputFileError, InvalidOptionError

if TYPE_CHECKING:
    from referee.core.model.project import Project
    from referee.core.model.videos import FrameRange

#: How messages spell the fewest detectors a command takes.
_NUMBERS = {1: "a", 2: "two"}
#: What DATASET's help adds: a project file may take the place of DATASET RESULTS...
PROJECT_HELP = (
    "; or, alone, a project file (*.referee.json, see 'referee project new') whose "
    "dataset, detectors' {kind} and record of annotated frames are used"
)


def add_dataset_and_results(
    parser: argparse.ArgumentParser, dataset_help: str, results_help: str, kind: str = "masks"
) -> None:
    """The positional ``DATASET [RESULTS ...]``, DATASET possibly a project file."""
    parser.add_argument(
        "dataset",
        type=Path,
        metavar="DATASET",
        help=dataset_help + PROJECT_HELP.format(kind=kind),
    )
    parser.add_argument("results", type=Path, nargs="*", metavar="RESULTS", help=results_help)
    input_checks.require(parser, "dataset", input_checks.dataset)
    input_checks.require(parser, "results", input_checks.results)


def is_project_input(path: Path) -> bool:
    """Whether ``path``, given where a dataset goes, names a project file instead."""
    from referee.core.formats.registry import is_project_file

    return is_project_file(path)


def project_of_inputs(
    command: str,
    dataset: Path,
    results: list[Path],
    frames: FrameRange | None,
    kind: str = "masks",
    at_least: int = 1,
) -> Project:
    """The project of ``DATASET RESULTS...`` (detectors' ``kind``: masks or scores), or of
    the project file given as DATASET alone (keeping its detectors with ``kind``), with
    the frames of ``--frames``.

    Raises
    ------
    InvalidOptionError
        RESULTS with a project file, or neither RESULTS nor a project file, or fewer than
        ``at_least`` RESULTS.
    InputFileError
        Naming the project file, if it does not read, names no dataset or fewer than
        ``at_least`` detectors with ``kind``.
    """
    from referee.core.workflow.projects import open_path, project_of_outputs

    if is_project_input(dataset):
        if results:
            raise InvalidOptionError(
                f"{dataset} is a project file, which names its detectors; drop the RESULTS "
                f"after it ({' '.join(map(str, results))})"
            )
        project = open_path(dataset)
        found = tuple(d for d in project.detectors if getattr(d, kind) is not None)
        if project.dataset is None or len(found) < at_least:
            names = [d.name for d in found]
            what = "no dataset" if project.dataset is None else _count(names, kind)
            raise InputFileError(
                dataset,
                f"the project names {what}; 'referee {command}' needs a CDnet dataset and "
                f"{_NUMBERS[at_least]} detector{'s' if at_least > 1 else ''} with {kind} "
                "(add them with 'referee project new')",
            )
        return replace(project, detectors=found, frame_range=frames)
    if len(results) < at_least:
        need = "one or more" if at_least == 1 else f"at least {_NUMBERS[at_least]}"
        raise InvalidOptionError(
            f"give {need} RESULTS after DATASET, or a project file (*.referee.json) alone; "
            f"see 'referee {command} --help'"
        )
    return project_of_outputs(kind, results, dataset=dataset, frame_range=frames)


def _count(names: list[str], kind: str) -> str:
    if not names:
        return f"no detector with {kind}"
    plural = "s" if len(names) > 1 else ""
    return f"only {len(names)} detector{plural} with {kind} ({', '.join(names)})"


def input_parameters(project: Project) -> dict[str, str]:
    """What an output records of the inputs: the dataset, and the project file if one was
    given."""
    recorded = {"dataset": str(project.dataset)}
    if project.file is not None:
        recorded["project"] = str(project.file)
    return recorded
