"""The ``referee`` command line.

Every sub-command is a thin layer over library functions: parse the options,
call ``referee.core``, print or write the result. A :class:`RefereeError`
(bad input, bad option) is printed as one line and exits with status 2;
there is never a traceback for a user's mistake.
"""

from __future__ import annotations

import argparse
import functools
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import TextIO

from referee.core import __version__
from referee.core.cli import (
    actions,
    agreement,
    boxes,
    convert,
    counts,
    curves,
    demo,
    estimate,
    evaluate,
    project,
    pseudo,
    rank,
    report,
    significance,
)
from referee.core.cli.common import Commands, is_core_command, run_command
from referee.core.errors import RefereeError, RefereeWarning

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130
#: Like a program killed by SIGPIPE, as shells expect when a pipe's reader ends first.
EXIT_BROKEN_PIPE = 141
#: The status of a command ended by SIGTERM (128 + 15, as a shell reports it).
EXIT_TERMINATED = 143
#: Entry-point group of commands that other packages add (the desktop application's ``gui``).
COMMAND_PLUGINS = "referee.commands"
#: The command run when none is given, if a plugin registered it.
DEFAULT_COMMAND = "gui"
#: The command modules, in the order of ``referee --help``.
COMMANDS = (
    project,
    evaluate,
    curves,
    demo,
    actions,
    boxes,
    counts,
    convert,
    pseudo,
    rank,
    significance,
    estimate,
    agreement,
    report,
)

DESCRIPTION = """\
Referee evaluates video-analysis algorithms against ground truth.

Typical use:
  referee                              open the desktop application on the demo project
  referee gui PATH                     open a project, dataset folder or video in it
  referee demo                         make a small demo dataset and evaluate it
  referee project new FILE --dataset DIR --results ROOT...
                                       make a project file of your own data
  referee evaluate DATASET RESULTS...  evaluate background-subtraction results
  referee evaluate PROJECT             the same, with a project file (so do curves,
                                       pseudo, rank, significance, estimate)
  referee summarize CM.csv...          summarize published per-video counts
  referee actions GT.xml DET.xml       LIRIS HARL action localization
  referee boxes GT DET                 per-frame boxes (SFDA, MODA, N-MODP)
  referee counts GT.csv EST.csv -w W   counting (CCR_WCC)
  referee convert IN OUT --to FORMAT   annotations from CVAT, COCO, YOLO, labelme… to another
  referee pseudo DATASET RESULTS...    quality without ground truth (pseudo ground truth)
  referee rank DATASET RESULTS...      which frames to annotate next
  referee significance DATASET A B --a A --b B   do two methods really differ?
  referee estimate DATASET RESULTS... --labels K --simulate   F1 with intervals from K labels
  referee agreement PROJECT            how well annotators agree (kappa, Dice, STAPLE)
  referee report PROJECT --html FILE --pdf FILE  a stand-alone report of everything
"""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``referee`` command; returns the exit status."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if _plugins_needed(parser, arguments):
        add_command_plugins(subcommands(parser))
    args = parser.parse_args(arguments)
    if not hasattr(args, "run"):  # no command: the desktop application on the demo
        if DEFAULT_COMMAND not in _command_names(parser):
            parser.print_help()
            return EXIT_USER_ERROR
        args = parser.parse_args([DEFAULT_COMMAND])
    try:
        with warnings.catch_warnings(), _sigterm_interrupts(args):
            warnings.simplefilter("always", RefereeWarning)
            warnings.showwarning = functools.partial(_show_warning, warnings.showwarning)
            status = run_command(args)
            sys.stdout.flush()  # a closed pipe shows here, not at exit
            return status
    except RefereeError as error:
        print(f"referee: error: {error}", file=sys.stderr)
        return EXIT_USER_ERROR
    except Terminated:
        print("referee: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print("referee: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader of the output went away (``referee … | head``)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return EXIT_BROKEN_PIPE


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that clean-up runs as for Ctrl+C."""


@contextmanager
def _sigterm_interrupts(args: argparse.Namespace) -> Iterator[None]:
    """While a core command runs, SIGTERM raises :class:`Terminated`.

    The command then stops its worker processes and ends with one line, like
    Ctrl+C. A command added by a plugin (the desktop application) keeps its own
    signal handling.
    """
    if not is_core_command(args) or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _terminate(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process at once
    raise Terminated


def _show_warning(
    default: Callable[..., None],
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """Print a :class:`RefereeWarning` as one line ``referee: warning: ...``; others as usual."""
    if issubclass(category, RefereeWarning):
        print(f"referee: warning: {message}", file=sys.stderr)
    else:
        default(message, category, filename, lineno, file, line)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with the core's commands (:func:`add_command_plugins` adds
    the others')."""
    parser = argparse.ArgumentParser(
        prog="referee",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"referee {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    for module in COMMANDS:
        module.add_commands(commands)
    return parser


def subcommands(parser: argparse.ArgumentParser) -> Commands:
    """The commands of ``parser`` (from :func:`build_parser`), by name in ``choices``."""
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def _command_names(parser: argparse.ArgumentParser) -> list[str]:
    return list(subcommands(parser).choices)


def _plugins_needed(parser: argparse.ArgumentParser, arguments: Sequence[str]) -> bool:
    """Whether ``arguments`` may run a plugin's command or list every command.

    Not when they run one of the core's commands or ask for the version: loading the
    plugins costs a scan of every installed package. A plugin cannot take a core
    command's name (argparse refuses a second parser of one name), so the first
    argument tells.
    """
    return not arguments or (
        arguments[0] != "--version" and arguments[0] not in _command_names(parser)
    )


def add_command_plugins(commands: Commands) -> None:
    """Commands other packages register under the ``referee.commands`` entry-point group.

    The desktop application registers ``gui`` this way, so the core never imports it.
    """
    from importlib.metadata import entry_points

    for entry in entry_points(group=COMMAND_PLUGINS):
        entry.load()(commands)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
