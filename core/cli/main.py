"""The ``referee`` command line.

Every sub-command is a thin layer over library functions: parse the options,
call ``referee.core``, print or write the result. A :class:`RefereeError`
(bad input, bad option) is printed as one line and exits with status 2;
there is never a traceback for a user's mistake.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from referee.core import __version__
from referee.core.cli import (
    actions,
    boxes,
    counts,
    curves,
    demo,
    evaluate,
    pseudo,
    rank,
    report,
    significance,
)
from referee.core.cli.common import Commands
from referee.core.errors import RefereeError

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130
#: Entry-point group of commands that other packages add (the desktop application's ``gui``).
COMMAND_PLUGINS = "referee.commands"
#: The command run when none is given, if a plugin registered it.
DEFAULT_COMMAND = "gui"
#: The command modules, in the order of ``referee --help``.
COMMANDS = (evaluate, curves, demo, actions, boxes, counts, pseudo, rank, significance, report)

DESCRIPTION = """\
Referee evaluates video-analysis algorithms against ground truth.

Typical use:
  referee                              open the desktop application on the demo project
  referee gui PATH                     open a project, dataset folder or video in it
  referee demo                         make a small demo dataset and evaluate it
  referee evaluate DATASET RESULTS...  evaluate background-subtraction results
  referee summarize CM.csv...          summarize published per-video counts
  referee actions GT.xml DET.xml       LIRIS HARL action localization
  referee boxes GT DET                 per-frame boxes (SFDA, MODA, N-MODP)
  referee counts GT.csv EST.csv -w W   counting (CCR_WCC)
  referee pseudo DATASET RESULTS...    quality without ground truth (pseudo ground truth)
  referee rank DATASET RESULTS...      which frames to annotate next
  referee significance DATASET A B --a A --b B   do two methods really differ?
  referee report PROJECT --html FILE --pdf FILE  a stand-alone report of everything
"""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``referee`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):  # no command: the desktop application on the demo
        if DEFAULT_COMMAND not in _command_names(parser):
            parser.print_help()
            return EXIT_USER_ERROR
        args = parser.parse_args([DEFAULT_COMMAND])
    try:
        status: int = args.run(args)
        return status
    except RefereeError as error:
        print(f"referee: error: {error}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("referee: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command."""
    parser = argparse.ArgumentParser(
        prog="referee",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"referee {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    for module in COMMANDS:
        module.add_commands(commands)
    add_command_plugins(commands)
    return parser


def _command_names(parser: argparse.ArgumentParser) -> list[str]:
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(commands.choices)


def add_command_plugins(commands: Commands) -> None:
    """Commands other packages register under the ``referee.commands`` entry-point group.

    The desktop application registers ``gui`` this way, so the core never imports it.
    """
    from importlib.metadata import entry_points

    for entry in entry_points(group=COMMAND_PLUGINS):
        entry.load()(commands)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
