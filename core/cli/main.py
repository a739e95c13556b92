"""The ``referee`` command line.

Every sub-command is a thin layer over library functions: parse the options,
call ``referee.core``, print or write the result. A :class:`RefereeError`
(bad input, bad option) is printed as one line and exits with status 2;
there is never a traceback for a user's mistake.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, TextIO

from referee.core import __version__
from referee.core.errors import RefereeError, RefereeWarning

if TYPE_CHECKING:
    from referee.core.cli.common import Commands

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
#: The command modules of ``referee.core.cli``, in the order of ``referee --help``, with the
#: commands each adds. A command's module is imported only when that command is asked for
#: (or every one, for ``referee --help``): start-up imports none of the others.
COMMANDS: dict[str, tuple[str, ...]] = {
    "project": ("project",),
    "evaluate": ("evaluate", "summarize"),
    "curves": ("curves",),
    "demo": ("demo-data", "demo"),
    "actions": ("actions",),
    "boxes": ("boxes",),
    "counts": ("counts",),
    "convert": ("convert",),
    "pseudo": ("pseudo",),
    "rank": ("rank",),
    "significance": ("significance",),
    "estimate": ("estimate",),
    "agreement": ("agreement",),
    "report": ("report",),
}
#: The module of each core command.
_MODULE_OF = {name: module for module, names in COMMANDS.items() for name in names}

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
    parser = _parser_for(arguments)
    args = parser.parse_args(arguments)
    if not hasattr(args, "run"):  # no command: the desktop application on the demo
        if DEFAULT_COMMAND not in subcommands(parser).choices:
            parser.print_help()
            return EXIT_USER_ERROR
        args = parser.parse_args([DEFAULT_COMMAND])
    try:
        with warnings.catch_warnings(), _sigterm_interrupts(args):
            warnings.simplefilter("always", RefereeWarning)
            warnings.showwarning = functools.partial(_show_warning, warnings.showwarning)
            from referee.core.cli.common import run_command

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
    from referee.core.cli.common import is_core_command

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


def build_parser(modules: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser with the core's commands (:func:`add_command_plugins` adds
    the others'), or only those of ``modules`` (keys of :data:`COMMANDS`)."""
    return _new_parser(COMMANDS if modules is None else modules)


def _new_parser(modules: Iterable[str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"referee {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    for module in modules:
        importlib.import_module(f"{__package__}.{module}").add_commands(commands)
    return parser


def _parser_for(arguments: Sequence[str]) -> argparse.ArgumentParser:
    """The parser of ``arguments``, with as few commands as they need.

    The first argument tells: ``--version`` needs no command, one of the core's
    commands only its own module, a plugin's command (or none: the desktop
    application's ``gui``) only the plugins, which cost a scan of every installed
    package. Anything else (``--help`` or a mistake) gets every command. A plugin
    cannot take a core command's name (argparse refuses a second parser of one name).
    """
    first = arguments[0] if arguments else DEFAULT_COMMAND
    if first == "--version":
        return _new_parser(())
    if first in _MODULE_OF:
        return _new_parser((_MODULE_OF[first],))
    plugins = command_plugins()
    if not first.startswith("-"):
        parser = _new_parser(())
        for add_commands in plugins:
            add_commands(subcommands(parser))
        if first in subcommands(parser).choices:
            return parser
    parser = build_parser()
    for add_commands in plugins:
        add_commands(subcommands(parser))
    return parser


def subcommands(parser: argparse.ArgumentParser) -> Commands:
    """The commands of ``parser`` (from :func:`build_parser`), by name in ``choices``."""
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def add_command_plugins(commands: Commands) -> None:
    """Commands other packages register under the ``referee.commands`` entry-point group.

    The desktop application registers ``gui`` this way, so the core never imports it.
    """
    for add_commands in command_plugins():
        add_commands(commands)


def command_plugins() -> list[Callable[[Commands], None]]:
    """The functions adding the commands of the ``referee.commands`` entry-point group."""
    from importlib.metadata import entry_points

    return [entry.load() for entry in entry_points(group=COMMAND_PLUGINS)]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
