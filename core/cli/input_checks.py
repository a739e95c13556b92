"""Inputs that must exist, checked before a command imports or computes anything.

A command declares each argument naming files or folders it reads with :func:`require`,
with what it says when one of them does not exist; :func:`check_inputs` (run by
:func:`~referee.core.cli.common.run_command` before the command) says it of the first
missing path. A mistyped path is then reported at once, in the command's own words,
instead of after the seconds its libraries take to import. Anything else wrong with a
path that exists (unreadable, malformed, of the wrong kind) the command says itself.

This module imports nothing heavy; the messages it cannot share with the code that
reports them later are the same words (tests/core/test_input_checks.py compares them).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from referee.core.errors import InputFileError, RefereeError

#: Namespace attribute listing a command's inputs that must exist (see :func:`require`).
INPUT_CHECKS = "input_checks"

#: Raises the command's error for ``paths[index]``, which does not exist (``paths``: every
#: path the argument holds); returning instead accepts it (``report demo``).
Missing: TypeAlias = Callable[[Sequence[Path], int], None]

#: What the commands that read a CDnet dataset say of a dataset folder that does not exist.
NO_DATASET = "dataset folder does not exist; give the folder that holds the videos"
#: ... and of a method's results folder that does not exist.
NO_RESULTS = "results folder does not exist"


@dataclass(frozen=True)
class InputCheck:
    """An argument naming files or folders a command reads, and what it says of a missing one."""

    dest: str
    missing: Missing
    #: Whether the paths must exist with the other arguments given (default: always).
    applies: Callable[[argparse.Namespace], bool] | None = None


def require(
    parser: argparse.ArgumentParser,
    dest: str,
    missing: Missing,
    applies: Callable[[argparse.Namespace], bool] | None = None,
) -> None:
    """Declare that the paths of argument ``dest`` must exist (if ``applies`` to the
    arguments), and the error ``missing`` raises for one that does not; inputs are
    checked in the order they are declared."""
    declared = parser.get_default(INPUT_CHECKS) or ()
    parser.set_defaults(**{INPUT_CHECKS: (*declared, InputCheck(dest, missing, applies))})


def check_inputs(args: argparse.Namespace) -> None:
    """Raise the command's error for the first declared input path that does not exist.

    Raises
    ------
    RefereeError
        Naming the path (see :func:`require`).
    """
    for check in getattr(args, INPUT_CHECKS, ()):
        if check.applies is not None and not check.applies(args):
            continue
        value = getattr(args, check.dest, None)
        given = value if isinstance(value, list) else [] if value is None else [value]
        paths = [Path(path) for path in given]
        for index, path in enumerate(paths):
            if absent(path):
                check.missing(paths, index)


def absent(path: Path) -> bool:
    """Whether ``path`` does not exist: not whether it cannot be looked at (a folder on
    the way that cannot be searched), which the command says in its own words."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except (OSError, ValueError):
        return False
    return False


def each(error: Callable[[Path], RefereeError]) -> Missing:
    """A :data:`Missing` raising ``error(path)``."""

    def missing(paths: Sequence[Path], index: int) -> None:
        raise error(paths[index])

    return missing


def in_format(kind: str) -> Missing:
    """A path read through the format registry as ``kind``: the message lists its formats."""

    def missing(paths: Sequence[Path], index: int) -> None:
        from referee.core.formats import registry

        registry.detect(paths[index], kind)  # raises: the path does not exist

    return missing


def text_file(paths: Sequence[Path], index: int) -> None:
    """A text file read whole (a CSV of counts or weights)."""
    from referee.core.formats.text_files import check_regular_file

    check_regular_file(paths[index])  # raises: the path does not exist


def opened(paths: Sequence[Path], index: int) -> None:
    """A path opened as a project (a project file, dataset folder or video)."""
    from referee.core.workflow.opening import missing_error

    raise missing_error(paths[index])


def dataset(paths: Sequence[Path], index: int) -> None:
    """A CDnet dataset folder, or a project file in its place."""
    from referee.core.formats.registry import is_project_file

    if is_project_file(paths[index]):
        opened(paths, index)
    raise InputFileError(paths[index], NO_DATASET)


def results(paths: Sequence[Path], index: int) -> None:
    """A method's results folder."""
    raise InputFileError(paths[index], NO_RESULTS)


def dataset_then_results(paths: Sequence[Path], index: int) -> None:
    """``DATASET RESULTS...`` in one argument."""
    (results if index else dataset)(paths, index)
